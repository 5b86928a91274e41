//! `shotty session attach`: the user's terminal shows a session live and what is typed
//! reaches its program, until the detach key, the program's end or a terminating signal.
//!
//! The screen is drawn from a keyframe (`output` with `screen`), then the program's output
//! is streamed from the offset the keyframe was taken at, by a thread that long-polls
//! `output` on a connection of its own. The main thread waits in one `poll` on the keyboard,
//! the signals and that thread, and sends what is typed as raw bytes (`send`). An attached
//! terminal is one more client of the host, so several people and agents can watch and type
//! at once: the host orders their input. The session keeps its size unless `--resize`.
//! Queries in the output (device attributes, cursor position …) are not passed to the
//! user's terminal: the host's emulator answers them already.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use clap::Parser;
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::io::Errno;
use rustix::termios::{OptionalActions, tcgetattr, tcsetattr};
use serde_json::{Value, json};

use shotty::recording::live::{RawMode, terminal_size};
use shotty::session::client::{Client, reply_timeout, reply_timeout_after};
use shotty::session::instance::{MAX_SIZE, State};
use shotty::session::output::{OutputParams, OutputReply};
use shotty::session::protocol::{ResizeParams, SendParams, SendStep};
use shotty::session::{ErrorCode, SessionError};
use shotty::term::keys::{KeyModes, encode_keys, kitty};
use shotty::term::queries::QueryFilter;

/// Show a session live in this terminal and type into it (Ctrl+] detaches).
///
/// The screen is drawn from the session's current state, then follows its output; what is
/// typed goes to the program. Others may watch and type at the same time.
#[derive(Debug, Parser)]
pub(super) struct AttachArgs {
    /// The session: its id, its name, a unique prefix of its id, or `last`.
    id: String,
    /// Only watch: what is typed is dropped (the detach key still detaches).
    #[arg(long)]
    read_only: bool,
    /// The key that detaches, by name (Ctrl+], Ctrl+X, F12, C-q…).
    #[arg(
        long,
        value_name = "KEY",
        default_value = "Ctrl+]",
        allow_hyphen_values = true
    )]
    detach_key: String,
    /// Resize the session to this terminal (and again whenever it is resized); without it
    /// the session keeps its size and is drawn at the top left.
    #[arg(long)]
    resize: bool,
}

/// What clears the user's screen before the keyframe draws the session's on it.
const CLEAR: &[u8] = b"\x1b[H\x1b[2J";

/// What the keyframe and the streamed output may have switched on in the user's terminal,
/// switched off again on every way out: the session's modes become the user's terminal's
/// while attached, and the shell prompt after must not inherit them (a terminal still
/// reporting the mouse or sending kitty key codes types garbage into the shell).
const RESTORE: &[u8] = concat!(
    // CAN abandons an escape sequence the last output may have left unfinished, so what
    // follows is read as sequences of its own.
    "\x18",
    // Resetting the margins homes the cursor: DECSC/DECRC keep it where the program left it,
    // so what is printed after comes below the program's last line.
    "\x1b7\x1b[r\x1b8",
    // Kitty keyboard flags are kept per screen: reset on both sides of leaving the
    // alternate screen.
    "\x1b[=0;1u",
    "\x1b[?1049l",
    "\x1b[=0;1u",
    // Mouse tracking and its encodings, focus reports, bracketed paste.
    "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?1005l\x1b[?9l",
    "\x1b[?1004l\x1b[?2004l",
    // Application cursor keys and keypad.
    "\x1b[?1l\x1b>",
    // Insert mode off, autowrap on, the cursor visible in its default shape.
    "\x1b[4l\x1b[?7h\x1b[?25h\x1b[0 q",
    // No open hyperlink, ASCII in G0 and shifted in, the default pen.
    "\x1b]8;;\x1b\\\x1b(B\x0f\x1b[0m",
    // The document printed next starts on a line of its own.
    "\r\n",
)
.as_bytes();

/// How long one `output` request waits for output: also how soon the streaming thread
/// redraws after a resize when the program prints nothing.
const STREAM_WAIT: Duration = Duration::from_millis(500);
/// How long the first bytes of a longer detach key are held for the rest before they are
/// sent as typed (an Escape alone must not wait for the next key).
const DETACH_HOLD: Duration = Duration::from_millis(50);
/// Bytes of keyboard input read at once.
const INPUT_CHUNK: usize = 64 * 1024;

