//! `shotty session …`: every subcommand prints exactly one JSON document on stdout — usage
//! errors included — and diagnostics on stderr.

use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};
use serde_json::{Value, json};

use shotty::duration::parse_duration;
use shotty::render::Format;
use shotty::session::client::{Client, reply_timeout, reply_timeout_after};
use shotty::session::host::ConnectionLimits;
use shotty::session::protocol::{
    CommandsParams, FindParams, HistoryParams, IdParams, JournalReply, ListParams, MarkParams,
    ReadParams, ResizeParams, SendParams, SendStep, StartParams, StopParams, WaitParams,
};
use shotty::session::{ErrorCode, SessionError, artifacts, paths};

use super::appearance::AppearanceArgs;
use super::output::{format_arg, resolve_format, write_output};
use super::timing::{RECORDING_FORMATS, TimingArgs, check_mask, recording_format};
use super::{dimension, env_pair};

#[derive(Debug, Parser)]
#[command(
    name = "shotty session",
    about = "Background terminal sessions (JSON output)",
    after_long_help = super::examples::SESSION
)]
struct SessionCli {
    #[command(subcommand)]
    command: SessionCommand,
}

fn ms(d: Duration) -> u64 {
    d.as_millis().min(u64::MAX as u128) as u64
}

/// Start a program in a new background terminal.
#[derive(Debug, Parser)]
#[command(after_long_help = super::examples::SESSION_START)]
struct StartArgs {
    /// Columns (1–500).
    #[arg(long, default_value_t = 100, value_parser = dimension)]
    width: u16,
    /// Rows (1–500).
    #[arg(long, default_value_t = 24, value_parser = dimension)]
    height: u16,
    /// Working directory of the program (default: the current one).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// Set a variable for the program (repeatable).
    #[arg(long = "env", value_parser = env_pair, value_name = "KEY=VALUE")]
    env: Vec<(String, String)>,
    /// A title for `list` (default: the title the program sets).
    #[arg(long)]
    title: Option<String>,
    /// A group name, for `list --group` and `stop --group`.
    #[arg(long)]
    group: Option<String>,
    /// Stop the session after this long (e.g. 30s, 5m; default: never).
    #[arg(long, value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// Keep the ended session this long (default 24h).
    #[arg(long, value_parser = parse_duration)]
    retain: Option<Duration>,
    /// Lines of scrollback kept (100–200000).
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(100..=200_000))]
    scrollback: u32,
    /// What the recording keeps of output and input (e.g. 64M; default 16M); the oldest part
    /// is dropped past it and the recording starts from a keyframe.
    #[arg(long, value_parser = shotty::bytesize::parse_size)]
    record_limit: Option<u64>,
    /// A TCP port the program will listen on (warns when already in use).
    #[arg(long = "port")]
    ports: Vec<u16>,
    /// Do not set TERM=xterm-256color, COLORTERM=truecolor and FORCE_COLOR=3.
    #[arg(long)]
    no_colorenv: bool,
    /// Do not remove CI and TF_BUILD from the environment.
    #[arg(long)]
    no_delete_envs: bool,
    /// A name to use in place of the id (unique among this host's sessions).
    #[arg(long)]
    name: Option<String>,
    /// Make bash, zsh or fish mark its prompt and commands (OSC 133) for `wait --command`,
    /// `commands` and `read`'s `prompt`, without touching your start-up files (they are
    /// still read).
    #[arg(long)]
    shell_integration: bool,
    /// Reply once the program waits for input (with --shell-integration: its first prompt),
    /// waiting at most DURATION (default 10s); the reply's `ready` says whether it did.
    #[arg(long, value_name = "DURATION", num_args = 0..=1, default_missing_value = "10s", value_parser = parse_duration)]
    wait_ready: Option<Duration>,
    /// Stop the session (as `stop` does) within a second of process PID ending: a script's
    /// `--owner-pid $$` ends the programs it started with it, however it ends.
    #[arg(long, value_name = "PID")]
    owner_pid: Option<u32>,
    /// The program and its arguments, after `--` (run directly, no shell).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// List sessions.
#[derive(Debug, Parser)]
struct ListArgs {
    /// Include ended sessions that are still retained.
    #[arg(long)]
    all: bool,
    /// Only sessions of this group.
    #[arg(long)]
    group: Option<String>,
    /// Only sessions in this state (starting, running, stopping, exited, stopped,
    /// unavailable).
    #[arg(long)]
    state: Option<String>,
}

/// Read the screen.
#[derive(Debug, Parser)]
#[command(after_long_help = super::examples::SESSION_READ)]
struct ReadArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Include the structured snapshot (cells, styles, cursor, modes).
    #[arg(long)]
    structured: bool,
    /// Only the first N rows.
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Only the last N rows.
    #[arg(long, value_name = "N")]
    bottom: Option<usize>,
    /// First row of a range (0-based; with --end).
    #[arg(long, value_name = "ROW")]
    start: Option<usize>,
    /// Last row of a range (0-based, included; with --start).
    #[arg(long, value_name = "ROW")]
    end: Option<usize>,
    /// A `version` from an earlier read: if the content has not changed since, reply
    /// `changed: false` without the screen, at once.
    #[arg(long, value_name = "VERSION")]
    since: Option<u64>,
    /// Leave out the blank rows at the end of `screen.text` (by default every row is a line,
    /// as console2svg's `session read` prints it).
    #[arg(long)]
    trim: bool,
}

