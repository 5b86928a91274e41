//! One session: a program in its own PTY, the terminal its output drives, and its lifecycle.
//! Every front end (the host behind `shotty session`, `shotty serve`, `shotty mcp`) drives
//! programs through this type.

use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use super::commands::Commands;
use super::journal::Journal;
use crate::pty::{
    Activity, ColorEnvFlags, ExitStatus, INPUT_QUEUE_BYTES, PtyCommand, PtyError, PtyEvent,
    PtyProcess, SIZE_ENVS, Termination,
};
use crate::recording::{Event, Keyframe, MAX_MARKER_LABEL, Timeline};
use crate::term::{Terminal, TerminalOptions};

use super::error::{ErrorCode, SessionError};
use super::send::{SendStep, encode_steps};

/// The largest terminal a session may have, in columns and in rows.
pub const MAX_SIZE: u16 = 500;

/// Refuses (`invalid_request`) a terminal size outside 1–[`MAX_SIZE`] either way.
pub fn check_size(width: u16, height: u16) -> Result<(), SessionError> {
    let fits = |n: u16| (1..=MAX_SIZE).contains(&n);
    if fits(width) && fits(height) {
        return Ok(());
    }
    Err(SessionError::invalid_request(format!(
        "size {width}x{height} is outside 1–{MAX_SIZE}"
    )))
}

/// Output processed per batch at most before waiters are woken.
pub const BATCH_BYTES: usize = 1 << 20;

/// After the program exited without end-of-file (a background process still holds the
/// terminal), output is awaited until it has been quiet this long; then the rest of its process
/// tree is ended, as a terminal closing its side hangs it up. The exited program's own output
/// is already in the kernel buffer by then and arrives at once.
const EXIT_DRAIN_IDLE: Duration = Duration::from_millis(250);

/// Upper bound on that post-exit draining, for stragglers that keep printing.
const EXIT_DRAIN_MAX: Duration = Duration::from_secs(2);

/// Stack of a session's thread: it parses, snapshots and writes records, nothing deeply
/// recursive.
const SESSION_THREAD_STACK: usize = 512 * 1024;

/// Time between SIGTERM and SIGKILL when a session is stopped.
pub const STOP_GRACE: Duration = Duration::from_secs(3);
/// How long a send waits for room when the program has not read [`INPUT_QUEUE_BYTES`] of
/// earlier input, before it fails: as long as a read waits for output to settle, so a
/// program that never reads holds up the host's other clients no longer than a read does.
pub const SEND_ROOM_WAIT: Duration = Duration::from_millis(100);

/// While output keeps coming, screen waiters are woken (and the content fingerprint taken) at
/// most this often; the first output after a pause wakes them at once.
pub const PUBLISH_INTERVAL: Duration = Duration::from_millis(1);

/// [`Session::settle`]: output counts as finished after this much quiet when the foreground
/// process waits for input (it has written everything), …
const SETTLE_QUIET_AWAITING_INPUT: Duration = Duration::from_micros(500);
/// … and after this much when it sleeps for another reason (a timer, output draining before a
/// terminal mode change) or its state cannot be told.
const SETTLE_QUIET_OTHER: Duration = Duration::from_millis(3);
/// How often [`Session::settle`] looks again at a foreground process that is running.
const SETTLE_RECHECK: Duration = Duration::from_millis(1);
/// How long [`Session::settle`] waits for a reaction to input that has produced no output yet
/// (the echo of typed text usually follows within a millisecond; some keys produce none).
const SETTLE_INPUT_REACTION: Duration = Duration::from_millis(20);

/// What to run and how.
#[derive(Clone, Debug)]
pub struct SessionSpec {
    /// Program and arguments.
    pub command: Vec<String>,
    /// Columns.
    pub width: u16,
    /// Rows.
    pub height: u16,
    /// Working directory (default: the caller's).
    pub cwd: Option<PathBuf>,
    /// The environment to start from instead of the caller's (`start`'s `baseEnv`).
    pub base_env: Option<Vec<(String, String)>>,
    /// Extra environment, applied after the colour environment.
    pub env: Vec<(String, String)>,
    /// Colour environment switches.
    pub color_env: ColorEnvFlags,
    /// Scrollback lines kept.
    pub scrollback: usize,
    /// Stop the session (reason `timeout`) once it has run this long.
    pub timeout: Option<Duration>,
    /// Bytes the recording holds (SPEC §9, `start --record-limit`; see [`Timeline::new`]).
    pub record_limit: usize,
}

