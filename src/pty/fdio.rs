//! The PTY's I/O without threads of its own: the master is non-blocking, input is queued and
//! written whenever the terminal takes it, and the child's exit is a process descriptor
//! (`pidfd`) that polls readable. Whoever consumes the events ([`Events`]) drives all three
//! with one `poll`, so a session costs one thread — its consumer's — however many there are.

#![allow(unsafe_code)]

use std::collections::VecDeque;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use portable_pty::MasterPty;
use rustix::event::{EventfdFlags, PollFd, PollFlags, Timespec, eventfd, poll};
use rustix::io::Errno;
use rustix::process::{Pid, PidfdFlags, WaitId, WaitIdOptions, pidfd_open, waitid};

use super::reactor::{self, Output, Source};
use super::{ExitStatus, PtyError, PtyEvent};

/// Input queued for the program at most, in bytes: the bound on what a program that does not
/// read can hold of a session's memory. [`PtyInput::write`] waits for room beyond it,
/// [`PtyInput::write_within`] for a while; terminal replies beyond it are dropped.
pub const INPUT_QUEUE_BYTES: usize = 1 << 20;
/// How often a writer waiting for room looks again, at most.
const ROOM_POLL: Duration = Duration::from_millis(50);

/// What the process and its input handles share.
pub(super) struct Shared {
    /// Owns the master descriptor `master_fd` names; it lives as long as `Shared`.
    master: Mutex<Box<dyn MasterPty + Send>>,
    master_fd: RawFd,
    /// Readable once the child has exited.
    pidfd: OwnedFd,
    /// Written to when input is queued, so a consumer asleep in `poll` adds the master's
    /// writability to what it waits for.
    wake: OwnedFd,
    input: Mutex<Input>,
    /// The child's status once reaped (by whichever caller got there first).
    exit: Mutex<Option<ExitStatus>>,
    /// Output the reactor has read and the consumer not yet taken.
    output: Mutex<Output>,
    /// The master's registration with the reactor.
    token: AtomicU64,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Before `master` closes the descriptor.
        reactor::deregister(self, self.token.load(Ordering::Relaxed));
    }
}

#[derive(Default)]
struct Input {
    queue: VecDeque<u8>,
    /// The terminal is gone: nothing can be written any more.
    closed: bool,
}

impl Source for Shared {
    /// The master's descriptor.
    fn master_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: `master_fd` is the descriptor that `self.master` owns. `self.master` is
        // never replaced and is dropped only with `self`, so the descriptor stays open for as
        // long as this borrow of `self` lasts.
        unsafe { BorrowedFd::borrow_raw(self.master_fd) }
    }

    /// The output queue.
    fn output(&self) -> MutexGuard<'_, Output> {
        self.output.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wake_consumer(&self) {
        let _ = rustix::io::write(&self.wake, &1u64.to_ne_bytes());
    }
}

