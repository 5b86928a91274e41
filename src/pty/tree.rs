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
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::procfs::{ProcStat, ProcessId, all_processes};

/// The variable that tags every process of a PTY's tree: set for the child, inherited by its
/// descendants. Its value is unique per spawn.
pub const TREE_ENV: &str = "SHOTTY_TREE";

/// Whether the process's initial environment holds `entry` (`NAME=value`) exactly.
fn environ_has(pid: i32, entry: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == entry))
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
    /// `SHOTTY_TREE=<tag>`.
    tag_entry: Vec<u8>,
    /// Every member seen so far.
    known: BTreeSet<ProcessId>,
    /// Processes whose environment was read and lacks the tag (it never changes without an
    /// exec, which cannot add the tag either).
    untagged: BTreeSet<ProcessId>,
}

impl ProcessTree {
    pub fn new(sid: i32, tag: &str) -> ProcessTree {
        ProcessTree {
            sid,
            tag_entry: format!("{TREE_ENV}={tag}").into_bytes(),
            known: BTreeSet::new(),
            untagged: BTreeSet::new(),
        }
    }

    /// The tree's live members now (zombies excluded), remembering them; `None` without
    /// `/proc`.
    pub fn scan(&mut self) -> Option<Vec<ProcStat>> {
        let all = all_processes()?;
        let mut members: BTreeMap<i32, ProcStat> = BTreeMap::new();
        let mut rest = Vec::new();
        for p in all {
            if p.session == self.sid || self.known.contains(&p.id) {
                members.insert(p.id.pid, p);
            } else {
                rest.push(p);
            }
        }
        // Children of members, to a fixed point (a chain is found in as many rounds as it is
        // deep below the first member), then the tagged ones with their children.
        loop {
            let before = members.len();
            rest.retain(|p| {
                if members.contains_key(&p.ppid) {
                    members.insert(p.id.pid, *p);
                    false
                } else {
                    true
                }
            });
            if members.len() == before {
                let mut tagged = false;
                rest.retain(|p| {
                    if p.is_dead() || self.untagged.contains(&p.id) {
                        return true;
                    }
                    if environ_has(p.id.pid, &self.tag_entry) {
                        members.insert(p.id.pid, *p);
                        tagged = true;
                        false
                    } else {
                        self.untagged.insert(p.id);
                        true
                    }
                });
                if !tagged {
                    break;
                }
            }
        }
        let live: Vec<ProcStat> = members.into_values().filter(|p| !p.is_dead()).collect();
        self.known.extend(live.iter().map(|p| p.id));
        // Forget the environments of processes that are gone, so the set stays bounded.
        if self.untagged.len() > 4096 {
            self.untagged.clear();
        }
        Some(live)
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
