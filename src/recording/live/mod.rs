//! Recording a program live in the user's own terminal, like `asciinema rec` (`shotty
//! record`): the program runs in a PTY sized like the user's terminal and following its
//! resizes, keys pass through raw, the program's output reaches the terminal unchanged, and
//! all of it — output, input, resizes — goes into a [`Timeline`].
//!
//! One thread and one `poll` over the user's keyboard, the PTY and the signal pipes. The
//! terminal's modes come back on every way out: the program's exit, an error, a panic
//! ([`RawMode`] restores them when dropped) and the terminating signals, which end the
//! program (SIGHUP, SIGTERM, then SIGKILL after a grace period) and then the recording as if
//! it had exited by itself. In raw mode Ctrl+C is a byte like any other: it reaches the
//! program, whose terminal turns it into its SIGINT.

mod raw;

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant, SystemTime};

use rustix::io::Errno;
use rustix::process::Signal;
use signal_hook::SigId;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGWINCH};

pub use raw::{RawMode, terminal_size};

use super::Timeline;
use super::recorder::Recorder;
use crate::pty::{ExitStatus, PtyCommand, PtyError, PtyEvent, PtyProcess, Wake};

/// The size a terminal that reports none is taken to have.
const FALLBACK_SIZE: (u16, u16) = (80, 24);
/// How long the program has to exit after a terminating signal before it is killed.
const SIGNAL_GRACE: Duration = Duration::from_secs(2);
/// Bytes of keyboard input read at once.
const INPUT_CHUNK: usize = 64 * 1024;

/// Why a live recording could not be made.
#[derive(Debug)]
pub enum LiveError {
    /// stdin or stdout (named) is not a terminal: there is nobody to type or to watch.
    NotATerminal(&'static str),
    /// The program could not be started, or its PTY failed.
    Pty(PtyError),
    /// The user's terminal or the signal handling failed (what was being done, and why).
    Io(&'static str, io::Error),
}

impl std::fmt::Display for LiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiveError::NotATerminal(which) => write!(
                f,
                "{which} is not a terminal: a live recording needs one to type into and watch \
                 (shotty capture --video records a command without one)"
            ),
            LiveError::Pty(e) => e.fmt(f),
            LiveError::Io(what, e) => write!(f, "cannot {what}: {e}"),
        }
    }
}

impl std::error::Error for LiveError {}

/// A finished live recording.
#[derive(Debug)]
pub struct LiveRecording {
    /// What happened, from the program's start.
    pub timeline: Timeline,
    /// How the program ended.
    pub status: ExitStatus,
    /// When the recording started.
    pub started_at: SystemTime,
    /// The terminating signal that ended the recording early, if one did.
    pub signal: Option<i32>,
}

/// Runs `cmd` live in the user's terminal (stdin and stdout), sized like it, and records it
/// into a timeline holding about `limit` bytes (see [`Timeline::new`]) until the program
/// exits. The terminal is back in its own modes when this returns, whatever it returns.
pub fn record(cmd: &PtyCommand, limit: usize) -> Result<LiveRecording, LiveError> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    if !rustix::termios::isatty(&stdin) {
        return Err(LiveError::NotATerminal("stdin"));
    }
    if !rustix::termios::isatty(&stdout) {
        return Err(LiveError::NotATerminal("stdout"));
    }
    // Before the size is read, so a resize in between is not missed.
    let signals = SignalPipes::new().map_err(|e| LiveError::Io("handle signals", e))?;
    let (width, height) = user_terminal_size(stdin.as_fd(), stdout.as_fd());
    let mut cmd = cmd.clone();
    cmd.size(width, height);
    let process = PtyProcess::spawn(&cmd).map_err(LiveError::Pty)?;
    let started_at = SystemTime::now();
    let mut raw = RawMode::enter(stdin.as_fd()).map_err(|e| LiveError::Io("set raw mode", e))?;
    let mut pump = Pump {
        process: &process,
        stdin: stdin.as_fd(),
        recorder: Recorder::new(width, height, limit),
        start: Instant::now(),
        stdout_open: true,
        stdin_open: true,
        ending: None,
        signal: None,
    };
    let status = pump.run(&signals);
    let (recorder, signal) = (pump.recorder, pump.signal);
    // A terminal that cannot be restored is gone (hung up); the recording is still worth
    // keeping, so that is no error.
    let _ = raw.restore();
    Ok(LiveRecording {
        timeline: recorder.into_timeline(),
        status: status?,
        started_at,
        signal,
    })
}

/// The user's terminal size from stdin, else stdout, else [`FALLBACK_SIZE`].
fn user_terminal_size(stdin: BorrowedFd<'_>, stdout: BorrowedFd<'_>) -> (u16, u16) {
    terminal_size(stdin)
        .or_else(|| terminal_size(stdout))
        .unwrap_or(FALLBACK_SIZE)
}

/// Sockets that become readable when a signal arrives, one per signal so each is told apart.
struct SignalPipes {
    /// SIGWINCH: the user's terminal was resized.
    winch: UnixStream,
    /// The terminating signals, with their numbers.
    terminating: Vec<(i32, UnixStream)>,
    ids: Vec<SigId>,
}

impl SignalPipes {
    fn new() -> io::Result<SignalPipes> {
        let mut ids = Vec::new();
        let mut pipe = |signal: i32| -> io::Result<UnixStream> {
            let (read_end, write_end) = UnixStream::pair()?;
            read_end.set_nonblocking(true)?;
            ids.push(signal_hook::low_level::pipe::register(signal, write_end)?);
            Ok(read_end)
        };
        let winch = pipe(SIGWINCH)?;
        let terminating = [SIGTERM, SIGHUP, SIGINT]
            .into_iter()
            .map(|s| pipe(s).map(|p| (s, p)))
            .collect::<io::Result<Vec<_>>>()?;
        Ok(SignalPipes {
            winch,
            terminating,
            ids,
        })
    }
}

