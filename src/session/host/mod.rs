//! The per-user session host: one background process holding every session, answering
//! newline-delimited JSON-RPC on a private Unix socket (`docs/host-protocol.md`).
//!
//! Ordering: requests run one at a time, in arrival order, on one executor thread; a compound
//! `send` is one request. `wait` long-polls on its connection's own thread, so it never holds
//! the executor. Ended sessions are written to the state directory (temp file + rename) before
//! any reply reports them as ended, so they survive a host restart, even a SIGKILL.
//!
//! This file is the registry (live and ended sessions, their records on disk, expiry);
//! `methods.rs` has one function per request; `connection.rs` the socket, the connections
//! and the executor.

use crate::session::commands::{CommandRecord, MAX_COMMANDS};
use crate::session::protocol::{StartParams, is_session_id};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use crate::recording::asciicast::{self, CastInfo};
use crate::recording::{RecordingSummary, Timeline};
use crate::term::Snapshot;

use super::error::{ErrorCode, SessionError};
use super::instance::{Outcome, STOP_GRACE, Session, State, StopReason};
use super::journal::Journal;
use super::paths;

mod connection;
mod history;
mod leftovers;
mod memory;
mod methods;
mod owner;

pub use connection::{ConnectionLimits, raise_open_file_limit, run};

/// Default retention of ended sessions.
pub const DEFAULT_RETAIN: Duration = Duration::from_secs(24 * 3600);
/// Longest time a `read` waits for output to settle.
pub const READ_SETTLE_MAX: Duration = Duration::from_millis(100);
/// Viewport text returned at most, in characters.
pub const MAX_SCREEN_CHARS: usize = 200_000;
/// Lines of history written with an ended session.
const MAX_RETAINED_HISTORY: usize = 200_000;

/// Metadata given at start.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    command: Vec<String>,
    /// The name given at start (`--name`), unique among the sessions the host holds.
    #[serde(default)]
    name: Option<String>,
    title: Option<String>,
    group: Option<String>,
    cwd: String,
    created_at: SystemTime,
    retain: Duration,
    /// What started it, for `restart`.
    #[serde(default)]
    start: Option<StartParams>,
}

/// What is kept of an ended session, on disk and in memory.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    session_id: String,
    meta: Meta,
    state: State,
    process_id: u32,
    exit_code: Option<i32>,
    signal: Option<String>,
    outcome: Option<Outcome>,
    stop_reason: Option<StopReason>,
    updated_at: SystemTime,
    expires_at: SystemTime,
    version: u64,
    snapshot: Snapshot,
    history: Vec<(u64, String)>,
    dropped: u64,
    /// The socket of the host that wrote it: a host loads only its own records.
    #[serde(default)]
    host: Option<PathBuf>,
    /// What its recording (`<id>.cast` beside the record) holds.
    #[serde(default)]
    recording: Option<RecordingSummary>,
    /// How it started and the steps that drove it (`journal`).
    #[serde(default)]
    start: Option<Start>,
    /// The commands its shell reported (shell integration), the last 1,000.
    #[serde(default)]
    commands: Vec<CommandRecord>,
    /// Commands reported before those.
    #[serde(default)]
    commands_dropped: u64,
    /// The final screen's content hash (`read`'s `hash`).
    #[serde(default)]
    hash: Option<String>,
    /// Output bytes the program wrote in all (the offset `output` counts to).
    #[serde(default)]
    output_total: Option<u64>,
}

/// What a journal export needs of a session's start beyond [`Meta`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Start {
    env: Vec<(String, String)>,
    width: u16,
    height: u16,
    journal: Journal,
}

impl Start {
    fn of(session: &Session, journal: Journal) -> Start {
        let spec = session.spec();
        Start {
            env: spec.env.clone(),
            width: spec.width,
            height: spec.height,
            journal,
        }
    }
}

/// What became of a live entry's record.
enum RecordSlot {
    /// The session runs, or its record is not written yet.
    Pending,
    /// The ended session's record is on disk.
    Written(Arc<Record>),
    /// `stop` deleted the session: nothing may be written for it any more.
    Deleted,
}

