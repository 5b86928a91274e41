//! Noticing that a client has gone while the server is busy with it or waiting for it, so
//! that what it holds is let go. Shared by the session host and the JSON-RPC endpoint.
//!
//! [`HangupWatch`]: a client that hangs up while its request is still running — a long `wait`
//! — so the request can be abandoned. The watch polls the connection without reading from it,
//! so requests the client pipelines meanwhile stay in the socket for the connection's own
//! reader. A hang-up is the peer closing the connection (or shutting it down both ways), or
//! the connection being shut down on our side: `POLLHUP`/`POLLERR`. A peer that only shut down
//! its sending side has not hung up — it is still waiting for its replies. Over TCP a peer's
//! close looks the same as that half-close (`POLLRDHUP`) until something is sent to it, so a
//! TCP peer seen half-closed is probed with a byte of urgent data (`probe`).
//!
//! [`DeadlineReader`]: a client that stops half-way through a request line, or connects and
//! never asks anything, is given up once the line is due; [`bound_writes`]: one that stops
//! reading its replies, once a reply has waited as long.

use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, poll};

use crate::pty::timespec;
use rustix::io::Errno;
use rustix::net::{AddressFamily, SendFlags};

/// How often a TCP peer seen half-closed is probed while its request runs: how long a client
/// that closed its connection can keep what its request holds.
const PROBE_INTERVAL: Duration = Duration::from_secs(1);

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
    let tcp = is_tcp(conn);
    // Set once a TCP peer is seen half-closed: from then on it is probed on a timer, since
    // `POLLRDHUP` stays set and would wake the poll at once every time.
    let mut next_probe: Option<Instant> = None;
    loop {
        // Hang-ups and errors are always reported, asked for or not.
        let asked = if tcp && next_probe.is_none() {
            PollFlags::RDHUP
        } else {
            PollFlags::empty()
        };
        let timeout = next_probe.map(|at| timespec(at.saturating_duration_since(Instant::now())));
        let mut fds = [PollFd::new(conn, asked), PollFd::new(woken, PollFlags::IN)];
        match poll(&mut fds, timeout.as_ref()) {
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(_) => return false,
        }
        if fds[0].revents().intersects(gone) {
            return true;
        }
        if !fds[1].revents().is_empty() {
            return false;
        }
        let probe_due = match next_probe {
            None => fds[0].revents().contains(PollFlags::RDHUP),
            Some(at) => Instant::now() >= at,
        };
        if probe_due {
            if !probe(conn) {
                return true;
            }
            next_probe = Some(Instant::now() + PROBE_INTERVAL);
        }
    }
}

fn is_tcp(conn: &OwnedFd) -> bool {
    rustix::net::sockopt::socket_domain(conn)
        .is_ok_and(|family| family == AddressFamily::INET || family == AddressFamily::INET6)
}

/// Asks a TCP peer that shut down its sending side whether its socket still exists, by sending
/// it one byte of urgent data: a peer that closed its socket answers with a reset, after which
/// the poll reports the hang-up; one that only half-closed acknowledges it, and its application
/// never reads the byte (urgent data is kept out of the stream unless the peer sets
/// `SO_OOBINLINE`; the byte is a space, which a JSON reader skips even then). `false` when the
/// send itself finds the connection gone. A peer whose receive window is full is there.
fn probe(conn: &OwnedFd) -> bool {
    let flags = SendFlags::OOB | SendFlags::DONTWAIT | SendFlags::NOSIGNAL;
    !matches!(
        rustix::net::send(conn, b" ", flags),
        Err(Errno::PIPE | Errno::CONNRESET | Errno::NOTCONN)
    )
}

