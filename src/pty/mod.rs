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

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{PtySize, native_pty_system};
use rustix::process::{Pid, Signal};

mod fdio;
mod procfs;
mod reactor;
mod spawn;
mod tree;

pub use fdio::{Events, PtyInput};

use procfs::ProcStat;
pub use procfs::ProcessId;
pub use tree::TREE_ENV;
use tree::{ProcessTable, ProcessTree};

/// Variables set for the child by [`PtyCommand::color_env`] (SPEC §3), so that programs which
/// probe their environment emit full colour into the PTY.
pub const COLOR_ENV: [(&str, &str); 3] = [
    ("TERM", "xterm-256color"),
    ("COLORTERM", "truecolor"),
    ("FORCE_COLOR", "3"),
];

/// Variables removed by [`PtyCommand::color_env`]: many tools disable colour or animation when
/// they believe they run in CI.
pub const DELETED_ENVS: [&str; 2] = ["CI", "TF_BUILD"];

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

// ---------------------------------------------------------------------------------------------
// Errors

/// Why a PTY operation failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum PtyError {
    /// The program could not be started: not found, not executable, or exec failed.
    CannotRun {
        /// The program as the caller named it.
        program: String,
        /// `NotFound`, `PermissionDenied`, … — lets a CLI pick exit code 127 or 126.
        kind: io::ErrorKind,
        /// Human-readable reason, e.g. "No such file or directory".
        reason: String,
    },
    /// The working directory is unusable.
    Cwd {
        /// The directory asked for.
        path: PathBuf,
        /// Human-readable reason.
        reason: String,
    },
    /// Width or height was zero.
    InvalidSize {
        /// Columns asked for.
        width: u16,
        /// Rows asked for.
        height: u16,
    },
    /// Opening, configuring or resizing the PTY failed.
    Pty {
        /// What was being done.
        op: &'static str,
        /// Human-readable reason.
        reason: String,
    },
    /// The program's input is closed (its terminal is gone).
    Closed,
    /// The process survived SIGKILL for longer than is plausible.
    Unkillable {
        /// Its pid.
        pid: u32,
    },
}

impl fmt::Display for PtyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtyError::CannotRun {
                program, reason, ..
            } => write!(f, "cannot run `{program}`: {reason}"),
            PtyError::Cwd { path, reason } => {
                write!(
                    f,
                    "cannot use working directory `{}`: {reason}",
                    path.display()
                )
            }
            PtyError::InvalidSize { width, height } => {
                write!(
                    f,
                    "invalid terminal size {width}x{height}: both must be at least 1"
                )
            }
            PtyError::Pty { op, reason } => write!(f, "pty {op} failed: {reason}"),
            PtyError::Closed => f.write_str("the program's terminal is closed"),
            PtyError::Unkillable { pid } => {
                write!(f, "process {pid} did not exit after SIGKILL")
            }
        }
    }
}

impl std::error::Error for PtyError {}

/// An I/O error's message without the " (os error N)" suffix, for user-facing text.
fn os_message(err: &io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error ") {
        Some(i) if text.ends_with(')') => text[..i].to_string(),
        _ => text,
    }
}

