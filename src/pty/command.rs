//! What to run in a PTY: program, arguments, directory, environment, size.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::error::{PtyError, os_message};

/// Variables set for the child by [`PtyCommand::color_env`] (SPEC §3), so that programs which
/// probe their environment emit full colour into the PTY.
pub const COLOR_ENV: [(&str, &str); 3] = [
    ("TERM", crate::term::TERM_NAME),
    ("COLORTERM", "truecolor"),
    ("FORCE_COLOR", "3"),
];

/// Variables removed by [`PtyCommand::color_env`]: many tools disable colour or animation when
/// they believe they run in CI.
pub const DELETED_ENVS: [&str; 2] = ["CI", "TF_BUILD"];

/// Variables removed for every program in a PTY: its size is the terminal's, which it
/// changes, and programs that read these first (Python's `shutil.get_terminal_size`,
/// Textual, many command-line tools) would lay out for another size. Parents do pass them on:
/// pytest-xdist's workers have `COLUMNS=80 LINES=24`, and some shells export them.
pub const SIZE_ENVS: [&str; 2] = ["COLUMNS", "LINES"];

/// One step of the environment recipe; applied in order on top of the inherited environment.
#[derive(Clone, Debug, PartialEq, Eq)]
enum EnvOp {
    Set(OsString, OsString),
    Remove(OsString),
    Clear,
}

/// The `--no-colorenv` / `--no-delete-envs` switches of SPEC §3 and §4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColorEnvFlags {
    /// Do not set [`COLOR_ENV`].
    pub no_colorenv: bool,
    /// Do not remove [`DELETED_ENVS`].
    pub no_delete_envs: bool,
}

/// What to run in a PTY. The program is executed directly — no shell is involved unless the
/// program is one.
#[derive(Clone, Debug)]
pub struct PtyCommand {
    pub(super) program: OsString,
    pub(super) args: Vec<OsString>,
    cwd: Option<PathBuf>,
    env: Vec<EnvOp>,
    pub(super) width: u16,
    pub(super) height: u16,
    /// The value of [`TREE_ENV`](super::TREE_ENV) for the child; a fresh one when unset.
    pub(super) tree_tag: Option<String>,
}

impl PtyCommand {
    /// Runs `program` (looked up on the child's `PATH` unless it contains a `/`) at 100×24,
    /// in the caller's working directory, with the caller's environment.
    pub fn new(program: impl Into<OsString>) -> PtyCommand {
        PtyCommand {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            width: 100,
            height: 24,
            tree_tag: None,
        }
    }

