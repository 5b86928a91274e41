//! What a host leaves in its state directory while sessions run, so that a host that dies
//! (SIGKILL, a crash) leaves nothing running that nobody can see.
//!
//! Each running session has a mark, `<id>.live`, written before its program is spawned (with
//! the tag its process tree will carry) and again once it is (with the leader's pid and start
//! time). The mark goes when the session's record is written or the session is deleted. A host
//! that starts and finds marks of its own socket belongs after a dead one: it ends what is left
//! of each marked tree ([`end_leftover_trees`]) and keeps the session as `stopped` with the
//! reason `host-died`, its screen and recording lost with the host that held them.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::{Entry, Host, Meta, Record, cast_of, recording_file, session_file};
use crate::pty::{TreeId, end_leftover_trees};
use crate::recording::Timeline;
use crate::session::error::{ErrorCode, SessionError};
use crate::session::instance::{Outcome, State, StopReason};
use crate::session::paths;
use crate::term::Terminal;

/// How long a dead host's leftovers get to act on SIGHUP and SIGTERM before SIGKILL. Short:
/// the first client of the new host waits for it.
const LEFTOVER_GRACE: Duration = Duration::from_millis(500);

/// A running session's mark (`<id>.live`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct LiveMark {
    pub session_id: String,
    /// The socket of the host that runs it: a host ends only its own predecessor's sessions.
    pub host: PathBuf,
    pub meta: Meta,
    pub width: u16,
    pub height: u16,
    pub tree: TreeId,
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

impl Host {
    /// Writes (or rewrites) a running session's mark. Not synced: it has to survive the host,
    /// not the machine, whose power loss ends the programs too.
    pub(super) fn write_mark(&self, mark: &LiveMark) -> Result<(), SessionError> {
        let json = serde_json::to_vec(mark)
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        paths::replace_private_file(&mark_file(&self.state_dir, &mark.session_id), &json, false)
    }

    /// Ends what a dead host of this socket left running, and keeps each of its sessions as a
    /// record with the reason `host-died`. Runs before the host listens, so no client sees
    /// the sessions otherwise.
    pub(super) fn end_leftovers(&self) {
        let Ok(dir) = std::fs::read_dir(&self.state_dir) else {
            return;
        };
        let marks: Vec<(PathBuf, LiveMark)> = dir
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "live"))
            .filter_map(|p| {
                let mark = serde_json::from_slice::<LiveMark>(&std::fs::read(&p).ok()?).ok()?;
                Some((p, mark))
            })
            // Another host's (a state directory shared through SHOTTY_STATE_DIR) runs on.
            .filter(|(_, mark)| mark.host == self.socket)
            .collect();
        if marks.is_empty() {
            return;
        }
        let trees: Vec<TreeId> = marks.iter().map(|(_, m)| m.tree.clone()).collect();
        end_leftover_trees(&trees, LEFTOVER_GRACE);
        for (path, mark) in marks {
            let id = mark.session_id.clone();
            // A record written just before the death says more than this one can.
            let recorded = session_file(&self.state_dir, &id).exists();
            if recorded || self.keep_dead_host_session(mark).is_ok() {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// Writes and registers the record of a session whose host died while it ran.
    fn keep_dead_host_session(&self, mark: LiveMark) -> Result<(), SessionError> {
        let now = SystemTime::now();
        let timeline = Timeline::new(mark.width, mark.height, 0);
        let record = Record {
            session_id: mark.session_id,
            state: State::Stopped,
            process_id: mark.tree.leader.map_or(0, |p| p.pid.unsigned_abs()),
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
