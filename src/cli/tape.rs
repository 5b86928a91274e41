//! `shotty tape FILE.tape…`: VHS tapes run unchanged (SPEC §13); `shotty tape new NAME.tape`
//! writes a starting tape. The library reads, checks, runs and writes; this file parses the
//! command line and reports.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use shotty::tape::{self, LoadError};

/// Arguments of `shotty tape`.
#[derive(Debug, Args)]
#[command(
    after_long_help = super::examples::TAPE,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct TapeArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    #[command(subcommand)]
    command: Option<TapeCommand>,
    /// Tape files (charmbracelet/vhs's format), run one after the other.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Check the tapes (grammar, settings, outputs, required programs) without running them;
    /// print each one's terminal size, picture size and scripted length.
    #[arg(long)]
    check: bool,
}

#[derive(Debug, Subcommand)]
enum TapeCommand {
    /// Write a commented starting tape (NAME.tape; its outputs are named after it).
    New(NewArgs),
}

/// Arguments of `shotty tape new`.
#[derive(Debug, Args)]
struct NewArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// The tape to write (`.tape` is added if missing); an existing file is not replaced.
    name: PathBuf,
}

/// Runs every tape; exit 0 when all ran and wrote their outputs, 2 when one does not parse,
/// else 1. Each problem is printed as `FILE:LINE: message`.
pub fn run(args: TapeArgs) -> Result<i32, String> {
    if let Some(TapeCommand::New(new)) = args.command {
        return write_new(new.name);
    }
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
            let settings = &tape.settings;
            let (cols, rows) = settings.terminal_size();
            println!(
                "{}: {cols}×{rows} cells, {}×{} px, {:.3} s scripted (waits aside), {} output(s)",
                file.display(),
                settings.size.0,
                settings.size.1,
                tape.scripted_time().as_secs_f64(),
                tape.outputs.len()
            );
            continue;
        }
        let written = tape::runner::run(&tape).and_then(|run| {
            for warning in &run.warnings {
                eprintln!("shotty: warning: {warning}");
            }
            tape::output::write_all(&tape, &run)
        });
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

/// `shotty tape new NAME`: the starting tape, never over an existing file.
fn write_new(mut path: PathBuf) -> Result<i32, String> {
    if path.extension().is_none_or(|e| e != "tape") {
        path.as_mut_os_string().push(".tape");
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "demo".into());
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    std::io::Write::write_all(&mut file, tape::starter(&stem).as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!(
        "{} (run it: shotty tape {})",
        path.display(),
        path.display()
    );
    Ok(0)
}