impl Shared {
    /// Makes the master non-blocking and opens the child's process descriptor.
    pub fn new(master: Box<dyn MasterPty + Send>, pid: Pid) -> Result<Shared, PtyError> {
        let master_fd = master
            .as_raw_fd()
            .ok_or_else(|| super::pty_error("open", "the master has no descriptor"))?;
        let pidfd =
            pidfd_open(pid, PidfdFlags::empty()).map_err(|e| super::pty_error("pidfd", e))?;
        let wake = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)
            .map_err(|e| super::pty_error("eventfd", e))?;
        let shared = Shared {
            master: Mutex::new(master),
            master_fd,
            pidfd,
            wake,
            input: Mutex::new(Input::default()),
            exit: Mutex::new(None),
            output: Mutex::new(Output::default()),
            token: AtomicU64::new(0),
        };
        let flags = rustix::fs::fcntl_getfl(shared.master_fd())
            .map_err(|e| super::pty_error("fcntl", e))?;
        rustix::fs::fcntl_setfl(shared.master_fd(), flags | rustix::fs::OFlags::NONBLOCK)
            .map_err(|e| super::pty_error("fcntl", e))?;
        Ok(shared)
    }

    /// Has the reactor read the master from now on.
    pub fn start_reading(self: &std::sync::Arc<Self>) -> Result<(), PtyError> {
        let token = reactor::register(self)?;
        self.token.store(token, Ordering::Relaxed);
        Ok(())
    }

    /// The master, for resizing and asking for the foreground process group.
    pub fn master(&self) -> MutexGuard<'_, Box<dyn MasterPty + Send>> {
        self.master.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn input(&self) -> MutexGuard<'_, Input> {
        self.input.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn exit(&self) -> MutexGuard<'_, Option<ExitStatus>> {
        self.exit.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes queued input as far as the terminal takes it now.
    fn flush_input(&self, input: &mut Input) {
        while !input.queue.is_empty() {
            let (front, _) = input.queue.as_slices();
            match rustix::io::write(self.master_fd(), front) {
                Ok(n) => {
                    input.queue.drain(..n);
                }
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => break,
                Err(_) => {
                    input.closed = true;
                    input.queue.clear();
                }
            }
        }
    }

    /// Queues `bytes` and writes what the terminal takes at once. While the queue is full,
    /// waits for room up to `wait` (`None`: as long as it takes), then leaves the bytes out
    /// (`Ok(false)`).
    fn queue_input(&self, bytes: &[u8], wait: Option<Duration>) -> Result<bool, PtyError> {
        if bytes.is_empty() {
            return Ok(true);
        }
        let Some(mut input) = self.input_with_room(bytes.len(), wait)? else {
            return Ok(false);
        };
        input.queue.extend(bytes);
        self.flush_input(&mut input);
        let pending = !input.queue.is_empty();
        drop(input);
        if pending {
            self.wake_consumer();
        }
        Ok(true)
    }

    /// The input queue once it has room for `len` more bytes (an empty queue takes one write
    /// of any size whole), writing to the terminal what it takes meanwhile, consumer or not;
    /// waits up to `wait` (`None`: as long as it takes). `Ok(None)` when no room came.
    fn input_with_room(
        &self,
        len: usize,
        wait: Option<Duration>,
    ) -> Result<Option<MutexGuard<'_, Input>>, PtyError> {
        let deadline = wait.map(|w| Instant::now() + w);
        let mut input = self.input();
        loop {
            if input.closed {
                return Err(PtyError::Closed);
            }
            // Whole or not at all: a compound input must not be split by another writer's.
            if input.queue.is_empty() || input.queue.len() + len <= INPUT_QUEUE_BYTES {
                return Ok(Some(input));
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                return Ok(None);
            }
            drop(input);
            let master = self.master_fd();
            let mut fds = [PollFd::new(&master, PollFlags::OUT)];
            let step = left.map_or(ROOM_POLL, |l| l.min(ROOM_POLL));
            let _ = poll(&mut fds, Some(&timespec(step)));
            input = self.input();
            self.flush_input(&mut input);
        }
    }

    fn drain_wake(&self) {
        let mut buf = [0u8; 8];
        let _ = rustix::io::read(&self.wake, &mut buf);
    }

    /// How many bytes of output the program has written so far, read or not: what the
    /// reactor has read plus what waits in the master. Polling the master first completes the
    /// PTY's hand-over of earlier writes (see
    /// [`PtyProcess::output_pending`](super::PtyProcess::output_pending)), and the queue's
    /// lock keeps the reactor from reading in between. Once the reactor alone has read more
    /// than `known`, or the output has ended, the master is not asked: the count read so far
    /// is returned.
    pub fn output_written_so_far(&self, known: u64) -> u64 {
        let output = self.output();
        if output.read_total > known || output.eof {
            return output.read_total;
        }
        let master = self.master_fd();
        let mut fds = [PollFd::new(&master, PollFlags::IN)];
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let _ = poll(&mut fds, Some(&now));
        output.read_total + rustix::io::ioctl_fionread(master).unwrap_or(0)
    }

    /// Reaps the child if it has exited (without waiting). Another caller may have reaped it
    /// already; its status is kept.
    pub fn try_reap(&self) -> Option<ExitStatus> {
        let mut exit = self.exit();
        if exit.is_none() {
            let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG;
            match waitid(WaitId::PidFd(self.pidfd.as_fd()), options) {
                Ok(Some(status)) => {
                    *exit = Some(ExitStatus {
                        code: status.exit_status(),
                        signal: status.terminating_signal(),
                    })
                }
                Ok(None) | Err(Errno::INTR) => {}
                // Reaped by someone else (SIGCHLD ignored, a `wait(-1)` elsewhere).
                Err(_) => *exit = Some(ExitStatus::unknown()),
            }
        }
        *exit
    }

    /// The child's status, waiting until it exits or `deadline` passes (`None`: forever).
    pub fn wait_exit(&self, deadline: Option<Instant>) -> Option<ExitStatus> {
        loop {
            if let Some(status) = self.try_reap() {
                return Some(status);
            }
            let timeout = match deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    Some(timespec(left))
                }
                None => None,
            };
            let mut fds = [PollFd::new(&self.pidfd, PollFlags::IN)];
            match poll(&mut fds, timeout.as_ref()) {
                Ok(_) | Err(Errno::INTR) => {}
                Err(_) => return self.try_reap().or(Some(ExitStatus::unknown())),
            }
        }
    }
}

