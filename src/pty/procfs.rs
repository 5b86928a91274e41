//! What `/proc` says about processes: the stat line, children, the kernel function a process
//! sleeps in. Everything here is best effort: a process can vanish between two reads.

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
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
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
}