/// An `anyhow` error from portable-pty (its `Display` chain) as plain text.
fn pty_error(op: &'static str, err: impl fmt::Display) -> PtyError {
    PtyError::Pty {
        op,
        reason: err.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// The command

/// One step of the environment recipe; applied in order on top of the inherited environment.
#[derive(Clone, Debug, PartialEq, Eq)]
enum EnvOp {
    Set(OsString, OsString),
    Remove(OsString),
    Clear,
}

/// The `--no-colorenv` / `--no-delete-envs` switches of SPEC §3 and §4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColorEnvFlags {
    /// Do not set [`COLOR_ENV`].
    pub no_colorenv: bool,
    /// Do not remove [`DELETED_ENVS`].
    pub no_delete_envs: bool,
}

/// What to run in a PTY. The program is executed directly — no shell is involved unless the
/// program is one.
#[derive(Clone, Debug)]
pub struct PtyCommand {
    program: OsString,
    args: Vec<OsString>,
    cwd: Option<PathBuf>,
    env: Vec<EnvOp>,
    width: u16,
    height: u16,
}

impl PtyCommand {
    /// Runs `program` (looked up on the child's `PATH` unless it contains a `/`) at 100×24,
    /// in the caller's working directory, with the caller's environment.
    pub fn new(program: impl Into<OsString>) -> PtyCommand {
        PtyCommand {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            width: 100,
            height: 24,
        }
    }

    /// Appends one argument.
    pub fn arg(&mut self, arg: impl Into<OsString>) -> &mut Self {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets the working directory (default: the caller's).
    pub fn cwd(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets a variable. Environment changes apply in call order, so a later call wins.
    pub fn env(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> &mut Self {
        self.env.push(EnvOp::Set(key.into(), value.into()));
        self
    }

    /// Removes a variable (inherited or set earlier).
    pub fn env_remove(&mut self, key: impl Into<OsString>) -> &mut Self {
        self.env.push(EnvOp::Remove(key.into()));
        self
    }

    /// Drops the inherited environment and everything set so far.
    pub fn env_clear(&mut self) -> &mut Self {
        self.env.push(EnvOp::Clear);
        self
    }

    /// Sets the terminal size in cells.
    pub fn size(&mut self, width: u16, height: u16) -> &mut Self {
        self.width = width;
        self.height = height;
        self
    }

    /// Applies the colour environment of SPEC §3: sets [`COLOR_ENV`] and removes
    /// [`DELETED_ENVS`]. Call it before applying the user's own `--env` values so that those
    /// win.
    pub fn color_env(&mut self) -> &mut Self {
        self.color_env_with(ColorEnvFlags::default())
    }

    /// [`color_env`](Self::color_env) with the `--no-colorenv` / `--no-delete-envs` switches.
    pub fn color_env_with(&mut self, flags: ColorEnvFlags) -> &mut Self {
        if !flags.no_colorenv {
            for (key, value) in COLOR_ENV {
                self.env(key, value);
            }
        }
        if !flags.no_delete_envs {
            for key in DELETED_ENVS {
                self.env_remove(key);
            }
        }
        self
    }

    /// The program as given.
    pub fn program(&self) -> &OsStr {
        &self.program
    }

    /// The arguments (without the program).
    pub fn get_args(&self) -> &[OsString] {
        &self.args
    }

    /// The working directory, if one was set.
    pub fn get_cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// Columns.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> u16 {
        self.height
    }

    /// The environment the child will get: the caller's, with the recorded changes applied,
    /// and `SHELL` from the password database if it is not set.
    pub fn effective_env(&self) -> BTreeMap<OsString, OsString> {
        let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
        for op in &self.env {
            match op {
                EnvOp::Set(k, v) => {
                    env.insert(k.clone(), v.clone());
                }
                EnvOp::Remove(k) => {
                    env.remove(k);
                }
                EnvOp::Clear => env.clear(),
            }
        }
        // Programs that start a shell (an editor's `:!`, tmux) look here.
        env.entry("SHELL".into()).or_insert_with(spawn::login_shell);
        env
    }

    /// The working directory the child will get, checked to exist.
    fn resolved_cwd(&self) -> Result<PathBuf, PtyError> {
        let dir = match &self.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().map_err(|e| PtyError::Cwd {
                path: PathBuf::from("."),
                reason: os_message(&e),
            })?,
        };
        match std::fs::metadata(&dir) {
            Ok(meta) if meta.is_dir() => Ok(dir),
            Ok(_) => Err(PtyError::Cwd {
                path: dir,
                reason: "Not a directory".into(),
            }),
            Err(e) => Err(PtyError::Cwd {
                path: dir,
                reason: os_message(&e),
            }),
        }
    }

    /// Finds the program the way `execvp` would, in the child's `PATH` and relative to its
    /// working directory, so that a missing program is reported cleanly before anything is
    /// spawned. Returns the executable's path.
    fn resolve_program(
        &self,
        cwd: &Path,
        env: &BTreeMap<OsString, OsString>,
    ) -> Result<PathBuf, PtyError> {
        let name = self.program.to_string_lossy().into_owned();
        let fail = |kind: io::ErrorKind, reason: &str| PtyError::CannotRun {
            program: name.clone(),
            kind,
            reason: reason.to_string(),
        };
        if self.program.is_empty() {
            return Err(fail(io::ErrorKind::NotFound, "No such file or directory"));
        }
        let path = Path::new(&self.program);
        if self.program.as_encoded_bytes().contains(&b'/') {
            let executable = cwd.join(path);
            check_executable(&executable).map_err(|(kind, reason)| fail(kind, reason))?;
            return Ok(executable);
        }
        let Some(search) = env.get(OsStr::new("PATH")) else {
            return Err(fail(io::ErrorKind::NotFound, "PATH is not set"));
        };
        let mut denied = None;
        for dir in std::env::split_paths(search) {
            let executable = cwd.join(dir).join(path);
            match check_executable(&executable) {
                Ok(()) => return Ok(executable),
                Err((io::ErrorKind::NotFound, _)) => {}
                Err(other) => denied = denied.or(Some(other)),
            }
        }
        let (kind, reason) =
            denied.unwrap_or((io::ErrorKind::NotFound, "No such file or directory"));
        Err(fail(kind, reason))
    }
}

/// Whether `path` is an executable regular file; the error mirrors `execve`'s.
fn check_executable(path: &Path) -> Result<(), (io::ErrorKind, &'static str)> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            Err((io::ErrorKind::PermissionDenied, "Permission denied"))
        }
        Err(_) => Err((io::ErrorKind::NotFound, "No such file or directory")),
        Ok(meta) if meta.is_dir() => Err((io::ErrorKind::PermissionDenied, "Is a directory")),
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => {
            Err((io::ErrorKind::PermissionDenied, "Permission denied"))
        }
        Ok(_) => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Exit status

/// How the child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitStatus {
    code: Option<i32>,
    signal: Option<i32>,
}

impl ExitStatus {
    /// The exit code, when the program exited by itself.
    pub fn code(&self) -> Option<i32> {
        self.code
    }

    /// The signal number, when a signal killed it.
    pub fn signal(&self) -> Option<i32> {
        self.signal
    }

    /// The signal's name (`"SIGTERM"`), when a signal killed it.
    pub fn signal_name(&self) -> Option<String> {
        self.signal.map(signal_name)
    }

    /// Exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// The status of a process that was reaped by someone else (e.g. `SIGCHLD` ignored).
    pub(crate) fn unknown() -> ExitStatus {
        ExitStatus {
            code: None,
            signal: None,
        }
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "exit code {code}"),
            (None, Some(sig)) => write!(f, "killed by {}", signal_name(sig)),
            (None, None) => f.write_str("unknown exit status"),
        }
    }
}

