//! What `/proc` says about processes: the stat line, children, the kernel function a process
//! sleeps in. Everything here is best effort: a process can vanish between two reads.

use std::path::Path;

/// A process, identified so that pid reuse cannot fool a comparison.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "camelCase")]
pub struct ProcessId {
    /// The pid.
    pub pid: i32,
    /// When it started, in clock ticks after boot (`/proc/<pid>/stat` field 22).
    pub start_time: u64,
}

/// What `/proc/<pid>/stat` says about a process.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProcStat {
    pub id: ProcessId,
    /// One-letter state: `R`, `S`, `D`, `Z` …
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
}

impl ProcStat {
    /// Gone for good: a zombie waits only to be reaped (where pid 1 reaps nothing it lingers).
    pub fn is_dead(&self) -> bool {
        matches!(self.state, 'Z' | 'X' | 'x')
    }
}

/// The fields of `/proc/<pid>/stat` after the command name (state, ppid, pgrp, session …):
/// the name may itself contain spaces and parentheses, so they start after the last ')'.
pub(crate) fn proc_stat_fields(pid: i32) -> Option<String> {
    stat_fields(Path::new(&format!("/proc/{pid}/stat")))
}

/// The fields of a `stat` file (a process's or a thread's) after the command name.
fn stat_fields(path: &Path) -> Option<String> {
    let stat = std::fs::read_to_string(path).ok()?;
    stat.rsplit_once(')').map(|(_, rest)| rest.to_owned())
}

/// Reads one process's stat line; `None` if it is gone or unreadable.
pub(crate) fn proc_stat(pid: i32) -> Option<ProcStat> {
    let fields = proc_stat_fields(pid)?;
    let fields: Vec<&str> = fields.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let number = |i: usize| fields.get(i).and_then(|f| f.parse::<i64>().ok());
    Some(ProcStat {
        id: ProcessId {
            pid,
            start_time: u64::try_from(number(19)?).ok()?,
        },
        state,
        ppid: i32::try_from(number(1)?).ok()?,
        pgrp: i32::try_from(number(2)?).ok()?,
        session: i32::try_from(number(3)?).ok()?,
    })
}

/// Every process `/proc` lists now; `None` without `/proc`.
pub(crate) fn all_processes() -> Option<Vec<ProcStat>> {
    let dir = std::fs::read_dir("/proc").ok()?;
    Some(
        dir.flatten()
            .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()))
            .filter_map(proc_stat)
            .collect(),
    )
}