/// Wait for a condition on the screen.
#[derive(Debug, Parser)]
#[command(after_long_help = super::examples::SESSION_WAIT)]
struct WaitArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Literal text on the screen; spaces at its end match blanks (`">>> "`).
    #[arg(long, allow_hyphen_values = true)]
    text: Option<String>,
    /// A regular expression (Rust syntax) on the screen's text; `^` and `$` anchor lines.
    #[arg(long, allow_hyphen_values = true)]
    regex: Option<String>,
    /// `present` (default); `absent`: until the text or regex has been on the screen and is
    /// gone; `gone`: until it is not on the screen once the program has reacted to the input
    /// sent before, whether or not it was seen.
    #[arg(long)]
    until: Option<String>,
    /// The condition must hold this long before the wait succeeds.
    #[arg(long, value_parser = parse_duration)]
    stable_for: Option<Duration>,
    /// Give up after this long (default: no limit; Ctrl+C cancels).
    #[arg(long, value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// Wait until the screen has not changed for this long.
    #[arg(long, value_parser = parse_duration)]
    idle: Option<Duration>,
    /// Wait until the program has ended.
    #[arg(long)]
    exit: bool,
    /// Wait until a shell command finished after the session's last input (at once if it
    /// already has) and report it: `command` {text, exitCode, output, durationMs}. Needs
    /// shell integration (`start --shell-integration`).
    #[arg(long)]
    command: bool,
    /// Wait until the window title contains this text.
    #[arg(long, allow_hyphen_values = true)]
    title: Option<String>,
    /// Wait until the terminal rings its bell (after the last input).
    #[arg(long)]
    bell: bool,
    /// Wait until the screen's content changes (a cursor that only moves or blinks is no
    /// change): after --since VERSION (a `version` from read), else after the wait began.
    #[arg(long)]
    changed: bool,
    /// With --changed: the version to compare with.
    #[arg(long, value_name = "VERSION", requires = "changed")]
    since: Option<u64>,
    /// The condition must become true after the wait begins: text already on the screen
    /// (the echo of the command line just typed) does not count, only text where it was not.
    #[arg(long)]
    fresh: bool,
}

/// Where a text or pattern is on the screen: rows and columns to click, optionally only where
/// it has a style.
#[derive(Debug, Parser)]
struct FindArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Literal text (case-sensitive).
    #[arg(long, allow_hyphen_values = true)]
    text: Option<String>,
    /// A regular expression (Rust syntax) matched against each row.
    #[arg(long, allow_hyphen_values = true)]
    regex: Option<String>,
    /// Only where every cell has this style: bold, dim, italic, underline, inverse, …,
    /// fg=C, bg=C (C: default, 0-255, a name such as red or bright-blue, or #rrggbb),
    /// comma-separated.
    #[arg(long)]
    style: Option<String>,
    /// Search the scrollback too (rows are then history line indices, as `history` gives).
    #[arg(long)]
    history: bool,
}

/// The program's output as a stream with byte offsets (escape sequences taken out unless
/// --ansi): the log of a dev server or a build, beyond what the screen shows.
#[derive(Debug, Parser)]
struct OutputArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// From this offset (an earlier reply's `end`; default: the start).
    #[arg(long, value_name = "OFFSET")]
    since: Option<u64>,
    /// Keep the escape sequences (colours, cursor moves).
    #[arg(long)]
    ansi: bool,
    /// Keep printing output as it comes, one JSON line per piece ({start, end, text}), until
    /// the program ends or Ctrl+C; the last line is the usual status document.
    #[arg(long)]
    follow: bool,
}

/// End the program and start the same command again (size, environment, directory, group,
/// name, options) in a new session; the old one is kept as stopped (reason `restart`).
#[derive(Debug, Parser)]
struct RestartArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
}

/// Commands the shell ran, with exit codes (shell integration).
#[derive(Debug, Parser)]
struct CommandsArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Only the last N (default 20).
    #[arg(long, value_name = "N")]
    last: Option<usize>,
}

