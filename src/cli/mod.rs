//! Command-line definitions and the thin functions that call the library.

mod appearance;
mod output;
mod render;
mod themes;

use clap::{Parser, Subcommand};

/// Terminal screenshots and terminal automation.
#[derive(Debug, Parser)]
#[command(name = "shotty", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Render raw terminal bytes or an asciicast recording.
    Render(render::RenderArgs),
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
        Command::Render(args) => render::run(args),
        Command::Themes(args) => themes::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("shotty: error: {e}");
            1
        }
    }
}
