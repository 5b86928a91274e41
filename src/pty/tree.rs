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
use std::time::{SystemTime, UNIX_EPOCH};

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

/// A fresh tag value: unique among the spawns of this process, and across processes.
pub(crate) fn new_tag() -> String {
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

/// The tree of one PTY child, remembered across scans so that members whose parents died
/// are still found.
#[derive(Debug)]
pub(crate) struct ProcessTree {
    /// The child's pid, also its session id.
    sid: i32,
    /// The value of [`TREE_ENV`] its processes carry.
    tag: String,
    /// Every member seen so far.
    known: BTreeSet<ProcessId>,
}

impl ProcessTree {
    pub fn new(sid: i32, tag: &str) -> ProcessTree {
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
            if p.session == self.sid || tagged || self.known.contains(&p.id) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_unique() {
        assert_ne!(new_tag(), new_tag());
    }
}
