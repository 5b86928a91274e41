//! `start --shell-integration`: bash, zsh and fish made to print OSC 133 marks (see
//! [`term::shell`](crate::term::shell)) without touching the user's files. The shell is
//! started so that it loads shotty's hooks, which first load the user's own start-up files
//! as the shell would have:
//!
//! * **bash**: `--rcfile HOOKS` (HOOKS sources `/etc/bash.bashrc` and `~/.bashrc`; for
//!   `-l` the profile files instead, for `--rcfile F` that file, for `--norc` nothing);
//! * **zsh**: `ZDOTDIR` set to a directory of shotty's whose `.zshenv`, `.zprofile` and
//!   `.zshrc` source the user's from their own `ZDOTDIR` (or `HOME`), then hand it back;
//! * **fish**: `--init-command 'source HOOKS'`, which fish runs after its configuration.
//!
//! The hook files are written to a private directory (0700, files 0600) under the runtime
//! directory. A shell asked to run a command (`-c`) or a script is not interactive and has no
//! prompt to mark: that is refused.

use std::path::{Path, PathBuf};

use super::error::SessionError;
use super::instance::SessionSpec;
use super::paths::{ensure_private_dir, write_private_file};

const BASH: &str = include_str!("shell/bash.sh");
const ZSHENV: &str = include_str!("shell/zshenv.zsh");
const ZPROFILE: &str = include_str!("shell/zprofile.zsh");
const ZSHRC: &str = include_str!("shell/zshrc.zsh");
const FISH: &str = include_str!("shell/fish.fish");

/// A shell shotty knows how to integrate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    /// GNU bash.
    Bash,
    /// zsh.
    Zsh,
    /// fish.
    Fish,
}

impl Shell {
    /// The shell `program` is, by its file name (`/bin/bash`, `zsh-5.9`).
    pub fn of(program: &str) -> Option<Shell> {
        let name = Path::new(program).file_name()?.to_str()?;
        let base = name.split(['-', '.']).next().unwrap_or(name);
        match base {
            "bash" => Some(Shell::Bash),
            "zsh" => Some(Shell::Zsh),
            "fish" => Some(Shell::Fish),
            _ => None,
        }
    }
}

/// Rewrites `spec` (a bash, zsh or fish command) so the shell loads shotty's hooks, written
/// under `dir`.
pub fn apply(spec: &mut SessionSpec, dir: &Path) -> Result<(), SessionError> {
    let Some((program, args)) = spec.command.split_first() else {
        return Err(SessionError::invalid_request("no command to run"));
    };
    let shell = Shell::of(program).ok_or_else(|| {
        SessionError::invalid_request(format!(
            "--shell-integration knows bash, zsh and fish, not {program:?} (a shell that prints \
             OSC 133 marks itself needs no flag)"
        ))
    })?;
    let (program, mut args) = (program.clone(), args.to_vec());
    refuse_non_interactive(shell, &args)?;
    ensure_private_dir(dir)?;
    let write = |name: &str, text: &str| -> Result<PathBuf, SessionError> {
        let path = dir.join(name);
        write_private_file(&path, text.as_bytes())?;
        Ok(path)
    };
    match shell {
        Shell::Bash => {
            let hooks = write("bash-integration.sh", BASH)?;
            let mut env = Vec::new();
            let mut kept = Vec::new();
            let mut it = args.into_iter();
            while let Some(arg) = it.next() {
                match arg.as_str() {
                    "--norc" => env.push(("SHOTTY_BASH_NORC", "1".to_owned())),
                    "--login" | "-l" => env.push(("SHOTTY_BASH_LOGIN", "1".to_owned())),
                    "--rcfile" | "--init-file" => {
                        env.push(("SHOTTY_BASH_RCFILE", it.next().unwrap_or_default()));
                    }
                    // A cluster of short options (`-il`): its `l` is the login flag.
                    a if a.starts_with('-') && !a.starts_with("--") && a.contains('l') => {
                        env.push(("SHOTTY_BASH_LOGIN", "1".to_owned()));
                        let rest = a.replace('l', "");
                        if rest != "-" {
                            kept.push(rest);
                        }
                    }
                    _ => kept.push(arg),
                }
            }
            args = vec!["--rcfile".to_owned(), hooks.display().to_string()];
            args.extend(kept);
            spec.env
                .extend(env.into_iter().map(|(k, v)| (k.to_owned(), v)));
        }
        Shell::Zsh => {
            let zdotdir = dir.join("zsh");
            ensure_private_dir(&zdotdir)?;
            for (name, text) in [
                (".zshenv", ZSHENV),
                (".zprofile", ZPROFILE),
                (".zshrc", ZSHRC),
            ] {
                let path = zdotdir.join(name);
                super::artifacts::write_file(&path, text.as_bytes())
                    .map_err(|e| SessionError::new(super::ErrorCode::IoError, e))?;
            }
            let user_dir = spec
                .env
                .iter()
                .rev()
                .find(|(k, _)| k == "ZDOTDIR" || k == "HOME")
                .map(|(_, v)| v.clone())
                .or_else(|| std::env::var("ZDOTDIR").ok())
                .or_else(|| std::env::var("HOME").ok())
                .unwrap_or_default();
            if let Some(i) = args.iter().position(|a| a == "-f" || a == "--no-rcs") {
                args.remove(i);
                spec.env.push(("SHOTTY_ZSH_NORCS".into(), "1".into()));
            }
            spec.env.push(("SHOTTY_ZDOTDIR".into(), user_dir));
            spec.env
                .push(("ZDOTDIR".into(), zdotdir.display().to_string()));
        }
        Shell::Fish => {
            let hooks = write("fish-integration.fish", FISH)?;
            let quoted = hooks.display().to_string().replace('\'', "\\'");
            args.push("--init-command".into());
            args.push(format!("source '{quoted}'"));
        }
    }
    spec.command = std::iter::once(program).chain(args).collect();
    Ok(())
}

