//! Noticing that a client hung up while its request is still running — a long `wait` — so the
//! request can be abandoned. Shared by the session host and the JSON-RPC endpoint.
//!
//! The watch polls the connection without reading from it, so requests the client pipelines
//! meanwhile stay in the socket for the connection's own reader. A hang-up is the peer closing
//! the connection (or shutting it down both ways), or the connection being shut down on our
//! side: `POLLHUP`/`POLLERR`. A peer that only shut down its sending side has not hung up — it
//! is still waiting for its replies. (Over TCP a peer's close looks the same as that
//! half-close until something is written, so there a vanished client's request simply runs to
//! its own timeout.)

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::thread::JoinHandle;

use rustix::event::{PollFd, PollFlags, poll};

/// Watches one connection until dropped; see the module documentation.
pub struct HangupWatch {
    /// Dropping our end wakes the watcher thread.
    wake: Option<UnixStream>,
    thread: Option<JoinHandle<()>>,
}

impl HangupWatch {
    /// Calls `on_hangup` once, on a watcher thread, if the peer of `conn` (a clone of the
    /// connection's socket) hangs up before the watch is dropped. Dropping the watch stops the
    /// thread and waits for it, so `on_hangup` never runs after that.
    pub fn start(
        conn: impl Into<OwnedFd>,
        on_hangup: impl FnOnce() + Send + 'static,
    ) -> io::Result<HangupWatch> {
        let conn: OwnedFd = conn.into();
        let (wake, woken) = UnixStream::pair()?;
        let thread = std::thread::Builder::new()
            .name("shotty-hangup".into())
            .spawn(move || {
                if watch(&conn, &woken) {
                    on_hangup();
                }
            })?;
        Ok(HangupWatch {
            wake: Some(wake),
            thread: Some(thread),
        })
    }
}

/// Blocks until the connection hangs up (`true`) or the wake socket closes (`false`).
fn watch(conn: &OwnedFd, woken: &UnixStream) -> bool {
    let gone = PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL;
    loop {
        // No events requested on the connection: hang-ups and errors are always reported.
        let mut fds = [
            PollFd::new(conn, PollFlags::empty()),
            PollFd::new(woken, PollFlags::IN),
        ];
        match poll(&mut fds, None) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return false,
        }
        if fds[0].revents().intersects(gone) {
            return true;
        }
        if !fds[1].revents().is_empty() {
            return false;
        }
    }
}

impl Drop for HangupWatch {
    fn drop(&mut self) {
        drop(self.wake.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    fn watched() -> (UnixStream, HangupWatch, Arc<AtomicBool>) {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let fired = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&fired);
        let watch = HangupWatch::start(ours, move || flag.store(true, Ordering::SeqCst)).unwrap();
        (theirs, watch, fired)
    }

    fn eventually(flag: &AtomicBool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if flag.load(Ordering::SeqCst) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    }

    #[test]
    fn a_closed_peer_is_a_hangup() {
        let (theirs, _watch, fired) = watched();
        drop(theirs);
        assert!(eventually(&fired));
    }

    #[test]
    fn data_and_half_close_are_not() {
        let (mut theirs, watch, fired) = watched();
        theirs.write_all(b"more requests\n").unwrap();
        theirs.shutdown(std::net::Shutdown::Write).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        assert!(!fired.load(Ordering::SeqCst));
        drop(watch);
        drop(theirs);
        assert!(!fired.load(Ordering::SeqCst));
    }
}
