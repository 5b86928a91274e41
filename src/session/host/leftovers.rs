//! What a host leaves in its state directory while sessions run, so that a host that dies
//! (SIGKILL, a crash) leaves nothing running that nobody can see.
//!
//! Each running session has a mark, `<id>.live`: a line written before its program is spawned
//! (its metadata and the tag its process tree will carry), and a second line appended once it
//! is (the leader's pid and start time), so that a host killed at any moment leaves a first
//! line that is whole. The mark goes when the session's record is written or the session is
//! deleted. A host that starts and finds marks of its own socket comes after a dead one: it
//! ends what is left of each marked tree ([`end_leftover_trees`]) and keeps the session as
//! `stopped` with the reason `host-died`, its screen and recording lost with the host that
//! held them.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::{Entry, Host, Meta, Record, cast_of, recording_file, session_file};
use crate::pty::{ProcessId, TreeId, end_leftover_trees};
use crate::recording::Timeline;
use crate::session::error::{ErrorCode, SessionError};
use crate::session::instance::{Outcome, State, StopReason};
use crate::term::Terminal;

/// How long a dead host's leftovers get to act on SIGHUP and SIGTERM before SIGKILL. Short:
/// the first client of the new host waits for it.
const LEFTOVER_GRACE: Duration = Duration::from_millis(500);

/// The first line of a running session's mark (`<id>.live`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct LiveMark {
    pub session_id: String,
    /// The socket of the host that runs it: a host ends only its own predecessor's sessions.
    pub host: PathBuf,
    pub meta: Meta,
    pub width: u16,
    pub height: u16,
    /// The value of `SHOTTY_TREE` its processes carry.
    pub tag: String,
}

/// A mark read back: its first line, and its leader once spawned (the second line).
struct ReadMark {
    mark: LiveMark,
    leader: Option<ProcessId>,
}

impl ReadMark {
    /// `None` for a mark that is not ours to read (unreadable, or its first line not whole).
    fn read(path: &Path) -> Option<ReadMark> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut lines = text.lines();
        let mark = serde_json::from_str(lines.next()?).ok()?;
        let leader = lines.next().and_then(|l| serde_json::from_str(l).ok());
        Some(ReadMark { mark, leader })
    }
}

fn mark_file(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.live"))
}

/// Deletes a session's mark; one that is not there is fine.
pub(super) fn remove_mark(dir: &Path, id: &str) -> std::io::Result<()> {
    match std::fs::remove_file(mark_file(dir, id)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Appends one JSON line to a mark, creating it (0600) with `create`. Not synced: a mark has
/// to survive the host, not the machine, whose power loss ends the programs too.
fn append_line(path: &Path, value: &impl Serialize, create: bool) -> Result<(), SessionError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut line = serde_json::to_vec(value)
        .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
    line.push(b'\n');
    std::fs::OpenOptions::new()
        .append(true)
        .create_new(create)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| f.write_all(&line))
        .map_err(|e| SessionError::io(&format!("cannot write {}", path.display()), e))
}

impl Host {
    /// Creates a session's mark, before its spawn.
    pub(super) fn create_mark(&self, mark: &LiveMark) -> Result<(), SessionError> {
        append_line(&mark_file(&self.state_dir, &mark.session_id), mark, true)
    }

    /// Completes a session's mark with its leader, once spawned.
    pub(super) fn mark_spawned(&self, id: &str, leader: &ProcessId) -> Result<(), SessionError> {
        append_line(&mark_file(&self.state_dir, id), leader, false)
    }

    /// Ends what a dead host of this socket left running, and keeps each of its sessions as a
    /// record with the reason `host-died`. Runs before the host listens, so no client sees
    /// the sessions otherwise.
    pub(super) fn end_leftovers(&self) {
        let Ok(dir) = std::fs::read_dir(&self.state_dir) else {
            return;
        };
        let marks: Vec<(PathBuf, ReadMark)> = dir
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "live"))
            .filter_map(|p| ReadMark::read(&p).map(|mark| (p, mark)))
            // Another host's (a state directory shared through SHOTTY_STATE_DIR) runs on.
            .filter(|(_, read)| read.mark.host == self.socket)
            .collect();
        if marks.is_empty() {
            return;
        }
        let trees: Vec<TreeId> = marks
            .iter()
            .map(|(_, read)| TreeId {
                tag: read.mark.tag.clone(),
                leader: read.leader,
            })
            .collect();
        end_leftover_trees(&trees, LEFTOVER_GRACE);
        for (path, mark) in marks {
            let id = mark.mark.session_id.clone();
            // A record written just before the death says more than this one can.
            let recorded = session_file(&self.state_dir, &id).exists();
            if recorded || self.keep_dead_host_session(mark).is_ok() {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// Writes and registers the record of a session whose host died while it ran.
    fn keep_dead_host_session(&self, read: ReadMark) -> Result<(), SessionError> {
        let ReadMark { mark, leader } = read;
        let now = SystemTime::now();
        let timeline = Timeline::new(mark.width, mark.height, 0);
        let record = Record {
            session_id: mark.session_id,
            state: State::Stopped,
            process_id: leader.map_or(0, |p| p.pid.unsigned_abs()),
            exit_code: None,
            signal: None,
            outcome: Some(Outcome::Stopped),
            stop_reason: Some(StopReason::HostDied),
            updated_at: now,
            expires_at: now + mark.meta.retain,
            version: 0,
            snapshot: Terminal::new(mark.width.into(), mark.height.into()).snapshot(),
            history: Vec::new(),
            dropped: 0,
            host: Some(self.socket.clone()),
            recording: Some(timeline.summary()),
            start: None,
            commands: Vec::new(),
            commands_dropped: 0,
            hash: None,
            output_total: None,
            meta: mark.meta,
        };
        // The recording first: a record on disk always has its recording beside it.
        self.write_private(
            &recording_file(&self.state_dir, &record.session_id),
            &cast_of(&record.meta, &timeline)?,
        )?;
        self.write_record(&record)?;
        self.entries()
            .insert(record.session_id.clone(), Entry::Ended(Arc::new(record)));
        Ok(())
    }
}