/// Send text, pasted text, keys, raw bytes, mouse gestures and pauses, in order, as one
/// operation. Mouse positions are ROW,COL, 0-based as `read` reports the cursor; mouse steps
/// are refused when the program has not turned mouse tracking on.
#[derive(Debug, Parser)]
#[command(after_long_help = super::examples::SESSION_SEND)]
struct SendArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Literal text (a carriage return in it is Enter; see also --keys Enter).
    #[arg(long, allow_hyphen_values = true)]
    text: Vec<String>,
    /// Text pasted (bracketed when the program asked for it).
    #[arg(long, allow_hyphen_values = true)]
    paste: Vec<String>,
    /// A key, by name (repeatable): Enter, Ctrl+C (or C-c), Alt+X (M-x), Shift+Tab, Up, F5…
    #[arg(long, allow_hyphen_values = true)]
    keys: Vec<String>,
    /// Bytes as hex digit pairs, together or apart: 1b5b41, "1b 5b 41".
    #[arg(long, allow_hyphen_values = true)]
    raw_hex: Vec<String>,
    /// A key's release, for programs that asked for key events (kitty keyboard protocol,
    /// flag 2).
    #[arg(long, value_name = "KEY", allow_hyphen_values = true)]
    key_release: Vec<String>,
    /// A key's auto-repeat (kitty keyboard protocol, flag 2).
    #[arg(long, value_name = "KEY", allow_hyphen_values = true)]
    key_repeat: Vec<String>,
    /// Click at a cell.
    #[arg(long, value_name = "ROW,COL")]
    click: Vec<String>,
    /// Double-click at a cell.
    #[arg(long, value_name = "ROW,COL")]
    double_click: Vec<String>,
    /// Click the first cell of this text on the screen (its first occurrence; see --nth).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    click_text: Vec<String>,
    /// After --click-text: click its Nth occurrence (1-based, screen order).
    #[arg(long, value_name = "N")]
    nth: Vec<String>,
    /// Before a click or drag: the button (left, middle, right; default left).
    #[arg(long, value_name = "BUTTON")]
    button: Vec<String>,
    /// Before a mouse step: modifiers held, comma-separated (shift, alt, meta, ctrl).
    #[arg(long, value_name = "MODS")]
    mods: Vec<String>,
    /// Turn the wheel N notches (default 1) where the last mouse step left the pointer, or at
    /// --at.
    #[arg(long, value_name = "up|down|left|right[:N]")]
    scroll: Vec<String>,
    /// With --scroll: where the wheel turns.
    #[arg(long, value_name = "ROW,COL")]
    at: Vec<String>,
    /// Press at one cell, move to another holding the button, release.
    #[arg(long, value_name = "ROW,COL:ROW,COL")]
    drag: Vec<String>,
    /// Move the pointer to a cell (reported when the program tracks all motion, mode 1003).
    #[arg(long = "move", value_name = "ROW,COL")]
    move_to: Vec<String>,
    /// Pause this long before the next step (e.g. 50ms): `--keys Escape --delay 50ms --text
    /// q` reaches the program as Escape and q, not as Alt+q.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    delay: Vec<Duration>,
}

/// Resize the terminal.
#[derive(Debug, Parser)]
struct ResizeArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Columns (1–500).
    #[arg(long, value_parser = dimension)]
    width: u16,
    /// Rows (1–500).
    #[arg(long, value_parser = dimension)]
    height: u16,
}

/// Render the screen to a file.
#[derive(Debug, Parser)]
#[command(args_override_self = true)]
struct CaptureArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Output file; its extension picks the format unless --format is given.
    #[arg(short = 'o', long = "out", default_value = "output.svg")]
    out: PathBuf,
    /// svg, png, txt or json.
    #[arg(long, value_parser = format_arg)]
    format: Option<Format>,
    #[command(flatten)]
    appearance: AppearanceArgs,
    #[command(flatten)]
    config: super::config::ConfigFlag,
}

/// Render the screen to a private temporary file and print its path.
#[derive(Debug, Parser)]
#[command(args_override_self = true)]
struct InspectArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// svg (default) or png.
    #[arg(long, value_parser = format_arg)]
    format: Option<Format>,
    #[command(flatten)]
    appearance: AppearanceArgs,
    #[command(flatten)]
    config: super::config::ConfigFlag,
}

/// Add a marker to the session's recording.
#[derive(Debug, Parser)]
struct MarkArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// The marker's label.
    #[arg(long)]
    label: Option<String>,
}

/// Write the session's recording: asciicast v2 (output, input, resizes, markers), or
/// animated (.svg, .gif, .apng).
#[derive(Debug, Parser)]
#[command(after_long_help = super::examples::SESSION_EXPORT)]
struct ExportArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Output file (`-`: stdout); .cast, or .svg, .gif, .apng, .mp4 for an animation, .yaml for a
    /// scenario of the steps that drove the session (`shotty scenario run` replays it), or
    /// .tape for them as a VHS tape (`shotty tape` runs it).
    #[arg(short, long)]
    out: PathBuf,
    /// cast, svg, gif, apng or mp4 (default: from the extension, else cast).
    #[arg(long, value_parser = RECORDING_FORMATS)]
    format: Option<String>,
    #[command(flatten)]
    appearance: AppearanceArgs,
    #[command(flatten)]
    timing: TimingArgs,
}

/// Lines from scrollback and screen with their global indices.
#[derive(Debug, Parser)]
struct HistoryArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Lines from this global index on.
    #[arg(long, value_name = "INDEX")]
    from: Option<u64>,
    /// At most this many lines.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Only lines matching this regular expression.
    #[arg(long, allow_hyphen_values = true)]
    grep: Option<String>,
    /// --grep ignores case.
    #[arg(short = 'i')]
    ignore_case: bool,
    /// Only the last N lines.
    #[arg(long, value_name = "N")]
    tail: Option<usize>,
}

