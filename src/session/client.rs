//! Talking to the session host: connect (starting the host on demand), send one request, read
//! its response with a deadline.
//!
//! A connection is not probed before use. When the host closes it without answering, what
//! the client does depends on how the host went, which its socket file tells, and on what
//! was asked:
//! - removed or replaced: the host left in order (its idle exit, a shutdown, a newer host took
//!   over), which it does only with no request half done, or after ending every session and
//!   keeping its record; the client sends the request again, once, to a new host, which
//!   answers from those records.
//! - still there: the host died (SIGKILL, a crash), maybe after it took the connection and
//!   before it read the request (a killed process's threads close its socket last). A request
//!   that changes no session ([`changes_no_session`]) is asked again, of a new host, which
//!   answers as of now: its sessions are those the death ended. Any other request may have
//!   been half done; sending it again to a host that knows the sessions only as ended by that
//!   death would answer a different question: the client fails with `host_unavailable`.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use serde::Serialize;
use serde_json::{Value, json};

use super::error::{ErrorCode, SessionError};
use super::paths;
use super::protocol::{Response, changes_no_session};
use crate::rpc::MAX_LINE;

/// How long a client waits for an ordinary reply.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a client waits for `stop`'s reply: the grace period, the kills and the deletions
/// of every session it names, which the host does off its executor.
pub const STOP_REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a client waits for the reply to `method` (`None`: as long as it takes, for
/// `wait`, whose own timeout is a parameter).
pub fn reply_timeout(method: &str) -> Option<Duration> {
    match method {
        "wait" => None,
        "stop" | "restart" => Some(STOP_REPLY_TIMEOUT),
        _ => Some(REPLY_TIMEOUT),
    }
}

/// [`reply_timeout`] for a request that itself asks the host to take `extra` longer (a
/// send's pauses, a start's wait for the program to be ready).
pub fn reply_timeout_after(method: &str, extra: Duration) -> Option<Duration> {
    reply_timeout(method).map(|t| t + extra)
}

/// How long a client waits for a freshly started host to listen.
const START_TIMEOUT: Duration = Duration::from_secs(5);
/// How often a client retries starting a host while none serves.
const RESTART_INTERVAL: Duration = Duration::from_millis(300);
/// Largest reply accepted (snapshots of a 500×500 screen are well below).
const MAX_REPLY: usize = MAX_LINE * 4;

/// How long a client waits before asking a question again of a host that closed the
/// connection unanswered.
const ASK_AGAIN_PAUSE: Duration = Duration::from_millis(20);

/// How long a client whose request could not be written looks for the host's reply that
/// turned it away.
const REFUSAL_WAIT: Duration = Duration::from_millis(100);

fn unavailable(message: impl Into<String>) -> SessionError {
    SessionError::new(ErrorCode::HostUnavailable, message)
}

/// Why an exchange failed.
enum Failure {
    /// The host closed the connection (or reset it) without a reply.
    Closed(SessionError),
    /// Anything else.
    Other(SessionError),
}

impl From<SessionError> for Failure {
    fn from(e: SessionError) -> Failure {
        Failure::Other(e)
    }
}

/// A connection to the host.
pub struct Client {
    socket: PathBuf,
    stream: UnixStream,
    /// The socket file the connection was made through, to tell a host that died from one
    /// that left.
    socket_file: FileId,
    /// Bytes read past the end of the last reply.
    pending: Vec<u8>,
    next_id: u64,
    /// Becomes readable when a cancelling signal arrives (see [`Client::cancel_on_signals`]).
    cancel: Option<UnixStream>,
}

impl Client {
    /// Connects to the running host, starting one (this executable, `session host`) if
    /// there is none or its socket is stale.
    pub fn connect() -> Result<Client, SessionError> {
        let runtime = paths::runtime_dir();
        paths::ensure_private_dir(&runtime)?;
        let socket = paths::socket_path();
        let (stream, socket_file) = open_or_start(&socket)?;
        Ok(Client {
            socket,
            stream,
            socket_file,
            pending: Vec::new(),
            next_id: 1,
            cancel: None,
        })
    }

    /// Makes SIGINT, SIGTERM and SIGHUP cancel this client's pending call instead of killing
    /// the process: the connection is closed, the host abandons the request, and the call
    /// returns `cancelled`. Meant for a command-line process with one client; the signals
    /// stay redirected for the life of the process.
    pub fn cancel_on_signals(&mut self) -> Result<(), SessionError> {
        let pipe = crate::signals::termination_pipe()
            .map_err(|e| SessionError::io("cannot set up cancellation", e))?;
        self.cancel = Some(pipe);
        Ok(())
    }

    /// Sends `method(params)` — `params` one of the [`protocol`](super::protocol) types —
    /// and returns its result. `timeout` bounds the wait for the reply (`None`: wait as long as
    /// it takes, for `wait`).
    pub fn call(
        &mut self,
        method: &str,
        params: &impl Serialize,
        timeout: Option<Duration>,
    ) -> Result<Value, SessionError> {
        let params = serde_json::to_value(params)
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        let e = match self.exchange(method, &params, timeout) {
            Err(Failure::Closed(e)) => e,
            Ok(v) => return Ok(v),
            Err(Failure::Other(e)) => return Err(e),
        };
        let died = file_id(&self.socket) == Some(self.socket_file);
        if died && !changes_no_session(method) {
            return Err(unavailable(format!(
                "the session host died while handling this request ({}); the next command \
                 starts a new host, which ends what its sessions left running and keeps them \
                 as stopped with the reason host-died",
                e.message
            )));
        }
        // The host left in order, with the request not begun; or it died and the request
        // changes nothing. A dying host can still take connections until its last thread
        // is gone, so a question is asked until a host that lives answers it.
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            (self.stream, self.socket_file) = open_or_start(&self.socket)?;
            self.pending.clear();
            match self.exchange(method, &params, timeout) {
                Err(Failure::Closed(_))
                    if changes_no_session(method) && Instant::now() < deadline =>
                {
                    std::thread::sleep(ASK_AGAIN_PAUSE);
                }
                result => return result.map_err(|(Failure::Closed(e) | Failure::Other(e))| e),
            }
        }
    }

    fn exchange(
        &mut self,
        method: &str,
        params: &Value,
        timeout: Option<Duration>,
    ) -> Result<Value, Failure> {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let mut line = serde_json::to_vec(&request)
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        line.push(b'\n');
        let reply = match self.stream.write_all(&line) {
            Ok(()) => self.read_reply(timeout)?,
            // A host that turned the connection away (it serves as many as it takes) has said
            // why before closing it: that answer is the reply.
            Err(e) => self.read_reply(Some(REFUSAL_WAIT)).map_err(|_| {
                Failure::Closed(unavailable(format!("the session host went away: {e}")))
            })?,
        };
        let response: Response = serde_json::from_slice(&reply)
            .map_err(|e| unavailable(format!("unreadable reply from the session host: {e}")))?;
        if let Some(e) = response.session_error() {
            return Err(e.into());
        }
        let result = response
            .result
            .ok_or_else(|| unavailable("the session host sent neither result nor error"))?;
        serde_json::from_str(result.get())
            .map_err(|e| unavailable(format!("unreadable reply from the session host: {e}")).into())
    }

    /// Reads one reply line, watching the cancellation pipe and the timeout.
    fn read_reply(&mut self, timeout: Option<Duration>) -> Result<Vec<u8>, Failure> {
        let deadline = timeout.map(|t| (Instant::now() + t, t));
        // Small: most replies fit, and a command run once pays a page fault for every page of
        // it that is zeroed (a 64 KiB chunk was 16 of the 240 of a whole `session read`).
        let mut chunk = [0u8; 8 * 1024];
        let mut scanned = 0;
        loop {
            if let Some(end) = self.pending[scanned..].iter().position(|&b| b == b'\n') {
                let rest = self.pending.split_off(scanned + end + 1);
                let mut line = std::mem::replace(&mut self.pending, rest);
                line.pop();
                return Ok(line);
            }
            scanned = self.pending.len();
            if scanned > MAX_REPLY {
                return Err(unavailable("the session host's reply is too long").into());
            }
            self.wait_readable(deadline)?;
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    return Err(Failure::Closed(unavailable(
                        "the session host closed the connection",
                    )));
                }
                Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::ConnectionReset => {
                    return Err(Failure::Closed(unavailable(format!(
                        "the session host went away: {e}"
                    ))));
                }
                Err(e) => {
                    return Err(
                        unavailable(format!("cannot read from the session host: {e}")).into(),
                    );
                }
            }
        }
    }

    /// Blocks until the connection has something to read; fails at the deadline or when a
    /// cancelling signal arrives (the connection is then shut down, so the host gives up).
    fn wait_readable(&self, deadline: Option<(Instant, Duration)>) -> Result<(), SessionError> {
        loop {
            let timeout = match deadline {
                Some((at, timeout)) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(unavailable(format!(
                            "the session host did not answer within {:.1} s",
                            timeout.as_secs_f64()
                        )));
                    }
                    Some(Timespec::try_from(left).unwrap_or(Timespec {
                        tv_sec: i64::MAX,
                        tv_nsec: 0,
                    }))
                }
                None => None,
            };
            let mut fds = vec![PollFd::new(&self.stream, PollFlags::IN)];
            if let Some(cancel) = &self.cancel {
                fds.push(PollFd::new(cancel, PollFlags::IN));
            }
            match poll(&mut fds, timeout.as_ref()) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => {
                    return Err(SessionError::io(
                        "cannot wait for the session host",
                        e.into(),
                    ));
                }
            }
            if fds.get(1).is_some_and(|f| !f.revents().is_empty()) {
                let _ = self.stream.shutdown(std::net::Shutdown::Both);
                return Err(SessionError::new(ErrorCode::Cancelled, "cancelled"));
            }
            if !fds[0].revents().is_empty() {
                return Ok(());
            }
        }
    }
}

