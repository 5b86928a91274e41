//! `shotty capture -- CMD` (also `shotty [OPTIONS] -- CMD`) and pipe mode (`CMD | shotty`).

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use shotty::duration::parse_duration;
use shotty::pty::{ColorEnvFlags, PtyCommand, PtyError};
use shotty::recording::Timeline;
use shotty::render::Format;
use shotty::render::animation::animate;
use shotty::session::run::{RunEnd, StopWhen, run_recorded};
use shotty::term::{Terminal, TerminalOptions};

use super::appearance::AppearanceArgs;
use super::output::{encode_warning_blanks, write_output};
use super::timing::{OutputKind, TimingArgs, output_kind_arg, resolve_output};
use super::{dimension, env_pair};

/// Rows a capture runs with when no height is given; the screenshot is then fitted to the
/// output, scrollback included.
const FIT_RUN_HEIGHT: u16 = 50;
/// Rows an animated capture runs with when no height is given (a terminal's usual size: an
/// animation shows the screen, not a fitted history).
const VIDEO_HEIGHT: u16 = 24;
/// The most lines a fitted screenshot shows (the newest).
const MAX_FITTED_LINES: usize = 2000;
/// A capture without --timeout or --until-text ends after this long at the latest …
const SAFETY_TIMEOUT: Duration = Duration::from_secs(60);
/// … or once the command waits for keyboard input with no output for this long.
const INPUT_QUIET: Duration = Duration::from_millis(500);
/// Why piped output cannot be animated.
const PIPED_ANIMATION: &str = "piped output has no timing to animate: give the command after `--` (shotty capture --video -- CMD)";
/// Bytes of piped input accepted at most.
const MAX_PIPE_BYTES: u64 = 256 * 1024 * 1024;

/// Arguments of `shotty capture` (and of `shotty` itself).
#[derive(Debug, Args)]
// `-h` is `--height`, so clap's help flag is off. The config file's defaults come first on
// the command line: a flag typed after them replaces them (see `config.rs`).
#[command(after_long_help = super::examples::CAPTURE, disable_help_flag = true, args_override_self = true)]
pub struct CaptureArgs {
    /// Terminal columns.
    #[arg(short = 'w', long, default_value_t = 100, value_parser = dimension)]
    width: u16,
    /// Terminal rows. Default: the command runs 50 rows high and the screenshot is fitted to
    /// its output, scrollback included; a full-screen program (vim, htop) therefore draws and
    /// is shown 50 rows high. An animation runs 24 rows high.
    #[arg(short = 'h', long, value_parser = dimension)]
    height: Option<u16>,
    /// Take the screenshot this long after the command started (500ms, 2s, 3m) and exit 0: a
    /// later moment of a program that keeps running or waits for keys (htop's meters once
    /// measured, a dev server once it listens). The command is ended then, unless it exited
    /// sooner.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, conflicts_with_all = ["timeout", "until_text"])]
    after: Option<Duration>,
    /// Stop the command after this long (500ms, 2s, 3m, 1h) and render what is on screen
    /// (exit code 124). Without it and --until-text, a capture also ends when the command
    /// waits for keyboard input with its output quiet, and after 60s at the latest.
    #[arg(long, value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// Stop the command once this text is on the screen and the screen is then quiet for
    /// --stable-for.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    until_text: Option<String>,
    /// With --until-text: how long the screen must stay unchanged after the text appeared, so
    /// that a screen still being drawn is not captured half-done.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, default_value = "100ms")]
    stable_for: Duration,
    /// Output file; the format follows the extension (.svg, .png, .txt, .json; .gif and
    /// .apng animate).
    #[arg(short = 'o', long = "out", value_name = "PATH")]
    out: Option<PathBuf>,
    /// Output format: svg, png, txt, json, gif, apng or mp4.
    #[arg(long, value_parser = output_kind_arg)]
    format: Option<OutputKind>,
    /// Record the run and write it animated (.svg; .gif and .apng always animate).
    #[arg(short = 'v', long)]
    video: bool,
    /// Write the result to stdout instead of a file.
    #[arg(long)]
    stdout: bool,
    /// Show a prompt and the command line above the output.
    #[arg(short = 'c', long)]
    with_command: bool,
    /// The prompt shown by --with-command.
    #[arg(long, default_value = "$", allow_hyphen_values = true)]
    prompt: String,
    /// Text shown after the prompt instead of the command line (implies --with-command).
    #[arg(long, allow_hyphen_values = true)]
    header: Option<String>,
    /// Do not set TERM, COLORTERM and FORCE_COLOR for the command.
    #[arg(long)]
    no_colorenv: bool,
    /// Keep CI and TF_BUILD in the command's environment.
    #[arg(long)]
    no_delete_envs: bool,
    /// Working directory of the command.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Extra environment variable for the command (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = env_pair)]
    env: Vec<(String, String)>,
    #[command(flatten)]
    appearance: AppearanceArgs,
    #[command(flatten)]
    timing: TimingArgs,
    #[command(flatten)]
    help: super::LongHelpFlag,
    #[command(flatten)]
    config: super::config::ConfigFlag,
    /// The command and its arguments (after `--`); without one, stdin is rendered.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// Quotes a word for display the way a shell user would type it.
fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

impl CaptureArgs {
    /// Whether a command was given (otherwise this is pipe mode).
    pub fn has_command(&self) -> bool {
        !self.command.is_empty()
    }

