//! `shotty completions SHELL` and `shotty man`: shell completion scripts and man pages made
//! from the command-line definitions themselves, so they never drift from the parser.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

/// Arguments of `shotty completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// Arguments of `shotty man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// Write `shotty.1` and a page per command (`shotty-render.1`, `shotty-session-start.1`
    /// …) into this directory instead of printing `shotty(1)` on stdout.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// The whole command tree: the top-level parser with the session family's own parser (which
/// `shotty session` runs separately, for its JSON errors) in place of its pass-through.
fn command_tree() -> clap::Command {
    let session = super::session::command();
    super::Cli::command().mut_subcommand("session", move |_| session)
}

/// Prints the completion script for `args.shell`.
pub fn completions(args: CompletionsArgs) -> Result<i32, String> {
    let mut command = command_tree();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "shotty", &mut out);
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| format!("cannot write the completions: {e}"))?;
    Ok(0)
}

/// Prints `shotty(1)`, or writes every page into `args.dir`.
pub fn man(args: ManArgs) -> Result<i32, String> {
    let command = command_tree();
    match args.dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut out)
                .map_err(|e| format!("cannot render the man page: {e}"))?;
            std::io::stdout()
                .write_all(&out)
                .map_err(|e| format!("cannot write the man page: {e}"))?;
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            clap_mangen::generate_to(command, &dir)
                .map_err(|e| format!("cannot write the man pages to {}: {e}", dir.display()))?;
        }
    }
    Ok(0)
}