/// End sessions and their whole process trees.
#[derive(Debug, Parser)]
struct StopArgs {
    /// The sessions: ids, names, unique id prefixes or `last`.
    ids: Vec<String>,
    /// Every session of this host (needs --yes).
    #[arg(long)]
    all: bool,
    /// Confirm --all.
    #[arg(long)]
    yes: bool,
    /// Every session of this group.
    #[arg(long)]
    group: Option<String>,
}

#[derive(Debug, Subcommand)]
enum SessionCommand {
    Start(StartArgs),
    List(ListArgs),
    Read(ReadArgs),
    Wait(WaitArgs),
    Send(SendArgs),
    Resize(ResizeArgs),
    Capture(CaptureArgs),
    Inspect(InspectArgs),
    History(HistoryArgs),
    Commands(CommandsArgs),
    Find(FindArgs),
    Restart(RestartArgs),
    Output(OutputArgs),
    Mark(MarkArgs),
    Export(ExportArgs),
    Stop(StopArgs),
    Attach(super::attach::AttachArgs),
    /// Run the session host (started automatically; not for direct use).
    #[command(hide = true)]
    Host,
}

/// Prints the envelope and returns the exit code.
fn emit(result: Result<Value, SessionError>, to_stderr: bool) -> i32 {
    let (doc, code) = match result {
        Ok(mut v) => {
            let failed = v.get("status").and_then(Value::as_str) == Some("error")
                || v.get("failed")
                    .and_then(Value::as_array)
                    .is_some_and(|f| !f.is_empty());
            if let Some(obj) = v.as_object_mut() {
                obj.entry("status")
                    .or_insert(json!(if failed { "error" } else { "ok" }));
            }
            let mut doc = json!({ "schemaVersion": 1 });
            if let (Some(d), Some(o)) = (doc.as_object_mut(), v.as_object()) {
                for (k, val) in o {
                    d.insert(k.clone(), val.clone());
                }
            }
            (doc, i32::from(failed))
        }
        Err(e) => {
            eprintln!("shotty session: {}", e.message);
            (
                json!({ "schemaVersion": 1, "status": "error", "error": { "code": e.code, "message": e.message } }),
                1,
            )
        }
    };
    let mut line = serde_json::to_string(&doc).unwrap_or_else(|_| "{}".into());
    line.push('\n');
    if to_stderr {
        eprint!("{line}");
    } else {
        let _ = write_output(None, line.as_bytes());
    }
    code
}

/// Entry point for `shotty session …` (`args` excludes the program name).
/// The session family's parser, named as it appears under `shotty` (for completions and the
/// man pages).
pub(super) fn command() -> clap::Command {
    use clap::CommandFactory;
    SessionCli::command().name("session")
}

pub fn main(mut args: Vec<String>) -> i32 {
    // The commands that render take the config file's appearance defaults, before the user's
    // own flags (which win: both parsers override an option given twice).
    if matches!(
        args.first().map(String::as_str),
        Some("capture" | "inspect")
    ) {
        match super::config::session_defaults(&mut args) {
            Ok(defaults) => drop(args.splice(1..1, defaults)),
            Err(e) => return emit(Err(SessionError::invalid_request(e)), false),
        }
    }
    let command = match parse(args) {
        Ok(command) => command,
        Err(e) if !e.use_stderr() => {
            // --help / --version are for people.
            let _ = e.print();
            return 0;
        }
        Err(e) => return emit(Err(SessionError::invalid_request(usage_message(&e))), false),
    };
    if let SessionCommand::Host = command {
        return host();
    }
    // A command whose output goes to stdout reports on stderr.
    let to_stdout = matches!(&command, SessionCommand::Export(a) if a.out.as_os_str() == "-");
    emit(run(command), to_stdout)
}

/// A usage error on one line: clap's message without the usage and help hints.
fn usage_message(e: &clap::Error) -> String {
    if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        use clap::CommandFactory;
        let command = SessionCli::command();
        let names: Vec<&str> = command
            .get_subcommands()
            .filter(|c| !c.is_hide_set())
            .map(|c| c.get_name())
            .collect();
        return format!("a subcommand is required: {}", names.join(", "));
    }
    let rendered = e.render().to_string();
    let message: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:") && !l.starts_with("For more"))
        .collect();
    let message = message.join(" ");
    message
        .strip_prefix("error: ")
        .unwrap_or(&message)
        .to_owned()
}

