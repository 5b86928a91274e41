//! Where the session host keeps its socket and its state, and the checks that keep them
//! private: directories 0700 and owned by the user, nothing followed through symlinks.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

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

/// Listens on a new Unix socket at `path` that is private (0600) from the moment anyone can
/// find it there.
///
/// Binding creates the socket file with the umask's mode, and a client that connects before
/// a later `chmod` finds a socket that fails its ownership check. So the socket is bound
/// under a staging name beside `path`, made private, and only then linked to `path`; the
/// link fails with `AlreadyExists` rather than replace anything at `path`.
pub fn bind_private_socket(path: &Path) -> std::io::Result<UnixListener> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    // Short, so a path near the 108-byte socket address limit still fits staged.
    let staging = path.with_file_name(format!(
        ".{:x}-{:x}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    // A name with this process's id can only be left by an earlier process of that id.
    let _ = fs::remove_file(&staging);
    let listener = UnixListener::bind(&staging)?;
    let published = fs::set_permissions(&staging, fs::Permissions::from_mode(0o600))
        .and_then(|()| fs::hard_link(&staging, path));
    let _ = fs::remove_file(&staging);
    published.map(|()| listener)
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
    use std::os::unix::net::UnixStream;

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

    #[test]
    fn a_socket_is_private_whenever_it_can_be_found() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("host.sock");
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Looks for the socket as a client would, as fast as it can, while it is bound and
        // removed again and again.
        let watcher = {
            let (path, done) = (path.clone(), std::sync::Arc::clone(&done));
            std::thread::spawn(move || {
                let (mut seen, mut exposed) = (0, Vec::new());
                while !done.load(Ordering::Relaxed) {
                    if let Ok(meta) = fs::symlink_metadata(&path) {
                        seen += 1;
                        if meta.mode() & 0o077 != 0 {
                            exposed.push(format!("{:o}", meta.mode() & 0o777));
                        }
                    }
                }
                (seen, exposed)
            })
        };
        for _ in 0..2000 {
            let listener = bind_private_socket(&path).unwrap();
            UnixStream::connect(&path).unwrap();
            assert!(listener.accept().is_ok());
            fs::remove_file(&path).unwrap();
        }
        done.store(true, Ordering::Relaxed);
        let (seen, exposed) = watcher.join().unwrap();
        assert!(seen > 0, "the watcher never saw the socket");
        assert!(
            exposed.is_empty(),
            "{} of {seen} sightings open to others, the first mode {:?}",
            exposed.len(),
            exposed.first()
        );
        // Nothing is left beside it, and an existing file is never replaced.
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
        fs::write(&path, b"x").unwrap();
        let refused = bind_private_socket(&path).unwrap_err();
        assert_eq!(refused.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&path).unwrap(), b"x");
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }
}
