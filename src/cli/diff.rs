//! `shotty diff EXPECTED ACTUAL`: cell-level comparison of two shotty outputs.

use std::path::PathBuf;

use clap::Args;

use shotty::diff::{diff, load_snapshot};
use shotty::render::{Format, encode_highlighted};

use super::appearance::AppearanceArgs;
use super::output::{resolve_format, write_output};

/// Arguments of `shotty diff`.
#[derive(Debug, Args)]
#[command(after_long_help = super::examples::DIFF)]
pub struct DiffArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// The reference: an SVG written by shotty (with its metadata) or a JSON snapshot.
    expected: PathBuf,
    /// The output to check, in either form.
    actual: PathBuf,
    /// Also draw the actual screen with the changed cells highlighted (SVG or PNG).
    #[arg(short = 'o', long = "out", value_name = "PATH")]
    out: Option<PathBuf>,
    #[command(flatten)]
    appearance: AppearanceArgs,
}

fn load(path: &PathBuf) -> Result<shotty::term::Snapshot, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    load_snapshot(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Exit 0 when the screens are equal, 1 when they differ (the report goes to stdout), 2 on
/// error.
pub fn run(args: DiffArgs) -> Result<i32, String> {
    let compared = (|| {
        let expected = load(&args.expected)?;
        let actual = load(&args.actual)?;
        let d = diff(&expected, &actual);
        if let Some(out) = &args.out {
            let format = resolve_format(None, Some(out), Format::Svg)?;
            if !matches!(format, Format::Svg | Format::Png) {
                return Err(format!(
                    "{}: the highlighted diff is an image (.svg or .png)",
                    out.display()
                ));
            }
            let appearance = args.appearance.to_appearance(None)?;
            let bytes = encode_highlighted(&actual, format, &appearance, &d.positions())
                .map_err(|e| e.to_string())?;
            write_output(Some(out), &bytes)?;
        }
        Ok(d)
    })();
    match compared {
        Ok(d) if d.is_empty() => Ok(0),
        Ok(d) => {
            write_output(None, d.to_string().as_bytes())?;
            Ok(1)
        }
        Err(e) => {
            eprintln!("shotty: error: {e}");
            Ok(2)
        }
    }
}
