//! Command-line definitions and the thin functions that call the library.

mod appearance;
mod attach;
mod capture;
mod config;
mod diff;
mod manual;
mod output;
mod record;
mod render;
mod scenario;
mod serve;
mod session;
mod test;
mod themes;
mod timing;

use clap::{Args, Parser, Subcommand};

/// A terminal size argument: a whole number of columns or rows a session may have.
fn dimension(s: &str) -> Result<u16, String> {
    use shotty::session::instance::MAX_SIZE;
    match s.parse::<u16>() {
        Ok(n) if (1..=MAX_SIZE).contains(&n) => Ok(n),
        _ => Err(format!("{s:?} is not a size between 1 and {MAX_SIZE}")),
    }
}

/// An `--env KEY=VALUE` argument.
fn env_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(format!("{s:?} is not KEY=VALUE")),
    }
}

/// Terminal screenshots and terminal automation.
///
/// `shotty [OPTIONS] -- CMD` captures a command (the same as `shotty capture`);
/// `CMD | shotty [OPTIONS]` renders piped output.
#[derive(Debug, Parser)]
#[command(
    name = "shotty",
    version,
    about,
    propagate_version = true,
    args_conflicts_with_subcommands = true,
    disable_help_flag = true,
    // The config file's defaults come first on the command line: a flag typed after them
    // replaces them (see `config.rs`).
    args_override_self = true,
    after_help = "Defaults for the appearance and capture options come from ./shotty.toml, \
                  else $XDG_CONFIG_HOME/shotty/config.toml, or from -C/--config PATH; flags \
                  given here win (see README, \"Config file\")."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    capture: Box<capture::CaptureArgs>,
}

/// `--help` (long only): the top level turns clap's own help flag off, because `-h` is
/// `--height` there, and every subcommand takes this one instead.
#[derive(Debug, Args)]
pub(super) struct HelpFlag {
    /// Print help.
    #[arg(long, action = clap::ArgAction::Help)]
    help: Option<bool>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a command in a terminal and screenshot it.
    #[command(disable_help_flag = true, args_override_self = true)]
    Capture(Box<capture::CaptureArgs>),
    /// Render raw terminal bytes or an asciicast recording.
    #[command(args_override_self = true)]
    Render(Box<render::RenderArgs>),
    /// Record a program live in this terminal (like `asciinema rec`) into a .cast file or an
    /// animation.
    #[command(args_override_self = true)]
    Record(Box<record::RecordArgs>),
    /// Run scenario files: scripted tests of terminal programs with golden screens
    /// (console2svg ScenarioDocument v1; see `shotty scenario run --help`).
    Scenario(Box<scenario::ScenarioArgs>),
    /// Run every scenario file under some paths, in parallel: one line each, the totals,
    /// JUnit XML with --junit.
    Test(Box<test::TestArgs>),
    /// Compare two screenshots (SVG with metadata, or JSON snapshots) cell by cell.
    Diff(Box<diff::DiffArgs>),
    /// Background terminal sessions for agents and scripts (JSON output; see
    /// `shotty session --help`).
    Session {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run a program in a terminal exposed as a JSON-RPC 2.0 endpoint on a Unix socket or
    /// TCP loopback (see docs/serve.md).
    Serve(Box<serve::ServeArgs>),
    /// Serve the session tools over the Model Context Protocol on stdin/stdout (see
    /// docs/mcp.md).
    Mcp(HelpFlag),
    /// List the built-in colour themes.
    Themes(themes::ThemesArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(manual::CompletionsArgs),
    /// Print the man page, or write every command's page into a directory.
    Man(manual::ManArgs),
}

/// Parses the command line, runs it and returns the process exit code.
pub fn run() -> i32 {
    // The session family prints JSON for everything, usage errors included, so it parses its
    // own arguments.
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if args.get(1).map(String::as_str) == Some("session") {
        return session::main(args[2..].to_vec());
    }
    // `serve` reports usage errors on one line.
    if args.get(1).map(String::as_str) == Some("serve") {
        return serve::main(&args[2..]);
    }
    let args = match config::apply(std::env::args_os().collect()) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("shotty: error: {e}");
            return 2;
        }
    };
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with exit 0; usage errors to stderr with 2.
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.command {
        None => capture::run(*cli.capture),
        Some(Command::Capture(args)) => capture::run(*args),
        Some(Command::Render(args)) => render::run(*args),
        Some(Command::Record(args)) => record::run(*args),
        Some(Command::Themes(args)) => themes::run(args),
        Some(Command::Completions(args)) => manual::completions(args),
        Some(Command::Man(args)) => manual::man(args),
        // Handled before parsing (see above); reached only through odd spellings.
        Some(Command::Session { args }) => Ok(session::main(args)),
        Some(Command::Diff(args)) => diff::run(*args),
        Some(Command::Scenario(args)) => scenario::run(*args),
        Some(Command::Test(args)) => test::run(*args),
        Some(Command::Mcp(_)) => shotty::mcp::serve().map(|()| 0),
        // Handled before parsing, like `session`.
        Some(Command::Serve(args)) => Ok(serve::run(*args)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("shotty: error: {e}");
            1
        }
    }
}
