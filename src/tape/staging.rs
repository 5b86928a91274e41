//! A tape's outputs put in place together, so that a run that cannot write one of them writes
//! none: each file is first written whole to a temporary file beside where it goes (which is
//! where writing fails: a directory in the way, no permission, a full disk), and only once
//! every one is written are they renamed into place. Until then, dropping the [`Staging`]
//! removes the temporary files and the directories made for them.

use std::fs::{OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tempfile::TempPath;

use super::parser::{Location, TapeError};
use crate::session::artifacts::{Destination, NEW_FILE_MODE, destination, write_in_place};

/// Files written but not yet in place.
#[derive(Default)]
pub struct Staging {
    /// In the order added (a later file for the same path wins, as it would written in turn).
    files: Vec<Staged>,
    /// Directories made for the files, parents first: removed again if they are not kept.
    made_dirs: Vec<PathBuf>,
}

/// One file waiting to be put in place.
struct Staged {
    /// What the tape named (for the error).
    path: PathBuf,
    /// The `Output` or `Screenshot` that asked for it.
    at: Location,
    how: Placing,
}

/// How a staged file is put in place ([`destination`] decides).
enum Placing {
    /// Renamed over `target`. A closed file, only its name: a frame directory's thousands of
    /// files hold no descriptors while they wait.
    Rename { temp: TempPath, target: PathBuf },
    /// Written into in place at the end ([`Destination::InPlace`]).
    InPlace { bytes: Vec<u8> },
}

impl Staging {
    /// Writes `bytes` for `path` to a temporary file beside where it lands, making its
    /// directory if needed; the error names `at`.
    pub fn add(&mut self, path: &Path, bytes: &[u8], at: &Location) -> Result<(), TapeError> {
        let how = match destination(path, NEW_FILE_MODE).map_err(|e| at.error(e))? {
            Destination::InPlace => Placing::InPlace {
                bytes: bytes.to_vec(),
            },
            Destination::Replace { target, mode } => {
                let dir = self.make_parent(&target).map_err(|e| at.error(e))?;
                let temp = temp_file(&dir, bytes, mode)
                    .map_err(|e| at.error(format!("cannot write {}: {e}", path.display())))?;
                Placing::Rename { temp, target }
            }
        };
        self.files.push(Staged {
            path: path.to_owned(),
            at: at.clone(),
            how,
        });
        Ok(())
    }

    /// Puts every file in place, in the order added; returns their paths.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, TapeError> {
        let mut placed = Vec::new();
        for staged in std::mem::take(&mut self.files) {
            match staged.how {
                Placing::Rename { temp, target } => temp.persist(&target).map_err(|e| {
                    let message = format!("cannot write {}: {}", staged.path.display(), e.error);
                    staged.at.error(message)
                })?,
                Placing::InPlace { bytes } => {
                    write_in_place(&staged.path, &bytes).map_err(|e| staged.at.error(e))?;
                }
            }
            placed.push(staged.path);
        }
        self.made_dirs.clear();
        Ok(placed)
    }

    /// The directory `target` goes in, made (with its missing parents, each noted) if it
    /// does not exist.
    fn make_parent(&mut self, target: &Path) -> Result<PathBuf, String> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        let missing: Vec<&Path> = dir
            .ancestors()
            .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
            .collect();
        for d in missing.into_iter().rev() {
            std::fs::create_dir(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
            self.made_dirs.push(d.to_owned());
        }
        Ok(dir)
    }
}

impl Drop for Staging {
    /// What was not put in place is removed: the temporary files first, then the directories
    /// made for them, deepest first (each only if empty, so nothing else is lost).
    fn drop(&mut self) {
        self.files.clear();
        for dir in self.made_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// A hidden temporary file in `dir` holding `bytes`, with `mode`, closed. Opened by hand, so
/// that a failure is the system's error alone, without the random name tried.
fn temp_file(dir: &Path, bytes: &[u8], mode: u32) -> std::io::Result<TempPath> {
    let mut temp = tempfile::Builder::new()
        .prefix(".shotty-")
        .suffix(".tmp")
        .make_in(dir, |path| {
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(path)
        })?;
    let file = temp.as_file_mut();
    // The mode given at creation is masked by the umask; the replaced file's is meant.
    file.set_permissions(Permissions::from_mode(mode))?;
    file.write_all(bytes)?;
    file.flush()?;
    Ok(temp.into_temp_path())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Location {
        Location {
            path: PathBuf::from("t.tape"),
            line: 3,
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn nothing_is_in_place_until_every_file_is_written() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        std::fs::write(dir.join("old.txt"), "old").expect("old file");
        std::fs::create_dir(dir.join("busy.gif")).expect("a directory in the way");
        let mut staging = Staging::default();
        staging
            .add(&dir.join("old.txt"), b"new", &at())
            .expect("staged");
        staging
            .add(&dir.join("new/deeper/a.png"), b"png", &at())
            .expect("staged");
        let err = staging
            .add(&dir.join("busy.gif"), b"gif", &at())
            .expect_err("a directory is in the way");
        assert!(
            err.to_string().starts_with("t.tape:3: cannot write ")
                && err.message.ends_with("busy.gif: it is a directory"),
            "{err}"
        );
        drop(staging);
        assert_eq!(
            names(dir),
            ["busy.gif", "old.txt"],
            "no temporaries or new dirs"
        );
        assert_eq!(std::fs::read(dir.join("old.txt")).expect("read"), b"old");
    }

    #[test]
    fn committed_files_replace_their_targets_keeping_their_mode() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        let old = dir.join("old.txt");
        std::fs::write(&old, "old").expect("old file");
        std::fs::set_permissions(&old, Permissions::from_mode(0o600)).expect("mode");
        std::os::unix::fs::symlink("old.txt", dir.join("link.txt")).expect("symlink");
        let mut staging = Staging::default();
        staging
            .add(&dir.join("link.txt"), b"through the link", &at())
            .expect("staged");
        staging
            .add(&dir.join("sub/a.png"), b"png", &at())
            .expect("staged");
        let placed = staging.commit().expect("committed");
        assert_eq!(placed, [dir.join("link.txt"), dir.join("sub/a.png")]);
        assert_eq!(names(dir), ["link.txt", "old.txt", "sub"]);
        assert_eq!(std::fs::read(&old).expect("read"), b"through the link");
        let mode = std::fs::metadata(&old).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let new = std::fs::metadata(dir.join("sub/a.png")).expect("meta");
        assert_eq!(new.permissions().mode() & 0o777, 0o644);
    }
}