    fn command_line(&self) -> String {
        self.command
            .iter()
            .map(|w| shell_word(w))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn run_height(&self) -> u16 {
        let animates = matches!(self.output_kind(), Ok(OutputKind::Animated(_)));
        let default = if animates {
            VIDEO_HEIGHT
        } else {
            FIT_RUN_HEIGHT
        };
        self.height.unwrap_or(default)
    }

    fn terminal(&self) -> Terminal {
        Terminal::with_options(
            usize::from(self.width),
            usize::from(self.run_height()),
            TerminalOptions {
                scrollback: MAX_FITTED_LINES,
                ..Default::default()
            },
        )
    }

    /// The header line `--with-command` shows, as terminal output.
    fn header_bytes(&self) -> Option<Vec<u8>> {
        if !self.with_command && self.header.is_none() {
            return None;
        }
        let text = self.header.clone().unwrap_or_else(|| self.command_line());
        Some(format!("\x1b[1;32m{}\x1b[0m {text}\r\n", self.prompt).into_bytes())
    }

    /// Where the result goes: `None` for stdout.
    fn out_path(&self) -> Option<PathBuf> {
        if self.stdout {
            return None;
        }
        Some(
            self.out
                .clone()
                .unwrap_or_else(|| PathBuf::from("output.svg")),
        )
    }

    /// What is written, checked before anything runs.
    fn output_kind(&self) -> Result<OutputKind, String> {
        self.timing.to_timing()?;
        resolve_output(
            self.format,
            self.out_path().as_deref(),
            self.video,
            Format::Svg,
        )
    }

    /// Writes the screen, or the recording animated when the output animates (pipe mode has
    /// no recording: `recording` is `None` there).
    fn write(
        &self,
        term: &Terminal,
        recording: Option<&Timeline>,
        default_title: Option<String>,
    ) -> Result<(), String> {
        let out = self.out_path();
        let appearance = self.appearance.to_appearance(default_title)?;
        let format = match (self.output_kind()?, recording) {
            (OutputKind::Still(format), _) => format,
            (OutputKind::Animated(format), Some(recording)) => {
                let mut frames = recording.frames(self.timing.to_timing()?);
                let bytes = animate(&mut frames, format, &appearance).map_err(|e| e.to_string())?;
                return write_output(out.as_deref(), &bytes);
            }
            (OutputKind::Animated(_), None) => {
                return Err(PIPED_ANIMATION.into());
            }
        };
        // A full-screen program (on the alternate screen) drew for the height it ran at.
        let snapshot = match self.height {
            None if !term.screen().is_alternate_screen() => term.history_snapshot(MAX_FITTED_LINES),
            _ => term.snapshot(),
        };
        let bytes = encode_warning_blanks(&snapshot, format, &appearance)?;
        write_output(out.as_deref(), &bytes)
    }
}

/// Runs the command in a PTY and renders its screen. Returns the command's exit code (128 +
/// signal if a signal ended it, 124 after `--timeout`, 0 after `--until-text` or `--after`).
pub fn run(args: CaptureArgs) -> Result<i32, String> {
    if !args.has_command() {
        return pipe(args);
    }
    // Fail on bad options before running anything.
    args.appearance.to_appearance(None)?;
    args.output_kind()?;
    let mut cmd = PtyCommand::new(&args.command[0]);
    cmd.args(&args.command[1..])
        .size(args.width, args.run_height())
        .color_env_with(ColorEnvFlags {
            no_colorenv: args.no_colorenv,
            no_delete_envs: args.no_delete_envs,
        });
    for (k, v) in &args.env {
        cmd.env(k, v);
    }
    if let Some(dir) = &args.cwd {
        cmd.cwd(dir);
    }
    let mut term = args.terminal();
    if let Some(header) = args.header_bytes() {
        term.advance(&header);
    }
    // The user's own end conditions replace the automatic ones.
    let automatic = args.timeout.is_none() && args.until_text.is_none() && args.after.is_none();
    let stop = StopWhen {
        timeout: args
            .after
            .or(args.timeout)
            .or(automatic.then_some(SAFETY_TIMEOUT)),
        until_text: args.until_text.clone(),
        stable_for: args.stable_for,
        awaiting_input: automatic.then_some(INPUT_QUIET),
        ..StopWhen::default()
    };
    let (outcome, recording) = run_recorded(&cmd, &mut term, &stop).map_err(|e| match e {
        PtyError::CannotRun { .. } => e.to_string(),
        other => format!("capture failed: {other}"),
    })?;
    args.write(&term, Some(&recording), Some(args.command_line()))?;
    let program = args.command.first().map_or("the command", String::as_str);
    match outcome.stopped_by {
        RunEnd::AwaitingInput => eprintln!(
            "shotty: {program} is waiting for keyboard input; captured its screen and ended it \
             (--after, --timeout or --until-text capture a later moment)"
        ),
        RunEnd::Timeout if automatic => eprintln!(
            "shotty: {program} was still running after {}s; captured its screen and ended it \
             (--timeout sets another limit)",
            SAFETY_TIMEOUT.as_secs()
        ),
        _ => {}
    }
    Ok(match outcome.stopped_by {
        RunEnd::Timeout if args.after.is_some() => 0,
        RunEnd::Timeout => 124,
        RunEnd::UntilText | RunEnd::AwaitingInput => 0,
        RunEnd::Exited => match (outcome.exit_code, outcome.signal_number) {
            (Some(code), _) => code,
            (None, Some(signal)) => 128 + signal,
            (None, None) => 0,
        },
    })
}

/// Pipe mode: renders the bytes on stdin as a terminal would show them.
fn pipe(args: CaptureArgs) -> Result<i32, String> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(
            "nothing to capture: give a command after `--` (shotty -- ls --color) or pipe output in (ls --color | shotty)"
                .into(),
        );
    }
    args.appearance.to_appearance(None)?;
    if let OutputKind::Animated(_) = args.output_kind()? {
        return Err(PIPED_ANIMATION.into());
    }
    let mut term = args.terminal();
    if let Some(header) = args.header_bytes() {
        term.advance(&header);
    }
    let mut input = stdin.lock().take(MAX_PIPE_BYTES);
    shotty::input::play_raw(&mut input, &mut term)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    args.write(&term, None, None)?;
    Ok(0)
}
