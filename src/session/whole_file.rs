//! Files written whole or not at all, even by a process that is killed while it writes.
//!
//! The bytes go to an unnamed file in the target's directory (`O_TMPFILE`), which vanishes
//! with its descriptor if the writer dies; only once complete does it get a name, a random
//! one beside the target, and is renamed over the target. A killed writer can leave at most a
//! complete file under that random name, in the moment between the two steps, never a partial
//! one. Where the file system has no unnamed files, a named temporary file stands in (a
//! killed writer can then leave it behind, partial).

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, AsRawFd};
use std::path::Path;

use rustix::fs::{AtFlags, CWD, Mode, OFlags};
use rustix::io::Errno;

/// Replaces `path` with a file holding `bytes`, mode `mode`; with `durable`, synced before it
/// is named, so a power loss leaves the old file or the new one.
pub fn replace(path: &Path, bytes: &[u8], mode: u32, durable: bool) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let fill = |file: &mut File| -> std::io::Result<()> {
        file.write_all(bytes)?;
        if durable {
            file.sync_all()?;
        }
        Ok(())
    };
    match rustix::fs::openat(
        CWD,
        dir,
        OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC,
        Mode::from_raw_mode(mode),
    ) {
        Ok(fd) => {
            let mut file = File::from(fd);
            // The mode given at creation is masked by the umask; the caller's is meant.
            rustix::fs::fchmod(file.as_fd(), Mode::from_raw_mode(mode))?;
            fill(&mut file)?;
            // Named through /proc/self/fd, which needs no privilege (unlike linking the
            // descriptor itself); a random name, tried again if taken.
            let source = format!("/proc/self/fd/{}", file.as_raw_fd());
            let named = tempfile::Builder::new()
                .prefix(".shotty-")
                .suffix(".tmp")
                .make_in(dir, |name| {
                    rustix::fs::linkat(CWD, source.as_str(), CWD, name, AtFlags::SYMLINK_FOLLOW)
                        .map_err(std::io::Error::from)
                })?;
            // A failed rename removes the name again.
            named.persist(path).map(drop).map_err(|e| e.error)
        }
        // File systems without unnamed files.
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL) => {
            let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
            tmp.as_file()
                .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))?;
            fill(tmp.as_file_mut())?;
            tmp.persist(path).map(drop).map_err(|e| e.error)
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_file_is_replaced_whole_with_the_mode_asked_for() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("out.json");
        std::fs::write(&path, b"old").expect("old file");
        replace(&path, b"new contents", 0o600, true).expect("replaced");
        assert_eq!(std::fs::read(&path).expect("read"), b"new contents");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.json")]);
    }
}
