//! One thread reading every PTY's output (`epoll`), so that reading overlaps with parsing: the
//! consumer of a flooding session parses one batch while the next is read, which a consumer
//! reading for itself cannot do, and an idle session still costs no thread of its own.
//!
//! Output goes into each PTY's bounded queue ([`Output`]); a full queue takes the PTY out of
//! the `epoll` set (the kernel then stalls the program), and the consumer puts it back once it
//! has taken enough.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use rustix::event::epoll;
use rustix::io::Errno;

use super::{PtyError, READ_CHUNK};

/// Output queued for a consumer at most, in bytes, before its PTY is no longer read.
const OUTPUT_QUEUE_BYTES: usize = 1 << 20;

/// A PTY's output between the reactor and its consumer.
#[derive(Default)]
pub(super) struct Output {
    pub chunks: VecDeque<Vec<u8>>,
    pub bytes: usize,
    /// Every byte read from the master so far.
    pub read_total: u64,
    /// No process has the terminal open any more (EOF or EIO on the master).
    pub eof: bool,
    /// Out of the `epoll` set because the queue is full.
    paused: bool,
}

/// What the reactor reads for: a PTY's master and the queue its consumer takes output from.
pub(super) trait Source: Send + Sync {
    /// The master's descriptor, open as long as the source lives.
    fn master_fd(&self) -> BorrowedFd<'_>;
    /// The output queue, locked.
    fn output(&self) -> MutexGuard<'_, Output>;
    /// Tells the consumer there is output (or its end) to take.
    fn wake_consumer(&self);
}

struct Reactor {
    epoll: OwnedFd,
    sources: Mutex<HashMap<u64, Weak<dyn Source>>>,
    next_token: AtomicU64,
}

static REACTOR: OnceLock<Result<Reactor, String>> = OnceLock::new();
static STARTED: std::sync::Once = std::sync::Once::new();

fn reactor() -> Result<&'static Reactor, PtyError> {
    let reactor = REACTOR
        .get_or_init(|| {
            Ok(Reactor {
                epoll: epoll::create(epoll::CreateFlags::CLOEXEC).map_err(|e| e.to_string())?,
                sources: Mutex::new(HashMap::new()),
                next_token: AtomicU64::new(1),
            })
        })
        .as_ref()
        .map_err(|e| super::pty_error("reactor", e))?;
    // Started once the reactor is in place, so the thread always finds it.
    STARTED.call_once(|| {
        let _ = std::thread::Builder::new()
            .name("shotty-pty-reactor".into())
            .spawn(move || reactor.run());
    });
    Ok(reactor)
}

/// Starts reading `shared`'s master; returns its token for [`deregister`].
pub(super) fn register<S: Source + 'static>(shared: &Arc<S>) -> Result<u64, PtyError> {
    let reactor = reactor()?;
    let token = reactor.next_token.fetch_add(1, Ordering::Relaxed);
    let source = Arc::downgrade(shared);
    reactor.sources().insert(token, source);
    reactor.watch(shared.as_ref(), token)?;
    Ok(token)
}

/// Stops reading a master (before its descriptor is closed).
pub(super) fn deregister(shared: &dyn Source, token: u64) {
    if let Ok(reactor) = reactor() {
        reactor.sources().remove(&token);
        let _ = epoll::delete(&reactor.epoll, shared.master_fd());
    }
}

/// Puts a paused master back into the `epoll` set once its consumer has taken enough of its
/// queue.
pub(super) fn resume_if_drained(shared: &dyn Source, token: u64, output: &mut Output) {
    if output.paused
        && output.bytes < OUTPUT_QUEUE_BYTES / 2
        && !output.eof
        && let Ok(reactor) = reactor()
    {
        output.paused = false;
        let _ = reactor.watch(shared, token);
    }
}

impl Reactor {
    fn sources(&self) -> MutexGuard<'_, HashMap<u64, Weak<dyn Source>>> {
        self.sources.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn watch(&self, shared: &dyn Source, token: u64) -> Result<(), PtyError> {
        epoll::add(
            &self.epoll,
            shared.master_fd(),
            epoll::EventData::new_u64(token),
            epoll::EventFlags::IN,
        )
        .map_err(|e| super::pty_error("epoll", e))
    }

    fn run(&self) {
        let mut events = Vec::with_capacity(64);
        let mut buf = vec![0u8; READ_CHUNK];
        loop {
            events.clear();
            match epoll::wait(
                &self.epoll,
                rustix::buffer::spare_capacity(&mut events),
                None,
            ) {
                Ok(_) | Err(Errno::INTR) => {}
                Err(_) => return,
            }
            for event in &events {
                let token = event.data.u64();
                let source = self.sources().get(&token).and_then(Weak::upgrade);
                if let Some(shared) = source {
                    self.read(shared.as_ref(), &mut buf);
                }
            }
        }
    }

    /// Reads what the master has into its queue, until it would block, the queue is full or
    /// the terminal has ended; then wakes the consumer.
    fn read(&self, shared: &dyn Source, buf: &mut [u8]) {
        let mut output = shared.output();
        if output.eof || output.paused {
            return;
        }
        loop {
            if output.bytes >= OUTPUT_QUEUE_BYTES {
                output.paused = true;
                let _ = epoll::delete(&self.epoll, shared.master_fd());
                break;
            }
            match rustix::io::read(shared.master_fd(), &mut *buf) {
                Ok(0) => output.eof = true,
                Ok(n) => {
                    output.bytes += n;
                    output.read_total += n as u64;
                    // Appended to the last chunk while it has room: fewer, larger events.
                    match output.chunks.back_mut() {
                        Some(last) if last.len() + n <= READ_CHUNK => {
                            last.extend_from_slice(&buf[..n])
                        }
                        _ => output.chunks.push_back(buf[..n].to_vec()),
                    }
                    continue;
                }
                Err(Errno::INTR) => continue,
                Err(Errno::AGAIN) => {}
                // EIO once every slave is closed.
                Err(_) => output.eof = true,
            }
            break;
        }
        if output.eof {
            let _ = epoll::delete(&self.epoll, shared.master_fd());
        }
        drop(output);
        shared.wake_consumer();
    }
}