struct LiveEntry {
    session: Arc<Session>,
    /// The process it ends with (`start`'s `ownerPid`), if any.
    owner: Option<owner::Owner>,
    meta: Meta,
    record: Mutex<RecordSlot>,
    /// What `list` derives from the screen (`urls`, `outputLines`) for a screen version: an
    /// idle session is not scanned again for every list.
    derived: Mutex<Option<Derived>>,
}

/// The screen facts `list` reports, for one screen version.
#[derive(Clone)]
struct Derived {
    version: u64,
    urls: Vec<String>,
    output_lines: usize,
}

impl LiveEntry {
    fn record_slot(&self) -> std::sync::MutexGuard<'_, RecordSlot> {
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }
}

enum Entry {
    Live(Arc<LiveEntry>),
    Ended(Arc<Record>),
}

/// Ids of expired sessions remembered (to answer `session_expired` rather than
/// `session_not_found`); older ones are forgotten.
const MAX_EXPIRED_IDS: usize = 10_000;

/// The environment variable that makes one method panic inside the host: the test-only hook
/// that proves a panic in one operation costs nobody else anything. The value `executor`
/// makes the executor itself fail on a `ping`, outside every request's boundary.
pub const PANIC_HOOK_ENV: &str = "SHOTTY_TEST_PANIC_METHOD";

/// The host's registry and configuration.
pub struct Host {
    entries: Mutex<BTreeMap<String, Entry>>,
    expired: Mutex<std::collections::VecDeque<String>>,
    state_dir: PathBuf,
    /// This host's socket, written into its records.
    socket: PathBuf,
    idle_exit: Duration,
    last_activity: Mutex<Instant>,
    /// The method [`PANIC_HOOK_ENV`] names.
    panic_in: Option<String>,
    /// Set once the host shuts down. A start holds it for reading from before its spawn
    /// until its session is listed, so a shutdown (which takes it for writing) sees every
    /// session started before it, and no session starts after it.
    closing: RwLock<bool>,
}

fn session_file(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
}

/// The recording of a retained session, as asciicast v2 (0600 like the record).
fn recording_file(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.cast"))
}

/// Deletes everything of a session in the state directory: its mark, its record and its
/// recording.
fn remove_session_files(dir: &Path, id: &str) -> std::io::Result<()> {
    let gone = |r: std::io::Result<()>| match r {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    };
    leftovers::remove_mark(dir, id)?;
    gone(std::fs::remove_dir_all(super::artifacts::inspect_dir(
        dir, id,
    )))?;
    gone(std::fs::remove_file(recording_file(dir, id)))?;
    gone(std::fs::remove_file(session_file(dir, id)))
}

/// A session's recording as asciicast v2, titled and timed from its metadata.
fn cast_of(meta: &Meta, timeline: &Timeline) -> Result<Vec<u8>, SessionError> {
    let info = CastInfo {
        timestamp: meta
            .created_at
            .duration_since(SystemTime::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs()),
        title: Some(meta.title.clone().unwrap_or_else(|| meta.command.join(" "))),
    };
    let mut cast = Vec::new();
    asciicast::write_v2(timeline, &info, &mut cast)
        .map_err(|e| SessionError::io("cannot write the recording", e))?;
    Ok(cast)
}

fn new_session_id() -> Result<String, SessionError> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| SessionError::io("cannot read /dev/urandom", e))?;
    Ok(format!(
        "s_{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}

/// The longest session name.
pub const MAX_NAME_LEN: usize = 64;

/// Refuses a name that could be mistaken for another kind of reference (an id, an id's
/// prefix, `last`) or is hard to type.
fn check_name(name: &str) -> Result<(), SessionError> {
    let fail = |why: &str| {
        Err(SessionError::invalid_request(format!(
            "the name {name:?} {why}"
        )))
    };
    if name.is_empty() || name.chars().count() > MAX_NAME_LEN {
        return fail(&format!("must have 1 to {MAX_NAME_LEN} characters"));
    }
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return fail("has blanks or control characters");
    }
    if name == "last" || name.starts_with("s_") || name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return fail("could be read as `last` or a session id (prefix)");
    }
    Ok(())
}

