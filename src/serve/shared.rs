//! The state the accept loop, the connections and the handles share: the session, the socket
//! file and the open connections, and how the session and the endpoint end.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::session::instance::{STOP_GRACE, Session, StopReason};

use super::MAX_CONNECTIONS;
use super::socket::{SocketFile, Stream};

/// State shared by the accept loop, the connections and [`ServerHandle`](super::ServerHandle)s.
pub(super) struct Shared {
    pub(super) session: Arc<Session>,
    pub(super) socket: Option<SocketFile>,
    /// Set once the session has been stopped and the socket file removed; the lock makes a
    /// second caller wait for the first.
    pub(super) ended: Mutex<bool>,
    /// Open connections (clones, for shutting them down); `None` once the endpoint closed.
    pub(super) conns: Mutex<Option<HashMap<u64, Stream>>>,
    pub(super) next_conn: AtomicU64,
    /// How long a connection has to send a whole request line (see
    /// [`DeadlineReader`](crate::session::hangup::DeadlineReader)).
    pub(super) request_deadline: Duration,
    /// Writing to it wakes the accept loop.
    pub(super) wake: UnixStream,
    /// The method [`PANIC_HOOK_ENV`](crate::session::host::PANIC_HOOK_ENV) names (a test-only
    /// hook).
    pub(super) panic_in: Option<String>,
}

impl Shared {
    fn conns(&self) -> MutexGuard<'_, Option<HashMap<u64, Stream>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops the program's whole process group and removes the socket file, so nobody can
    /// connect any more. Idempotent.
    pub(super) fn end_session(&self) {
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
    pub(super) fn close_endpoint(&self) {
        if let Some(conns) = self.conns().take() {
            for stream in conns.values() {
                stream.shutdown();
            }
        }
        let _ = (&self.wake).write(&[1]);
    }

    /// Registers a connection; `None` when the endpoint has closed or is full.
    pub(super) fn register(&self, stream: &Stream) -> Option<Result<u64, ()>> {
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

    pub(super) fn unregister(&self, id: u64) {
        if let Some(conns) = self.conns().as_mut() {
            conns.remove(&id);
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(socket) = &self.socket {
            socket.remove();
        }
    }
}
