//! One-shot runs: a program from start to end in a [`Session`] of its own, ended by the
//! conditions of a screenshot (`shotty capture -- CMD`) — the session core every front end
//! drives, so a capture reads, drains and ends a program exactly as a session does.

use std::ffi::OsStr;
use std::time::{Duration, Instant};

use crate::pty::{Activity, DEFAULT_GRACE, ExitStatus, PtyCommand, PtyError, PtyProcess};
use crate::recording::Timeline;
use crate::term::Terminal;

use super::instance::{Live, Session, SessionSpec, StopReason};

/// How often [`run_to_completion`] looks whether a quiet program waits for input.
const AWAITING_INPUT_RECHECK: Duration = Duration::from_millis(50);

/// When [`run_to_completion`] stops before the program exits.
#[derive(Clone, Debug)]
pub struct StopWhen {
    /// Stop after this long.
    pub timeout: Option<Duration>,
    /// Stop once this text is on the screen ([`Terminal::contains_text`]) and the screen has
    /// then had no output for [`stable_for`](Self::stable_for).
    pub until_text: Option<String>,
    /// How long the screen must stay unchanged after [`until_text`](Self::until_text) appeared
    /// (zero: stop at once).
    pub stable_for: Duration,
    /// Stop once the program waits for input (reading the terminal, in `poll` or `select`)
    /// and has written nothing for this long: it has drawn its screen and waits for a key.
    pub awaiting_input: Option<Duration>,
    /// Time between SIGTERM and SIGKILL when stopping.
    pub grace: Duration,
}

impl Default for StopWhen {
    fn default() -> StopWhen {
        StopWhen {
            timeout: None,
            until_text: None,
            stable_for: Duration::ZERO,
            awaiting_input: None,
            grace: DEFAULT_GRACE,
        }
    }
}

/// Why a [`run_to_completion`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// The program exited and its output was drained.
    Exited,
    /// [`StopWhen::timeout`] elapsed; the process group was terminated.
    Timeout,
    /// [`StopWhen::until_text`] appeared; the process group was terminated.
    UntilText,
    /// The program waited for input ([`StopWhen::awaiting_input`]); the process group was
    /// terminated.
    AwaitingInput,
}

/// The result of [`run_to_completion`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    /// The child's pid (also its process group and session id).
    pub pid: u32,
    /// Its exit code, if it exited by itself.
    pub exit_code: Option<i32>,
    /// The name (`"SIGTERM"`) of the signal that killed it.
    pub signal: Option<String>,
    /// The number of that signal.
    pub signal_number: Option<i32>,
    /// Why the run ended.
    pub stopped_by: RunEnd,
}

impl RunOutcome {
    fn new(pid: u32, status: ExitStatus, stopped_by: RunEnd) -> RunOutcome {
        RunOutcome {
            pid,
            exit_code: status.code(),
            signal: status.signal_name(),
            signal_number: status.signal(),
            stopped_by,
        }
    }
}

/// Runs `cmd` in a fresh PTY, its output driving `term` (which should be `cmd`'s size and may
/// hold output already), until it exits and its output is drained or `stop` ends it early.
/// `term` is then the screen at that moment: what the program writes while it is being
/// ended (a pager restoring the screen, a shell's "Terminated") is not part of it.
pub fn run_to_completion(
    cmd: &PtyCommand,
    term: &mut Terminal,
    stop: &StopWhen,
) -> Result<RunOutcome, PtyError> {
    run_recorded(cmd, term, stop).map(|(outcome, _)| outcome)
}