/// The recording's default bound: 16 MiB.
pub const DEFAULT_RECORD_LIMIT: usize = 16 << 20;
/// The smallest bound `start --record-limit` accepts.
pub const MIN_RECORD_LIMIT: u64 = 64 << 10;
/// The largest.
pub const MAX_RECORD_LIMIT: u64 = 1 << 30;

/// An id for a session a process runs on its own, without a host (a scenario, a
/// `shotty::testing` program): `PREFIX-PID-N`, unique across processes and within this one.
pub fn local_session_id(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Checks a recording bound (`--record-limit`, `recordLimit`) against
/// [`MIN_RECORD_LIMIT`]–[`MAX_RECORD_LIMIT`].
pub fn check_record_limit(bytes: u64) -> Result<usize, String> {
    if !(MIN_RECORD_LIMIT..=MAX_RECORD_LIMIT).contains(&bytes) {
        return Err(format!(
            "record limit {bytes} is outside {}K–{}M",
            MIN_RECORD_LIMIT >> 10,
            MAX_RECORD_LIMIT >> 20
        ));
    }
    usize::try_from(bytes)
        .map_err(|_| format!("record limit {bytes} is too large for this machine"))
}

impl SessionSpec {
    /// `command` (program and arguments) in a `width × height` terminal, with the host's
    /// defaults for everything else: the caller's working directory, no extra environment,
    /// the colour environment on, 5,000 lines of scrollback, no time limit.
    pub fn new(command: Vec<String>, width: u16, height: u16) -> SessionSpec {
        SessionSpec {
            command,
            width,
            height,
            cwd: None,
            base_env: None,
            env: Vec::new(),
            color_env: ColorEnvFlags::default(),
            scrollback: 5000,
            timeout: None,
            record_limit: DEFAULT_RECORD_LIMIT,
        }
    }
}

/// Lifecycle states, as they appear in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Spawned, no output yet.
    Starting,
    /// Producing output or waiting for input.
    Running,
    /// Being stopped.
    Stopping,
    /// The program ended by itself.
    Exited,
    /// Ended by `stop`, a timeout or host shutdown.
    Stopped,
    /// The host lost track of it.
    Unavailable,
}

impl State {
    /// Whether the program has ended.
    pub fn is_ended(self) -> bool {
        matches!(self, State::Exited | State::Stopped | State::Unavailable)
    }
}

/// How an ended session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Exit status 0.
    Finished,
    /// Non-zero status or killed by a signal.
    Failed,
    /// Ended by a stop.
    Stopped,
}

/// Why a session was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StopReason {
    /// `stop` from a client.
    User,
    /// The session's `--timeout` elapsed.
    Timeout,
    /// The host shut down.
    Shutdown,
    /// `restart` replaced it with a new session of the same command.
    Restart,
    /// Its host died (SIGKILL, a crash) while it ran; the next host ended what was left of it.
    #[serde(rename = "host-died")]
    HostDied,
}

/// The error of a send to a program that has not read its earlier input.
fn not_reading(id: &str, len: usize) -> SessionError {
    SessionError::new(
        ErrorCode::InvalidOperation,
        format!(
            "session {id} is not reading its input: {} KiB already wait for it, the most a \
             session holds; nothing of these {len} bytes was sent",
            INPUT_QUEUE_BYTES >> 10
        ),
    )
}

/// The mutable part of a session, behind one lock.
pub struct Live {
    /// The emulator the program's output drives.
    pub term: Terminal,
    /// Increments on every output chunk and every resize.
    pub version: u64,
    /// Lifecycle state.
    pub state: State,
    /// Exit code, once the program exited by itself.
    pub exit_code: Option<i32>,
    /// Name of the signal that ended it.
    pub signal: Option<String>,
    /// Outcome, once ended.
    pub outcome: Option<Outcome>,
    /// Why it was stopped, if it was.
    pub stop_reason: Option<StopReason>,
    /// When the screen's content (text or styles, not just the cursor) last changed.
    pub content_changed_at: Instant,
    /// When anything last changed.
    pub updated_at: SystemTime,
    /// When the program last wrote output.
    pub output_at: Instant,
    /// When input was last written to the program.
    pub input_at: Option<Instant>,
    /// Writes of input so far (what [`Commands::after_input`] counts).
    pub inputs: u64,
    /// Bells the terminal had rung when input was last written.
    pub bells_at_input: u64,
    /// The version at which the screen's content (not just the cursor) last changed.
    pub content_version: u64,
    /// The commands a shell reported (shell integration).
    pub commands: Commands,
    /// Where the last mouse step left the pointer (a scroll without a position turns the
    /// wheel there).
    pub pointer: Option<(usize, usize)>,
    /// Everything that happened since the start, bounded (SPEC §9).
    pub recording: Timeline,
    /// The steps that drove it and succeeded, for a scenario export.
    pub journal: Journal,
    /// Output bytes fed into the terminal so far (see [`PtyProcess::output_read`]).
    pub(super) fed: u64,
    /// How the program ended, once it has.
    pub(super) status: Option<ExitStatus>,
    content_fingerprint: u64,
    /// The program has exited (its output may still be draining).
    pub(super) exited: bool,
    eof: bool,
}