/// Waits until one of the children exits or `timeout` passes.
pub(super) fn wait_any_exit(children: &[&Shared], timeout: Duration) {
    if children.is_empty() {
        std::thread::sleep(timeout);
        return;
    }
    let mut fds: Vec<PollFd<'_>> = children
        .iter()
        .map(|c| PollFd::new(&c.pidfd, PollFlags::IN))
        .collect();
    let _ = poll(&mut fds, Some(&timespec(timeout)));
}

/// `d` as a poll timeout; one too long for a `Timespec` is as good as for ever.
pub fn timespec(d: Duration) -> Timespec {
    Timespec::try_from(d).unwrap_or(Timespec {
        tv_sec: i64::MAX,
        tv_nsec: 0,
    })
}

/// A cloneable handle for writing to the program's terminal from any thread. Writes keep
/// their order; what the terminal does not take at once is queued and written by the events'
/// consumer.
#[derive(Clone)]
pub struct PtyInput {
    pub(super) shared: std::sync::Arc<Shared>,
}

impl std::fmt::Debug for PtyInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtyInput")
            .field("queued", &self.shared.input().queue.len())
            .finish()
    }
}

impl PtyInput {
    /// Writes `bytes`, waiting while the queue is full (the program is not reading). Fails
    /// once the terminal is gone.
    pub fn write(&self, bytes: &[u8]) -> Result<(), PtyError> {
        self.shared.queue_input(bytes, None).map(drop)
    }

    /// Writes `bytes`, waiting at most `limit` for room while the queue is full; `Ok(false)`
    /// means none came and nothing was written.
    pub fn write_within(&self, bytes: &[u8], limit: Duration) -> Result<bool, PtyError> {
        self.shared.queue_input(bytes, Some(limit))
    }

    /// Whether the queue has room for `len` more bytes, waiting up to `limit` for it. Fails
    /// once the terminal is gone.
    pub fn has_room(&self, len: usize, limit: Duration) -> Result<bool, PtyError> {
        self.shared
            .input_with_room(len, Some(limit))
            .map(|input| input.is_some())
    }

    /// Bytes queued that the program has not read yet.
    pub fn queued(&self) -> usize {
        self.shared.input().queue.len()
    }

    /// Writes `bytes` unless the queue is full; `Ok(false)` means they were dropped.
    pub fn try_write(&self, bytes: Vec<u8>) -> Result<bool, PtyError> {
        self.shared.queue_input(&bytes, Some(Duration::ZERO))
    }
}

/// What [`Events::recv_or_readable`] woke up for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wake {
    /// Something happened on the PTY.
    Event(PtyEvent),
    /// These descriptors of the watched ones (their indices) are readable or hung up.
    Readable(Vec<usize>),
}

/// The consumer's side of the event stream.
#[derive(Default)]
pub(super) struct EventState {
    pending: VecDeque<PtyEvent>,
    eof: bool,
    /// The child has been reaped (its exit may not be reported yet).
    exited: bool,
    /// The exit, held back until the output the child wrote before it has been reported:
    /// its status and how many bytes of output that is in all.
    exit: Option<(ExitStatus, u64)>,
    /// Bytes of output moved into `pending` so far.
    taken: u64,
}

/// The PTY's events, for their one consumer at a time (the guard of
/// [`PtyProcess::events`](super::PtyProcess::events)): reading them is what moves output,
/// queued input and the child's exit along.
pub struct Events<'a> {
    pub(super) shared: &'a Shared,
    pub(super) state: MutexGuard<'a, EventState>,
}

