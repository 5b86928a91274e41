//! The process tree of a PTY's child, found from `/proc`.
//!
//! Ending "the program" means ending everything it started. The process groups of its session
//! are not enough: `setsid` moves a process into a session of its own, and a double fork
//! leaves a daemon whose parent chain no longer leads back to the child. So a process belongs
//! to the tree when any of these holds:
//! - it is in the child's session (pipelines, background jobs, job-control groups);
//! - its parent belongs to the tree (`setsid` children, detached helpers);
//! - it was already seen in the tree (its parent died and it was reparented);
//! - its environment carries the tree's tag [`TREE_ENV`], inherited by everything the child
//!   starts unless a program clears its environment (double-forked daemons).
//!
//! Processes are identified by pid *and* start time, so a pid reused by an unrelated process
//! is never mistaken for a member.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustix::process::{Pid, Signal};

use super::procfs::{ProcStat, ProcessId, all_processes};

/// The variable that tags every process of a PTY's tree: set for the child, inherited by its
/// descendants. Its value is unique per spawn.
pub const TREE_ENV: &str = "SHOTTY_TREE";

/// The value of [`TREE_ENV`] in a process's initial environment, if it has one.
fn read_tag(pid: i32) -> Option<String> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{TREE_ENV}=");
    env.split(|&b| b == 0)
        .find_map(|e| e.strip_prefix(prefix.as_bytes()))
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// Tags already read, by process: a process's initial environment never changes (an exec
/// replaces the process's image, not its identity, but it cannot add our tag either), so each
/// process is read once however many trees and scans ask.
static TAGS: Mutex<BTreeMap<ProcessId, Option<String>>> = Mutex::new(BTreeMap::new());

/// Every process at one moment, with its tree tag: one read of `/proc` that any number of
/// trees can be matched against.
pub(crate) struct ProcessTable {
    procs: Vec<ProcStat>,
    tags: BTreeMap<ProcessId, String>,
}

impl ProcessTable {
    /// Reads `/proc`; `None` without it.
    pub fn read() -> Option<ProcessTable> {
        let procs = all_processes()?;
        let mut cache = TAGS.lock().unwrap_or_else(|e| e.into_inner());
        let live: BTreeSet<ProcessId> = procs.iter().map(|p| p.id).collect();
        cache.retain(|id, _| live.contains(id));
        let mut tags = BTreeMap::new();
        for p in procs.iter().filter(|p| !p.is_dead()) {
            let tag = cache.entry(p.id).or_insert_with(|| read_tag(p.id.pid));
            if let Some(tag) = tag {
                tags.insert(p.id, tag.clone());
            }
        }
        Some(ProcessTable { procs, tags })
    }
}

/// A fresh value for [`TREE_ENV`]: unique among the spawns of this process, and across
/// processes. Give it to [`PtyCommand::tree_tag`](super::PtyCommand::tree_tag) to know the tag
/// before the spawn.
pub fn new_tree_tag() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{}-{:x}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos
    )
}

/// What finds a process tree again from another process, after the one that spawned it is
/// gone: its tag, and its leader (the PTY child, whose pid is the tree's session id) once
/// spawned. See [`end_leftover_trees`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeId {
    /// The value of [`TREE_ENV`] its processes carry.
    pub tag: String,
    /// The PTY child; `None` when the spawn had not happened yet.
    pub leader: Option<ProcessId>,
}

impl TreeId {
    /// The session id that still means this tree in `table`: the leader's pid, unless a
    /// process of that pid with another start time shows the pid was reused. (A session id is
    /// not reused while any process of the session lives, so members are still found when
    /// the leader itself is gone.)
    fn session_in(&self, table: &ProcessTable) -> Option<i32> {
        let leader = self.leader?;
        let reused = table
            .procs
            .iter()
            .any(|p| p.id.pid == leader.pid && p.id.start_time != leader.start_time);
        (!reused).then_some(leader.pid)
    }
}

/// The tree of one PTY child, remembered across scans so that members whose parents died
/// are still found.
#[derive(Debug)]
pub(crate) struct ProcessTree {
    /// The child's pid, also its session id; `None` when only the tag can tell members.
    sid: Option<i32>,
    /// The value of [`TREE_ENV`] its processes carry.
    tag: String,
    /// Every member seen so far.
    known: BTreeSet<ProcessId>,
}

impl ProcessTree {
    pub fn new(sid: Option<i32>, tag: &str) -> ProcessTree {
        ProcessTree {
            sid,
            tag: tag.to_owned(),
            known: BTreeSet::new(),
        }
    }