/// Parses the arguments after `session`. Building the parser of every subcommand costs more
/// than a whole `read` or `send` request (~0.15 ms), so only the named subcommand's parser is
/// built; help and unknown subcommands go through the complete one.
fn parse(args: Vec<String>) -> Result<SessionCommand, clap::Error> {
    fn one<T: Parser>(
        name: &'static str,
        args: Vec<String>,
        variant: fn(T) -> SessionCommand,
    ) -> Result<SessionCommand, clap::Error> {
        let mut command = T::command().name(name);
        let argv = std::iter::once(name.to_owned()).chain(args.into_iter().skip(1));
        let matches = command.try_get_matches_from_mut(argv)?;
        T::from_arg_matches(&matches).map(variant)
    }
    let name = args.first().cloned().unwrap_or_default();
    match name.as_str() {
        "start" => one("shotty session start", args, SessionCommand::Start),
        "list" => one("shotty session list", args, SessionCommand::List),
        "read" => one("shotty session read", args, SessionCommand::Read),
        "wait" => one("shotty session wait", args, SessionCommand::Wait),
        "send" => one("shotty session send", args, SessionCommand::Send),
        "resize" => one("shotty session resize", args, SessionCommand::Resize),
        "capture" => one("shotty session capture", args, SessionCommand::Capture),
        "inspect" => one("shotty session inspect", args, SessionCommand::Inspect),
        "history" => one("shotty session history", args, SessionCommand::History),
        "commands" => one("shotty session commands", args, SessionCommand::Commands),
        "find" => one("shotty session find", args, SessionCommand::Find),
        "restart" => one("shotty session restart", args, SessionCommand::Restart),
        "output" => one("shotty session output", args, SessionCommand::Output),
        "mark" => one("shotty session mark", args, SessionCommand::Mark),
        "export" => one("shotty session export", args, SessionCommand::Export),
        "stop" => one("shotty session stop", args, SessionCommand::Stop),
        "attach" => one("shotty session attach", args, SessionCommand::Attach),
        _ => {
            let argv = std::iter::once("shotty session".to_owned()).chain(args);
            SessionCli::try_parse_from(argv).map(|cli| cli.command)
        }
    }
}

fn host() -> i32 {
    // Detach from the caller's terminal and process group.
    let _ = rustix::process::setsid();
    let runtime = paths::runtime_dir();
    if paths::ensure_private_dir(&runtime).is_err() {
        return 1;
    }
    // 0600 like everything in the runtime directory (an older, looser one is tightened).
    let Ok(lock) = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(runtime.join("host.lock"))
    else {
        return 1;
    };
    if lock
        .set_permissions(std::fs::Permissions::from_mode(0o600))
        .is_err()
    {
        return 1;
    }
    // One host per user: whoever holds the lock serves; the others leave quietly.
    if rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
        return 0;
    }
    let millis = |var: &str| {
        std::env::var(var)
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis)
    };
    let idle = millis("SHOTTY_HOST_IDLE_MS").unwrap_or(Duration::from_secs(60));
    let defaults = ConnectionLimits::default();
    // The tests' way to see the deadline pass without waiting a minute.
    let limits = ConnectionLimits {
        request_deadline: millis("SHOTTY_HOST_REQUEST_MS").unwrap_or(defaults.request_deadline),
        ..defaults
    };
    match shotty::session::host::run(&paths::socket_path(), paths::state_dir(), idle, limits) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("shotty session host: {e}");
            1
        }
    }
}

/// Connects to the host with Ctrl+C wired to cancel the pending call (the reply is then the
/// `cancelled` error document).
fn connect() -> Result<Client, SessionError> {
    let mut client = Client::connect()?;
    // Without it Ctrl+C just ends the process the default way.
    let _ = client.cancel_on_signals();
    Ok(client)
}

/// `session export`: the host writes the file (a recording can be larger than any reply);
/// for stdout it writes a private temporary file that is copied out and removed.
fn export(args: &ExportArgs) -> Result<Value, SessionError> {
    let usage = |e: String| SessionError::invalid_request(e);
    if args.format.is_none() && (is_scenario_file(&args.out) || is_tape_file(&args.out)) {
        return export_steps(args);
    }
    let format = recording_format(args.format.as_deref(), &args.out).map_err(usage)?;
    let timing = args.timing.to_timing().map_err(usage)?;
    let appearance = args.appearance.to_appearance(None).map_err(usage)?;
    check_mask(format, &appearance).map_err(usage)?;
    let animation = format.map(|f| (f, timing, &appearance));
    let (bytes, mut reply) = artifacts::export(connect()?, &args.id, animation)?;
    reply["path"] = if args.out.as_os_str() == "-" {
        write_output(None, &bytes).map_err(|e| SessionError::new(ErrorCode::IoError, e))?;
        json!("-")
    } else {
        let path = std::path::absolute(&args.out).map_err(|e| SessionError::io("bad path", e))?;
        artifacts::write_recording(&path, &bytes)
            .map_err(|e| SessionError::new(ErrorCode::IoError, e))?;
        json!(path)
    };
    Ok(reply)
}

/// Whether `path` names a scenario file (`.yaml`, `.yml`).
fn is_scenario_file(path: &std::path::Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// Whether `path` names a VHS tape (`.tape`).
fn is_tape_file(path: &std::path::Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("tape"))
}

