//! `shotty serve`: one session exposed as a newline-delimited JSON-RPC 2.0 endpoint on a Unix
//! socket or on TCP loopback — the `socket-pty` protocol (SPEC §5, `docs/serve.md`).
//!
//! [`Server::bind`] listens on the address the caller chose and starts the program;
//! [`Server::run`] accepts clients until `pty/kill` or [`ServerHandle::shutdown`] ends the
//! session, then closes every connection and removes the socket file. Each connection has its
//! own thread and answers its requests one at a time, in order, so a long `pty/wait` holds
//! only the connection it came on; clients that want to do something else meanwhile open
//! another connection. A client hanging up never affects the session, and a `pty/wait` it
//! left behind is abandoned ([`HangupWatch`]).
//!
//! Methods (params → result):
//!
//! * `pty/read` `{}` | `{top}` | `{bottom}` | `{start, end}` → [`ScreenResult`]
//! * `pty/write` `{action}` → [`WriteResult`]
//! * `pty/wait` `{match?, timeout?}` → [`WaitReply`]
//! * `pty/status` `{}` → [`StatusResult`]
//! * `pty/resize` `{cols, rows}` → `{}`
//! * `pty/kill` `{}` → `{}`, then the session ends and the endpoint closes.

use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::net::{Ipv4Addr, Shutdown, TcpListener, TcpStream};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, poll};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::lines::{Line, read_line};
use crate::pty::ColorEnvFlags;
use crate::rpc::{MAX_LINE, Request, parse_request};
pub use crate::rpc::{RpcError, code};
use crate::session::error::{ErrorCode, SessionError};
use crate::session::hangup::HangupWatch;
use crate::session::host::PANIC_HOOK_ENV;
use crate::session::instance::{Live, STOP_GRACE, Session, SessionSpec, StopReason, check_size};
use crate::session::protocol::SendStep;
use crate::session::rows::{Rows, RowsError};
use crate::session::wait::{Target, Until, WaitCondition, WaitResult, wait};
use crate::term::keys;

/// `pty/wait`'s timeout when none is given, in milliseconds.
pub const DEFAULT_WAIT_TIMEOUT_MS: u64 = 10_000;
/// The longest `pty/wait` timeout accepted, in milliseconds (24 h).
pub const MAX_WAIT_TIMEOUT_MS: u64 = 24 * 3600 * 1000;
/// Connections served at once; more are answered with -32000 and closed.
pub const MAX_CONNECTIONS: usize = 256;
/// Scrollback kept by the emulator (the protocol only ever shows the screen).
const SCROLLBACK: usize = 1000;

/// Where the endpoint listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// A Unix domain socket at this path (created with mode 0600, removed at the end).
    Unix(PathBuf),
    /// TCP on 127.0.0.1 at this port (1–65535).
    Tcp(u16),
}

impl Endpoint {
    /// The address as printed and documented: `unix:/path` or `tcp:127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        match self {
            Endpoint::Unix(path) => format!("unix:{}", path.display()),
            Endpoint::Tcp(port) => format!("tcp:127.0.0.1:{port}"),
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Program and arguments (see [`split_command`]).
    pub command: Vec<String>,
    /// Columns (1–500).
    pub cols: u16,
    /// Rows (1–500).
    pub rows: u16,
    /// Working directory (default: the current one).
    pub cwd: Option<PathBuf>,
}

impl ServeOptions {
    /// `command` at the default size, 100×30.
    pub fn new(command: Vec<String>) -> ServeOptions {
        ServeOptions {
            command,
            cols: 100,
            rows: 30,
            cwd: None,
        }
    }
}

/// Splits a command line into words the way a POSIX shell would — whitespace separates,
/// `'…'`, `"…"` and `\` quote — without running a shell or expanding anything.
pub fn split_command(line: &str) -> Result<Vec<String>, SessionError> {
    let words = shlex::split(line).ok_or_else(|| {
        SessionError::invalid_request("the command has an unterminated quote or a trailing \\")
    })?;
    if words.is_empty() {
        return Err(SessionError::invalid_request("the command is empty"));
    }
    Ok(words)
}