/// `session attach`: returns the document printed when it ends.
pub(super) fn attach(args: AttachArgs) -> Result<Value, SessionError> {
    let (stdin, stdout) = (io::stdin(), io::stdout());
    if !rustix::termios::isatty(&stdin) || !rustix::termios::isatty(&stdout) {
        return Err(SessionError::invalid_request(
            "attach needs a terminal: stdin and stdout must be one (an agent reads the \
             screen with `session read` and types with `session send`)",
        ));
    }
    let mut detach = DetachKey::new(&args.detach_key)?;
    // From here on SIGINT, SIGTERM and SIGHUP only make these readable: the loop ends, and
    // the terminal is put back, instead of the process dying in raw mode.
    let terminating = shotty::signals::termination_pipe()
        .map_err(|e| SessionError::io("cannot handle signals", e))?;
    let winch = signal_pipe(signal_hook::consts::SIGWINCH)
        .map_err(|e| SessionError::io("cannot handle SIGWINCH", e))?;
    let mut client = Client::connect()?;
    if args.resize {
        resize_to_terminal(&mut client, &args.id)?;
    }
    let first = keyframe(&mut client, &args.id)?;
    if first.state.is_ended() {
        return Err(SessionError::new(
            ErrorCode::SessionExited,
            format!(
                "the session has ended; `shotty session read {}` shows its last screen",
                args.id
            ),
        ));
    }
    let session_id = first.session_id.clone();

    let screen = Arc::new(Screen::default());
    // Before raw mode: the modes to go back to.
    close_on_panic(&screen, stdin.as_fd());
    let mut attached = Attached::enter(stdin.as_fd(), Arc::clone(&screen))
        .map_err(|e| SessionError::io("cannot set raw mode", e))?;
    let mut drawing = CLEAR.to_vec();
    drawing.extend_from_slice(first.keyframe.unwrap_or_default().as_bytes());
    screen.write(&drawing);

    let shared = Arc::new(Shared {
        state: Mutex::new(first.state),
        redraw: AtomicBool::new(false),
    });
    let stream = Stream::start(
        session_id.clone(),
        first.end,
        Arc::clone(&screen),
        Arc::clone(&shared),
    )?;

    // The test-only hook of the host's (`SHOTTY_TEST_PANIC_METHOD`), here for the proof that
    // a panic leaves the terminal as it found it.
    let panic_on_input =
        std::env::var(shotty::session::host::PANIC_HOOK_ENV).is_ok_and(|m| m == "attach");
    let mut keyboard = Keyboard {
        client,
        session_id: session_id.clone(),
        read_only: args.read_only,
        rang: false,
        screen: &screen,
    };
    let end = loop {
        let mut fds = vec![
            PollFd::new(&stream.done, PollFlags::IN),
            PollFd::new(&terminating, PollFlags::IN),
            PollFd::new(&winch, PollFlags::IN),
            PollFd::new(&stdin, PollFlags::IN),
        ];
        let timeout = detach
            .holding()
            .then(|| Timespec::try_from(DETACH_HOLD).ok())
            .flatten();
        match poll(&mut fds, timeout.as_ref()) {
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(e) => break Err(SessionError::io("cannot wait for input", e.into())),
        }
        let ready: Vec<bool> = fds.iter().map(|f| !f.revents().is_empty()).collect();
        if ready[0] {
            break stream.finish();
        }
        if ready[1] {
            break Ok(End::Detached);
        }
        if ready[2] {
            drain(&winch);
            if args.resize
                && let Err(e) = resize_to_terminal(&mut keyboard.client, &session_id)
                && !ended_error(&e)
            {
                break Err(e);
            }
            // The user's terminal rewrapped the screen its own way: draw it again.
            shared.redraw.store(true, Ordering::SeqCst);
        }
        if ready[3] {
            let mut buf = vec![0u8; INPUT_CHUNK];
            match rustix::io::read(&stdin, &mut buf) {
                // The terminal hung up (its SIGHUP is on the way).
                Ok(0) | Err(Errno::IO) => break Ok(End::Detached),
                Ok(n) => {
                    assert!(
                        !panic_on_input,
                        "SHOTTY_TEST_PANIC_METHOD asked for a panic"
                    );
                    let (typed, detached) = detach.feed(&buf[..n]);
                    if let Err(e) = keyboard.deliver(&typed) {
                        break Err(e);
                    }
                    if detached {
                        break Ok(End::Detached);
                    }
                }
                Err(Errno::INTR | Errno::AGAIN) => {}
                Err(e) => break Err(SessionError::io("cannot read the keyboard", e.into())),
            }
        } else if !ready.iter().any(|&r| r) {
            // Nothing more came of a detach key begun: it was a key of its own.
            let held = detach.flush();
            if let Err(e) = keyboard.deliver(&held) {
                break Err(e);
            }
        }
    };
    attached.leave();
    let (detached, state) = match end? {
        End::Detached => (true, *shared.state()),
        End::Ended(state) => (false, state),
    };
    Ok(json!({ "sessionId": session_id, "detached": detached, "state": state }))
}