/// Refuses a shell told to run a command or a script: it shows no prompt.
fn refuse_non_interactive(shell: Shell, args: &[String]) -> Result<(), SessionError> {
    // Options that take a value, so the value is not taken for a script.
    let with_value: &[&str] = match shell {
        Shell::Bash => &["--rcfile", "--init-file", "-O", "+O", "-o", "+o"],
        Shell::Zsh => &["-o", "+o"],
        Shell::Fish => &[
            "-C",
            "--init-command",
            "-d",
            "--debug",
            "-o",
            "--debug-output",
        ],
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let runs_command = match shell {
            Shell::Fish => arg == "-c" || arg.starts_with("--command"),
            _ => arg.starts_with('-') && !arg.starts_with("--") && arg.contains('c'),
        };
        if runs_command || !arg.starts_with(['-', '+']) {
            return Err(SessionError::invalid_request(format!(
                "--shell-integration needs an interactive shell; {arg:?} makes it run a command \
                 or a script, which shows no prompt"
            )));
        }
        if arg == "--" {
            break;
        }
        if with_value.contains(&arg.as_str()) {
            it.next();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(command: &[&str]) -> SessionSpec {
        SessionSpec::new(command.iter().map(|s| s.to_string()).collect(), 80, 24)
    }

    #[test]
    fn shells_are_told_by_their_file_name() {
        assert_eq!(Shell::of("/usr/bin/bash"), Some(Shell::Bash));
        assert_eq!(Shell::of("zsh-5.9"), Some(Shell::Zsh));
        assert_eq!(Shell::of("fish"), Some(Shell::Fish));
        assert_eq!(Shell::of("python3"), None);
    }

    #[test]
    fn bash_loads_the_hooks_in_place_of_its_rc_files_and_keeps_its_flags() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = spec(&["bash", "--norc", "-il", "-O", "extglob"]);
        apply(&mut s, dir.path()).unwrap();
        let hooks = dir.path().join("bash-integration.sh");
        assert_eq!(
            s.command,
            [
                "bash",
                "--rcfile",
                hooks.to_str().unwrap(),
                "-i",
                "-O",
                "extglob"
            ]
        );
        assert!(s.env.contains(&("SHOTTY_BASH_NORC".into(), "1".into())));
        assert!(s.env.contains(&("SHOTTY_BASH_LOGIN".into(), "1".into())));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&hooks).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_shell_that_runs_a_command_or_a_program_that_is_no_shell_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for command in [
            &["bash", "-c", "true"][..],
            &["bash", "script.sh"],
            &["zsh", "-ic", "true"],
            &["fish", "-c", "true"],
            &["python3"],
        ] {
            assert!(
                apply(&mut spec(command), dir.path()).is_err(),
                "{command:?}"
            );
        }
    }

    #[test]
    fn zsh_and_fish_get_their_hooks_without_their_files_being_touched() {
        let dir = tempfile::tempdir().unwrap();
        let mut z = spec(&["zsh", "-f"]);
        z.env.push(("HOME".into(), "/home/someone".into()));
        apply(&mut z, dir.path()).unwrap();
        assert_eq!(z.command, ["zsh"]);
        assert!(
            z.env
                .contains(&("SHOTTY_ZDOTDIR".into(), "/home/someone".into()))
        );
        assert!(dir.path().join("zsh/.zshrc").exists());
        let mut f = spec(&["fish"]);
        apply(&mut f, dir.path()).unwrap();
        assert_eq!(f.command[1], "--init-command");
    }
}