impl Drop for HangupWatch {
    fn drop(&mut self) {
        drop(self.wake.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Bounds how long one write to the connection `socket` may block: a client that stops
/// reading its replies loses its connection after `deadline`, as one that stops sending its
/// request does ([`DeadlineReader`]), instead of holding a connection and its thread for ever.
pub fn bound_writes(socket: &impl AsFd, deadline: Duration) -> io::Result<()> {
    use rustix::net::sockopt::{Timeout, set_socket_timeout};
    set_socket_timeout(socket, Timeout::Send, Some(deadline)).map_err(Into::into)
}

/// A connection's reading side, which gives up once the request being read is due: a
/// deadline for the whole line, not for each read (a client sending a byte a minute would
/// otherwise hold the connection for ever). A new connection's first request is due from its
/// opening; later ones from their first byte, so a client between requests (`session attach`
/// waiting for keys, a script between steps) may stay as long as it likes. Past the deadline a
/// read fails with [`io::ErrorKind::TimedOut`] and the server closes the connection.
pub struct DeadlineReader<S> {
    stream: S,
    due: Option<Instant>,
    deadline: Duration,
}

impl<S: Read + AsFd> DeadlineReader<S> {
    /// A newly opened connection, whose first request is due `deadline` from now.
    pub fn new(stream: S, deadline: Duration) -> DeadlineReader<S> {
        DeadlineReader {
            stream,
            due: Some(Instant::now() + deadline),
            deadline,
        }
    }

    /// After a line was dealt with: the next request is due from its first byte, which may be
    /// here already (`started`: read with the last one and still buffered).
    pub fn answered(&mut self, started: bool) {
        self.due = started.then(|| Instant::now() + self.deadline);
    }
}

impl<S: Read + AsFd> Read for DeadlineReader<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(due) = self.due {
            readable_before(&self.stream, due)?;
        }
        let n = self.stream.read(buf)?;
        if n > 0 && self.due.is_none() {
            self.due = Some(Instant::now() + self.deadline);
        }
        Ok(n)
    }
}

/// Waits until `stream` has something to read, or its end, or an error — or fails with
/// [`io::ErrorKind::TimedOut`] once `due` passes.
fn readable_before(stream: &impl AsFd, due: Instant) -> io::Result<()> {
    loop {
        let left = due.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no whole request in time",
            ));
        }
        let mut fds = [PollFd::new(stream, PollFlags::IN)];
        match poll(&mut fds, Some(&timespec(left))) {
            Ok(0) | Err(Errno::INTR) => continue,
            Ok(_) => return Ok(()),
            Err(e) => return Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::{TcpListener, TcpStream};
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

    /// A TCP connection on loopback, watched on the accepting side.
    fn watched_tcp() -> (TcpStream, TcpStream, HangupWatch, Arc<AtomicBool>) {
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let theirs = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (ours, _) = listener.accept().unwrap();
        let fired = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&fired);
        let probe = ours.try_clone().unwrap();
        let watch = HangupWatch::start(probe, move || flag.store(true, Ordering::SeqCst)).unwrap();
        (ours, theirs, watch, fired)
    }

    /// Over TCP a close looks like a half-close until something is sent: the probes tell them
    /// apart, and never reach the half-closed peer's application.
    #[test]
    fn a_closed_tcp_peer_is_a_hangup_and_a_half_closed_one_is_not() {
        let (_ours, mut closed, _closed_watch, closed_fired) = watched_tcp();
        closed.write_all(b"a request\n").unwrap();
        drop(closed);
        let (mut ours, mut half, watch, half_fired) = watched_tcp();
        half.write_all(b"a request\n").unwrap();
        half.shutdown(std::net::Shutdown::Write).unwrap();
        assert!(eventually(&closed_fired));
        // Probed when seen half-closed and once more a second later.
        std::thread::sleep(PROBE_INTERVAL + Duration::from_millis(300));
        assert!(!half_fired.load(Ordering::SeqCst));
        drop(watch);
        // Read before closing: a socket closed with unread data resets the connection.
        let mut request = String::new();
        BufReader::new(&ours).read_line(&mut request).unwrap();
        ours.write_all(b"the reply\n").unwrap();
        drop(ours);
        half.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut got = String::new();
        half.read_to_string(&mut got).unwrap();
        assert_eq!(got, "the reply\n");
    }

    #[test]
    fn a_request_line_must_come_whole_before_its_deadline() {
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let mut reader = BufReader::new(DeadlineReader::new(ours, Duration::from_millis(200)));
        let mut line = String::new();
        theirs.write_all(b"{\"jsonrpc\":").unwrap();
        let started = Instant::now();
        let e = reader.read_line(&mut line).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(150));
    }

    #[test]
    fn between_requests_a_client_may_wait_as_long_as_it_likes() {
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let mut reader = BufReader::new(DeadlineReader::new(ours, Duration::from_millis(100)));
        let mut line = String::new();
        theirs.write_all(b"first\n").unwrap();
        reader.read_line(&mut line).unwrap();
        let started = !reader.buffer().is_empty();
        reader.get_mut().answered(started);
        std::thread::sleep(Duration::from_millis(250));
        theirs.write_all(b"second\n").unwrap();
        line.clear();
        reader.read_line(&mut line).unwrap();
        assert_eq!(line, "second\n");
    }
}