/// How attaching ended, short of an error.
enum End {
    /// The detach key, a terminating signal or the terminal's hangup: the session goes on.
    Detached,
    /// The program ended (in this state) and all its output was shown.
    Ended(State),
}

/// Whether `e` says that the session is over (its end is then reported by the stream).
fn ended_error(e: &SessionError) -> bool {
    matches!(
        e.code,
        ErrorCode::SessionExited | ErrorCode::SessionNotFound | ErrorCode::SessionExpired
    )
}

/// A socket that becomes readable when `signal` arrives (for the rest of the process).
fn signal_pipe(signal: i32) -> io::Result<UnixStream> {
    let (read_end, write_end) = UnixStream::pair()?;
    read_end.set_nonblocking(true)?;
    signal_hook::low_level::pipe::register(signal, write_end)?;
    Ok(read_end)
}

/// Empties a signal pipe (several signals may have come).
fn drain(pipe: &UnixStream) {
    let mut buf = [0u8; 64];
    let mut reader = pipe;
    while matches!(reader.read(&mut buf), Ok(n) if n > 0) {}
}

/// Resizes the session to the user's terminal, when that has a size a session may have.
fn resize_to_terminal(client: &mut Client, id: &str) -> Result<(), SessionError> {
    let (stdin, stdout) = (io::stdin(), io::stdout());
    let Some((width, height)) =
        terminal_size(stdout.as_fd()).or_else(|| terminal_size(stdin.as_fd()))
    else {
        return Ok(());
    };
    let params = ResizeParams {
        session_id: id.to_owned(),
        width: width.min(MAX_SIZE),
        height: height.min(MAX_SIZE),
    };
    client.call("resize", &params, reply_timeout("resize"))?;
    Ok(())
}

/// The session's current screen as a keyframe, and the offset its output continues from.
fn keyframe(client: &mut Client, id: &str) -> Result<OutputReply, SessionError> {
    let params = OutputParams {
        session_id: id.to_owned(),
        ansi: true,
        screen: true,
        ..OutputParams::default()
    };
    let reply = client.call("output", &params, reply_timeout("output"))?;
    serde_json::from_value(reply)
        .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))
}

/// The user's terminal as both threads write to it: once closed (on the way out) nothing
/// more reaches it, so no late output lands after the terminal was put back.
#[derive(Default)]
struct Screen {
    closed: Mutex<bool>,
}

impl Screen {
    fn lock(&self) -> MutexGuard<'_, bool> {
        self.closed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes `bytes` unless closed; false when the terminal cannot be written any more.
    fn write(&self, bytes: &[u8]) -> bool {
        let closed = self.lock();
        !*closed && write_all(bytes)
    }

    /// Writes `last` and closes (once; later calls do nothing).
    fn close(&self, last: &[u8]) {
        let mut closed = self.lock();
        if !*closed {
            // A terminal that is gone takes nothing more; there is nobody to tell.
            let _ = write_all(last);
            *closed = true;
        }
    }
}

/// Makes a panic (of either thread) put the user's terminal back before its message is
/// printed: unwinding restores it too, but only after the message went to the alternate
/// screen, which leaving it wipes, and through a terminal in raw mode, which does not start
/// its lines at the left.
fn close_on_panic(screen: &Arc<Screen>, terminal: BorrowedFd<'_>) {
    let screen = Arc::clone(screen);
    let modes = tcgetattr(terminal).ok();
    let terminal = terminal.try_clone_to_owned().ok();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // Not while the panicking thread may hold the lock itself.
        if let Ok(mut closed) = screen.closed.try_lock()
            && !*closed
        {
            let _ = write_all(RESTORE);
            *closed = true;
            if let (Some(modes), Some(terminal)) = (&modes, &terminal) {
                let _ = tcsetattr(terminal, OptionalActions::Now, modes);
            }
        }
        previous(info);
    }));
}

fn write_all(bytes: &[u8]) -> bool {
    let mut out = io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush()).is_ok()
}