// ----- results --------------------------------------------------------------------------

/// A 1-based cursor position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// Row, 1 = top.
    pub row: usize,
    /// Column, 1 = left.
    pub col: usize,
}

/// The terminal's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Size {
    /// Columns.
    pub cols: usize,
    /// Rows.
    pub rows: usize,
}

/// `pty/read`'s result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScreenResult {
    /// The selected rows of the screen as text: each row with its trailing spaces removed and
    /// followed by `\n`, down to the last row that is not blank (`""` when all are).
    pub screen: String,
    /// The cursor.
    pub cursor: Position,
    /// The terminal size.
    pub size: Size,
}

/// `pty/write`'s result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteResult {
    /// Bytes written (UTF-8 text and key sequences, all actions together).
    pub written: usize,
}

/// `pty/wait`'s result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitReply {
    /// The text appeared before the timeout.
    pub matched: bool,
    /// The whole screen when the wait ended (as in [`ScreenResult::screen`]).
    pub screen: String,
    /// The cursor then.
    pub cursor: Position,
    /// The size then.
    pub size: Size,
    /// How long the wait took, in milliseconds.
    pub waited_ms: u64,
}

/// `pty/status`'s result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusResult {
    /// The program has not ended.
    pub running: bool,
    /// Its exit code once it exited (`null` while running or after a signal).
    pub exit_code: Option<i32>,
    /// Its pid (also its process group).
    pub pid: u32,
}

/// The empty result of `pty/resize` and `pty/kill`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyResult {}

#[derive(Serialize)]
#[serde(untagged)]
enum Outcome {
    Screen(ScreenResult),
    Written(WriteResult),
    Waited(WaitReply),
    Status(StatusResult),
    Empty(EmptyResult),
}

impl RpcError {
    fn from_session(e: SessionError) -> RpcError {
        let (code, message) = match e.code {
            ErrorCode::InvalidRequest | ErrorCode::UnsupportedKey | ErrorCode::InvalidCondition => {
                (
                    code::INVALID_PARAMS,
                    format!("Invalid params: {}", e.message),
                )
            }
            ErrorCode::SessionExited => (code::SERVER_ERROR, "the session has ended".to_owned()),
            ErrorCode::IoError | ErrorCode::SessionError => (code::INTERNAL_ERROR, e.message),
            _ => (code::SERVER_ERROR, e.message),
        };
        RpcError {
            code,
            message,
            data: Some(json!({ "code": e.code })),
        }
    }
}

#[derive(Serialize)]
struct Success<'a, T> {
    jsonrpc: &'static str,
    result: &'a T,
    id: &'a Value,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    error: &'a RpcError,
    id: &'a Value,
}

/// One response line (with its newline).
fn response_line(id: &Value, result: Result<Outcome, RpcError>) -> Vec<u8> {
    let encoded = match &result {
        Ok(r) => serde_json::to_vec(&Success {
            jsonrpc: "2.0",
            result: r,
            id,
        }),
        Err(e) => serde_json::to_vec(&Failure {
            jsonrpc: "2.0",
            error: e,
            id,
        }),
    };
    let mut line = encoded.unwrap_or_else(|e| {
        let e = RpcError::new(code::INTERNAL_ERROR, format!("Internal error: {e}"));
        serde_json::to_vec(&Failure {
            jsonrpc: "2.0",
            error: &e,
            id,
        })
        .unwrap_or_default()
    });
    line.push(b'\n');
    line
}

// ----- requests -------------------------------------------------------------------------

/// Runs `f`, turning a panic into its message. Library code does not panic on purpose, so
/// this is the last line of defence that keeps one bad request from taking a server down.
pub(crate) fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(panic_message)
}

/// What a panic said.
pub(crate) fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown cause".to_owned())
}

