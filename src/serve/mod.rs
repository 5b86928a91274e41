//! `shotty serve`: one session exposed as a newline-delimited JSON-RPC 2.0 endpoint on a Unix
//! socket or on TCP loopback — the `socket-pty` protocol (SPEC §5, `docs/serve.md`).
//!
//! [`Server::bind`] listens on the address the caller chose and starts the program;
//! [`Server::run`] accepts clients until `pty/kill` or [`ServerHandle::shutdown`] ends the
//! session, then closes every connection and removes the socket file. Each connection has its
//! own thread and answers its requests one at a time, in order, so a long `pty/wait` holds
//! only the connection it came on; clients that want to do something else meanwhile open
//! another connection. A client hanging up never affects the session, and a `pty/wait` it
//! left behind is abandoned ([`HangupWatch`](crate::session::hangup::HangupWatch)). A
//! connection must send each request line whole in time, as the session host's must
//! ([`DeadlineReader`](crate::session::hangup::DeadlineReader)): the connections are bounded,
//! and clients that stall must not keep them all.
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
use std::io::Write;
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, poll};
use serde_json::Value;

use crate::pty::ColorEnvFlags;
pub use crate::rpc::{RpcError, code};
use crate::session::error::SessionError;
use crate::session::host::{ConnectionLimits, PANIC_HOOK_ENV};
use crate::session::instance::{DEFAULT_RECORD_LIMIT, Session, SessionSpec, check_size};

mod catch_panic;
mod connection;
mod methods;
mod params;
mod results;
mod shared;
mod socket;
#[cfg(test)]
mod tests;

#[cfg(feature = "mcp")]
pub(crate) use catch_panic::catch_panic;
pub use results::{
    EmptyResult, Position, ScreenResult, Size, StatusResult, WaitReply, WriteResult,
};

use connection::serve_connection;
use results::response_line;
use shared::Shared;
use socket::{Listener, Stream, bind_unix};

/// `pty/wait`'s timeout when none is given, in milliseconds.
pub const DEFAULT_WAIT_TIMEOUT_MS: u64 = 10_000;
/// The longest `pty/wait` timeout accepted, in milliseconds (24 h).
pub const MAX_WAIT_TIMEOUT_MS: u64 = 24 * 3600 * 1000;
/// Connections served at once; more are answered with -32000 and closed.
pub const MAX_CONNECTIONS: usize = 256;
/// Shortens the request deadline, in milliseconds: the tests' way to see it pass without
/// waiting a minute.
const REQUEST_DEADLINE_ENV: &str = "SHOTTY_SERVE_REQUEST_MS";
/// Scrollback kept by the emulator (the protocol only ever shows the screen).
const SCROLLBACK: usize = 1000;

/// How long a connection has to send a whole request line — its first from its opening, each
/// later one from its first byte: the session host's rule, with the host's deadline (60 s).
fn request_deadline() -> Duration {
    std::env::var(REQUEST_DEADLINE_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&ms| ms > 0)
        .map_or(
            ConnectionLimits::default().request_deadline,
            Duration::from_millis,
        )
}

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
            base_env: None,
            env: Vec::new(),
            color_env: ColorEnvFlags::default(),
            scrollback: SCROLLBACK,
            timeout: None,
            record_limit: DEFAULT_RECORD_LIMIT,
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
                request_deadline: request_deadline(),
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