/// [`run_to_completion`], also returning the run's recording up to the same moment (from
/// the screen `term` showed at the start).
pub fn run_recorded(
    cmd: &PtyCommand,
    term: &mut Terminal,
    stop: &StopWhen,
) -> Result<(RunOutcome, Timeline), PtyError> {
    let process = PtyProcess::spawn(cmd)?;
    let command = std::iter::once(cmd.program())
        .chain(cmd.get_args().iter().map(|a| a.as_os_str()))
        .map(|a: &OsStr| a.to_string_lossy().into_owned())
        .collect();
    let spec = SessionSpec::new(command, cmd.width(), cmd.height());
    let start = std::mem::replace(term, Terminal::new(1, 1));
    let session =
        Session::with_process("run".into(), spec, process, start).map_err(|e| PtyError::Pty {
            op: "run",
            reason: e.to_string(),
        })?;
    let (outcome, screen, recording) = until_end(&session, stop)?;
    *term = screen;
    Ok((outcome, recording))
}

/// Waits until the program ends by itself or `stop` ends it; returns why, and the terminal as
/// it was then.
/// What a run ends with: how it ended, its screen and its recording.
type Ended = (RunOutcome, Terminal, Timeline);

fn until_end(session: &Session, stop: &StopWhen) -> Result<Ended, PtyError> {
    let deadline = stop.timeout.map(|t| Instant::now() + t);
    let process = session.process();
    let mut live = session.lock();
    // The screen version the text was last looked for in, and whether it was there.
    let mut looked_at: Option<u64> = None;
    let mut text_seen = false;
    // When to look again whether the program waits for input.
    let mut input_check = stop.awaiting_input.map(|quiet| live.output_at + quiet);
    loop {
        if live.state.is_ended() {
            let status = live.status.unwrap_or_else(ExitStatus::unknown);
            let (screen, recording) = take_screen(&mut live);
            return Ok((
                RunOutcome::new(session.pid(), status, RunEnd::Exited),
                screen,
                recording,
            ));
        }
        let now = Instant::now();
        if let Some(text) = &stop.until_text
            && looked_at != Some(live.version)
        {
            looked_at = Some(live.version);
            text_seen = live.term.contains_text(text);
        }
        if text_seen && now >= live.output_at + stop.stable_for {
            return end_early(session, live, RunEnd::UntilText, stop.grace);
        }
        if !live.exited
            && let (Some(quiet), Some(check)) = (stop.awaiting_input, input_check)
            && now >= check
        {
            let waiting = process.foreground_activity() == Some(Activity::AwaitingInput)
                && !process.output_pending(live.fed);
            if waiting && now >= live.output_at + quiet {
                return end_early(session, live, RunEnd::AwaitingInput, stop.grace);
            }
            input_check = Some((live.output_at + quiet).max(now + AWAITING_INPUT_RECHECK));
        }
        if deadline.is_some_and(|d| now >= d) {
            return end_early(session, live, RunEnd::Timeout, stop.grace);
        }
        let wake = [
            deadline,
            input_check.filter(|_| !live.exited),
            text_seen.then(|| live.output_at + stop.stable_for),
        ]
        .into_iter()
        .flatten()
        .min();
        live = session.wait_change(live, wake);
    }
}

/// Takes the screen as it is now, and ends the program's process tree.
fn end_early(
    session: &Session,
    mut live: std::sync::MutexGuard<'_, Live>,
    reason: RunEnd,
    grace: Duration,
) -> Result<Ended, PtyError> {
    let (screen, recording) = take_screen(&mut live);
    let status = live.status;
    drop(live);
    let stop_reason = match reason {
        RunEnd::Timeout => StopReason::Timeout,
        _ => StopReason::User,
    };
    let ended = session
        .stop(stop_reason, grace)
        .map_err(|e| PtyError::Pty {
            op: "stop",
            reason: e.to_string(),
        })?;
    let status = ended
        .map(|t| t.status)
        .or(status)
        .unwrap_or_else(ExitStatus::unknown);
    Ok((
        RunOutcome::new(session.pid(), status, reason),
        screen,
        recording,
    ))
}

/// The session's terminal and recording, replaced by blank ones that take whatever output
/// still comes.
fn take_screen(live: &mut Live) -> (Terminal, Timeline) {
    let blank = Timeline::new(1, 1, 0);
    let recording = std::mem::replace(&mut live.recording, blank);
    (
        std::mem::replace(&mut live.term, Terminal::new(1, 1)),
        recording,
    )
}