fn params<T: serde::de::DeserializeOwned>(params: Map<String, Value>) -> Result<T, RpcError> {
    serde_json::from_value(Value::Object(params)).map_err(RpcError::invalid_params)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadParams {
    #[serde(default)]
    top: Option<usize>,
    #[serde(default)]
    bottom: Option<usize>,
    #[serde(default)]
    start: Option<usize>,
    #[serde(default)]
    end: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WaitParams {
    #[serde(default, rename = "match")]
    pattern: Option<String>,
    #[serde(default)]
    timeout: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResizeParams {
    cols: u16,
    rows: u16,
}

/// `pty/write`'s `action`: `{text}`, `{key}` or a non-empty array of them, as send steps.
/// Every key is checked here, before anything is written.
fn parse_actions(mut params: Map<String, Value>) -> Result<Vec<SendStep>, RpcError> {
    let action = params.remove("action");
    if let Some(field) = params.keys().next() {
        return Err(RpcError::invalid_params(format!(
            "unknown field `{field}`; pty/write takes {{\"action\": …}}"
        )));
    }
    let one = |value: &Value| -> Result<SendStep, RpcError> {
        let Some(obj) = value.as_object() else {
            return Err(RpcError::invalid_params(
                "each action is an object: {\"text\": …} or {\"key\": …}",
            ));
        };
        if let Some(field) = obj.keys().find(|k| *k != "text" && *k != "key") {
            return Err(RpcError::invalid_params(format!(
                "unknown action field `{field}`; an action is {{\"text\": …}} or {{\"key\": …}}"
            )));
        }
        match (obj.get("text"), obj.get("key")) {
            (Some(_), Some(_)) => Err(RpcError::invalid_params(
                "a write action takes text or key, not both",
            )),
            (None, None) => Err(RpcError::invalid_params(
                "an empty action; give {\"text\": …} or {\"key\": …}",
            )),
            (Some(Value::String(t)), None) => Ok(SendStep::Text(t.clone())),
            (Some(_), None) => Err(RpcError::invalid_params("text must be a string")),
            (None, Some(Value::String(k))) => keys::parse_key(k)
                .map(|_| SendStep::Keys(k.clone()))
                .map_err(|e| {
                    let mut err = RpcError::invalid_params(e);
                    err.data = Some(json!({ "code": ErrorCode::UnsupportedKey }));
                    err
                }),
            (None, Some(_)) => Err(RpcError::invalid_params("key must be a string")),
        }
    };
    match action {
        None => Err(RpcError::invalid_params(
            "missing `action`: {\"text\": …}, {\"key\": …} or an array of them",
        )),
        Some(Value::Array(items)) if items.is_empty() => {
            Err(RpcError::invalid_params("`action` is an empty array"))
        }
        Some(Value::Array(items)) => items.iter().map(one).collect(),
        Some(value @ Value::Object(_)) => Ok(vec![one(&value)?]),
        Some(_) => Err(RpcError::invalid_params(
            "`action` is an object ({\"text\": …} or {\"key\": …}) or an array of them",
        )),
    }
}

/// The protocol's screen text: each row (right-trimmed) followed by `\n`, without the blank
/// rows at the end — `"hello\n"` for a screen showing just `hello`, `""` for a blank one.
fn screen_text(rows: &str) -> String {
    let content = rows.trim_end_matches('\n');
    if content.is_empty() {
        return String::new();
    }
    let mut text = String::with_capacity(content.len() + 1);
    text.push_str(content);
    text.push('\n');
    text
}

// ----- sockets --------------------------------------------------------------------------

enum Listener {
    Unix(UnixListener),
    Tcp(TcpListener),
}

impl Listener {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            Listener::Unix(l) => l.as_fd(),
            Listener::Tcp(l) => l.as_fd(),
        }
    }

    fn accept(&self) -> io::Result<Stream> {
        match self {
            Listener::Unix(l) => l.accept().map(|(s, _)| Stream::Unix(s)),
            Listener::Tcp(l) => l.accept().map(|(s, _)| {
                let _ = s.set_nodelay(true);
                Stream::Tcp(s)
            }),
        }
    }
}

enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
        })
    }

    fn shutdown(&self) {
        let _ = match self {
            Stream::Unix(s) => s.shutdown(Shutdown::Both),
            Stream::Tcp(s) => s.shutdown(Shutdown::Both),
        };
    }

    fn into_fd(self) -> OwnedFd {
        match self {
            Stream::Unix(s) => s.into(),
            Stream::Tcp(s) => s.into(),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Unix(s) => s.flush(),
            Stream::Tcp(s) => s.flush(),
        }
    }
}

