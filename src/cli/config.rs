//! Defaults from a config file. `-C/--config PATH` names it; otherwise `./shotty.toml`, then
//! `$XDG_CONFIG_HOME/shotty/config.toml` (`~/.config/shotty/config.toml`), the first that
//! exists. Top-level keys are appearance options — the long names `shotty render --help`
//! lists, such as `theme = "dracula"` or `window = "macos"` — and apply to `capture`,
//! `render`, `record`, `session capture` and `session inspect`; a `[capture]` table holds capture
//! options (`width = 120`, `timeout = "5s"`).
//!
//! The keys become command-line arguments placed before the user's, and every command they
//! reach overrides an argument given twice with the later one: flags on the command line win,
//! and clap checks each value exactly as if it had been typed.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use clap::CommandFactory;

/// `-C/--config PATH` in the help of every command a config file applies to. [`apply`] and
/// [`session_defaults`] take it out of the command line before clap parses it, so clap only
/// ever lists it.
#[derive(Debug, clap::Args)]
pub(super) struct ConfigFlag {
    /// Read option defaults from this TOML file instead of ./shotty.toml or
    /// $XDG_CONFIG_HOME/shotty/config.toml; options given on the command line win.
    #[arg(short = 'C', long = "config", value_name = "PATH")]
    config: Option<PathBuf>,
}

/// The commands a config file applies to, as their first argument names them.
const CAPTURE: &str = "capture";
const RENDER: &str = "render";
const RECORD: &str = "record";

/// `args` (the whole command line) with the config file's defaults put in, and `-C/--config`
/// taken out. Commands other than capture and render are left as they are.
pub fn apply(mut args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let explicit = take_config_flag(&mut args)?;
    let first = args.get(1).and_then(|a| a.to_str()).unwrap_or("");
    let (command, insert_at) = match first {
        CAPTURE | RENDER | RECORD => (first.to_owned(), 2),
        // Bare `shotty [OPTIONS] -- CMD` is a capture; anything else not starting with `-`
        // (or nothing) is another subcommand or a piped capture.
        f if f.is_empty() || f.starts_with('-') => (CAPTURE.to_owned(), 1),
        _ => return Ok(args),
    };
    let defaults = file_defaults(explicit, &command)?;
    args.splice(insert_at..insert_at, defaults);
    Ok(args)
}

/// The appearance defaults of the config file for a session command that renders (`session
/// capture`, `session inspect`), taking `-C/--config` out of `args` (the arguments after
/// `session`). A `[capture]` table is for `shotty capture` and does not apply here.
pub fn session_defaults(args: &mut Vec<String>) -> Result<Vec<String>, String> {
    let explicit = take_config_flag(args)?;
    Ok(file_defaults(explicit, "session")?
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect())
}

/// The arguments the config file (`explicit`, else the default one, if any) stands for in
/// `command`; none without a file.
fn file_defaults(explicit: Option<PathBuf>, command: &str) -> Result<Vec<OsString>, String> {
    let Some(path) = explicit.or_else(default_path) else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read the config file {}: {e}", path.display()))?;
    arguments(&path, &text, command)
}

/// Removes `-C PATH`, `--config PATH` or `--config=PATH` (after the first argument, before
/// any `--`) and returns PATH.
fn take_config_flag<T: AsRef<OsStr>>(args: &mut Vec<T>) -> Result<Option<PathBuf>, String> {
    let end = args
        .iter()
        .position(|a| a.as_ref() == "--")
        .unwrap_or(args.len());
    for i in 1..end {
        let Some(arg) = args[i].as_ref().to_str() else {
            continue;
        };
        if let Some(path) = arg.strip_prefix("--config=") {
            let path = PathBuf::from(path);
            args.remove(i);
            return Ok(Some(path));
        }
        if arg == "-C" || arg == "--config" {
            if i + 1 >= end {
                return Err(format!("{arg} needs a path"));
            }
            let path = PathBuf::from(args.remove(i + 1).as_ref());
            args.remove(i);
            return Ok(Some(path));
        }
    }
    Ok(None)
}

/// `./shotty.toml`, else the user's config file, if either exists.
fn default_path() -> Option<PathBuf> {
    let local = PathBuf::from("shotty.toml");
    if local.is_file() {
        return Some(local);
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    let user = base.join("shotty").join("config.toml");
    user.is_file().then_some(user)
}

/// The command-line arguments `text` (the file at `path`) stands for in `command`.
fn arguments(path: &Path, text: &str, command: &str) -> Result<Vec<OsString>, String> {
    let file = path.display();
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| format!("{file}: {}", e.message()))?;
    let appearance = <super::appearance::AppearanceArgs as clap::Args>::augment_args(
        clap::Command::new("appearance"),
    );
    let capture = super::Cli::command()
        .find_subcommand(CAPTURE)
        .cloned()
        .ok_or("no capture command")?;
    let mut out = Vec::new();
    for (key, value) in &table {
        match (key.as_str(), value) {
            (CAPTURE, toml::Value::Table(options)) => {
                if command != CAPTURE {
                    continue;
                }
                for (key, value) in options {
                    if takes_option(&appearance, key) || !takes_option(&capture, key) {
                        return Err(format!(
                            "{file}: [capture] has no option `{key}` (appearance options go \
                             at the top; see `shotty capture --help`)"
                        ));
                    }
                    push(&mut out, key, value).map_err(|e| format!("{file}: [capture] {e}"))?;
                }
            }
            (_, toml::Value::Table(_)) => {
                return Err(format!("{file}: unknown table [{key}] (only [capture])"));
            }
            _ if takes_option(&appearance, key) => {
                push(&mut out, key, value).map_err(|e| format!("{file}: {e}"))?;
            }
            _ => {
                return Err(format!(
                    "{file}: `{key}` is not an appearance option (see `shotty render --help`; \
                     capture options go under [capture])"
                ));
            }
        }
    }
    Ok(out)
}

/// Whether `command` has an option `--key` (help, version and the config file's own name
/// aside).
fn takes_option(command: &clap::Command, key: &str) -> bool {
    key != "help"
        && key != "version"
        && key != "config"
        && command
            .get_arguments()
            .any(|a| a.get_long() == Some(key) && !a.is_positional())
}

/// `key = value` as arguments: `true` is the bare flag, `false` leaves it out, a string or
/// number is `--key=value`, an array repeats the option for each element.
fn push(out: &mut Vec<OsString>, key: &str, value: &toml::Value) -> Result<(), String> {
    let scalar = |value: &toml::Value| -> Result<String, String> {
        match value {
            toml::Value::String(s) => Ok(s.clone()),
            toml::Value::Integer(n) => Ok(n.to_string()),
            toml::Value::Float(x) => Ok(x.to_string()),
            _ => Err(format!("`{key}` takes a string, a number, true or false")),
        }
    };
    match value {
        toml::Value::Boolean(true) => out.push(format!("--{key}").into()),
        toml::Value::Boolean(false) => {}
        toml::Value::Array(items) => {
            for item in items {
                out.push(format!("--{key}={}", scalar(item)?).into());
            }
        }
        other => out.push(format!("--{key}={}", scalar(other)?).into()),
    }
    Ok(())
}