    /// Appends one argument.
    pub fn arg(&mut self, arg: impl Into<OsString>) -> &mut Self {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets the working directory (default: the caller's).
    pub fn cwd(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets a variable. Environment changes apply in call order, so a later call wins.
    pub fn env(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> &mut Self {
        self.env.push(EnvOp::Set(key.into(), value.into()));
        self
    }

    /// Removes a variable (inherited or set earlier).
    pub fn env_remove(&mut self, key: impl Into<OsString>) -> &mut Self {
        self.env.push(EnvOp::Remove(key.into()));
        self
    }

    /// Drops the inherited environment and everything set so far.
    pub fn env_clear(&mut self) -> &mut Self {
        self.env.push(EnvOp::Clear);
        self
    }

    /// Sets the terminal size in cells.
    pub fn size(&mut self, width: u16, height: u16) -> &mut Self {
        self.width = width;
        self.height = height;
        self
    }

    /// Tags the child's process tree with `tag` (from [`new_tree_tag`](super::new_tree_tag))
    /// instead of a fresh value: for a caller that records the tag before the spawn, so that
    /// whatever the spawn starts can be found even if the caller dies during it.
    pub fn tree_tag(&mut self, tag: impl Into<String>) -> &mut Self {
        self.tree_tag = Some(tag.into());
        self
    }

    /// Applies the colour environment of SPEC §3: sets [`COLOR_ENV`] and removes
    /// [`DELETED_ENVS`]. Call it before applying the user's own `--env` values so that those
    /// win.
    pub fn color_env(&mut self) -> &mut Self {
        self.color_env_with(ColorEnvFlags::default())
    }

    /// [`color_env`](Self::color_env) with the `--no-colorenv` / `--no-delete-envs` switches.
    pub fn color_env_with(&mut self, flags: ColorEnvFlags) -> &mut Self {
        if !flags.no_colorenv {
            for (key, value) in COLOR_ENV {
                self.env(key, value);
            }
        }
        if !flags.no_delete_envs {
            for key in DELETED_ENVS {
                self.env_remove(key);
            }
        }
        self
    }

    /// The program as given.
    pub fn program(&self) -> &OsStr {
        &self.program
    }

    /// The arguments (without the program).
    pub fn get_args(&self) -> &[OsString] {
        &self.args
    }

    /// The working directory, if one was set.
    pub fn get_cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// Columns.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> u16 {
        self.height
    }

    /// The environment the child will get: the caller's, with the recorded changes applied,
    /// and `SHELL` from the password database if it is not set.
    pub fn effective_env(&self) -> BTreeMap<OsString, OsString> {
        let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
        for op in &self.env {
            match op {
                EnvOp::Set(k, v) => {
                    env.insert(k.clone(), v.clone());
                }
                EnvOp::Remove(k) => {
                    env.remove(k);
                }
                EnvOp::Clear => env.clear(),
            }
        }
        // Programs that start a shell (an editor's `:!`, tmux) look here.
        env.entry("SHELL".into())
            .or_insert_with(super::spawn::login_shell);
        env
    }

    /// The working directory the child will get, checked to exist.
    pub(super) fn resolved_cwd(&self) -> Result<PathBuf, PtyError> {
        let dir = match &self.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().map_err(|e| PtyError::Cwd {
                path: PathBuf::from("."),
                reason: os_message(&e),
            })?,
        };
        match std::fs::metadata(&dir) {
            Ok(meta) if meta.is_dir() => Ok(dir),
            Ok(_) => Err(PtyError::Cwd {
                path: dir,
                reason: "Not a directory".into(),
            }),
            Err(e) => Err(PtyError::Cwd {
                path: dir,
                reason: os_message(&e),
            }),
        }
    }

    /// Finds the program the way `execvp` would, in the child's `PATH` and relative to its
    /// working directory, so that a missing program is reported cleanly before anything is
    /// spawned. Returns the executable's path.
    pub(super) fn resolve_program(
        &self,
        cwd: &Path,
        env: &BTreeMap<OsString, OsString>,
    ) -> Result<PathBuf, PtyError> {
        let name = self.program.to_string_lossy().into_owned();
        let fail = |kind: io::ErrorKind, reason: &str| PtyError::CannotRun {
            program: name.clone(),
            kind,
            reason: reason.to_string(),
        };
        if self.program.is_empty() {
            return Err(fail(io::ErrorKind::NotFound, "No such file or directory"));
        }
        let path = Path::new(&self.program);
        if self.program.as_encoded_bytes().contains(&b'/') {
            let executable = cwd.join(path);
            check_executable(&executable).map_err(|(kind, reason)| fail(kind, reason))?;
            return Ok(executable);
        }
        let Some(search) = env.get(OsStr::new("PATH")) else {
            return Err(fail(io::ErrorKind::NotFound, "PATH is not set"));
        };
        let mut denied = None;
        for dir in std::env::split_paths(search) {
            let executable = cwd.join(dir).join(path);
            match check_executable(&executable) {
                Ok(()) => return Ok(executable),
                Err((io::ErrorKind::NotFound, _)) => {}
                Err(other) => denied = denied.or(Some(other)),
            }
        }
        let (kind, reason) =
            denied.unwrap_or((io::ErrorKind::NotFound, "No such file or directory"));
        Err(fail(kind, reason))
    }
}

/// Where spawning would find `program` with this process's `PATH` and working directory: a
/// name with a `/` as it is, else the first executable regular file of that name on `PATH`.
pub fn find_program(program: &str) -> Option<PathBuf> {
    let path = Path::new(program);
    if program.contains('/') {
        return check_executable(path).is_ok().then(|| path.to_owned());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(path))
        .find(|p| check_executable(p).is_ok())
}

/// Whether `path` is an executable regular file; the error mirrors `execve`'s.
fn check_executable(path: &Path) -> Result<(), (io::ErrorKind, &'static str)> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            Err((io::ErrorKind::PermissionDenied, "Permission denied"))
        }
        Err(_) => Err((io::ErrorKind::NotFound, "No such file or directory")),
        Ok(meta) if meta.is_dir() => Err((io::ErrorKind::PermissionDenied, "Is a directory")),
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => {
            Err((io::ErrorKind::PermissionDenied, "Permission denied"))
        }
        Ok(_) => Ok(()),
    }
}