impl Live {
    /// Feeds output to the terminal and the recording, with a keyframe when one is due.
    fn feed_output(&mut self, at: Duration, bytes: Vec<u8>) {
        self.term.advance(&bytes);
        let events = self.term.take_shell_events();
        if !events.is_empty() {
            self.commands.record(events, at, self.inputs);
        }
        self.fed += bytes.len() as u64;
        self.recording.push(at, Event::Output(bytes));
        self.keyframe_if_due(at);
    }

    /// Takes a keyframe once enough was recorded since the last (which also lets the
    /// recording drop its oldest part).
    fn keyframe_if_due(&mut self, at: Duration) {
        self.recording.keyframe_if_due(at, &self.term);
    }

    /// The program has exited and all its output is in the terminal.
    pub(super) fn is_settled(&self) -> bool {
        self.exited && self.eof
    }
}

/// A program running in a PTY with its terminal.
pub struct Session {
    id: String,
    spec: SessionSpec,
    created_at: SystemTime,
    /// The same moment, for the timeout.
    created: Instant,
    process: PtyProcess,
    live: Mutex<Live>,
    /// Published output, resizes, lifecycle changes and [`Session::notify`].
    changed: Condvar,
    /// Lifecycle changes and [`Session::notify`] only.
    lifecycle: Condvar,
    /// Called once, on the session's own thread, when it has ended and its output is drained.
    on_end: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

/// Waits on `condvar` until notified or `deadline` (`None`: no deadline) passes.
fn wait_on<'a>(
    condvar: &Condvar,
    guard: MutexGuard<'a, Live>,
    deadline: Option<Instant>,
) -> MutexGuard<'a, Live> {
    match deadline {
        None => condvar.wait(guard).unwrap_or_else(|e| e.into_inner()),
        Some(d) => {
            let left = d.saturating_duration_since(Instant::now());
            condvar
                .wait_timeout(guard, left)
                .unwrap_or_else(|e| e.into_inner())
                .0
        }
    }
}

/// The content `hash` of `read`: a digest of what the screen shows now (text and styles, not
/// the cursor), as 16 hex digits.
pub fn content_hash(term: &Terminal) -> String {
    format!("{:016x}", fingerprint(term))
}

/// A stable digest of what the screen shows (text and styles, not the cursor): a spinner
/// changes it, a blinking or moving cursor does not.
fn fingerprint(term: &Terminal) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    for row in term.screen().grid().rows() {
        for (col, cell) in row.cells().iter().enumerate() {
            cell.ch.hash(&mut h);
            term.screen().styles().get(cell.style).hash(&mut h);
            cell.flags.hash(&mut h);
            row.extra(col).hash(&mut h);
        }
    }
    h.finish()
}

impl Session {
    /// Starts the program and the thread that feeds its output into the terminal.
    pub fn start(id: String, spec: SessionSpec) -> Result<Arc<Session>, SessionError> {
        Session::start_in_tree(id, spec, None)
    }

