//! Running programs in a pseudo-terminal.
//!
//! [`PtyCommand`] describes what to run (program, arguments, directory, environment, size);
//! [`PtyProcess::spawn`] starts it in a fresh PTY and session and turns the PTY into a stream
//! of [`PtyEvent`]s. It knows nothing of terminals: `session::Session` feeds those events into
//! one, for every front end and for the one-shot `shotty capture` alike.
//!
//! No threads of its own (`fdio.rs`): the master is non-blocking and the child's exit is a
//! process descriptor, so whoever consumes the events drives output, queued input and the exit
//! with one `poll`. A slow consumer stalls the program (the kernel's buffer fills) instead of
//! growing memory; a program that never reads its input never blocks a writer beyond the
//! input queue.
//!
//! The child is a session leader (`spawn.rs`), so its pid is also its process
//! group and session id. Stopping ends its whole process tree (`tree.rs`): every process group
//! of that session (pipelines, background jobs, the job-control groups of interactive shells),
//! and every descendant that left it (`setsid`, double forks).

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{PtySize, native_pty_system};
use rustix::process::{Pid, Signal};

mod command;
mod error;
mod fdio;
mod procfs;
mod reactor;
mod spawn;
mod status;
mod tree;

pub use command::{COLOR_ENV, ColorEnvFlags, DELETED_ENVS, PtyCommand, SIZE_ENVS, find_program};
pub use error::PtyError;
use error::{os_message, pty_error};
pub use fdio::{Events, INPUT_QUEUE_BYTES, PtyInput, Wake, timespec};
pub use status::{ExitStatus, signal_name};

use procfs::ProcStat;
pub use procfs::ProcessId;
use reactor::Source;
use tree::{ProcessTable, ProcessTree};
pub use tree::{TREE_ENV, TreeId, end_leftover_trees, new_tree_tag};

/// Largest chunk the reader hands over at once.
pub const READ_CHUNK: usize = 64 * 1024;

/// How long [`PtyProcess::terminate_group`] waits for the reaper after SIGKILL. Only a process
/// stuck in uninterruptible sleep can take longer.
const KILL_REAP_TIMEOUT: Duration = Duration::from_secs(5);

/// Poll interval while waiting for processes other than the child (grandchildren give no exit
/// event to wait on).
const GROUP_POLL: Duration = Duration::from_millis(10);

/// Default grace between SIGTERM and SIGKILL (SPEC §4 `stop`).
pub const DEFAULT_GRACE: Duration = Duration::from_secs(3);

/// Something that happened on the PTY. `Exited` comes after all the output the program wrote
/// before it exited (`fdio.rs` holds it back until then); end-of-output is `Eof`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtyEvent {
    /// Bytes the program wrote (at most [`READ_CHUNK`]).
    Output(Vec<u8>),
    /// No process has the terminal open any more (EOF or EIO on the master).
    Eof,
    /// The child was reaped.
    Exited(ExitStatus),
}

/// What a process is doing, as [`PtyProcess::foreground_activity`] tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    /// On a CPU, runnable, or in uninterruptible I/O.
    Running,
    /// Asleep waiting for input or events: reading the terminal, in `poll`, `select` or
    /// `epoll_wait`.
    AwaitingInput,
    /// Asleep for another reason: a timer, a lock, output draining to the terminal …
    Sleeping,
}

/// Kernel functions (`/proc/<pid>/wchan`) a process sleeps in while it waits for input.
const INPUT_WAITS: [&str; 8] = [
    // Reading the terminal (n_tty_read sleeps in wait_woken).
    "wait_woken",
    "n_tty_read",
    "poll_schedule_timeout.constprop.0",
    "poll_schedule_timeout",
    "do_select",
    "do_sys_poll",
    "ep_poll",
    "do_epoll_wait",
];