impl Entry {
    fn meta(&self) -> &Meta {
        match self {
            Entry::Live(l) => &l.meta,
            Entry::Ended(r) => &r.meta,
        }
    }

    /// Its program has not ended (it may be stopping).
    fn is_running(&self) -> bool {
        matches!(self, Entry::Live(l) if !l.session.lock().state.is_ended())
    }
}
impl Host {
    /// A host listening on `socket`, keeping ended sessions in `state_dir`, exiting after
    /// `idle_exit` without sessions or requests.
    pub fn new(
        socket: &Path,
        state_dir: PathBuf,
        idle_exit: Duration,
    ) -> Result<Host, SessionError> {
        paths::ensure_private_dir(&state_dir)?;
        let host = Host {
            entries: Mutex::new(BTreeMap::new()),
            expired: Mutex::new(std::collections::VecDeque::new()),
            state_dir,
            socket: socket.to_path_buf(),
            idle_exit,
            last_activity: Mutex::new(Instant::now()),
            panic_in: std::env::var(PANIC_HOOK_ENV).ok().filter(|m| !m.is_empty()),
            closing: RwLock::new(false),
        };
        host.load_retained();
        host.end_leftovers();
        Ok(host)
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads retained sessions from the state directory (after a restart).
    fn load_retained(&self) {
        let Ok(dir) = std::fs::read_dir(&self.state_dir) else {
            return;
        };
        let now = SystemTime::now();
        for entry in dir.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let Ok(record) = serde_json::from_slice::<Record>(&bytes) else {
                continue;
            };
            // Another host's session (a state directory shared through SHOTTY_STATE_DIR) is
            // not ours to show or delete.
            if record.host.as_ref().is_some_and(|h| *h != self.socket) {
                continue;
            }
            if record.expires_at <= now {
                let _ = remove_session_files(&self.state_dir, &record.session_id);
                self.note_expired(record.session_id);
                continue;
            }
            self.entries()
                .insert(record.session_id.clone(), Entry::Ended(Arc::new(record)));
        }
    }