/// `session export ID -o run.yaml` or `-o run.tape`: the session's journal as a scenario
/// file or a VHS tape.
fn export_steps(args: &ExportArgs) -> Result<Value, SessionError> {
    let params = IdParams {
        session_id: args.id.clone(),
    };
    let reply = call("journal", &params)?;
    let journal: JournalReply = serde_json::from_value(reply)
        .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
    let (text, format) = if is_tape_file(&args.out) {
        (shotty::tape::export::tape(&journal, &args.out), "tape")
    } else {
        (shotty::scenario::export::document(&journal), "scenario")
    };
    let path = std::path::absolute(&args.out).map_err(|e| SessionError::io("bad path", e))?;
    artifacts::write_file(&path, text.as_bytes())
        .map_err(|e| SessionError::new(ErrorCode::IoError, e))?;
    Ok(json!({
        "sessionId": journal.session_id,
        "format": format,
        "path": path,
        "steps": journal.journal.steps.len(),
        "dropped": journal.journal.dropped,
    }))
}

/// `session output`: one reply, or with `--follow` one JSON line per piece of output until
/// the program ends (the envelope, printed by the caller, closes it).
fn output(args: OutputArgs) -> Result<Value, SessionError> {
    use shotty::session::output::{MAX_OUTPUT_WAIT_MS, OutputParams, OutputReply};
    let mut params = OutputParams {
        session_id: args.id,
        since: args.since,
        ansi: args.ansi,
        ..OutputParams::default()
    };
    if !args.follow {
        return call("output", &params);
    }
    params.wait_ms = Some(MAX_OUTPUT_WAIT_MS);
    let timeout = reply_timeout_after("output", Duration::from_millis(MAX_OUTPUT_WAIT_MS));
    loop {
        let reply = connect()?.call("output", &params, timeout)?;
        let piece: OutputReply = serde_json::from_value(reply.clone())
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        if piece.end > piece.start || piece.dropped {
            let line = json!({
                "start": piece.start,
                "end": piece.end,
                "dropped": piece.dropped,
                "text": piece.text,
            });
            let mut line = line.to_string();
            line.push('\n');
            write_output(None, line.as_bytes())
                .map_err(|e| SessionError::new(ErrorCode::IoError, e))?;
        }
        params.since = Some(piece.end);
        if piece.state.is_ended() && !piece.more {
            return Ok(
                json!({ "sessionId": piece.session_id, "end": piece.end, "state": piece.state }),
            );
        }
    }
}

fn call(method: &str, params: &impl serde::Serialize) -> Result<Value, SessionError> {
    connect()?.call(method, params, reply_timeout(method))
}

/// A `ROW,COL` cell.
fn cell(value: &str) -> Result<(usize, usize), SessionError> {
    value
        .split_once(',')
        .and_then(|(r, c)| Some((r.trim().parse().ok()?, c.trim().parse().ok()?)))
        .ok_or_else(|| {
            SessionError::invalid_request(format!(
                "{value:?} is not a cell: ROW,COL (0-based, e.g. 3,10)"
            ))
        })
}

