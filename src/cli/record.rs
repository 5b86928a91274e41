//! `shotty record -o FILE -- CMD`: an interactive recording in the user's own terminal, like
//! `asciinema rec` (the work is `shotty::recording::live`).

use std::path::PathBuf;
use std::time::UNIX_EPOCH;

use clap::Args;

use shotty::recording::asciicast::CastInfo;
use shotty::recording::live::{self, LiveError, LiveRecording};
use shotty::session::artifacts;
use shotty::session::instance::check_record_limit;

use super::appearance::AppearanceArgs;
use super::output::write_output;
use super::timing::{RECORDING_FORMATS, TimingArgs, check_mask, recording_format};

/// Arguments of `shotty record`.
#[derive(Debug, Args)]
// The config file's defaults come first: a flag typed after them replaces them.
#[command(after_long_help = super::examples::RECORD, args_override_self = true)]
pub struct RecordArgs {
    /// Output file; the kind follows the extension: .cast (asciicast v2), .svg (animated),
    /// .gif, .apng.
    #[arg(short = 'o', long = "out", value_name = "PATH")]
    out: PathBuf,
    /// Output kind: cast, svg, gif, apng or mp4 (e.g. apng for a .png name).
    #[arg(long, value_parser = RECORDING_FORMATS)]
    format: Option<String>,
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
    #[command(flatten)]
    config: super::config::ConfigFlag,
    /// The command to record and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// Parses `--record-limit`: a size within the bounds `session start --record-limit` has.
fn record_limit(s: &str) -> Result<usize, String> {
    check_record_limit(shotty::bytesize::parse_size(s)?)
}

/// Records the command live and writes the file. Returns the command's exit code (128 +
/// signal if a signal ended it); 2 without a terminal.
pub fn run(args: RecordArgs) -> Result<i32, String> {
    // Every option is checked before the user starts typing into the recording.
    let format = recording_format(args.format.as_deref(), &args.out)?;
    let timing = args.timing.to_timing()?;
    let appearance = args.appearance.to_appearance(None)?;
    check_mask(format, &appearance)?;
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
    let info = cast_info(&recording, args.appearance.title());
    let animation = format.map(|f| (f, timing, &appearance));
    let bytes = match artifacts::timeline_file(&recording.timeline, &info, animation) {
        Ok(bytes) => bytes,
        // A masked recording is never kept unmasked.
        Err(e) if format.is_some() && appearance.mask.is_empty() => {
            return Err(keep_as_cast(&recording, &args, &e.message));
        }
        Err(e) => return Err(e.message),
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
    let info = cast_info(recording, args.appearance.title());
    let saved = artifacts::timeline_file(&recording.timeline, &info, None)
        .map_err(|e| e.message)
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

/// The asciicast header fields of the recording.
fn cast_info(recording: &LiveRecording, title: Option<&str>) -> CastInfo {
    CastInfo {
        timestamp: recording
            .started_at
            .duration_since(UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs()),
        title: title.map(str::to_owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_limit_has_the_sessions_bounds() {
        assert_eq!(record_limit("64K"), Ok(64 << 10));
        assert_eq!(record_limit("1G"), Ok(1 << 30));
        assert!(record_limit("63K").is_err());
        assert!(record_limit("2G").is_err());
        assert!(record_limit("lots").is_err());
    }
}