impl Events<'_> {
    /// The next event, waiting as long as it takes; `Err` once both end-of-output and the
    /// exit have been delivered.
    pub fn recv(&mut self) -> Result<PtyEvent, RecvTimeoutError> {
        self.next(None)
    }

    /// The next event, waiting at most `timeout`.
    pub fn recv_timeout(&mut self, timeout: Duration) -> Result<PtyEvent, RecvTimeoutError> {
        self.next(Some(Instant::now() + timeout))
    }

    /// The next event if one is ready now.
    pub fn try_recv(&mut self) -> Result<PtyEvent, TryRecvError> {
        match self.next(Some(Instant::now())) {
            Ok(e) => Ok(e),
            Err(RecvTimeoutError::Timeout) => Err(TryRecvError::Empty),
            Err(RecvTimeoutError::Disconnected) => Err(TryRecvError::Disconnected),
        }
    }

    fn next(&mut self, deadline: Option<Instant>) -> Result<PtyEvent, RecvTimeoutError> {
        match self.next_or_readable(deadline, &[])? {
            Wake::Event(event) => Ok(event),
            // Nothing is watched besides the PTY, so nothing else can be readable.
            Wake::Readable(_) => Err(RecvTimeoutError::Timeout),
        }
    }

    /// The next event, or the indices of the descriptors of `watch` that are readable (or
    /// hung up) — whichever comes first — waiting at most `timeout` (`None`: as long as it
    /// takes). For a consumer that also waits for other things (a user's keyboard, a signal
    /// pipe) in the same `poll`. Output that keeps coming never starves `watch`: it is
    /// looked at whenever output is taken.
    pub fn recv_or_readable(
        &mut self,
        watch: &[BorrowedFd<'_>],
        timeout: Option<Duration>,
    ) -> Result<Wake, RecvTimeoutError> {
        self.next_or_readable(timeout.map(|t| Instant::now() + t), watch)
    }

    fn next_or_readable(
        &mut self,
        deadline: Option<Instant>,
        watch: &[BorrowedFd<'_>],
    ) -> Result<Wake, RecvTimeoutError> {
        loop {
            if let Some(event) = self.state.pending.pop_front() {
                return Ok(Wake::Event(event));
            }
            if self.state.eof && self.state.exited && self.state.exit.is_none() {
                return Err(RecvTimeoutError::Disconnected);
            }
            let timeout = deadline.map(|d| timespec(d.saturating_duration_since(Instant::now())));
            let readable = self.poll_once(timeout, watch)?;
            if !readable.is_empty() {
                return Ok(Wake::Readable(readable));
            }
            if self.state.pending.is_empty() && deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(RecvTimeoutError::Timeout);
            }
        }
    }

    /// Takes the output the reactor has read; then one `poll` over the wake-up (new output),
    /// the child's exit, with input queued the master's room, and `watch` — without waiting
    /// when there was output to take. Returns the indices of `watch` that are ready.
    fn poll_once(
        &mut self,
        timeout: Option<Timespec>,
        watch: &[BorrowedFd<'_>],
    ) -> Result<Vec<usize>, RecvTimeoutError> {
        let shared = self.shared;
        shared.drain_wake();
        let mut timeout = timeout;
        if self.take_output() {
            self.release_exit();
            if watch.is_empty() {
                return Ok(Vec::new());
            }
            timeout = Some(Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            });
        }
        let wants_out = !shared.input().queue.is_empty();
        let master = shared.master_fd();
        let mut fds: Vec<PollFd<'_>> = watch
            .iter()
            .map(|fd| PollFd::new(fd, PollFlags::IN))
            .collect();
        fds.push(PollFd::new(&shared.wake, PollFlags::IN));
        let master_at = wants_out.then(|| {
            fds.push(PollFd::new(&master, PollFlags::OUT));
            fds.len() - 1
        });
        // A process descriptor past its end reports HUP whatever is asked, so it is left out.
        let exit_at = (!self.state.exited).then(|| {
            fds.push(PollFd::new(&shared.pidfd, PollFlags::IN));
            fds.len() - 1
        });
        match poll(&mut fds, timeout.as_ref()) {
            Ok(_) | Err(Errno::INTR) => {}
            Err(_) => return Err(RecvTimeoutError::Disconnected),
        }
        let readable: Vec<usize> = (0..watch.len())
            .filter(|&i| !fds[i].revents().is_empty())
            .collect();
        let ready = |at: Option<usize>| at.map_or(PollFlags::empty(), |i| fds[i].revents());
        let (master_ready, exit_ready) = (ready(master_at), ready(exit_at));
        drop(fds);
        if wants_out && !master_ready.is_empty() {
            let mut input = shared.input();
            shared.flush_input(&mut input);
        }
        self.take_output();
        if !exit_ready.is_empty()
            && let Some(status) = shared.try_reap()
        {
            self.state.exited = true;
            self.state.exit = Some((status, shared.output_written_so_far(u64::MAX)));
        }
        self.release_exit();
        Ok(readable)
    }

    /// Reports the held-back exit once the output written before it has been reported (or
    /// the output has ended), so a consumer sees the child's last words before its exit.
    fn release_exit(&mut self) {
        if let Some((status, written)) = self.state.exit
            && (self.state.taken >= written || self.state.eof)
        {
            self.state.exit = None;
            self.state.pending.push_back(PtyEvent::Exited(status));
        }
    }

    /// Moves the reactor's output into pending events (and end-of-output once it is all
    /// taken); whether there was any.
    fn take_output(&mut self) -> bool {
        if self.state.eof {
            return false;
        }
        let shared = self.shared;
        let mut output = shared.output();
        let mut took = false;
        while let Some(chunk) = output.chunks.pop_front() {
            output.bytes -= chunk.len();
            self.state.taken += chunk.len() as u64;
            self.state.pending.push_back(PtyEvent::Output(chunk));
            took = true;
        }
        if output.eof {
            self.state.eof = true;
            self.state.pending.push_back(PtyEvent::Eof);
            took = true;
            drop(output);
            let mut input = shared.input();
            input.closed = true;
            input.queue.clear();
        } else {
            reactor::resume_if_drained(shared, shared.token.load(Ordering::Relaxed), &mut output);
        }
        took
    }
}