/// The steps of `send` in command-line order (clap keeps each option's values separately).
/// `--button` and `--mods` modify the mouse step after them, `--nth` the `--click-text`
/// before it, `--at` the `--scroll` next to it.
fn send_steps() -> Result<Vec<SendStep>, SessionError> {
    use shotty::session::send::{ButtonName, ModifierName, MouseActionName, MouseStep, ScrollName};
    let usage = SessionError::invalid_request;
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut steps = Vec::new();
    let mut button: Option<ButtonName> = None;
    let mut mods: Vec<ModifierName> = Vec::new();
    let mut at: Option<(usize, usize)> = None;
    /// A button, direction or modifier by its (case-insensitive) name.
    fn json_name<T: serde::de::DeserializeOwned>(v: &str) -> Result<T, serde_json::Error> {
        serde_json::from_value(json!(v.trim().to_ascii_lowercase()))
    }
    let mut iter = args.iter().skip_while(|a| *a != "send");
    while let Some(a) = iter.next() {
        let (option, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_owned())),
            _ => (a.as_str(), None),
        };
        const OPTIONS: &[&str] = &[
            "--text",
            "--paste",
            "--keys",
            "--raw-hex",
            "--key-release",
            "--key-repeat",
            "--click",
            "--double-click",
            "--click-text",
            "--nth",
            "--button",
            "--mods",
            "--scroll",
            "--at",
            "--drag",
            "--move",
            "--delay",
        ];
        if !OPTIONS.contains(&option) {
            continue;
        }
        let value = inline.or_else(|| iter.next().cloned()).unwrap_or_default();
        let mouse = |action, (row, col): (usize, usize)| MouseStep {
            action: Some(action),
            row: Some(row),
            col: Some(col),
            ..MouseStep::default()
        };
        let step = match option {
            "--text" => SendStep::Text(value),
            "--paste" => SendStep::Paste(value),
            "--keys" => SendStep::Keys(value),
            "--raw-hex" => SendStep::RawHex(value),
            "--key-release" => SendStep::KeyRelease(value),
            "--key-repeat" => SendStep::KeyRepeat(value),
            "--delay" => {
                let d = parse_duration(&value).map_err(usage)?;
                SendStep::Delay(ms(d))
            }
            "--click" => SendStep::Mouse(mouse(MouseActionName::Click, cell(&value)?)),
            "--double-click" => SendStep::Mouse(mouse(MouseActionName::DoubleClick, cell(&value)?)),
            "--move" => SendStep::Mouse(mouse(MouseActionName::Move, cell(&value)?)),
            "--click-text" => SendStep::Mouse(MouseStep {
                action: Some(MouseActionName::Click),
                text: Some(value),
                ..MouseStep::default()
            }),
            "--drag" => {
                let (from, to) = value
                    .split_once(':')
                    .ok_or_else(|| usage(format!("--drag {value:?}: ROW,COL:ROW,COL")))?;
                let (to_row, to_col) = cell(to)?;
                SendStep::Mouse(MouseStep {
                    to_row: Some(to_row),
                    to_col: Some(to_col),
                    ..mouse(MouseActionName::Drag, cell(from)?)
                })
            }
            "--scroll" => {
                let (direction, count) = match value.split_once(':') {
                    Some((d, n)) => (
                        d,
                        Some(n.trim().parse::<u16>().map_err(|_| {
                            usage(format!("--scroll {value:?}: the count is a number"))
                        })?),
                    ),
                    None => (value.as_str(), None),
                };
                let direction: ScrollName = json_name(direction)
                    .map_err(|_| usage(format!("--scroll {value:?}: up, down, left or right")))?;
                let (row, col) = at.take().unzip();
                SendStep::Mouse(MouseStep {
                    action: Some(MouseActionName::Scroll),
                    direction: Some(direction),
                    count,
                    row,
                    col,
                    ..MouseStep::default()
                })
            }
            "--at" => {
                let place = cell(&value)?;
                match steps.last_mut() {
                    Some(SendStep::Mouse(m))
                        if m.action == Some(MouseActionName::Scroll) && m.row.is_none() =>
                    {
                        (m.row, m.col) = (Some(place.0), Some(place.1));
                    }
                    _ => at = Some(place),
                }
                continue;
            }
            "--nth" => {
                let n = value
                    .trim()
                    .parse()
                    .map_err(|_| usage(format!("--nth {value:?} is not a number")))?;
                match steps.last_mut() {
                    Some(SendStep::Mouse(m)) if m.text.is_some() && m.nth.is_none() => {
                        m.nth = Some(n)
                    }
                    _ => return Err(usage("--nth comes after the --click-text it counts".into())),
                }
                continue;
            }
            "--button" => {
                button =
                    Some(json_name(&value).map_err(|_| {
                        usage(format!("--button {value:?}: left, middle or right"))
                    })?);
                continue;
            }
            _ => {
                for name in value.split(',').filter(|n| !n.trim().is_empty()) {
                    mods.push(json_name(name).map_err(|_| {
                        usage(format!("--mods {name:?}: shift, alt, meta or ctrl"))
                    })?);
                }
                continue;
            }
        };
        let step = match step {
            SendStep::Mouse(mut m) => {
                if !matches!(
                    m.action,
                    Some(MouseActionName::Move | MouseActionName::Scroll)
                ) {
                    m.button = button.take();
                }
                m.mods = std::mem::take(&mut mods);
                SendStep::Mouse(m)
            }
            other => other,
        };
        steps.push(step);
    }
    if button.is_some() {
        return Err(usage(
            "--button comes before the click or drag it modifies".into(),
        ));
    }
    if !mods.is_empty() {
        return Err(usage(
            "--mods comes before the mouse step it modifies".into(),
        ));
    }
    if at.is_some() {
        return Err(usage("--at goes with a --scroll".into()));
    }
    Ok(steps)
}