    fn expired_ids(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<String>> {
        self.expired.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn note_expired(&self, id: String) {
        let mut ids = self.expired_ids();
        if ids.len() >= MAX_EXPIRED_IDS {
            ids.pop_front();
        }
        ids.push_back(id);
    }

    /// Drops retained sessions whose time is up.
    fn sweep(&self) {
        let now = SystemTime::now();
        let mut gone = Vec::new();
        self.entries().retain(|id, e| match e {
            Entry::Ended(r) if r.expires_at <= now => {
                gone.push(id.clone());
                false
            }
            _ => true,
        });
        for id in gone {
            let _ = remove_session_files(&self.state_dir, &id);
            self.note_expired(id);
        }
    }

    /// The id a session reference names: an id; a name given at start; a unique prefix of an
    /// id (with or without `s_`); or `last`, the newest session the host holds.
    pub(super) fn resolve(&self, reference: &str) -> Result<String, SessionError> {
        if is_session_id(reference) {
            return Ok(reference.to_owned());
        }
        self.sweep();
        let entries = self.entries();
        if reference == "last" {
            return entries
                .iter()
                .max_by_key(|(id, e)| (e.meta().created_at, *id))
                .map(|(id, _)| id.clone())
                .ok_or_else(|| {
                    SessionError::new(ErrorCode::SessionNotFound, "there is no session yet")
                });
        }
        // A name is the running session's; once it has ended (a restart, a new start with
        // the name), the newest that had it.
        let named = entries
            .iter()
            .filter(|(_, e)| e.meta().name.as_deref() == Some(reference))
            .max_by_key(|(id, e)| (e.is_running(), e.meta().created_at, *id));
        if let Some((id, _)) = named {
            return Ok(id.clone());
        }
        let hex = reference.strip_prefix("s_").unwrap_or(reference);
        if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            let hex = hex.to_ascii_lowercase();
            let matching: Vec<&String> = entries
                .keys()
                .filter(|id| id.get(2..).is_some_and(|h| h.starts_with(&hex)))
                .collect();
            match matching.as_slice() {
                [one] => return Ok((*one).clone()),
                [] => {}
                several => {
                    return Err(SessionError::invalid_request(format!(
                        "{reference:?} starts {} session ids; give more of it",
                        several.len()
                    )));
                }
            }
        }
        Err(SessionError::new(
            ErrorCode::SessionNotFound,
            format!(
                "no session {reference:?} (neither an id, a unique id prefix, a name nor `last`)"
            ),
        ))
    }

    /// A request's params with its session references (`sessionId`, `sessionIds`) made ids.
    /// A reference in `sessionIds` that names nothing is left for the method to report.
    pub(super) fn resolve_params(
        &self,
        params: &mut serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), SessionError> {
        use serde_json::Value;
        if let Some(Value::String(reference)) = params.get("sessionId") {
            let id = self.resolve(reference)?;
            params.insert("sessionId".into(), Value::String(id));
        }
        if let Some(Value::Array(references)) = params.get_mut("sessionIds") {
            for v in references {
                if let Some(id) = v.as_str().and_then(|r| self.resolve(r).ok()) {
                    *v = Value::String(id);
                }
            }
        }
        Ok(())
    }

    /// Refuses a name a running session has.
    fn check_unique_name(&self, name: &str) -> Result<(), SessionError> {
        check_name(name)?;
        if self
            .entries()
            .values()
            .any(|e| e.is_running() && e.meta().name.as_deref() == Some(name))
        {
            return Err(SessionError::invalid_request(format!(
                "a running session is named {name:?} (stop it, or choose another name)"
            )));
        }
        Ok(())
    }

    fn lookup(&self, id: &str) -> Result<Entry, SessionError> {
        if !is_session_id(id) {
            return Err(SessionError::new(
                ErrorCode::SessionNotFound,
                format!("{id:?} is not a session id (s_ and 32 hex digits)"),
            ));
        }
        self.sweep();
        match self.entries().get(id) {
            Some(Entry::Live(l)) => Ok(Entry::Live(Arc::clone(l))),
            Some(Entry::Ended(r)) => Ok(Entry::Ended(Arc::clone(r))),
            None if self.expired_ids().iter().any(|e| e == id) => Err(SessionError::new(
                ErrorCode::SessionExpired,
                format!("session {id} ended and its retention is over"),
            )),
            None => Err(SessionError::not_found(id)),
        }
    }

    /// The record of an ended live session, written to disk first if it is not yet; the
    /// registry then holds the record instead of the live entry, so retention runs out.
    fn record_if_ended(&self, entry: &LiveEntry) -> Result<Option<Arc<Record>>, SessionError> {
        let mut slot = entry.record_slot();
        match &*slot {
            RecordSlot::Written(r) => return Ok(Some(Arc::clone(r))),
            // Being deleted by a stop: it is what the live session shows until it is gone.
            RecordSlot::Deleted => return Ok(None),
            RecordSlot::Pending => {}
        }
        let live = entry.session.lock();
        if !live.state.is_ended() {
            return Ok(None);
        }
        let history: Vec<(u64, String)> = {
            let all: Vec<(u64, String)> = live.term.history().map(|(i, r)| (i, r.text())).collect();
            let skip = all.len().saturating_sub(MAX_RETAINED_HISTORY);
            all.into_iter().skip(skip).collect()
        };
        let dropped = history.first().map_or(0, |(i, _)| *i);
        let record = Record {
            session_id: entry.session.id().to_owned(),
            meta: entry.meta.clone(),
            state: live.state,
            process_id: entry.session.pid(),
            exit_code: live.exit_code,
            signal: live.signal.clone(),
            outcome: live.outcome,
            stop_reason: live.stop_reason,
            updated_at: live.updated_at,
            expires_at: SystemTime::now() + entry.meta.retain,
            version: live.version,
            snapshot: live.term.snapshot(),
            history,
            dropped,
            host: Some(self.socket.clone()),
            recording: Some(live.recording.summary()),
            start: Some(Start::of(&entry.session, live.journal.clone())),
            commands: live.commands.last(MAX_COMMANDS),
            commands_dropped: live.commands.dropped(),
            hash: Some(crate::session::instance::content_hash(&live.term)),
            output_total: Some(live.fed),
        };
        let timeline = live.recording.clone();
        drop(live);
        // The recording first: a record on disk always has its recording beside it.
        self.write_private(
            &recording_file(&self.state_dir, &record.session_id),
            &cast_of(&record.meta, &timeline)?,
        )?;
        self.write_record(&record)?;
        // Kept now: nothing is left for a later host to end.
        let _ = leftovers::remove_mark(&self.state_dir, &record.session_id);
        let record = Arc::new(record);
        *slot = RecordSlot::Written(Arc::clone(&record));
        if let Some(e) = self.entries().get_mut(&record.session_id)
            && matches!(e, Entry::Live(l) if Arc::ptr_eq(&l.session, &entry.session))
        {
            *e = Entry::Ended(Arc::clone(&record));
        }
        Ok(Some(record))
    }

    /// [`record_if_ended`](Self::record_if_ended) for a request that reports on the session:
    /// `None` while it runs, and also while its record cannot be written (a full or read-only
    /// state directory), since the live entry still holds everything and the housekeeper
    /// writes the record once it can.
    fn ended_record(&self, entry: &LiveEntry) -> Option<Arc<Record>> {
        self.record_if_ended(entry).ok().flatten()
    }

    fn write_record(&self, record: &Record) -> Result<(), SessionError> {
        let json = serde_json::to_vec(record)
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        self.write_private(&session_file(&self.state_dir, &record.session_id), &json)
    }

    /// Writes a file of the state directory whole (a private temporary file, synced, renamed).
    fn write_private(&self, path: &Path, bytes: &[u8]) -> Result<(), SessionError> {
        super::paths::write_private_file(path, bytes)
    }

    /// No live session, and no request for the idle time.
    fn is_idle(&self) -> bool {
        let quiet = self
            .last_activity
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed();
        quiet >= self.idle_exit
            && !self
                .entries()
                .values()
                .any(|e| matches!(e, Entry::Live(l) if !l.session.lock().state.is_ended()))
    }

    /// Every entry that still holds its session (running, or ended with no record yet).
    fn live_entries(&self) -> Vec<Arc<LiveEntry>> {
        self.entries()
            .values()
            .filter_map(|e| match e {
                Entry::Live(l) => Some(Arc::clone(l)),
                Entry::Ended(_) => None,
            })
            .collect()
    }

    /// Live sessions whose `ownerPid` process has ended and that nobody is stopping yet.
    fn orphans(&self) -> Vec<String> {
        self.live_entries()
            .iter()
            .filter(|l| l.owner.as_ref().is_some_and(|o| o.has_ended()))
            .filter(|l| l.session.lock().state != State::Stopping)
            .map(|l| l.session.id().to_owned())
            .collect()
    }

    /// Stops every live session (host shutdown), all trees together with one grace period,
    /// and writes their records.
    fn shutdown(&self) {
        *self.closing.write().unwrap_or_else(|e| e.into_inner()) = true;
        let live = self.live_entries();
        let sessions: Vec<&Session> = live.iter().map(|l| &*l.session).collect();
        Session::stop_all(&sessions, StopReason::Shutdown, STOP_GRACE);
        self.record_ended();
    }

    /// Writes the record of every ended session whose record is not written yet: a session
    /// that has just ended is not live any more, but it is only retained once this has run
    /// (its own thread does it too, moments later, which an exiting host may not wait for).
    fn record_ended(&self) {
        for l in &self.live_entries() {
            let _ = self.record_if_ended(l);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_validated() {
        let id = new_session_id().unwrap();
        assert!(is_session_id(&id), "{id}");
        assert!(!is_session_id("s_123"));
        assert!(!is_session_id("x_00000000000000000000000000000000"));
    }
}