/// The children of `pid`'s main thread (`/proc/<pid>/task/<pid>/children`); empty when
/// there are none or the kernel does not tell.
pub(crate) fn children(pid: i32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .map(|s| {
            s.split_whitespace()
                .filter_map(|c| c.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The kernel function `pid` sleeps in (empty, or "0", where that is hidden).
pub(crate) fn wchan(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/wchan")).unwrap_or_default()
}

/// Whether every thread of `pid` is asleep in a system call that waits with no time limit:
/// reading, `poll`/`select`/`epoll` without a timeout, waiting for a child or a signal, a
/// futex wait without a timeout. Then only an event from outside (input, a child ending, a
/// signal, data on a socket) wakes it. A thread waiting for a child waits so only if its
/// children do (each looked up now, so one forked a moment ago is not missed). False when it
/// cannot be told (the process is gone, or `/proc` does not show its system calls).
pub(crate) fn waits_without_timeout(pid: i32) -> bool {
    waits_without_timeout_below(pid, 0)
}

/// How deep [`waits_without_timeout`] follows processes waiting for their children.
const CHILD_DEPTH: u8 = 8;

fn waits_without_timeout_below(pid: i32, depth: u8) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    let mut threads = 0;
    for task in tasks.flatten() {
        let asleep = stat_fields(&task.path().join("stat"))
            .is_some_and(|fields| fields.split_whitespace().next() == Some("S"));
        let syscall = std::fs::read_to_string(task.path().join("syscall")).unwrap_or_default();
        let wait = match syscall_wait(&syscall) {
            Some(wait) if asleep => wait,
            _ => return false,
        };
        if wait == Wait::ForChildren {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            let mut children = children
                .split_whitespace()
                .map(str::parse::<i32>)
                .peekable();
            // No child to wait for: one has just ended, and the wait returns.
            if depth >= CHILD_DEPTH || children.peek().is_none() {
                return false;
            }
            let all = children.all(|child| {
                child.is_ok_and(|child| waits_without_timeout_below(child, depth + 1))
            });
            if !all {
                return false;
            }
        }
        threads += 1;
    }
    threads > 0
}

/// A system call that waits with no time limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    /// For input, an event or a signal.
    ForEvents,
    /// For a child to change state (`wait4`, `waitid`).
    ForChildren,
}

/// The wait with no time limit a `/proc/<pid>/task/<tid>/syscall` line (`NR arg1 … arg6 sp
/// pc`, the arguments in hex; `running`, or `-1 sp pc` outside a system call) shows, if any.
fn syscall_wait(line: &str) -> Option<Wait> {
    let mut fields = line.split_whitespace();
    let number = fields.next()?.parse::<libc::c_long>().ok()?;
    let args: Option<Vec<u64>> = fields
        .take(6)
        .map(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).ok())
        .collect();
    let args = args.filter(|a| a.len() == 6)?;
    // A timeout given as an `int` of milliseconds: negative waits for ever.
    let forever_ms = |arg: u64| (arg as u32 as i32) < 0;
    // A timeout given as a pointer: none (null) waits for ever.
    let no_limit = |arg: u64| arg == 0;
    let futex_cmd =
        args[1] as libc::c_int & !(libc::FUTEX_PRIVATE_FLAG | libc::FUTEX_CLOCK_REALTIME);
    let forever = match number {
        libc::SYS_wait4 | libc::SYS_waitid => return Some(Wait::ForChildren),
        libc::SYS_read
        | libc::SYS_readv
        | libc::SYS_recvfrom
        | libc::SYS_recvmsg
        | libc::SYS_accept4
        | libc::SYS_rt_sigsuspend => true,
        libc::SYS_ppoll | libc::SYS_rt_sigtimedwait => no_limit(args[2]),
        libc::SYS_pselect6 => no_limit(args[4]),
        libc::SYS_epoll_pwait => forever_ms(args[3]),
        libc::SYS_epoll_pwait2 => no_limit(args[3]),
        libc::SYS_futex => {
            matches!(futex_cmd, libc::FUTEX_WAIT | libc::FUTEX_WAIT_BITSET) && no_limit(args[3])
        }
        #[cfg(target_arch = "x86_64")]
        libc::SYS_poll => forever_ms(args[2]),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_select => no_limit(args[4]),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_epoll_wait => forever_ms(args[3]),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_pause | libc::SYS_accept => true,
        _ => false,
    };
    forever.then_some(Wait::ForEvents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_own_stat_is_read() {
        let me = proc_stat(std::process::id() as i32).expect("own stat");
        assert!(matches!(me.state, 'R' | 'S'));
        assert!(me.id.start_time > 0);
        assert_eq!(
            me.ppid,
            rustix::process::getppid().map_or(0, |p| p.as_raw_nonzero().get())
        );
    }

    /// Whether the line shows a wait with no time limit, of any kind.
    fn waits(line: &str) -> bool {
        syscall_wait(line).is_some()
    }

    /// The lines are as this machine's kernel wrote them for bash, fish, htop, vim and cat.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn waits_without_a_time_limit_are_told_from_timed_ones() {
        let line =
            |nr: i64, args: [&str; 6]| format!("{nr} {} 0x7ffc5b68de50 0x7f0b", args.join(" "));
        let pselect = |timeout| line(270, ["0x1", "0x5605", "0x5605", "0x5605", timeout, "0x0"]);
        assert!(waits(&pselect("0x0")), "bash, vim idle");
        assert!(!waits(&pselect("0x7ffc5b68de50")), "vim's updatetime");
        let poll = |timeout| line(7, ["0x55a2", "0x3", timeout, "0x0", "0x0", "0x0"]);
        assert!(waits(&poll("0xffffffff")), "fish");
        assert!(!waits(&poll("0x5dc")), "htop's 1.5 s refresh");
        let read = line(
            0,
            ["0x0", "0x7f4c", "0x20000", "0x7f4c", "0xffffffff", "0x0"],
        );
        assert!(waits(&read), "cat");
        let wait4 = line(61, ["0xffffffff", "0x7ffc", "0x0", "0x0", "0x3", "0x0"]);
        assert_eq!(syscall_wait(&wait4), Some(Wait::ForChildren), "sh");
        assert_eq!(syscall_wait(&read), Some(Wait::ForEvents));
        let sleep = line(230, ["0x0", "0x0", "0x7ffd", "0x7ffd", "0x0", "0x0"]);
        assert!(!waits(&sleep), "clock_nanosleep");
        let futex = |op, timeout| line(202, ["0x7f00", op, "0x2", timeout, "0x0", "0xffffffff"]);
        assert!(waits(&futex("0x80", "0x0")));
        assert!(!waits(&futex("0x80", "0x7f01")));
        assert!(!waits(&futex("0x81", "0x0")), "a wake");
        for other in [
            "running",
            "-1 0x7ffc 0x7f0b",
            "",
            "0 0x1",
            "x 0 0 0 0 0 0 0 0",
        ] {
            assert!(!waits(other), "{other:?}");
        }
    }

    /// A real child reading its standard input waits for ever; one sleeping does not.
    #[test]
    fn a_reading_child_waits_without_timeout_and_a_sleeping_one_does_not() {
        use std::process::{Command, Stdio};
        let mut reading = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("cat runs");
        let mut sleeping = Command::new("sleep").arg("30").spawn().expect("sleep runs");
        let settled = |pid: u32, want: bool, tries| {
            (0..tries).any(|_| {
                std::thread::sleep(std::time::Duration::from_millis(10));
                waits_without_timeout(pid as i32) == want
            })
        };
        assert!(settled(reading.id(), true, 200));
        assert!(!settled(sleeping.id(), true, 20));
        let _ = reading.kill();
        let _ = sleeping.kill();
        let _ = reading.wait();
        let _ = sleeping.wait();
        assert!(!waits_without_timeout(reading.id() as i32), "gone");
    }
}