/// What tells one file from another that took its path: device and inode.
type FileId = (u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

/// Connects to the host's socket, starting a host if none listens. If a dying host still
/// holds the lock, a new one steps aside, so starting is repeated until one serves.
fn open_or_start(socket: &Path) -> Result<(UnixStream, FileId), SessionError> {
    if let Some(stream) = open(socket)? {
        return Ok(stream);
    }
    let deadline = Instant::now() + START_TIMEOUT;
    let mut started: Option<Instant> = None;
    loop {
        if started.is_none_or(|t| t.elapsed() >= RESTART_INTERVAL) {
            start_host()?;
            started = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(5));
        if let Some(stream) = open(socket)? {
            return Ok(stream);
        }
        if Instant::now() >= deadline {
            return Err(unavailable(format!(
                "the session host did not start (socket {})",
                socket.display()
            )));
        }
    }
}

/// A connection to the socket, verified to be ours and private, with the socket file's
/// identity; `None` when nothing listens there.
fn open(socket: &Path) -> Result<Option<(UnixStream, FileId)>, SessionError> {
    // Taken before the connect: a host replacing the file after it cannot be mistaken for
    // the one connected to (at worst the client thinks a dying host left in order).
    let Some(id) = file_id(socket) else {
        return Ok(None);
    };
    let Ok(stream) = UnixStream::connect(socket) else {
        return Ok(None);
    };
    match paths::check_private_file(socket) {
        Ok(()) => Ok(Some((stream, id))),
        // Removed since the connect: that host is exiting.
        Err(_) if std::fs::symlink_metadata(socket).is_err() => Ok(None),
        Err(e) => Err(e),
    }
}

fn start_host() -> Result<(), SessionError> {
    let exe: PathBuf = std::env::current_exe()
        .map_err(|e| unavailable(format!("cannot find the shotty executable: {e}")))?;
    Command::new(exe)
        .args(["session", "host"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| unavailable(format!("cannot start the session host: {e}")))?;
    Ok(())
}