    /// [`start`](Self::start) with the program's process tree tagged `tree_tag` (from
    /// [`new_tree_tag`](crate::pty::new_tree_tag)), which the caller may record beforehand.
    pub fn start_in_tree(
        id: String,
        spec: SessionSpec,
        tree_tag: Option<&str>,
    ) -> Result<Arc<Session>, SessionError> {
        let Some((program, args)) = spec.command.split_first() else {
            return Err(SessionError::invalid_request("no command to run"));
        };
        let mut cmd = PtyCommand::new(program);
        cmd.args(args).size(spec.width, spec.height);
        if let Some(base) = &spec.base_env {
            cmd.env_clear();
            for (k, v) in base {
                cmd.env(k, v);
            }
        }
        for key in SIZE_ENVS {
            cmd.env_remove(key);
        }
        cmd.color_env_with(spec.color_env);
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
        if let Some(dir) = &spec.cwd {
            cmd.cwd(dir);
        }
        if let Some(tag) = tree_tag {
            cmd.tree_tag(tag);
        }
        let process = PtyProcess::spawn(&cmd).map_err(|e| match e {
            // The program, or where it was to run, is not there: the caller's mistake.
            PtyError::CannotRun { .. } | PtyError::Cwd { .. } => {
                SessionError::new(ErrorCode::SessionNotStarted, e.to_string())
            }
            other => SessionError::new(ErrorCode::SessionError, other.to_string()),
        })?;
        let term = Terminal::with_options(
            spec.width as usize,
            spec.height as usize,
            TerminalOptions {
                scrollback: spec.scrollback,
                ..TerminalOptions::default()
            },
        );
        Session::with_process(id, spec, process, term)
    }

    /// A session around a program already spawned, whose output drives `term` (which may
    /// hold output already, e.g. a header line): [`start`](Self::start) without the spawn.
    pub(super) fn with_process(
        id: String,
        spec: SessionSpec,
        process: PtyProcess,
        term: Terminal,
    ) -> Result<Arc<Session>, SessionError> {
        let content_fingerprint = fingerprint(&term);
        let now = Instant::now();
        let (width, height) = (term.width() as u16, term.height() as u16);
        // A terminal that already shows something starts the recording with that screen.
        let recording = if term.snapshot() == Terminal::new(width.into(), height.into()).snapshot()
        {
            Timeline::new(width, height, spec.record_limit)
        } else {
            let frame = Keyframe {
                at: Duration::ZERO,
                width,
                height,
                bytes: term.keyframe(),
            };
            Timeline::starting_from(frame, spec.record_limit)
        };
        let session = Arc::new(Session {
            id,
            created_at: SystemTime::now(),
            created: Instant::now(),
            process,
            live: Mutex::new(Live {
                term,
                recording,
                journal: Journal::default(),
                version: 0,
                // The program is running once spawn succeeded; `Starting` covers only the
                // moments before (a host reports it while a spawn is under way).
                state: State::Running,
                exit_code: None,
                signal: None,
                outcome: None,
                stop_reason: None,
                content_changed_at: now,
                updated_at: SystemTime::now(),
                output_at: now,
                input_at: None,
                pointer: None,
                inputs: 0,
                bells_at_input: 0,
                content_version: 0,
                commands: Commands::default(),
                fed: 0,
                status: None,
                content_fingerprint,
                exited: false,
                eof: false,
            }),
            changed: Condvar::new(),
            lifecycle: Condvar::new(),
            on_end: Mutex::new(None),
            spec,
        });
        let pump = Arc::clone(&session);
        std::thread::Builder::new()
            .name(format!("shotty-session-{}", session.id))
            .stack_size(SESSION_THREAD_STACK)
            .spawn(move || pump.pump())
            .map_err(|e| SessionError::io("cannot start the session thread", e))?;
        Ok(session)
    }

    /// Has `f` called once the session has ended and its output is drained (at once if that
    /// has happened already), on the session's thread: what its owner does when it ends,
    /// without a thread of its own waiting for that.
    pub fn on_end(&self, f: Box<dyn FnOnce() + Send>) {
        let mut slot = self.on_end.lock().unwrap_or_else(|e| e.into_inner());
        if self.pump_done() {
            drop(slot);
            f();
        } else {
            *slot = Some(f);
        }
    }

    /// Whether the thread that feeds the terminal has finished.
    fn pump_done(&self) -> bool {
        let live = self.lock();
        live.state.is_ended() && live.is_settled()
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// What was started.
    pub fn spec(&self) -> &SessionSpec {
        &self.spec
    }

    /// When it was started.
    pub fn created_at(&self) -> SystemTime {
        self.created_at
    }

    /// The program's pid (also its process group).
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The program's process.
    pub(super) fn process(&self) -> &PtyProcess {
        &self.process
    }

    /// Locks the live state.
    pub fn lock(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the screen or the state changes (output, resize, exit) or `deadline`
    /// passes, and returns the guard. While output streams in, wake-ups come at most every
    /// [`PUBLISH_INTERVAL`]. Spurious wake-ups are possible; callers re-check their condition.
    pub fn wait_change<'a>(
        &self,
        guard: MutexGuard<'a, Live>,
        deadline: Option<Instant>,
    ) -> MutexGuard<'a, Live> {
        wait_on(&self.changed, guard, deadline)
    }

