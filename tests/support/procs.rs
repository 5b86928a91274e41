//! Process checks for the tests that end programs: which processes are alive, identified by
//! pid *and* start time so that a reused pid can fool a check neither way.

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// A process as `/proc/<pid>/stat` describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proc {
    pub pid: u32,
    /// Clock ticks after boot.
    pub start_time: u64,
    pub state: String,
    pub ppid: u32,
    pub pgrp: u32,
    pub session: u32,
    pub comm: String,
}

impl Proc {
    pub fn is_live(&self) -> bool {
        !matches!(self.state.as_str(), "Z" | "X" | "x")
    }
}

/// One process, if it exists (zombies included).
pub fn proc(pid: u32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (head, rest) = stat.rsplit_once(')')?;
    let comm = head.split_once('(')?.1.to_owned();
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(Proc {
        pid,
        start_time: f.get(19)?.parse().ok()?,
        state: f.first()?.to_string(),
        ppid: f.get(1)?.parse().ok()?,
        pgrp: f.get(2)?.parse().ok()?,
        session: f.get(3)?.parse().ok()?,
        comm,
    })
}

/// Every process now.
pub fn all() -> Vec<Proc> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse().ok()))
        .filter_map(proc)
        .collect()
}

/// The boot-relative clock in ticks, comparable with [`Proc::start_time`]: the start time of
/// a process started now (in the kernel's own unit, whatever the tick rate).
pub fn ticks_now() -> u64 {
    let mut child = std::process::Command::new("sleep")
        .arg("10")
        .spawn()
        .expect("sleep runs");
    let start = proc(child.id()).expect("the new process").start_time;
    let _ = child.kill();
    let _ = child.wait();
    start
}

/// A process seen alive: the same pid with the same start time is the same process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub pid: u32,
    pub start_time: u64,
}

impl Seen {
    /// The process `pid` as it is now; panics if it is not alive.
    pub fn now(pid: u32) -> Seen {
        let p = proc(pid).unwrap_or_else(|| panic!("process {pid} is not there"));
        assert!(p.is_live(), "process {pid} is not alive: {p:?}");
        Seen {
            pid,
            start_time: p.start_time,
        }
    }

    /// Still this very process, and not a zombie.
    pub fn is_alive(&self) -> bool {
        proc(self.pid).is_some_and(|p| p.start_time == self.start_time && p.is_live())
    }
}

/// Live processes whose process group or session is `id` and that started no later than
/// `before` (ticks): a process started afterwards cannot be a survivor of what ended by then,
/// even if it reused the id.
pub fn survivors(id: u32, before: u64) -> Vec<Proc> {
    all()
        .into_iter()
        .filter(|p| p.is_live() && (p.pgrp == id || p.session == id) && p.start_time <= before)
        .collect()
}

/// Asserts that nothing of group or session `id` that existed at `before` is left. Killed
/// processes leave /proc asynchronously, so the scan is repeated for up to 5 s.
pub fn assert_gone(id: u32, before: u64) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !survivors(id, before).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(survivors(id, before), Vec::<Proc>::new());
}

/// Asserts that none of `seen` is alive, looking again for up to 5 s.
pub fn assert_all_gone(seen: &[Seen]) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while seen.iter().any(Seen::is_alive) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let alive: Vec<Proc> = seen
        .iter()
        .filter(|s| s.is_alive())
        .filter_map(|s| proc(s.pid))
        .collect();
    assert_eq!(alive, Vec::<Proc>::new(), "processes that survived");
}