impl Drop for SignalPipes {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

/// Empties a signal pipe (several signals may have come).
fn drain(pipe: &UnixStream) {
    let mut buf = [0u8; 64];
    let mut reader = pipe;
    while matches!(reader.read(&mut buf), Ok(n) if n > 0) {}
}

/// What a readable descriptor of the poll is.
#[derive(Clone, Copy)]
enum Source {
    Keyboard,
    Resize,
    Terminating(i32),
}

/// The loop between the user's terminal and the program's.
struct Pump<'a> {
    process: &'a PtyProcess,
    stdin: BorrowedFd<'a>,
    recorder: Recorder,
    start: Instant,
    /// Writing to the user's terminal has not failed.
    stdout_open: bool,
    /// The keyboard has not reached its end.
    stdin_open: bool,
    /// After a terminating signal: when the program is killed if it has not exited.
    ending: Option<Instant>,
    signal: Option<i32>,
}

impl Pump<'_> {
    /// Moves bytes both ways until the program has exited; returns how it ended.
    fn run(&mut self, signals: &SignalPipes) -> Result<ExitStatus, LiveError> {
        let mut events = self.process.events();
        loop {
            let (fds, sources) = self.watched(signals);
            let timeout = self
                .ending
                .map(|at| at.saturating_duration_since(Instant::now()));
            match events.recv_or_readable(&fds, timeout) {
                Ok(Wake::Event(PtyEvent::Output(bytes))) => self.output(bytes),
                // The terminal may end before the program does; its exit ends the recording.
                Ok(Wake::Event(PtyEvent::Eof)) => {}
                Ok(Wake::Event(PtyEvent::Exited(status))) => return Ok(status),
                Ok(Wake::Readable(ready)) => {
                    for i in ready {
                        self.readable(sources[i], signals);
                    }
                }
                Err(RecvTimeoutError::Timeout) => self.kill(),
                Err(RecvTimeoutError::Disconnected) => {
                    return Ok(self
                        .process
                        .try_wait()
                        .unwrap_or_else(|| self.process.wait()));
                }
            }
        }
    }

    /// The descriptors to wait on besides the PTY, and what each is.
    fn watched<'s>(&self, signals: &'s SignalPipes) -> (Vec<BorrowedFd<'s>>, Vec<Source>)
    where
        Self: 's,
    {
        let mut fds = vec![signals.winch.as_fd()];
        let mut sources = vec![Source::Resize];
        for (signal, pipe) in &signals.terminating {
            fds.push(pipe.as_fd());
            sources.push(Source::Terminating(*signal));
        }
        // Once the program is being ended, keys have nowhere to go.
        if self.stdin_open && self.ending.is_none() {
            fds.push(self.stdin);
            sources.push(Source::Keyboard);
        }
        (fds, sources)
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn readable(&mut self, source: Source, signals: &SignalPipes) {
        match source {
            Source::Keyboard => self.keyboard(),
            Source::Resize => {
                drain(&signals.winch);
                self.follow_resize();
            }
            Source::Terminating(signal) => {
                if let Some((_, pipe)) = signals.terminating.iter().find(|(s, _)| *s == signal) {
                    drain(pipe);
                }
                self.terminating(signal);
            }
        }
    }

    /// Shows the program's output and records it.
    fn output(&mut self, bytes: Vec<u8>) {
        if self.stdout_open {
            let mut out = io::stdout().lock();
            // A terminal that is gone stops being written to; the recording goes on (its
            // SIGHUP ends it).
            self.stdout_open = out.write_all(&bytes).and_then(|()| out.flush()).is_ok();
        }
        let at = self.now();
        self.recorder.output(at, bytes);
    }

    /// Passes what the user typed to the program and records it.
    fn keyboard(&mut self) {
        let mut buf = vec![0u8; INPUT_CHUNK];
        match rustix::io::read(self.stdin, &mut buf) {
            Ok(0) => self.stdin_open = false,
            Ok(n) => {
                buf.truncate(n);
                let at = self.now();
                // A program that closed its terminal takes no more input; its exit is near.
                let _ = self.process.write(&buf);
                self.recorder.input(at, buf);
            }
            Err(Errno::INTR | Errno::AGAIN) => {}
            // EIO: the terminal hung up.
            Err(_) => self.stdin_open = false,
        }
    }

    /// Gives the program the user's new terminal size, and records it.
    fn follow_resize(&mut self) {
        let Some((width, height)) = terminal_size(self.stdin) else {
            return;
        };
        if (width, height) == self.recorder.size() {
            return;
        }
        if self.process.resize(width, height).is_ok() {
            let at = self.now();
            self.recorder.resize(at, width, height);
        }
    }

    /// A terminating signal: the program is asked to end (a second signal kills it), and the
    /// recording ends with it.
    fn terminating(&mut self, signal: i32) {
        self.signal.get_or_insert(signal);
        if self.ending.is_some() {
            self.kill();
            return;
        }
        for s in [Signal::HUP, Signal::TERM, Signal::CONT] {
            self.process.signal_tree(s);
        }
        self.ending = Some(Instant::now() + SIGNAL_GRACE);
    }

    /// Kills what is left of the program.
    fn kill(&mut self) {
        self.ending = None;
        let _ = self.process.terminate(Duration::ZERO);
    }
}