fn run(command: SessionCommand) -> Result<Value, SessionError> {
    match command {
        SessionCommand::Start(StartArgs {
            width,
            height,
            cwd,
            env,
            title,
            group,
            timeout,
            retain,
            scrollback,
            record_limit,
            ports,
            no_colorenv,
            no_delete_envs,
            name,
            shell_integration,
            wait_ready,
            owner_pid,
            command,
        }) => {
            let cwd = match cwd {
                Some(c) => std::path::absolute(&c).map_err(|e| SessionError::io("bad --cwd", e))?,
                None => std::env::current_dir()
                    .map_err(|e| SessionError::io("no working directory", e))?,
            };
            let reply_wait = reply_timeout_after("start", wait_ready.unwrap_or_default());
            connect()?.call(
                "start",
                &StartParams {
                    command,
                    width: Some(width),
                    height: Some(height),
                    cwd: Some(cwd.display().to_string()),
                    base_env: None,
                    env,
                    title,
                    group,
                    timeout_ms: timeout.map(ms),
                    retain_ms: retain.map(ms),
                    scrollback: Some(scrollback as usize),
                    record_limit,
                    ports,
                    no_colorenv,
                    no_delete_envs,
                    name,
                    shell_integration,
                    wait_ready_ms: wait_ready.map(ms),
                    owner_pid,
                },
                reply_wait,
            )
        }
        SessionCommand::List(ListArgs { all, group, state }) => call(
            "list",
            &ListParams {
                all,
                group,
                state,
                session_id: None,
            },
        ),
        SessionCommand::Read(ReadArgs {
            id,
            structured,
            top,
            bottom,
            start,
            end,
            since,
            trim,
        }) => call(
            "read",
            &ReadParams {
                session_id: id,
                structured,
                top,
                bottom,
                start,
                end,
                since,
                trim: trim.then_some(true),
            },
        ),
        SessionCommand::Wait(WaitArgs {
            id,
            text,
            regex,
            until,
            stable_for,
            timeout,
            idle,
            exit,
            command,
            title,
            bell,
            changed,
            since,
            fresh,
        }) => {
            // Ctrl+C closes the connection; the host notices and gives up the wait.
            let params = WaitParams {
                session_id: id,
                text,
                regex,
                until,
                stable_for_ms: stable_for.map(ms),
                timeout_ms: timeout.map(ms),
                idle_ms: idle.map(ms),
                exit,
                command,
                title,
                bell,
                changed,
                since,
                fresh,
            };
            connect()?.call("wait", &params, reply_timeout("wait"))
        }
        SessionCommand::Send(SendArgs { id, .. }) => {
            let steps = send_steps()?;
            if steps.iter().all(|s| matches!(s, SendStep::Delay(_))) {
                return Err(SessionError::invalid_request(
                    "give at least one of --text, --paste, --keys, --raw-hex or a mouse step",
                ));
            }
            let params = SendParams {
                session_id: id,
                steps,
            };
            connect()?.call(
                "send",
                &params,
                reply_timeout_after("send", params.pauses()),
            )
        }
        SessionCommand::Resize(ResizeArgs { id, width, height }) => call(
            "resize",
            &ResizeParams {
                session_id: id,
                width,
                height,
            },
        ),
        SessionCommand::Capture(CaptureArgs {
            id,
            out,
            format,
            appearance,
            config: _,
        }) => {
            let format = resolve_format(format, Some(&out), Format::Svg)
                .map_err(SessionError::invalid_request)?;
            let (bytes, _) =
                artifacts::render_to(connect()?, &id, format, |t| appearance.to_appearance(t))?;
            write_output(Some(&out), &bytes)
                .map_err(|e| SessionError::new(ErrorCode::IoError, e))?;
            let path = std::path::absolute(&out).map_err(|e| SessionError::io("bad path", e))?;
            Ok(json!({ "sessionId": id, "artifact": { "path": path, "format": format.name() } }))
        }
        SessionCommand::Inspect(InspectArgs {
            id,
            format,
            appearance,
            config: _,
        }) => {
            let format = format.unwrap_or(Format::Svg);
            if !matches!(format, Format::Svg | Format::Png) {
                return Err(SessionError::invalid_request("inspect renders svg or png"));
            }
            let (bytes, reply) =
                artifacts::render_to(connect()?, &id, format, |t| appearance.to_appearance(t))?;
            let path = artifacts::inspect_file(&reply, &bytes, format)?;
            Ok(json!({ "sessionId": id, "path": path, "format": format.name() }))
        }
        SessionCommand::History(HistoryArgs {
            id,
            from,
            limit,
            grep,
            ignore_case,
            tail,
        }) => call(
            "history",
            &HistoryParams {
                session_id: id,
                from,
                limit,
                grep,
                ignore_case,
                tail,
            },
        ),
        SessionCommand::Commands(CommandsArgs { id, last }) => call(
            "commands",
            &CommandsParams {
                session_id: id,
                last,
            },
        ),
        SessionCommand::Find(FindArgs {
            id,
            text,
            regex,
            style,
            history,
        }) => call(
            "find",
            &FindParams {
                session_id: id,
                text,
                regex,
                style,
                history,
            },
        ),
        SessionCommand::Output(args) => output(args),
        SessionCommand::Restart(RestartArgs { id }) => {
            call("restart", &IdParams { session_id: id })
        }
        SessionCommand::Mark(MarkArgs { id, label }) => call(
            "mark",
            &MarkParams {
                session_id: id,
                label,
            },
        ),
        SessionCommand::Export(args) => export(&args),
        SessionCommand::Stop(StopArgs {
            ids,
            all,
            yes,
            group,
        }) => {
            if all && !yes {
                use std::io::IsTerminal;
                if !std::io::stdin().is_terminal() {
                    return Err(SessionError::invalid_request(
                        "stop --all needs --yes when stdin is not a terminal",
                    ));
                }
                eprint!("Stop every session? [y/N] ");
                let mut answer = String::new();
                let _ = std::io::stdin().read_line(&mut answer);
                if !matches!(answer.trim(), "y" | "Y" | "yes") {
                    return Err(SessionError::new(ErrorCode::Cancelled, "not confirmed"));
                }
            }
            call(
                "stop",
                &StopParams {
                    session_ids: ids,
                    all,
                    group,
                },
            )
        }
        SessionCommand::Attach(args) => super::attach::attach(args),
        SessionCommand::Host => Err(SessionError::invalid_request("host runs on its own")),
    }
}