/// A program running in its own PTY and session.
///
/// Dropping it SIGKILLs whatever is left of its process tree and reaps the child. Use
/// [`terminate`](Self::terminate) for a graceful stop.
pub struct PtyProcess {
    pid: Pid,
    program: String,
    shared: Arc<fdio::Shared>,
    size: Mutex<(u16, u16)>,
    /// The consumer's side of the events, one consumer at a time.
    events: Mutex<fdio::EventState>,
    /// Everything the child started, for stopping it all.
    tree: Mutex<ProcessTree>,
    /// What finds that tree again from another process.
    tree_id: TreeId,
}

impl fmt::Debug for PtyProcess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PtyProcess")
            .field("pid", &self.pid.as_raw_nonzero())
            .field("program", &self.program)
            .field("exit", &self.try_wait())
            .finish_non_exhaustive()
    }
}

impl PtyProcess {
    /// Starts `cmd` in a new PTY. A program that cannot be found or executed is reported
    /// before anything is spawned.
    pub fn spawn(cmd: &PtyCommand) -> Result<PtyProcess, PtyError> {
        if cmd.width == 0 || cmd.height == 0 {
            return Err(PtyError::InvalidSize {
                width: cmd.width,
                height: cmd.height,
            });
        }
        let cwd = cmd.resolved_cwd()?;
        let env = cmd.effective_env();
        let executable = cmd.resolve_program(&cwd, &env)?;
        let name = cmd.program.to_string_lossy().into_owned();

        let pair = native_pty_system()
            .openpty(pty_size(cmd.width, cmd.height))
            .map_err(|e| pty_error("open", e))?;
        let terminal = pair
            .master
            .tty_name()
            .ok_or_else(|| pty_error("open", "the terminal has no name"))?;
        // Inherited by everything the child starts, so a double-forked daemon is still found.
        let tag = cmd.tree_tag.clone().unwrap_or_else(new_tree_tag);
        let mut env = env;
        env.insert(TREE_ENV.into(), tag.clone().into());
        let env: Vec<(OsString, OsString)> = env.into_iter().collect();
        let argv: Vec<&OsStr> = std::iter::once(cmd.program.as_os_str())
            .chain(cmd.args.iter().map(OsString::as_os_str))
            .collect();
        let pid = spawn::Spawn {
            executable: &executable,
            argv: &argv,
            env: &env,
            cwd: &cwd,
            terminal: &terminal,
        }
        .run()
        .map_err(|e| PtyError::CannotRun {
            program: name.clone(),
            kind: e.kind(),
            reason: os_message(&e),
        })?;
        // Our copy of the slave must go, or the master never reports end-of-file.
        drop(pair.slave);

        let shared = match fdio::Shared::new(pair.master, pid) {
            Ok(shared) => shared,
            Err(e) => {
                // Nothing can watch it: end it rather than orphan it.
                let _ = rustix::process::kill_process(pid, Signal::KILL);
                let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
                return Err(e);
            }
        };
        let shared = Arc::new(shared);
        // While unreaped, the child's pid is its own: its start time is read race-free.
        let leader = procfs::proc_stat(pid.as_raw_nonzero().get()).map(|p| p.id);
        // From here on a failure drops the process, which kills the child.
        let process = PtyProcess {
            pid,
            program: name,
            shared: Arc::clone(&shared),
            size: Mutex::new((cmd.width, cmd.height)),
            events: Mutex::new(fdio::EventState::default()),
            tree: Mutex::new(ProcessTree::new(Some(pid.as_raw_nonzero().get()), &tag)),
            tree_id: TreeId { tag, leader },
        };
        shared.start_reading()?;
        Ok(process)
    }

    /// The child's pid — also its process group and session id.
    pub fn pid(&self) -> u32 {
        self.pid.as_raw_nonzero().get().unsigned_abs()
    }

    /// What finds the child's process tree from another process once this one is gone
    /// ([`end_leftover_trees`]).
    pub fn tree_id(&self) -> &TreeId {
        &self.tree_id
    }