    /// The tree's live members in `table` (zombies excluded), remembering them.
    pub fn members(&mut self, table: &ProcessTable) -> Vec<ProcStat> {
        let mut members: BTreeMap<i32, ProcStat> = BTreeMap::new();
        let mut rest = Vec::new();
        for p in &table.procs {
            let tagged = table.tags.get(&p.id).is_some_and(|t| *t == self.tag);
            if Some(p.session) == self.sid || tagged || self.known.contains(&p.id) {
                members.insert(p.id.pid, *p);
            } else {
                rest.push(*p);
            }
        }
        // Children of members, to a fixed point (a chain is found in as many rounds as it is
        // deep below the first member).
        loop {
            let before = members.len();
            rest.retain(|p| match members.contains_key(&p.ppid) {
                true => {
                    members.insert(p.id.pid, *p);
                    false
                }
                false => true,
            });
            if members.len() == before {
                break;
            }
        }
        let live: Vec<ProcStat> = members.into_values().filter(|p| !p.is_dead()).collect();
        self.known.extend(live.iter().map(|p| p.id));
        live
    }

    /// Every member seen by any scan.
    pub fn seen(&self) -> impl Iterator<Item = ProcessId> + '_ {
        self.known.iter().copied()
    }

    /// Sends `signal` to `members` (found by [`members`](Self::members)): to every process
    /// group of the tree's session that a member belongs to, so a member forked since the
    /// scan is caught too, and to each member outside the session. `leader_held`: the leader
    /// is an unreaped child of ours, so its group is surely the tree's, member or not.
    pub fn signal(&self, members: &[ProcStat], signal: Signal, leader_held: bool) {
        let in_session = |p: &ProcStat| Some(p.session) == self.sid;
        let mut groups: Vec<i32> = members
            .iter()
            .filter(|p| in_session(p))
            .map(|p| p.pgrp)
            .collect();
        groups.extend(self.sid.filter(|_| leader_held));
        groups.sort_unstable();
        groups.dedup();
        for group in groups.into_iter().filter_map(Pid::from_raw) {
            // ESRCH: the group died meanwhile, which is what we want anyway.
            let _ = rustix::process::kill_process_group(group, signal);
        }
        for member in members.iter().filter(|p| !in_session(p)) {
            if let Some(pid) = Pid::from_raw(member.id.pid) {
                let _ = rustix::process::kill_process(pid, signal);
            }
        }
    }
}

/// How often [`end_leftover_trees`] looks at `/proc` while it waits: processes that are not
/// our children give no exit event to wait on.
const LEFTOVER_POLL: Duration = Duration::from_millis(10);

/// How long [`end_leftover_trees`] goes on killing a tree that keeps forking.
const LEFTOVER_KILL_TIMEOUT: Duration = Duration::from_secs(5);

/// Ends what is left of process trees whose spawner is gone (a host that was killed): every
/// member gets SIGHUP, SIGTERM and SIGCONT, then SIGKILL after `grace` (all trees share the
/// one grace period). Without `/proc` nothing can be found, and nothing is done.
pub fn end_leftover_trees(ids: &[TreeId], grace: Duration) {
    let Some(table) = ProcessTable::read() else {
        return;
    };
    let mut trees: Vec<ProcessTree> = ids
        .iter()
        .map(|id| ProcessTree::new(id.session_in(&table), &id.tag))
        .collect();
    let scan = |trees: &mut [ProcessTree], table: Option<&ProcessTable>| -> Vec<Vec<ProcStat>> {
        trees
            .iter_mut()
            .map(|tree| table.map_or_else(Vec::new, |t| tree.members(t)))
            .collect()
    };
    let mut members = scan(&mut trees, Some(&table));
    for (tree, m) in trees.iter().zip(&members) {
        for signal in [Signal::HUP, Signal::TERM, Signal::CONT] {
            tree.signal(m, signal, false);
        }
    }
    let deadline = Instant::now() + grace;
    let kill_deadline = deadline + LEFTOVER_KILL_TIMEOUT;
    while members.iter().any(|m| !m.is_empty()) && Instant::now() < kill_deadline {
        if Instant::now() >= deadline {
            for (tree, m) in trees.iter().zip(&members) {
                tree.signal(m, Signal::KILL, false);
            }
        }
        std::thread::sleep(LEFTOVER_POLL);
        members = scan(&mut trees, ProcessTable::read().as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_unique() {
        assert_ne!(new_tree_tag(), new_tree_tag());
    }
}
