//! `shotty tape FILE.tape…`: VHS tapes run unchanged (SPEC §13). The library reads, checks,
//! runs and writes; this file parses the command line and reports.

use std::path::PathBuf;

use clap::Args;

use shotty::tape::{self, LoadError};

/// Arguments of `shotty tape`.
#[derive(Debug, Args)]
#[command(after_long_help = super::examples::TAPE)]
pub struct TapeArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// Tape files (charmbracelet/vhs's format), run one after the other.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Check the tapes (grammar, settings, outputs, required programs) without running them.
    #[arg(long)]
    check: bool,
}

/// Runs every tape; exit 0 when all ran and wrote their outputs, 2 when one does not parse,
/// else 1. Each problem is printed as `FILE:LINE: message`.
pub fn run(args: TapeArgs) -> Result<i32, String> {
    let mut code = 0;
    for file in &args.files {
        let tape = match tape::load(file) {
            Ok(tape) => tape,
            Err(LoadError { errors, unparsed }) => {
                for e in &errors {
                    eprintln!("shotty: {e}");
                }
                code = code.max(if unparsed { 2 } else { 1 });
                continue;
            }
        };
        for warning in &tape.warnings {
            eprintln!("shotty: warning: {warning}");
        }
        if args.check {
            continue;
        }
        let written = tape::runner::run(&tape).and_then(|run| tape::output::write_all(&tape, &run));
        match written {
            Ok(files) => {
                for path in files {
                    eprintln!("{}", path.display());
                }
            }
            Err(e) => {
                eprintln!("shotty: {e}");
                code = code.max(1);
            }
        }
    }
    Ok(code)
}
