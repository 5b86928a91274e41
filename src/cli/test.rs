//! `shotty test [PATH…]`: every scenario file under the paths, in parallel, one line each and
//! the totals; `--junit FILE` for CI. The library discovers and runs them.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use shotty::scenario::report;
use shotty::scenario::runner::RunOptions;
use shotty::scenario::suite::{self, Outcome};

use super::scenario::{RunFlags, resolve_appearance, run_options};

/// Arguments of `shotty test`.
#[derive(Debug, Args)]
#[command(after_long_help = super::examples::TEST)]
pub struct TestArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// Files or directories to search for *.scenario.yaml, *.scenario.yml and
    /// *.scenario.json, and VHS tapes (*.tape) that write a .txt or .ascii output: its file
    /// is the golden the run is compared with (default: the current directory).
    paths: Vec<PathBuf>,
    /// Scenarios run at once (default: the number of CPUs).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
    #[command(flatten)]
    run: RunFlags,
    /// Also write the results as JUnit XML.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Where failed scenarios leave their reports, one directory each.
    #[arg(long, value_name = "DIR", default_value = report::DEFAULT_ROOT)]
    report: PathBuf,
}

/// Exit 0 when every scenario passed, 1 when one failed, 2 when one could not run or none
/// was found.
pub fn run(args: TestArgs) -> Result<i32, String> {
    let started = Instant::now();
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let files = match suite::discover(&paths) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("shotty: error: {e}");
            return Ok(2);
        }
    };
    if files.is_empty() {
        eprintln!(
            "shotty: no scenario files ({}) under {}",
            suite::SUFFIXES.join(", "),
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(2);
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let options = RunOptions {
        report: Some(args.report.clone()),
        ..run_options(None, None, false, false, &args.run)
    };
    println!(
        "running {} scenario(s), {} at a time",
        files.len(),
        jobs.min(files.len())
    );
    let print = |outcome: &Outcome| println!("{}", outcome.line());
    let outcomes = suite::run_all(&files, jobs, &options, &resolve_appearance, &print);
    let (passed, failed, errors) = suite::totals(&outcomes);
    println!(
        "\n{passed} passed, {failed} failed, {errors} could not run ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = &args.junit {
        let xml = suite::junit(&outcomes, started.elapsed());
        super::output::write_output(Some(path), xml.as_bytes())?;
    }
    Ok(if errors > 0 {
        2
    } else if failed > 0 {
        1
    } else {
        0
    })
}