/// `"SIGTERM"` for 15, `"SIG42"` for signals without a portable name.
pub fn signal_name(sig: i32) -> String {
    const NAMES: [(Signal, &str); 28] = [
        (Signal::HUP, "SIGHUP"),
        (Signal::INT, "SIGINT"),
        (Signal::QUIT, "SIGQUIT"),
        (Signal::ILL, "SIGILL"),
        (Signal::TRAP, "SIGTRAP"),
        (Signal::ABORT, "SIGABRT"),
        (Signal::BUS, "SIGBUS"),
        (Signal::FPE, "SIGFPE"),
        (Signal::KILL, "SIGKILL"),
        (Signal::USR1, "SIGUSR1"),
        (Signal::SEGV, "SIGSEGV"),
        (Signal::USR2, "SIGUSR2"),
        (Signal::PIPE, "SIGPIPE"),
        (Signal::ALARM, "SIGALRM"),
        (Signal::TERM, "SIGTERM"),
        (Signal::CHILD, "SIGCHLD"),
        (Signal::CONT, "SIGCONT"),
        (Signal::STOP, "SIGSTOP"),
        (Signal::TSTP, "SIGTSTP"),
        (Signal::TTIN, "SIGTTIN"),
        (Signal::TTOU, "SIGTTOU"),
        (Signal::URG, "SIGURG"),
        (Signal::XCPU, "SIGXCPU"),
        (Signal::XFSZ, "SIGXFSZ"),
        (Signal::VTALARM, "SIGVTALRM"),
        (Signal::PROF, "SIGPROF"),
        (Signal::WINCH, "SIGWINCH"),
        (Signal::SYS, "SIGSYS"),
    ];
    NAMES
        .iter()
        .find(|(s, _)| s.as_raw() == sig)
        .map_or_else(|| format!("SIG{sig}"), |(_, name)| (*name).to_string())
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

// ---------------------------------------------------------------------------------------------
// The process

/// Something that happened on the PTY, in the order the threads observed it. `Exited` may
/// arrive before the last `Output`; end-of-output is `Eof`.
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
        let tag = tree::new_tag();
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
        // From here on a failure drops the process, which kills the child.
        let process = PtyProcess {
            pid,
            program: name,
            shared: Arc::clone(&shared),
            size: Mutex::new((cmd.width, cmd.height)),
            events: Mutex::new(fdio::EventState::default()),
            tree: Mutex::new(ProcessTree::new(pid.as_raw_nonzero().get(), &tag)),
        };
        shared.start_reading()?;
        Ok(process)
    }

    /// The child's pid — also its process group and session id.
    pub fn pid(&self) -> u32 {
        self.pid.as_raw_nonzero().get().unsigned_abs()
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

    /// Sends `signal` to every member and to every process group of the child's session that
    /// a member leads or belongs to (a group also catches a member forked since the scan).
    fn signal_members(&self, members: &[ProcStat], signal: Signal) {
        let sid = self.pid.as_raw_nonzero().get();
        let mut groups: Vec<i32> = members
            .iter()
            .filter(|p| p.session == sid)
            .map(|p| p.pgrp)
            .collect();
        // While the child is unreaped its pid cannot be reused, so its group is surely ours.
        if self.try_wait().is_none() {
            groups.push(sid);
        }
        groups.sort_unstable();
        groups.dedup();
        for group in groups.into_iter().filter_map(Pid::from_raw) {
            // ESRCH: the group died meanwhile, which is what we want anyway.
            let _ = rustix::process::kill_process_group(group, signal);
        }
        for member in members.iter().filter(|p| p.session != sid) {
            if let Some(pid) = Pid::from_raw(member.id.pid) {
                let _ = rustix::process::kill_process(pid, signal);
            }
        }
    }

    /// Sends `signal` to the whole process tree.
    pub fn signal_tree(&self, signal: Signal) {
        let members = {
            let mut tree = self.tree();
            self.tree_members(&mut tree, ProcessTable::read().as_ref())
        };
        self.signal_members(&members, signal);
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
    for ((i, _), m) in trees.iter().zip(&members) {
        for signal in [Signal::HUP, Signal::TERM, Signal::CONT] {
            processes[*i].signal_members(m, signal);
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
        for (((i, _), m), k) in trees.iter().zip(&members).zip(&mut killed) {
            k.extend(m.iter().map(|p| p.id));
            processes[*i].signal_members(m, Signal::KILL);
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
