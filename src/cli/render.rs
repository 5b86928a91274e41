//! `shotty render`: raw terminal bytes or an asciicast recording → text or a JSON snapshot.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;

use clap::Args;

use shotty::input::{CastReader, MAX_DIMENSION, looks_like_cast, play_raw};
use shotty::render::Format;
use shotty::term::Terminal;

use super::appearance::AppearanceArgs;
use super::output::{encode_warning_blanks, format_arg, resolve_format, write_output};

/// Arguments of `shotty render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    help: super::HelpFlag,
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
    /// Output format: svg, png, txt or json (default: from the -o extension, else svg).
    #[arg(long, value_parser = format_arg)]
    format: Option<Format>,
    /// Render the screen as it was this many seconds into an asciicast recording.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    at: Option<f64>,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "PATH")]
    out: Option<PathBuf>,
    #[command(flatten)]
    appearance: AppearanceArgs,
}

fn dimension(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    if n == 0 || n > MAX_DIMENSION {
        return Err(format!("{n} is outside 1–{MAX_DIMENSION}"));
    }
    Ok(n)
}

fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!("{s:?} is not a non-negative number of seconds")),
    }
}

pub fn run(args: RenderArgs) -> Result<i32, String> {
    // Options are checked before any input is read, so a typo fails fast.
    args.appearance.to_appearance(None)?;
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
    if args.at.is_some() && !is_cast {
        return Err(format!(
            "--at needs an asciicast recording, but {name} is raw output"
        ));
    }

    let term = if is_cast {
        let mut cast = CastReader::new(reader).map_err(|e| format!("{name}: {e}"))?;
        let width = args.width.unwrap_or(cast.header().width);
        let height = args.height.unwrap_or(cast.header().height);
        let mut term = Terminal::new(width, height);
        cast.play(&mut term, args.at)
            .map_err(|e| format!("{name}: {e}"))?;
        term
    } else {
        let mut term = Terminal::new(args.width.unwrap_or(100), args.height.unwrap_or(24));
        play_raw(&mut reader, &mut term).map_err(|e| format!("cannot read {name}: {e}"))?;
        term
    };

    let format = resolve_format(args.format, args.out.as_deref(), Format::Svg)?;
    let appearance = args.appearance.to_appearance(None)?;
    let bytes = encode_warning_blanks(&term.snapshot(), format, &appearance)?;
    write_output(args.out.as_deref(), &bytes)?;
    Ok(0)
}
