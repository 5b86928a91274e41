//! Talking to the session host: connect (starting the host on demand), send one request, read
//! its response with a deadline.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::error::{ErrorCode, SessionError};
use super::paths;
use super::protocol::{MAX_LINE, Response};

/// How long a client waits for an ordinary reply.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a client waits for a freshly started host to listen.
const START_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a host may take to answer the liveness ping.
const PING_TIMEOUT: Duration = Duration::from_secs(2);
/// How often a client retries starting a host while none serves.
const RESTART_INTERVAL: Duration = Duration::from_millis(300);

fn unavailable(message: impl Into<String>) -> SessionError {
    SessionError::new(ErrorCode::HostUnavailable, message)
}

/// A connection to the host.
pub struct Client {
    stream: UnixStream,
    reader: BufReader<UnixStream>,
    next_id: u64,
    cancelled: Arc<AtomicBool>,
}

/// Cancels a client's pending call from another thread (a Ctrl+C handler): the connection is
/// shut down, the host notices and abandons the request, and the call returns `cancelled`.
#[derive(Clone, Debug)]
pub struct Canceller {
    stream: Arc<UnixStream>,
    cancelled: Arc<AtomicBool>,
}

impl Canceller {
    /// Cancels the pending call.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

impl Client {
    /// Connects to the running host, starting one (this executable, `session host`) if
    /// there is none or its socket is stale.
    pub fn connect() -> Result<Client, SessionError> {
        let runtime = paths::runtime_dir();
        paths::ensure_private_dir(&runtime)?;
        let socket = paths::socket_path();
        if let Some(client) = Client::open_alive(&socket) {
            return Ok(client);
        }
        // No host, a stale socket, or a host that is dying: start one. If the dying host
        // still holds the lock, the new one steps aside, so keep starting until one serves.
        let deadline = Instant::now() + START_TIMEOUT;
        let mut started: Option<Instant> = None;
        loop {
            if started.is_none_or(|t| t.elapsed() >= RESTART_INTERVAL) {
                start_host()?;
                started = Some(Instant::now());
            }
            std::thread::sleep(Duration::from_millis(10));
            if let Some(client) = Client::open_alive(&socket) {
                return Ok(client);
            }
            if Instant::now() >= deadline {
                return Err(unavailable(format!(
                    "the session host did not start (socket {})",
                    socket.display()
                )));
            }
        }
    }

    /// A connection to a host that answers a ping (a killed host's socket may still accept
    /// for a moment before the process is gone).
    fn open_alive(socket: &std::path::Path) -> Option<Client> {
        let mut client = Client::open(socket).ok()?;
        client
            .exchange(
                "ping",
                Value::Object(Default::default()),
                Some(PING_TIMEOUT),
            )
            .ok()?;
        Some(client)
    }

    fn open(socket: &std::path::Path) -> Result<Client, SessionError> {
        let stream = UnixStream::connect(socket)
            .map_err(|e| unavailable(format!("cannot connect to {}: {e}", socket.display())))?;
        paths::check_private_file(socket)?;
        let reader = BufReader::new(
            stream
                .try_clone()
                .map_err(|e| SessionError::io("cannot use the host connection", e))?,
        );
        Ok(Client {
            stream,
            reader,
            next_id: 1,
            cancelled: Arc::new(AtomicBool::new(false)),
        })
    }

    /// A handle that cancels this client's pending call.
    pub fn canceller(&self) -> Result<Canceller, SessionError> {
        Ok(Canceller {
            stream: Arc::new(
                self.stream
                    .try_clone()
                    .map_err(|e| SessionError::io("cannot use the host connection", e))?,
            ),
            cancelled: Arc::clone(&self.cancelled),
        })
    }

    fn cancelled_or(&self, e: SessionError) -> SessionError {
        if self.cancelled.load(Ordering::SeqCst) {
            SessionError::new(ErrorCode::Cancelled, "cancelled")
        } else {
            e
        }
    }

    /// Sends `method(params)` and returns its result. `timeout` bounds the wait for the
    /// reply (`None`: wait as long as it takes, for `wait`).
    pub fn call(
        &mut self,
        method: &str,
        params: Value,
        timeout: Option<Duration>,
    ) -> Result<Value, SessionError> {
        self.exchange(method, params, timeout)
            .map_err(|e| self.cancelled_or(e))
    }

    fn exchange(
        &mut self,
        method: &str,
        params: Value,
        timeout: Option<Duration>,
    ) -> Result<Value, SessionError> {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let mut line = serde_json::to_vec(&request)
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        line.push(b'\n');
        self.stream
            .write_all(&line)
            .map_err(|e| unavailable(format!("the session host went away: {e}")))?;
        self.stream
            .set_read_timeout(timeout)
            .map_err(|e| SessionError::io("cannot set a timeout", e))?;
        let mut buf = Vec::new();
        let read = (&mut self.reader)
            .take(MAX_LINE as u64 * 4)
            .read_until(b'\n', &mut buf);
        match read {
            Ok(0) => return Err(unavailable("the session host closed the connection")),
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(unavailable(format!(
                    "the session host did not answer within {} s",
                    timeout.unwrap_or_default().as_secs()
                )));
            }
            Err(e) => {
                return Err(unavailable(format!(
                    "cannot read from the session host: {e}"
                )));
            }
        }
        let response: Response = serde_json::from_slice(&buf)
            .map_err(|e| unavailable(format!("unreadable reply from the session host: {e}")))?;
        if let Some(e) = response.session_error() {
            return Err(e);
        }
        response
            .result
            .ok_or_else(|| unavailable("the session host sent neither result nor error"))
    }
}

use std::io::Read as _;

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
