//! `shotty record -o FILE -- CMD`: an interactive recording in the user's own terminal, like
//! `asciinema rec` (the work is `shotty::recording::live`).

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use clap::Args;

use shotty::recording::asciicast::{CastInfo, write_v2};
use shotty::recording::live::{self, LiveError, LiveRecording};
use shotty::render::animation::{AnimationFormat, animate};
use shotty::session::instance::{MAX_RECORD_LIMIT, MIN_RECORD_LIMIT};

use super::appearance::AppearanceArgs;
use super::output::write_output;
use super::timing::TimingArgs;

/// Arguments of `shotty record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// Output file; the kind follows the extension: .cast (asciicast v2), .svg (animated),
    /// .gif, .apng.
    #[arg(short = 'o', long = "out", value_name = "PATH")]
    out: PathBuf,
    /// Output kind: cast, svg, gif or apng (e.g. apng for a .png name).
    #[arg(long, value_parser = kind_arg)]
    format: Option<Kind>,
    /// What the recording keeps of output and input (64K–1024M); the oldest part is dropped
    /// past it and the recording starts from a keyframe.
    #[arg(long, value_name = "SIZE", value_parser = record_limit, default_value = "16M")]
    record_limit: usize,
    #[command(flatten)]
    timing: TimingArgs,
    #[command(flatten)]
    appearance: AppearanceArgs,
    #[command(flatten)]
    help: super::HelpFlag,
    /// The command to record and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// What `record` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// asciicast v2.
    Cast,
    /// An animation.
    Animation(AnimationFormat),
}

/// Parses `--format`.
fn kind_arg(s: &str) -> Result<Kind, String> {
    if s.eq_ignore_ascii_case("cast") {
        return Ok(Kind::Cast);
    }
    AnimationFormat::ALL
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(s))
        .map(|(_, f)| Kind::Animation(*f))
        .ok_or_else(|| format!("{s:?} is not one of cast, svg, gif, apng"))
}

/// Parses `--record-limit`: a size within the bounds `session start --record-limit` has.
fn record_limit(s: &str) -> Result<usize, String> {
    let limit = shotty::bytesize::parse_size(s)?;
    if !(MIN_RECORD_LIMIT..=MAX_RECORD_LIMIT).contains(&limit) {
        return Err(format!(
            "{s} is outside {}K–{}M",
            MIN_RECORD_LIMIT >> 10,
            MAX_RECORD_LIMIT >> 20
        ));
    }
    usize::try_from(limit).map_err(|_| format!("{s} is too large for this machine"))
}

/// The output kind: `--format` if given, else the extension.
fn resolve_kind(explicit: Option<Kind>, out: &Path) -> Result<Kind, String> {
    if let Some(kind) = explicit {
        return Ok(kind);
    }
    let ext = out.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext.eq_ignore_ascii_case("cast") {
        return Ok(Kind::Cast);
    }
    AnimationFormat::from_path(out).map(Kind::Animation).ok_or_else(|| {
        format!(
            "cannot tell what to write to {} from its extension; use .cast, .svg, .gif, .apng or \
             --format (--format apng for a .png name)",
            out.display()
        )
    })
}

/// Records the command live and writes the file. Returns the command's exit code (128 +
/// signal if a signal ended it); 2 without a terminal.
pub fn run(args: RecordArgs) -> Result<i32, String> {
    // Every option is checked before the user starts typing into the recording.
    let kind = resolve_kind(args.format, &args.out)?;
    let timing = args.timing.to_timing()?;
    let appearance = args.appearance.to_appearance(None)?;
    let mut cmd = shotty::pty::PtyCommand::new(&args.command[0]);
    cmd.args(&args.command[1..]);
    let recording = match live::record(&cmd, args.record_limit) {
        Ok(recording) => recording,
        Err(e @ LiveError::NotATerminal(_)) => {
            eprintln!("shotty: error: {e}");
            return Ok(2);
        }
        Err(e) => return Err(e.to_string()),
    };
    let bytes = match kind {
        Kind::Cast => cast_bytes(&recording, args.appearance.title())?,
        Kind::Animation(format) => {
            match animate(&mut recording.timeline.frames(timing), format, &appearance) {
                Ok(bytes) => bytes,
                Err(e) => return Err(keep_as_cast(&recording, &args, &e.to_string())),
            }
        }
    };
    write_output(Some(&args.out), &bytes)?;
    if let Some(signal) = recording.signal {
        eprintln!(
            "shotty: recording ended by {}",
            shotty::pty::signal_name(signal)
        );
    }
    let status = recording.status;
    Ok(match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => 0,
    })
}

/// The message for an animation that could not be made: the session the user just recorded
/// is not lost, it is written beside the output as `FILE.cast` (if that works).
fn keep_as_cast(recording: &LiveRecording, args: &RecordArgs, error: &str) -> String {
    let mut kept = args.out.clone().into_os_string();
    kept.push(".cast");
    let kept = PathBuf::from(kept);
    let saved = cast_bytes(recording, args.appearance.title())
        .and_then(|bytes| write_output(Some(&kept), &bytes));
    match saved {
        Ok(()) => format!(
            "cannot write {}: {error}; the recording is kept in {}",
            args.out.display(),
            kept.display()
        ),
        Err(e) => format!(
            "cannot write {}: {error} (nor keep the recording: {e})",
            args.out.display()
        ),
    }
}

/// The recording as asciicast v2.
fn cast_bytes(recording: &LiveRecording, title: Option<&str>) -> Result<Vec<u8>, String> {
    let info = CastInfo {
        timestamp: recording
            .started_at
            .duration_since(UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs()),
        title: title.map(str::to_owned),
    };
    let mut bytes = Vec::new();
    write_v2(&recording.timeline, &info, &mut bytes)
        .map_err(|e| format!("cannot write the recording: {e}"))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_follows_the_extension_or_the_format() {
        let kind = |format: Option<Kind>, name: &str| resolve_kind(format, Path::new(name));
        assert_eq!(kind(None, "a.cast"), Ok(Kind::Cast));
        assert_eq!(
            kind(None, "a.GIF"),
            Ok(Kind::Animation(AnimationFormat::Gif))
        );
        assert_eq!(
            kind(None, "a.svg"),
            Ok(Kind::Animation(AnimationFormat::Svg))
        );
        assert!(kind(None, "a.png").is_err());
        assert_eq!(
            kind(kind_arg("apng").ok(), "a.png"),
            Ok(Kind::Animation(AnimationFormat::Apng))
        );
        assert_eq!(kind_arg("Cast"), Ok(Kind::Cast));
        assert!(kind_arg("mp4").is_err());
    }

    #[test]
    fn the_record_limit_has_the_sessions_bounds() {
        assert_eq!(record_limit("64K"), Ok(64 << 10));
        assert_eq!(record_limit("1G"), Ok(1 << 30));
        assert!(record_limit("63K").is_err());
        assert!(record_limit("2G").is_err());
        assert!(record_limit("lots").is_err());
    }
}
