//! Command-line definitions and the thin functions that call the library.

mod appearance;
mod capture;
mod diff;
mod output;
mod render;
mod themes;

use clap::{Parser, Subcommand};

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
    disable_help_flag = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    capture: Box<capture::CaptureArgs>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a command in a terminal and screenshot it.
    #[command(disable_help_flag = true)]
    Capture(Box<capture::CaptureArgs>),
    /// Render raw terminal bytes or an asciicast recording.
    Render(Box<render::RenderArgs>),
    /// Compare two screenshots (SVG with metadata, or JSON snapshots) cell by cell.
    Diff(Box<diff::DiffArgs>),
    /// List the built-in colour themes.
    Themes(themes::ThemesArgs),
}

/// Parses the command line, runs it and returns the process exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
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
        Some(Command::Themes(args)) => themes::run(args),
        Some(Command::Diff(args)) => diff::run(*args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("shotty: error: {e}");
            1
        }
    }
}