/// The socket file we created, removed only while it is still ours.
struct SocketFile {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl SocketFile {
    fn remove(&self) {
        if let Ok(meta) = std::fs::symlink_metadata(&self.path)
            && meta.dev() == self.dev
            && meta.ino() == self.ino
        {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Binds a Unix socket at `path` (mode 0600), replacing only a stale socket.
fn bind_unix(path: &Path) -> Result<(UnixListener, SocketFile), SessionError> {
    let shown = path.display();
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => match UnixStream::connect(path) {
            Ok(_) => {
                return Err(SessionError::new(
                    ErrorCode::InvalidOperation,
                    format!("{shown} is in use: another server is listening on it"),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                std::fs::remove_file(path)
                    .map_err(|e| SessionError::io(&format!("cannot replace {shown}"), e))?;
            }
            Err(e) => return Err(SessionError::io(&format!("cannot check {shown}"), e)),
        },
        Ok(_) => {
            return Err(SessionError::new(
                ErrorCode::InvalidOperation,
                format!("{shown} exists and is not a socket; refusing to replace it"),
            ));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(SessionError::io(&format!("cannot check {shown}"), e)),
    }
    let listener = UnixListener::bind(path)
        .map_err(|e| SessionError::io(&format!("cannot listen on unix:{shown}"), e))?;
    let file = std::fs::symlink_metadata(path)
        .map(|meta| SocketFile {
            path: path.to_path_buf(),
            dev: meta.dev(),
            ino: meta.ino(),
        })
        .map_err(|e| SessionError::io(&format!("cannot check {shown}"), e))?;
    if let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)) {
        file.remove();
        return Err(SessionError::io(&format!("cannot protect {shown}"), e));
    }
    Ok((listener, file))
}

// ----- the server -----------------------------------------------------------------------

/// State shared by the accept loop, the connections and [`ServerHandle`]s.
struct Shared {
    session: Arc<Session>,
    socket: Option<SocketFile>,
    /// Set once the session has been stopped and the socket file removed; the lock makes a
    /// second caller wait for the first.
    ended: Mutex<bool>,
    /// Open connections (clones, for shutting them down); `None` once the endpoint closed.
    conns: Mutex<Option<HashMap<u64, Stream>>>,
    next_conn: AtomicU64,
    /// Writing to it wakes the accept loop.
    wake: UnixStream,
    /// The method [`PANIC_HOOK_ENV`] names (a test-only hook).
    panic_in: Option<String>,
}

impl Shared {
    fn conns(&self) -> MutexGuard<'_, Option<HashMap<u64, Stream>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops the program's whole process group and removes the socket file, so nobody can
    /// connect any more. Idempotent.
    fn end_session(&self) {
        let mut ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        if *ended {
            return;
        }
        let _ = self.session.stop(StopReason::User, STOP_GRACE);
        if let Some(socket) = &self.socket {
            socket.remove();
        }
        *ended = true;
    }

    /// Shuts every connection down (their pending waits are abandoned) and stops the accept
    /// loop. Idempotent.
    fn close_endpoint(&self) {
        if let Some(conns) = self.conns().take() {
            for stream in conns.values() {
                stream.shutdown();
            }
        }
        let _ = (&self.wake).write(&[1]);
    }

    /// Registers a connection; `None` when the endpoint has closed or is full.
    fn register(&self, stream: &Stream) -> Option<Result<u64, ()>> {
        let mut conns = self.conns();
        let conns = conns.as_mut()?;
        if conns.len() >= MAX_CONNECTIONS {
            return Some(Err(()));
        }
        let id = self.next_conn.fetch_add(1, Ordering::Relaxed);
        let clone = stream.try_clone().ok()?;
        conns.insert(id, clone);
        Some(Ok(id))
    }

    fn unregister(&self, id: u64) {
        if let Some(conns) = self.conns().as_mut() {
            conns.remove(&id);
        }
    }

    fn screen(live: &Live, rows: Rows) -> (String, Position, Size) {
        let cursor = live.term.screen().cursor();
        (
            screen_text(&rows.select(&live.term.text())),
            Position {
                row: cursor.row + 1,
                col: cursor.col + 1,
            },
            Size {
                cols: live.term.width(),
                rows: live.term.height(),
            },
        )
    }

    fn read(&self, p: ReadParams) -> Result<Outcome, RpcError> {
        let rows = Rows::parse(p.top, p.bottom, p.start, p.end, 1).map_err(|e| {
            RpcError::invalid_params(match e {
                RowsError::Several => "top, bottom and start/end exclude each other",
                RowsError::Unpaired => "start and end go together",
                RowsError::Reversed => "start is after end",
            })
        })?;
        let (screen, cursor, size) = Self::screen(&self.session.lock(), rows);
        Ok(Outcome::Screen(ScreenResult {
            screen,
            cursor,
            size,
        }))
    }

    fn write(&self, steps: Vec<SendStep>) -> Result<Outcome, RpcError> {
        let written = self.session.send(&steps).map_err(RpcError::from_session)?;
        Ok(Outcome::Written(WriteResult { written }))
    }

    fn wait(&self, p: WaitParams, cancel: &AtomicBool) -> Result<Outcome, RpcError> {
        let timeout_ms = p.timeout.unwrap_or(DEFAULT_WAIT_TIMEOUT_MS);
        if timeout_ms > MAX_WAIT_TIMEOUT_MS {
            return Err(RpcError::invalid_params(format!(
                "timeout is at most {MAX_WAIT_TIMEOUT_MS} ms"
            )));
        }
        let timeout = Duration::from_millis(timeout_ms);
        let start = Instant::now();
        let matched = match p.pattern {
            Some(m) if m.is_empty() => {
                return Err(RpcError::invalid_params(
                    "match is empty (leave it out to wait for the timeout)",
                ));
            }
            Some(m) => {
                let condition = WaitCondition {
                    target: Target::Text(m),
                    until: Until::Present,
                    stable_for: None,
                    timeout: Some(timeout),
                };
                wait(&self.session, &condition, cancel).result == WaitResult::Matched
            }
            None => {
                // No text: just let the time pass (or the client hang up).
                let deadline = start + timeout;
                let mut live = self.session.lock();
                while !cancel.load(Ordering::SeqCst) && Instant::now() < deadline {
                    live = self.session.wait_lifecycle(live, Some(deadline));
                }
                false
            }
        };
        let waited_ms = start.elapsed().as_millis() as u64;
        let (screen, cursor, size) = Self::screen(&self.session.lock(), Rows::All);
        Ok(Outcome::Waited(WaitReply {
            matched,
            screen,
            cursor,
            size,
            waited_ms,
        }))
    }

    fn status(&self) -> Outcome {
        let live = self.session.lock();
        let ended = live.state.is_ended();
        Outcome::Status(StatusResult {
            running: !ended,
            exit_code: if ended { live.exit_code } else { None },
            pid: self.session.pid(),
        })
    }

    fn resize(&self, p: ResizeParams) -> Result<Outcome, RpcError> {
        self.session
            .resize(p.cols, p.rows)
            .map_err(RpcError::from_session)?;
        Ok(Outcome::Empty(EmptyResult {}))
    }

    /// Answers one request line; `true` when the endpoint is to close after the reply
    /// (`pty/kill`).
    fn handle(&self, line: &[u8], conn: &Stream) -> (Vec<u8>, bool) {
        let request = match parse_request(line) {
            Ok(r) => r,
            Err((id, e)) => return (response_line(&id, Err(e)), false),
        };
        let Request {
            id,
            method,
            params: p,
        } = request;
        // A panic inside one request becomes its error reply: the connection, the other
        // clients and the session carry on.
        let (result, close) =
            catch_panic(|| self.dispatch(&method, p, conn)).unwrap_or_else(|what| {
                let e = RpcError {
                    code: code::INTERNAL_ERROR,
                    message: format!(
                        "internal error in {method}: {what} (the server keeps running)"
                    ),
                    data: Some(json!({ "code": ErrorCode::SessionError })),
                };
                (Err(e), false)
            });
        (response_line(&id, result), close)
    }

    /// Runs one method; `true` when the endpoint is to close after the reply.
    fn dispatch(
        &self,
        method: &str,
        p: Map<String, Value>,
        conn: &Stream,
    ) -> (Result<Outcome, RpcError>, bool) {
        if self.panic_in.as_deref() == Some(method) {
            panic!("{PANIC_HOOK_ENV} asked for a panic in {method:?}");
        }
        let result = match method {
            "pty/read" => params(p).and_then(|p| self.read(p)),
            "pty/write" => parse_actions(p).and_then(|steps| self.write(steps)),
            "pty/wait" => params(p).and_then(|p| self.wait_cancellable(p, conn)),
            "pty/status" => params::<NoParams>(p).map(|_| self.status()),
            "pty/resize" => params(p).and_then(|p| self.resize(p)),
            "pty/kill" => {
                return match params::<NoParams>(p) {
                    Ok(_) => {
                        self.end_session();
                        (Ok(Outcome::Empty(EmptyResult {})), true)
                    }
                    Err(e) => (Err(e), false),
                };
            }
            other => Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {other}"),
            )),
        };
        (result, false)
    }

    /// `pty/wait`, abandoned when the client hangs up or the endpoint closes.
    fn wait_cancellable(&self, p: WaitParams, conn: &Stream) -> Result<Outcome, RpcError> {
        let cancel = Arc::new(AtomicBool::new(false));
        let _watch = match conn.try_clone() {
            Ok(probe) => {
                let cancel = Arc::clone(&cancel);
                let session = Arc::clone(&self.session);
                Some(
                    HangupWatch::start(probe.into_fd(), move || {
                        cancel.store(true, Ordering::SeqCst);
                        session.notify();
                    })
                    .map_err(|e| {
                        RpcError::new(code::INTERNAL_ERROR, format!("Internal error: {e}"))
                    })?,
                )
            }
            Err(e) => {
                return Err(RpcError::new(
                    code::INTERNAL_ERROR,
                    format!("Internal error: {e}"),
                ));
            }
        };
        self.wait(p, &cancel)
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(socket) = &self.socket {
            socket.remove();
        }
    }
}

fn serve_connection(shared: &Shared, stream: Stream) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    let mut buf = Vec::new();
    loop {
        let (reply, close) = match read_line(&mut reader, &mut buf, MAX_LINE) {
            Ok(Line::Eof) | Err(_) => return,
            Ok(Line::TooLong) => {
                let e = RpcError::invalid_request(format!(
                    "the request line is longer than {MAX_LINE} bytes"
                ));
                (response_line(&Value::Null, Err(e)), false)
            }
            Ok(Line::Complete) if buf.trim_ascii().is_empty() => continue,
            Ok(Line::Complete) => shared.handle(&buf, &writer),
        };
        let sent = writer.write_all(&reply).and_then(|()| writer.flush());
        if close {
            shared.close_endpoint();
            return;
        }
        if sent.is_err() {
            return;
        }
    }
}

/// Ends a running [`Server`] from anywhere (a signal handler, another thread): the program's
/// process group is stopped, the socket file removed, every connection closed, and
/// [`Server::run`] returns.
#[derive(Clone)]
pub struct ServerHandle {
    shared: Arc<Shared>,
}

impl ServerHandle {
    /// Ends the session and closes the endpoint; returns once the program is gone and the
    /// socket file removed. Idempotent.
    pub fn shutdown(&self) {
        self.shared.end_session();
        self.shared.close_endpoint();
    }
}

/// A listening endpoint with its session.
pub struct Server {
    listener: Listener,
    woken: UnixStream,
    shared: Arc<Shared>,
    address: String,
}

impl Server {
    /// Listens on `endpoint` and starts the program. A Unix socket gets mode 0600; an
    /// existing stale socket at the path is replaced, a live one or any other file is not.
    /// TCP listens on 127.0.0.1 only.
    pub fn bind(endpoint: &Endpoint, options: &ServeOptions) -> Result<Server, SessionError> {
        if options.command.is_empty() {
            return Err(SessionError::invalid_request("no command to run"));
        }
        check_size(options.cols, options.rows)?;
        if let Some(dir) = &options.cwd
            && !dir.is_dir()
        {
            return Err(SessionError::invalid_request(format!(
                "{} is not a directory",
                dir.display()
            )));
        }
        let (listener, socket, endpoint) = match endpoint {
            Endpoint::Unix(path) => {
                let path = std::path::absolute(path)
                    .map_err(|e| SessionError::io("cannot resolve the socket path", e))?;
                let (listener, file) = bind_unix(&path)?;
                (Listener::Unix(listener), Some(file), Endpoint::Unix(path))
            }
            Endpoint::Tcp(0) => {
                return Err(SessionError::invalid_request(
                    "the port must be between 1 and 65535",
                ));
            }
            &Endpoint::Tcp(port) => {
                let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).map_err(|e| {
                    SessionError::io(&format!("cannot listen on {}", endpoint.address()), e)
                })?;
                (Listener::Tcp(listener), None, Endpoint::Tcp(port))
            }
        };
        let cleanup = |e: SessionError| {
            if let Some(file) = &socket {
                file.remove();
            }
            e
        };
        let (wake, woken) = UnixStream::pair()
            .map_err(|e| cleanup(SessionError::io("cannot create a socket pair", e)))?;
        let spec = SessionSpec {
            command: options.command.clone(),
            width: options.cols,
            height: options.rows,
            cwd: options.cwd.clone(),
            env: Vec::new(),
            color_env: ColorEnvFlags::default(),
            scrollback: SCROLLBACK,
            timeout: None,
        };
        let session = Session::start("serve".into(), spec).map_err(cleanup)?;
        Ok(Server {
            listener,
            woken,
            address: endpoint.address(),
            shared: Arc::new(Shared {
                session,
                socket,
                ended: Mutex::new(false),
                conns: Mutex::new(Some(HashMap::new())),
                next_conn: AtomicU64::new(0),
                wake,
                panic_in: std::env::var(PANIC_HOOK_ENV).ok().filter(|m| !m.is_empty()),
            }),
        })
    }