    /// The program as the caller named it.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The event stream, locked for its one consumer. Consuming it is what reads the
    /// output, writes queued input and reaps the child.
    pub fn events(&self) -> Events<'_> {
        Events {
            shared: &self.shared,
            state: self.events.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// A handle for writing to the program from other threads.
    pub fn input(&self) -> PtyInput {
        PtyInput {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Writes bytes to the program (see [`PtyInput::write`]).
    pub fn write(&self, bytes: &[u8]) -> Result<(), PtyError> {
        self.input().write(bytes)
    }

    /// The current size as (columns, rows).
    pub fn size(&self) -> (u16, u16) {
        *self.size.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Resizes the terminal; the kernel sends SIGWINCH to the foreground process group.
    pub fn resize(&self, width: u16, height: u16) -> Result<(), PtyError> {
        if width == 0 || height == 0 {
            return Err(PtyError::InvalidSize { width, height });
        }
        let master = self.shared.master();
        master
            .resize(pty_size(width, height))
            .map_err(|e| pty_error("resize", e))?;
        *self.size.lock().unwrap_or_else(|e| e.into_inner()) = (width, height);
        Ok(())
    }

    /// The exit status if the child has exited (reaping it).
    pub fn try_wait(&self) -> Option<ExitStatus> {
        self.shared.try_reap()
    }

    /// Waits up to `timeout` for the child to exit.
    pub fn wait_timeout(&self, timeout: Duration) -> Option<ExitStatus> {
        self.shared.wait_exit(Some(Instant::now() + timeout))
    }

    /// Waits for the child to exit.
    pub fn wait(&self) -> ExitStatus {
        self.shared
            .wait_exit(None)
            .unwrap_or_else(ExitStatus::unknown)
    }

    /// What the terminal's foreground process (its group leader) is doing, from `/proc`;
    /// `None` when it cannot be told (no foreground group, no `/proc`). A process waiting for
    /// its children (a shell running a command) is as busy as they are: between its fork and
    /// the command's first output the shell is still the foreground process, asleep, while
    /// the command starts. A foreground process that has exited (a zombie, or gone while the
    /// shell has not taken the terminal back yet) counts as running: its last output may still
    /// be on its way and the shell is about to print its prompt.
    pub fn foreground_activity(&self) -> Option<Activity> {
        let leader = self.shared.master().process_group_leader()?;
        Some(process_activity(leader, 0))
    }

    /// Whether the program's whole process tree waits with no time limit: every thread of
    /// every live process asleep in a read, or in `poll`, `select` or `epoll` without a
    /// timeout, or waiting for a child or a signal. Then it writes nothing more until an event
    /// from outside comes: input, most often. A program with a timer (a clock, a spinner,
    /// `htop`'s refresh, `sleep`) does not wait so. False when it cannot be told.
    pub fn waits_without_timeout(&self) -> bool {
        let tree_waits = || {
            let Some(table) = ProcessTable::read() else {
                return false;
            };
            let members = self.tree_members(&mut self.tree(), Some(&table));
            let mut live = members.iter().filter(|m| !m.is_dead()).peekable();
            live.peek().is_some() && live.all(|m| procfs::waits_without_timeout(m.id.pid))
        };
        // Twice: a process forked while `/proc` was being listed the first time is listed the
        // second, after every member was seen waiting.
        tree_waits() && tree_waits()
    }

    /// How many bytes of output have been read from the terminal so far: with what the
    /// consumer has processed, it tells output that has arrived but is not on screen yet.
    pub fn output_read(&self) -> u64 {
        self.shared.output().read_total
    }

    /// Whether there is output the consumer has not processed yet, having processed
    /// `consumed` bytes ([`output_read`](Self::output_read) counts them): read from the
    /// terminal but not taken, or written by the program and still inside the kernel. A PTY
    /// hands a write over to the master through a work queue, which takes milliseconds on a
    /// busy machine; polling the master completes that hand-over, so everything written before
    /// this call is seen. A program found asleep before this call has therefore been seen
    /// whole.
    pub fn output_pending(&self, consumed: u64) -> bool {
        self.shared.output_written_so_far(consumed) > consumed
    }

    /// The live members of the child's process tree ([`tree`]); without `/proc`, stand-ins for
    /// the child's own group and the terminal's foreground group.
    fn tree_members(&self, tree: &mut ProcessTree, table: Option<&ProcessTable>) -> Vec<ProcStat> {
        if let Some(table) = table {
            return tree.members(table);
        }
        let mut groups = Vec::new();
        if rustix::process::test_kill_process_group(self.pid).is_ok() {
            groups.push(self.pid.as_raw_nonzero().get());
        }
        groups.extend(self.shared.master().process_group_leader());
        groups
            .into_iter()
            .map(|g| ProcStat {
                id: ProcessId {
                    pid: g,
                    start_time: 0,
                },
                state: 'S',
                ppid: 0,
                pgrp: g,
                session: self.pid.as_raw_nonzero().get(),
            })
            .collect()
    }

    fn tree(&self) -> MutexGuard<'_, ProcessTree> {
        self.tree.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `signal` to `members` of the child's tree ([`ProcessTree::signal`]).
    fn signal_members(&self, tree: &ProcessTree, members: &[ProcStat], signal: Signal) {
        // While the child is unreaped its pid cannot be reused, so its group is surely ours.
        tree.signal(members, signal, self.try_wait().is_none());
    }

    /// Sends `signal` to the whole process tree.
    pub fn signal_tree(&self, signal: Signal) {
        let mut tree = self.tree();
        let members = self.tree_members(&mut tree, ProcessTable::read().as_ref());
        self.signal_members(&tree, &members, signal);
    }

    /// Ends the whole process tree: SIGHUP, SIGTERM (and SIGCONT, so stopped jobs act on them)
    /// to every member; waits up to `grace` for all of it to exit; then SIGKILLs what is left
    /// and reaps the child. Reports what it ended. See [`terminate_all`].
    pub fn terminate(&self, grace: Duration) -> Result<Termination, PtyError> {
        terminate_all(&[self], grace)
            .pop()
            .unwrap_or(Err(PtyError::Closed))
    }
}

/// What [`PtyProcess::terminate`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Termination {
    /// The child's exit status.
    pub status: ExitStatus,
    /// Every process of the tree that was alive during the stop (pids, ascending).
    pub ended: Vec<u32>,
    /// Those that were still alive after the grace period and were killed (SIGKILL).
    pub killed: Vec<u32>,
}

impl Termination {
    fn new(status: ExitStatus, tree: &ProcessTree, killed: BTreeSet<ProcessId>) -> Termination {
        let pids = |ids: &mut dyn Iterator<Item = ProcessId>| -> Vec<u32> {
            let mut pids: Vec<u32> = ids.map(|p| p.pid.unsigned_abs()).collect();
            pids.sort_unstable();
            pids.dedup();
            pids
        };
        Termination {
            status,
            ended: pids(&mut tree.seen()),
            killed: pids(&mut killed.into_iter()),
        }
    }
}

/// Ends several process trees together (see [`PtyProcess::terminate`]): all are asked at once
/// and share one grace period, and every look at `/proc` serves them all, so ending a hundred
/// stubborn programs takes one grace period, not a hundred. Results are in `processes` order.
pub fn terminate_all(
    processes: &[&PtyProcess],
    grace: Duration,
) -> Vec<Result<Termination, PtyError>> {
    let deadline = Instant::now() + grace;
    // Locked in pid order, so that two callers with overlapping sets cannot deadlock.
    let mut order: Vec<usize> = (0..processes.len()).collect();
    order.sort_by_key(|&i| processes[i].pid());
    order.dedup_by_key(|i| processes[*i].pid());
    let mut trees: Vec<(usize, MutexGuard<'_, ProcessTree>)> =
        order.iter().map(|&i| (i, processes[i].tree())).collect();
    let scan = |trees: &mut Vec<(usize, MutexGuard<'_, ProcessTree>)>| -> Vec<Vec<ProcStat>> {
        let table = ProcessTable::read();
        trees
            .iter_mut()
            .map(|(i, tree)| processes[*i].tree_members(tree, table.as_ref()))
            .collect()
    };
    let mut members = scan(&mut trees);
    for ((i, tree), m) in trees.iter().zip(&members) {
        for signal in [Signal::HUP, Signal::TERM, Signal::CONT] {
            processes[*i].signal_members(tree, m, signal);
        }
    }
    // Children announce their exit (pidfds); other members have no exit event to wait on,
    // so /proc is looked at again at least every GROUP_POLL.
    while members.iter().any(|m| !m.is_empty()) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let running: Vec<&fdio::Shared> = trees
            .iter()
            .map(|(i, _)| &*processes[*i].shared)
            .filter(|shared| shared.try_reap().is_none())
            .collect();
        fdio::wait_any_exit(&running, left.min(GROUP_POLL));
        members = scan(&mut trees);
    }
    // SIGKILL is delivered asynchronously, and a process forking while we scan can be
    // missed; repeat until every tree is empty, so that "terminated" means gone.
    let mut killed = vec![BTreeSet::new(); trees.len()];
    let kill_deadline = Instant::now() + KILL_REAP_TIMEOUT;
    while members.iter().any(|m| !m.is_empty()) && Instant::now() < kill_deadline {
        for (((i, tree), m), k) in trees.iter().zip(&members).zip(&mut killed) {
            k.extend(m.iter().map(|p| p.id));
            processes[*i].signal_members(tree, m, Signal::KILL);
        }
        thread::sleep(Duration::from_millis(2));
        members = scan(&mut trees);
    }
    let mut results: Vec<Option<Result<Termination, PtyError>>> =
        (0..processes.len()).map(|_| None).collect();
    for ((i, tree), killed) in trees.iter().zip(killed) {
        let p = processes[*i];
        results[*i] = Some(
            p.shared
                .wait_exit(Some(kill_deadline))
                .ok_or(PtyError::Unkillable { pid: p.pid() })
                .map(|status| Termination::new(status, tree, killed)),
        );
    }
    // A process given twice gets the same result twice.
    (0..processes.len())
        .map(|i| {
            results[i].take().unwrap_or_else(|| {
                let same = order
                    .iter()
                    .find(|&&j| processes[j].pid() == processes[i].pid())
                    .copied();
                match same.and_then(|j| results[j].as_ref()) {
                    Some(Ok(t)) => Ok(t.clone()),
                    Some(Err(_)) => Err(PtyError::Unkillable {
                        pid: processes[i].pid(),
                    }),
                    None => Err(PtyError::Closed),
                }
            })
        })
        .collect()
}

impl Drop for PtyProcess {
    fn drop(&mut self) {
        self.signal_tree(Signal::KILL);
        // Nobody else will reap it.
        self.shared
            .wait_exit(Some(Instant::now() + KILL_REAP_TIMEOUT));
    }
}

/// How deep [`process_activity`] follows processes waiting for their children.
const ACTIVITY_DEPTH: u8 = 4;

/// What `pid` is doing; a process waiting for its children (`do_wait`) takes the busiest
/// state among them (running, then sleeping, then awaiting input); one that has exited is in
/// transition, so running.
fn process_activity(pid: i32, depth: u8) -> Activity {
    let Some(stat) = procfs::proc_stat(pid) else {
        return Activity::Running;
    };
    if stat.is_dead() || matches!(stat.state, 'R' | 'D') {
        return Activity::Running;
    }
    let wchan = procfs::wchan(pid);
    let wchan = wchan.trim();
    if INPUT_WAITS.contains(&wchan) {
        return Activity::AwaitingInput;
    }
    if wchan == "do_wait" && depth < ACTIVITY_DEPTH {
        return procfs::children(pid)
            .into_iter()
            .map(|child| process_activity(child, depth + 1))
            .min_by_key(|a| match a {
                Activity::Running => 0,
                Activity::Sleeping => 1,
                Activity::AwaitingInput => 2,
            })
            .unwrap_or(Activity::Sleeping);
    }
    Activity::Sleeping
}

fn pty_size(width: u16, height: u16) -> PtySize {
    PtySize {
        rows: height,
        cols: width,
        pixel_width: 0,
        pixel_height: 0,
    }
}