/// The user's terminal while attached: raw, showing the session. Dropping it (also in a
/// panic's unwinding) puts the terminal back, as [`Attached::leave`] does.
struct Attached {
    raw: RawMode,
    screen: Arc<Screen>,
}

impl Attached {
    fn enter(fd: BorrowedFd<'_>, screen: Arc<Screen>) -> io::Result<Attached> {
        Ok(Attached {
            raw: RawMode::enter(fd)?,
            screen,
        })
    }

    /// Stops the output, undoes the session's modes and leaves raw mode.
    fn leave(&mut self) {
        // While still raw: RESTORE ends with its own CR LF.
        self.screen.close(RESTORE);
        // A terminal that cannot be restored is gone (hung up).
        let _ = self.raw.restore();
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        self.leave();
    }
}

/// What the streaming thread and the main thread share.
struct Shared {
    /// The session's state in the last reply.
    state: Mutex<State>,
    /// Draw the screen again from a keyframe (after a resize).
    redraw: AtomicBool,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The thread that streams the program's output to the user's terminal.
struct Stream {
    thread: JoinHandle<Result<End, SessionError>>,
    /// Becomes readable (end of file) when the thread is done, however it ends: its other
    /// end belongs to the thread.
    done: UnixStream,
}

impl Stream {
    fn start(
        session_id: String,
        since: u64,
        screen: Arc<Screen>,
        shared: Arc<Shared>,
    ) -> Result<Stream, SessionError> {
        let (done, done_writer) =
            UnixStream::pair().map_err(|e| SessionError::io("cannot make a socket pair", e))?;
        let client = Client::connect()?;
        let thread = std::thread::Builder::new()
            .name("shotty-attach-output".into())
            .spawn(move || {
                let _done = done_writer;
                stream(client, &session_id, since, &screen, &shared)
            })
            .map_err(|e| SessionError::io("cannot start a thread", e))?;
        Ok(Stream { thread, done })
    }

    /// How the thread ended (it has, or is about to: `done` was readable).
    fn finish(self) -> Result<End, SessionError> {
        self.thread.join().unwrap_or_else(|_| {
            Err(SessionError::new(
                ErrorCode::SessionError,
                "showing the output failed",
            ))
        })
    }
}

/// Writes the program's output from `since` on to the user's terminal until the program has
/// ended and all of it is shown, or the terminal is closed.
fn stream(
    mut client: Client,
    id: &str,
    mut since: u64,
    screen: &Screen,
    shared: &Shared,
) -> Result<End, SessionError> {
    let timeout = reply_timeout_after("output", STREAM_WAIT);
    // The program asks its terminal — the host's emulator, which answers — and this one
    // must not answer too: its replies would reach the program as typed input.
    let mut queries = QueryFilter::default();
    loop {
        let params = OutputParams {
            session_id: id.to_owned(),
            since: Some(since),
            ansi: true,
            wait_ms: Some(STREAM_WAIT.as_millis() as u64),
            ..OutputParams::default()
        };
        let reply = match client.call("output", &params, timeout) {
            Ok(reply) => reply,
            // `stop` deletes the session: it was stopped.
            Err(e) if ended_error(&e) => return Ok(End::Ended(State::Stopped)),
            Err(e) => return Err(e),
        };
        let mut piece: OutputReply = serde_json::from_value(reply)
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        // Output the recording dropped before it was shown leaves the screen wrong: a
        // keyframe puts it right, as it does after a resize.
        if shared.redraw.swap(false, Ordering::SeqCst) || piece.dropped {
            piece = keyframe(&mut client, id)?;
            piece.text =
                String::from_utf8_lossy(CLEAR).into_owned() + &piece.keyframe.unwrap_or_default();
            piece.more = false;
        }
        *shared.state() = piece.state;
        let shown = queries.filter(piece.text.as_bytes());
        if !shown.is_empty() && !screen.write(&shown) {
            return Ok(End::Detached);
        }
        since = piece.end;
        if piece.state.is_ended() && !piece.more {
            return Ok(End::Ended(piece.state));
        }
    }
}

/// Where typed bytes go.
struct Keyboard<'a> {
    client: Client,
    session_id: String,
    read_only: bool,
    /// The bell rang for input dropped (read-only) already.
    rang: bool,
    screen: &'a Screen,
}