    /// The address clients connect to: `unix:/abs/path` or `tcp:127.0.0.1:PORT`.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The session (for in-process use: reading its terminal directly, its pid …).
    pub fn session(&self) -> &Arc<Session> {
        &self.shared.session
    }

    /// A handle that ends the server from another thread.
    pub fn handle(&self) -> ServerHandle {
        ServerHandle {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Serves clients until the session is killed (`pty/kill`) or [`ServerHandle::shutdown`]
    /// is called. When it returns, the program's process group is gone, the socket file is
    /// removed and every connection is shut down.
    pub fn run(self) -> Result<(), SessionError> {
        let result = self.accept_loop();
        self.shared.end_session();
        self.shared.close_endpoint();
        result
    }

    fn accept_loop(&self) -> Result<(), SessionError> {
        loop {
            let mut fds = [
                PollFd::from_borrowed_fd(self.listener.as_fd(), PollFlags::IN),
                PollFd::new(&self.woken, PollFlags::IN),
            ];
            match poll(&mut fds, None) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(SessionError::io("cannot wait for clients", e.into())),
            }
            if !fds[1].revents().is_empty() {
                return Ok(());
            }
            if fds[0].revents().is_empty() {
                continue;
            }
            let stream = match self.listener.accept() {
                Ok(s) => s,
                Err(_) => {
                    // Out of descriptors or an aborted connection: try again shortly.
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
            };
            self.spawn_connection(stream);
        }
    }

    fn spawn_connection(&self, mut stream: Stream) {
        let id = match self.shared.register(&stream) {
            None => return,
            Some(Err(())) => {
                let e = RpcError::new(code::SERVER_ERROR, "too many connections");
                let _ = stream.write_all(&response_line(&Value::Null, Err(e)));
                return;
            }
            Some(Ok(id)) => id,
        };
        let shared = Arc::clone(&self.shared);
        let spawned = std::thread::Builder::new()
            .name("shotty-serve-conn".into())
            .spawn(move || {
                serve_connection(&shared, stream);
                shared.unregister(id);
            });
        if spawned.is_err() {
            self.shared.unregister(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell_without_one() {
        assert_eq!(split_command("bash -l").unwrap(), ["bash", "-l"]);
        assert_eq!(split_command("python3 -q").unwrap(), ["python3", "-q"]);
        assert_eq!(
            split_command(r#"sh -c 'echo "a b"; exit 3'"#).unwrap(),
            ["sh", "-c", r#"echo "a b"; exit 3"#]
        );
        assert_eq!(
            split_command(r#"printf "%s\n" it\'s $HOME"#).unwrap(),
            ["printf", "%s\\n", "it's", "$HOME"]
        );
        assert!(split_command("   ").is_err());
        assert!(split_command("echo 'open").is_err());
    }

    #[test]
    fn screen_text_ends_at_the_last_written_row() {
        assert_eq!(screen_text("root@host:~$\n\n\n"), "root@host:~$\n");
        assert_eq!(screen_text("\na\n\nb\n\n"), "\na\n\nb\n");
        assert_eq!(screen_text("a"), "a\n");
        assert_eq!(screen_text("\n\n"), "");
        assert_eq!(screen_text(""), "");
    }

    #[test]
    fn actions() {
        let actions = |v: Value| parse_actions(v.as_object().unwrap().clone());
        assert_eq!(actions(json!({"action": {"text": "ls"}})).unwrap().len(), 1);
        assert_eq!(
            actions(json!({"action": [{"text": "ls"}, {"key": "Enter"}]}))
                .unwrap()
                .len(),
            2
        );
        for bad in [
            json!({}),
            json!({"action": {}}),
            json!({"action": []}),
            json!({"action": "ls"}),
            json!({"action": ["ls"]}),
            json!({"action": {"text": "x", "key": "Enter"}}),
            json!({"action": {"text": 1}}),
            json!({"action": {"key": "Nope"}}),
            json!({"action": {"paste": "x"}}),
            json!({"action": {"text": "x"}, "extra": 1}),
        ] {
            let e = actions(bad.clone()).err().unwrap();
            assert_eq!(e.code, code::INVALID_PARAMS, "{bad}");
        }
        let e = actions(json!({"action": {"key": "Nope"}})).err().unwrap();
        assert!(e.message.contains("Nope"), "{}", e.message);
    }

    #[test]
    fn responses_keep_the_documented_field_order() {
        let line = response_line(
            &json!(1),
            Ok(Outcome::Status(StatusResult {
                running: true,
                exit_code: None,
                pid: 1234,
            })),
        );
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"result\":{\"running\":true,\"exitCode\":null,\"pid\":1234},\"id\":1}\n"
        );
        let line = response_line(
            &json!(13),
            Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                "Method not found: pty/unknown",
            )),
        );
        assert_eq!(
            String::from_utf8(line).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32601,\"message\":\"Method not found: pty/unknown\"},\"id\":13}\n"
        );
    }
}
