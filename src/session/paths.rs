//! Where the session host keeps its socket and its state, and the checks that keep them
//! private: directories 0700 and owned by the user, nothing followed through symlinks.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::error::{ErrorCode, SessionError};

fn uid() -> u32 {
    rustix::process::getuid().as_raw()
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// The runtime directory: `$SHOTTY_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/shotty`, else
/// `/tmp/shotty-<uid>`.
pub fn runtime_dir() -> PathBuf {
    env_dir("SHOTTY_RUNTIME_DIR")
        .or_else(|| env_dir("XDG_RUNTIME_DIR").map(|d| d.join("shotty")))
        .unwrap_or_else(|| PathBuf::from(format!("/tmp/shotty-{}", uid())))
}

/// The state directory, where ended sessions are retained: `$SHOTTY_STATE_DIR`; else, when
/// `$SHOTTY_RUNTIME_DIR` chooses a host of its own, `<runtime dir>/state`, so that host's
/// sessions never mix with another's; else `$XDG_STATE_HOME/shotty`, else
/// `~/.local/state/shotty`, else `<runtime dir>/state`.
pub fn state_dir() -> PathBuf {
    env_dir("SHOTTY_STATE_DIR")
        .or_else(|| env_dir("SHOTTY_RUNTIME_DIR").map(|d| d.join("state")))
        .or_else(|| env_dir("XDG_STATE_HOME").map(|d| d.join("shotty")))
        .or_else(|| env_dir("HOME").map(|h| h.join(".local/state/shotty")))
        .unwrap_or_else(|| runtime_dir().join("state"))
}

/// The host's socket.
pub fn socket_path() -> PathBuf {
    runtime_dir().join("host.sock")
}

/// Writes `bytes` to `path` as a private file (0600), whole or not at all, synced
/// ([`whole_file`](super::whole_file)).
pub fn write_private_file(path: &Path, bytes: &[u8]) -> Result<(), SessionError> {
    super::whole_file::replace(path, bytes, 0o600, true)
        .map_err(|e| SessionError::io(&format!("cannot write {}", path.display()), e))
}

/// Creates `dir` (and missing parents) with mode 0700, or checks an existing one: it must be
/// a real directory owned by this user; a looser mode is tightened to 0700.
pub fn ensure_private_dir(dir: &Path) -> Result<(), SessionError> {
    if let Some(parent) = dir.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| SessionError::io(&format!("cannot create {}", parent.display()), e))?;
    }
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(SessionError::io(
                &format!("cannot create {}", dir.display()),
                e,
            ));
        }
    }
    let meta = fs::symlink_metadata(dir)
        .map_err(|e| SessionError::io(&format!("cannot inspect {}", dir.display()), e))?;
    if !meta.file_type().is_dir() {
        return Err(SessionError::new(
            ErrorCode::PermissionDenied,
            format!("{} is not a directory", dir.display()),
        ));
    }
    if meta.uid() != uid() {
        return Err(SessionError::new(
            ErrorCode::PermissionDenied,
            format!(
                "{} belongs to uid {}, not to this user",
                dir.display(),
                meta.uid()
            ),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .map_err(|e| SessionError::io(&format!("cannot make {} private", dir.display()), e))?;
    }
    Ok(())
}

/// Checks that a socket or file is this user's and not accessible to others.
pub fn check_private_file(path: &Path) -> Result<(), SessionError> {
    let meta = fs::symlink_metadata(path)
        .map_err(|e| SessionError::io(&format!("cannot inspect {}", path.display()), e))?;
    if meta.uid() != uid() || meta.mode() & 0o077 != 0 || meta.file_type().is_symlink() {
        return Err(SessionError::new(
            ErrorCode::PermissionDenied,
            format!(
                "{} must belong to this user with mode 0600 (found uid {}, mode {:o})",
                path.display(),
                meta.uid(),
                meta.mode() & 0o777
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_dirs_are_created_0700_and_loose_ones_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b/runtime");
        ensure_private_dir(&dir).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        ensure_private_dir(&dir).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn symlinks_and_files_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("target");
        fs::create_dir(&target).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(
            ensure_private_dir(&link).unwrap_err().code,
            ErrorCode::PermissionDenied
        );
        let file = tmp.path().join("file");
        fs::write(&file, b"x").unwrap();
        assert_eq!(
            ensure_private_dir(&file).unwrap_err().code,
            ErrorCode::PermissionDenied
        );
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            check_private_file(&file).unwrap_err().code,
            ErrorCode::PermissionDenied
        );
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        check_private_file(&file).unwrap();
    }
}