    /// Like [`wait_change`](Self::wait_change), but wakes only for lifecycle changes (the
    /// program ending, a stop beginning), [`notify`](Self::notify) and the deadline: for
    /// waiters that do not look at the screen, so a flood of output does not wake them.
    pub fn wait_lifecycle<'a>(
        &self,
        guard: MutexGuard<'a, Live>,
        deadline: Option<Instant>,
    ) -> MutexGuard<'a, Live> {
        wait_on(&self.lifecycle, guard, deadline)
    }

    /// Wakes every waiter (used when a waiter should re-check, e.g. on cancellation).
    pub fn notify(&self) {
        self.changed.notify_all();
        self.lifecycle.notify_all();
    }

    /// Waits (at most `max`) until the program's output has settled, and returns the guard to
    /// read the settled screen with. Settled means: the terminal's foreground process is
    /// asleep, input written since its last output has had a chance to produce a reaction,
    /// and output has been quiet for a moment — briefly if the process waits for input,
    /// longer if it sleeps for another reason. A process that keeps running holds the read
    /// until `max`.
    pub fn settle(&self, max: Duration) -> MutexGuard<'_, Live> {
        let until = Instant::now() + max;
        let mut live = self.lock();
        // When the program was last seen running: it may sleep briefly between writes, so
        // quiet counts from there, and for the longer time.
        let mut busy_at: Option<Instant> = None;
        while !live.state.is_ended() {
            let now = Instant::now();
            if now >= until {
                break;
            }
            let activity = self.process.foreground_activity();
            // Asked after the activity: all that a program seen asleep has written is then
            // seen, even what is still on its way to this lock.
            if activity != Some(Activity::Running) && self.process.output_pending(live.fed) {
                live = self.wait_change(live, Some((now + SETTLE_RECHECK).min(until)));
                continue;
            }
            let unanswered = live.input_at.filter(|&input| input > live.output_at);
            let wake = match (activity, unanswered) {
                // Running: output may come any moment and nothing announces the end of the
                // work, so look again shortly.
                (Some(Activity::Running), _) => {
                    busy_at = Some(now);
                    now + SETTLE_RECHECK
                }
                (_, Some(input)) if input + SETTLE_INPUT_REACTION > now => {
                    input + SETTLE_INPUT_REACTION
                }
                _ => {
                    let settled_at = match busy_at.filter(|&busy| busy > live.output_at) {
                        Some(busy) => busy + SETTLE_QUIET_OTHER,
                        None => {
                            let quiet = match activity {
                                Some(Activity::AwaitingInput) => SETTLE_QUIET_AWAITING_INPUT,
                                _ => SETTLE_QUIET_OTHER,
                            };
                            live.output_at + quiet
                        }
                    };
                    if settled_at > now {
                        settled_at
                    } else {
                        break;
                    }
                }
            };
            live = self.wait_change(live, Some(wake.min(until)));
        }
        live
    }

    /// Whether the screen is at rest: all the program's output is on it (as `live` shows it)
    /// and its whole process tree waits with no time limit
    /// ([`PtyProcess::waits_without_timeout`]), so nothing but input or another event from
    /// outside will change it. A check of the screen that fails now keeps failing until then.
    pub fn is_at_rest(&self, live: &Live) -> bool {
        let input_answered = live
            .input_at
            .is_none_or(|input| input + SETTLE_INPUT_REACTION <= Instant::now());
        !live.state.is_ended()
            && input_answered
            && self.process.waits_without_timeout()
            // Asked after the tree: a program seen waiting has had all it wrote seen.
            && !self.process.output_pending(live.fed)
    }

    /// Waits (at most `timeout`) until the program waits for input: with `prompt`, until a
    /// shell shows its prompt (shell integration); else until its output has settled with the
    /// terminal's foreground process asleep reading input. False if the time ran out or the
    /// program ended first.
    pub fn wait_ready(&self, timeout: Duration, prompt: bool) -> bool {
        let deadline = Instant::now() + timeout;
        let mut live = self.lock();
        loop {
            if live.state.is_ended() {
                return false;
            }
            if prompt {
                if live.term.prompt_ready() == Some(true) {
                    return true;
                }
            } else {
                drop(live);
                live = self.settle(deadline.saturating_duration_since(Instant::now()));
                if self.process.foreground_activity() == Some(Activity::AwaitingInput)
                    && !self.process.output_pending(live.fed)
                {
                    return true;
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            let wake = if prompt {
                deadline
            } else {
                (now + SETTLE_RECHECK * 10).min(deadline)
            };
            live = self.wait_change(live, Some(wake));
        }
    }

    /// Sends `steps`: each run of steps between delays as one write, its keys and mouse
    /// reports encoded for the modes the program has when it is written (see
    /// [`encode_steps`]), with the delays' pauses between; returns the bytes written. Every
    /// step is checked before anything is written. A step that cannot be encoded when its turn
    /// comes (a text to click that is not on the screen) fails the send, saying what was
    /// written before it.
    pub fn send(&self, steps: &[SendStep]) -> Result<usize, SessionError> {
        SendStep::check_all(steps)?;
        let mut written = 0;
        let mut journaled = false;
        let mut rest = steps;
        loop {
            let end = rest
                .iter()
                .position(|s| matches!(s, SendStep::Delay(_)))
                .unwrap_or(rest.len());
            let (run, after) = rest.split_at(end);
            if !run.is_empty() {
                let bytes = {
                    let mut live = self.lock();
                    let mut pointer = live.pointer;
                    let bytes = encode_steps(run, &live.term, &mut pointer);
                    live.pointer = pointer;
                    bytes
                };
                // The send is journaled with its last bytes, before they can reach the
                // program: a program they end is recorded with the send that ended it.
                let last = after.iter().all(|s| matches!(s, SendStep::Delay(_)));
                let sent = bytes.and_then(|bytes| self.write_input(&bytes, last.then_some(steps)));
                journaled |= last && sent.is_ok();
                written += sent.map_err(|mut e| {
                    if written > 0 {
                        e.message = format!("{} ({written} bytes were sent before)", e.message);
                    }
                    e
                })?;
            }
            match after.split_first() {
                Some((SendStep::Delay(ms), tail)) => {
                    std::thread::sleep(Duration::from_millis(*ms));
                    rest = tail;
                }
                _ => break,
            }
        }
        if !journaled {
            self.lock().journal.send(steps);
        }
        Ok(written)
    }

    /// Whether the program has input it has not read yet: a send may then have to wait for
    /// room ([`SEND_ROOM_WAIT`]).
    pub fn input_backlogged(&self) -> bool {
        self.process.input().queued() > 0
    }

    /// Writes input to the program. Fails with `session_exited` once it has ended, and with
    /// `invalid_operation` when the program has not read what it was sent before: past
    /// [`INPUT_QUEUE_BYTES`] waiting for it, room is awaited [`SEND_ROOM_WAIT`] at most, and
    /// then nothing of `bytes` is written (or recorded).
    pub fn write(&self, bytes: &[u8]) -> Result<usize, SessionError> {
        self.write_input(bytes, None)
    }

    /// [`write`](Self::write), noting `send` in the journal with the input when given (and
    /// taking it back if the bytes then cannot be written).
    fn write_input(&self, bytes: &[u8], send: Option<&[SendStep]>) -> Result<usize, SessionError> {
        let ended = || {
            SessionError::new(
                ErrorCode::SessionExited,
                format!("session {} has ended or is being stopped", self.id),
            )
        };
        let input = self.process.input();
        // A terminal that is gone is a program that has ended.
        if !input
            .has_room(bytes.len(), SEND_ROOM_WAIT)
            .map_err(|_| ended())?
        {
            return Err(not_reading(&self.id, bytes.len()));
        }
        {
            let mut live = self.lock();
            if live.state.is_ended() || live.state == State::Stopping {
                return Err(ended());
            }
            // Noted before the bytes can reach the program, so its reaction is always newer.
            live.input_at = Some(Instant::now());
            live.inputs += 1;
            live.bells_at_input = live.term.screen().bell_count();
            let at = self.created.elapsed();
            live.recording.push(at, Event::Input(bytes.to_vec()));
            live.keyframe_if_due(at);
            if let Some(steps) = send {
                live.journal.send(steps);
            }
        }
        let unsend = || {
            if let Some(steps) = send {
                self.lock().journal.unsend(steps);
            }
        };
        // The room seen above is this writer's (the host writes one request at a time), so
        // this waits for nothing; another writer of the session could have taken it only
        // through the library.
        match input.write_within(bytes, SEND_ROOM_WAIT) {
            Ok(true) => Ok(bytes.len()),
            Ok(false) => {
                unsend();
                Err(not_reading(&self.id, bytes.len()))
            }
            Err(_) => {
                unsend();
                Err(ended())
            }
        }
    }

    /// Resizes the PTY (the program gets SIGWINCH) and the terminal.
    pub fn resize(&self, width: u16, height: u16) -> Result<(), SessionError> {
        check_size(width, height)?;
        let mut live = self.lock();
        if live.state.is_ended() {
            return Err(SessionError::new(
                ErrorCode::SessionExited,
                format!("session {} has ended", self.id),
            ));
        }
        // Resize the grid first, under the lock, so output produced for the new size is
        // never parsed at the old one.
        live.term.resize(width as usize, height as usize);
        let at = self.created.elapsed();
        live.recording.push(at, Event::Resize { width, height });
        live.journal.resize(width, height);
        self.process
            .resize(width, height)
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        live.version += 1;
        live.updated_at = SystemTime::now();
        let fp = fingerprint(&live.term);
        if fp != live.content_fingerprint {
            live.content_fingerprint = fp;
            live.content_changed_at = Instant::now();
            live.content_version = live.version;
        }
        drop(live);
        self.changed.notify_all();
        Ok(())
    }

    /// The time on the recording's clock: since the session started.
    pub fn clock(&self) -> Duration {
        self.created.elapsed()
    }

    /// Adds a marker to the recording; returns its time from the start. A label longer than
    /// [`MAX_MARKER_LABEL`] characters is refused.
    pub fn mark(&self, label: String) -> Result<Duration, SessionError> {
        if label.chars().count() > MAX_MARKER_LABEL {
            return Err(SessionError::invalid_request(format!(
                "a marker label has at most {MAX_MARKER_LABEL} characters"
            )));
        }
        let mut live = self.lock();
        let at = self.created.elapsed();
        live.journal.mark(&label);
        live.recording.push(at, Event::Marker(label));
        live.keyframe_if_due(at);
        Ok(at)
    }

    /// Ends the whole process tree (SIGHUP, SIGTERM, then SIGKILL after `grace`; see
    /// [`PtyProcess::terminate`]) and marks the session stopped for `reason`. Reports what
    /// was ended; ending an already ended session changes nothing and reports `None`.
    pub fn stop(
        &self,
        reason: StopReason,
        grace: Duration,
    ) -> Result<Option<Termination>, SessionError> {
        Session::stop_all(&[self], reason, grace)
            .pop()
            .unwrap_or(Ok(None))
    }

    /// Stops several sessions together ([`Session::stop`] for each): every tree is asked at
    /// once and all share one grace period ([`pty::terminate_all`]). A session already
    /// stopping (marked by [`mark_stopping`](Self::mark_stopping)) is ended too. Results are
    /// in `sessions` order.
    ///
    /// [`pty::terminate_all`]: crate::pty::terminate_all
    pub fn stop_all(
        sessions: &[&Session],
        reason: StopReason,
        grace: Duration,
    ) -> Vec<Result<Option<Termination>, SessionError>> {
        for s in sessions {
            s.mark_stopping(reason);
        }
        let stopping: Vec<usize> = (0..sessions.len())
            .filter(|&i| sessions[i].lock().state == State::Stopping)
            .collect();
        for &i in &stopping {
            sessions[i].notify();
        }
        let processes: Vec<&PtyProcess> = stopping.iter().map(|&i| &sessions[i].process).collect();
        let ended = crate::pty::terminate_all(&processes, grace);
        let mut results: Vec<Result<Option<Termination>, SessionError>> =
            sessions.iter().map(|_| Ok(None)).collect();
        for (&i, ended) in stopping.iter().zip(ended) {
            let session = sessions[i];
            results[i] = ended
                .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))
                .map(|ended| {
                    session.mark_stopped(ended.status);
                    Some(ended)
                });
        }
        results
    }

    /// Records the end of a stop.
    fn mark_stopped(&self, status: crate::pty::ExitStatus) {
        let mut live = self.lock();
        if !live.state.is_ended() {
            live.exit_code = status.code();
            live.signal = status.signal_name();
            live.status = Some(status);
            live.state = State::Stopped;
            live.outcome = Some(Outcome::Stopped);
            live.updated_at = SystemTime::now();
        }
        drop(live);
        self.notify();
    }

    /// Marks the session `stopping` for `reason` (input is refused from here on) without
    /// signalling anything yet; `false` if it has ended or is stopping already.
    pub fn mark_stopping(&self, reason: StopReason) -> bool {
        {
            let mut live = self.lock();
            if live.state.is_ended() || live.state == State::Stopping {
                return false;
            }
            live.state = State::Stopping;
            live.stop_reason = Some(reason);
        }
        self.notify();
        true
    }

    /// The session's thread: feeds output into the terminal until the program has exited and
    /// its output is drained, then runs the [`on_end`](Self::on_end) callback.
    fn pump(&self) {
        self.feed();
        let on_end = self.on_end.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(f) = on_end {
            f();
        }
    }

    /// The body of [`pump`](Self::pump); also stops the session at its timeout.
    fn feed(&self) {
        let mut events = self.process.events();
        let input = self.process.input();
        let mut published_at: Option<Instant> = None;
        let mut unpublished = false;
        let mut stop_at = self.spec.timeout.map(|t| self.created + t);
        // Set once the program exited: when to stop waiting for end-of-file.
        let mut drain_cap: Option<Instant> = None;
        let mut drain_until: Option<Instant> = None;
        loop {
            if stop_at.is_some_and(|at| Instant::now() >= at) {
                stop_at = None;
                let _ = self.stop(StopReason::Timeout, STOP_GRACE);
            }
            if drain_until.is_some_and(|at| Instant::now() >= at) {
                // The program is gone but something still holds its terminal; that output is
                // not the program's. End the rest of its tree and count the output as drained.
                drain_until = None;
                let _ = self.process.terminate(STOP_GRACE);
                self.lock().eof = true;
            }
            let due = if unpublished {
                Some(published_at.map_or_else(Instant::now, |t| t + PUBLISH_INTERVAL))
            } else {
                None
            };
            let wake = [due, stop_at, drain_until].into_iter().flatten().min();
            let first = match wake {
                Some(at) => match events.recv_timeout(at.saturating_duration_since(Instant::now()))
                {
                    Ok(event) => Some(event),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => break,
                },
                None => match events.recv() {
                    Ok(event) => Some(event),
                    Err(_) => break,
                },
            };
            let got_event = first.is_some();
            let mut live = self.lock();
            let mut fed = false;
            let mut ended_now = false;
            let mut budget = BATCH_BYTES;
            let mut next = first;
            while let Some(event) = next.take() {
                match event {
                    PtyEvent::Output(bytes) => {
                        budget = budget.saturating_sub(bytes.len());
                        live.feed_output(self.created.elapsed(), bytes);
                        fed = true;
                    }
                    PtyEvent::Eof => live.eof = true,
                    PtyEvent::Exited(status) => {
                        live.exited = true;
                        if live.exit_code.is_none() && live.signal.is_none() {
                            live.exit_code = status.code();
                            live.signal = status.signal_name();
                            live.status = Some(status);
                        }
                        drain_cap.get_or_insert(Instant::now() + EXIT_DRAIN_MAX);
                    }
                }
                if budget > 0 {
                    next = events.try_recv().ok();
                }
            }
            let now = Instant::now();
            if let Some(cap) = drain_cap.filter(|_| got_event && !live.eof) {
                drain_until = Some((now + EXIT_DRAIN_IDLE).min(cap));
            }
            if fed {
                let replies = live.term.take_replies();
                if !replies.is_empty() {
                    // A program that floods queries without reading loses replies rather
                    // than stalling the session.
                    let _ = input.try_write(replies);
                }
                live.version += 1;
                live.output_at = now;
                live.updated_at = SystemTime::now();
                unpublished = true;
            }
            let settled = live.is_settled();
            if settled && !live.state.is_ended() && live.state != State::Stopping {
                live.state = State::Exited;
                live.outcome = Some(if live.exit_code == Some(0) {
                    Outcome::Finished
                } else {
                    Outcome::Failed
                });
                live.updated_at = SystemTime::now();
                ended_now = true;
            }
            let publish = unpublished
                && (settled || published_at.is_none_or(|t| now >= t + PUBLISH_INTERVAL));
            if publish {
                self.publish(&mut live);
                unpublished = false;
                published_at = Some(now);
            }
            drop(live);
            if ended_now {
                self.notify();
            } else if publish {
                self.changed.notify_all();
            }
            if settled {
                break;
            }
        }
        if unpublished {
            self.publish(&mut self.lock());
            self.changed.notify_all();
        }
    }

    /// Notes whether the processed output changed what the screen shows.
    fn publish(&self, live: &mut Live) {
        let fp = fingerprint(&live.term);
        if fp != live.content_fingerprint {
            live.content_fingerprint = fp;
            live.content_changed_at = live.output_at;
            live.content_version = live.version;
        }
    }
}
