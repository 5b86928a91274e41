//! `shotty render`: raw terminal bytes or an asciicast recording → a screenshot, text, a
//! JSON snapshot, or (from a recording) an animation.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;

use clap::Args;

use shotty::input::{CastReader, MAX_DIMENSION, looks_like_cast, play_raw};
use shotty::render::Format;
use shotty::render::animation::animate_cast;
use shotty::term::Terminal;

use super::appearance::AppearanceArgs;
use super::output::{encode_warning_blanks, write_output};
use super::timing::{OutputKind, TimingArgs, output_kind_arg, resolve_output, seconds};

/// Arguments of `shotty render`.
#[derive(Debug, Args)]
// The config file's defaults come first: a flag typed after them replaces them.
#[command(after_long_help = super::examples::RENDER, args_override_self = true)]
pub struct RenderArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    #[command(flatten)]
    config: super::config::ConfigFlag,
    /// Input file: raw terminal output or an asciicast (.cast) recording; `-` or nothing for
    /// stdin. In raw output a bare LF starts a new line (as a terminal driver makes it);
    /// recordings play exactly.
    file: Option<PathBuf>,
    /// Terminal columns (default: the recording's, else 100).
    #[arg(long, value_parser = dimension)]
    width: Option<usize>,
    /// Terminal rows (default: the recording's, else 24).
    #[arg(long, value_parser = dimension)]
    height: Option<usize>,
    /// Output format: svg, png, txt, json, gif, apng or mp4 (default: from the -o extension, else
    /// svg).
    #[arg(long, value_parser = output_kind_arg)]
    format: Option<OutputKind>,
    /// Animate the recording (.svg; .gif and .apng always animate).
    #[arg(short = 'v', long)]
    video: bool,
    /// Render the screen as it was this many seconds into an asciicast recording.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    at: Option<f64>,
    /// Render the screen as it was at a marker of an asciicast recording: the Nth (from 1)
    /// for a number, else the first with this label (`shotty session mark`).
    #[arg(long, value_name = "LABEL|N", conflicts_with = "at")]
    at_marker: Option<String>,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "PATH")]
    out: Option<PathBuf>,
    #[command(flatten)]
    appearance: AppearanceArgs,
    #[command(flatten)]
    timing: TimingArgs,
}

fn dimension(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    if n == 0 || n > MAX_DIMENSION {
        return Err(format!("{n} is outside 1–{MAX_DIMENSION}"));
    }
    Ok(n)
}

/// Why `--at-marker` found nothing, with the markers there are.
fn no_marker(name: &str, marker: &str, labels: &[String]) -> String {
    if labels.is_empty() {
        return format!("{name} has no markers (shotty session mark adds them)");
    }
    let shown: Vec<String> = labels.iter().take(10).map(|l| format!("{l:?}")).collect();
    let more = if labels.len() > shown.len() {
        ", …"
    } else {
        ""
    };
    format!(
        "{name} has no marker {marker:?}; its {} markers: {}{more}",
        labels.len(),
        shown.join(", ")
    )
}

pub fn run(args: RenderArgs) -> Result<i32, String> {
    // Options are checked before any input is read, so a typo fails fast.
    let appearance = args.appearance.to_appearance(None)?;
    let kind = resolve_output(args.format, args.out.as_deref(), args.video, Format::Svg)?;
    let timing = args.timing.to_timing()?;
    let (name, reader): (String, Box<dyn Read>) = match &args.file {
        None => ("stdin".into(), Box::new(io::stdin())),
        Some(p) if p.as_os_str() == "-" => ("stdin".into(), Box::new(io::stdin())),
        Some(p) => {
            let file = File::open(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            (p.display().to_string(), Box::new(file))
        }
    };
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let first = reader
        .fill_buf()
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    let first_line = first.split(|&b| b == b'\n').next().unwrap_or_default();
    let is_cast = looks_like_cast(first_line);
    if !is_cast
        && let Some(option) = [
            (args.at.is_some(), "--at"),
            (args.at_marker.is_some(), "--at-marker"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
    {
        return Err(format!(
            "{option} needs an asciicast recording, but {name} is raw output"
        ));
    }

    let format = match kind {
        OutputKind::Still(format) => format,
        OutputKind::Animated(format) => {
            if !is_cast {
                return Err(format!(
                    "an animation needs an asciicast recording, but {name} is raw output"
                ));
            }
            if args.at.is_some() || args.at_marker.is_some() {
                return Err("--at and --at-marker render one moment, not an animation".into());
            }
            let size = (args.width, args.height);
            let bytes = animate_cast(reader, size, timing, format, &appearance)
                .map_err(|e| format!("{name}: {e}"))?;
            write_output(args.out.as_deref(), &bytes)?;
            return Ok(0);
        }
    };

    let term = if is_cast {
        let mut cast = CastReader::new(reader).map_err(|e| format!("{name}: {e}"))?;
        let width = args.width.unwrap_or(cast.header().width);
        let height = args.height.unwrap_or(cast.header().height);
        let mut term = Terminal::new(width, height);
        match &args.at_marker {
            None => cast
                .play(&mut term, args.at)
                .map_err(|e| format!("{name}: {e}"))?,
            Some(marker) => {
                let found = cast
                    .play_to_marker(&mut term, marker)
                    .map_err(|e| format!("{name}: {e}"))?;
                found.map_err(|labels| no_marker(&name, marker, &labels))?;
            }
        }
        term
    } else {
        let mut term = Terminal::new(args.width.unwrap_or(100), args.height.unwrap_or(24));
        play_raw(&mut reader, &mut term).map_err(|e| format!("cannot read {name}: {e}"))?;
        term
    };

    let bytes = encode_warning_blanks(&term.snapshot(), format, &appearance)?;
    write_output(args.out.as_deref(), &bytes)?;
    Ok(0)
}