impl Keyboard<'_> {
    /// Sends `bytes` to the program, or drops them (read-only: the first time with a bell,
    /// the only sign that does not draw over the program's screen).
    fn deliver(&mut self, bytes: &[u8]) -> Result<(), SessionError> {
        if bytes.is_empty() {
            return Ok(());
        }
        if self.read_only {
            if !self.rang {
                self.rang = true;
                self.screen.write(b"\x07");
            }
            return Ok(());
        }
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let params = SendParams {
            session_id: self.session_id.clone(),
            steps: vec![SendStep::RawHex(hex)],
        };
        match self.client.call("send", &params, reply_timeout("send")) {
            // The program is gone: the stream reports the end once its output is shown.
            Err(e) if !ended_error(&e) => Err(e),
            _ => Ok(()),
        }
    }
}

/// Finds the detach key in what is typed. A key is several bytes at times, and the user's
/// terminal encodes it as the session's modes ask (application cursor keys, the kitty
/// keyboard protocol), so every encoding of it is watched for.
struct DetachKey {
    encodings: Vec<Vec<u8>>,
    /// Typed bytes that begin an encoding, held back until the rest comes (or does not).
    held: Vec<u8>,
}

impl DetachKey {
    fn new(name: &str) -> Result<DetachKey, SessionError> {
        // The plain encoding must exist: it is what most terminals send.
        let plain = encode_keys(name, KeyModes::default())
            .map_err(|e| SessionError::invalid_request(format!("--detach-key: {e}")))?;
        let mut encodings = vec![plain];
        for cursor_keys_application in [false, true] {
            for kitty_flags in [0, kitty::DISAMBIGUATE] {
                let modes = KeyModes {
                    cursor_keys_application,
                    kitty_flags,
                    ..KeyModes::default()
                };
                if let Ok(bytes) = encode_keys(name, modes)
                    && !bytes.is_empty()
                    && !encodings.contains(&bytes)
                {
                    encodings.push(bytes);
                }
            }
        }
        Ok(DetachKey {
            encodings,
            held: Vec::new(),
        })
    }

    /// Whether bytes are held for the rest of the key.
    fn holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// Takes typed `input`: returns what goes to the program, and whether the detach key
    /// was typed (what follows it is dropped).
    fn feed(&mut self, input: &[u8]) -> (Vec<u8>, bool) {
        let mut out = Vec::with_capacity(input.len());
        for &b in input {
            self.held.push(b);
            loop {
                if self.encodings.contains(&self.held) {
                    self.held.clear();
                    return (out, true);
                }
                if self.encodings.iter().any(|e| e.starts_with(&self.held)) {
                    break;
                }
                // Not the key: its first byte is typed, the rest may still begin it.
                out.push(self.held.remove(0));
                if self.held.is_empty() {
                    break;
                }
            }
        }
        (out, false)
    }

    /// What is held, given up: the key was not completed in time.
    fn flush(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_detach_key_is_one_byte_or_its_kitty_code() {
        let key = DetachKey::new("Ctrl+]").expect("a key");
        assert!(key.encodings.contains(&vec![0x1d]), "{:?}", key.encodings);
        assert!(
            key.encodings.contains(&b"\x1b[93;5u".to_vec()),
            "{:?}",
            key.encodings
        );
    }

    #[test]
    fn typed_bytes_pass_until_the_detach_key() {
        let mut key = DetachKey::new("Ctrl+]").expect("a key");
        assert_eq!(key.feed(b"ls\r"), (b"ls\r".to_vec(), false));
        assert_eq!(key.feed(b"ab\x1dcd"), (b"ab".to_vec(), true));
    }

    #[test]
    fn a_longer_key_is_found_across_reads_and_released_when_it_is_not_one() {
        let mut key = DetachKey::new("F12").expect("a key");
        assert_eq!(key.feed(b"x\x1b["), (b"x".to_vec(), false));
        assert!(key.holding());
        assert_eq!(key.feed(b"24~"), (Vec::new(), true));
        // Escape then Escape then the key: the first Escape is not part of it.
        assert_eq!(key.feed(b"\x1b\x1b[24~"), (b"\x1b".to_vec(), true));
        // Escape, then an arrow: all typed.
        assert_eq!(key.feed(b"\x1b[A"), (b"\x1b[A".to_vec(), false));
        assert_eq!(key.feed(b"\x1b"), (Vec::new(), false));
        assert_eq!(key.flush(), b"\x1b".to_vec());
    }

    #[test]
    fn an_unknown_detach_key_is_refused() {
        let e = DetachKey::new("Ctrl+Nothing").err().expect("refused");
        assert_eq!(e.code, ErrorCode::InvalidRequest);
    }
}
