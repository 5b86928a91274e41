//! The per-user session host: one background process holding every session, answering
//! newline-delimited JSON-RPC on a private Unix socket (`docs/host-protocol.md`).
//!
//! Ordering: requests run one at a time, in arrival order, on one executor thread; a compound
//! `send` is one request. `wait` long-polls on its connection's own thread, so it never holds
//! the executor. Ended sessions are written to the state directory (temp file + rename) before
//! any reply reports them as ended, so they survive a host restart, even a SIGKILL.

use std::collections::BTreeMap;
use std::io::{BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use regex::RegexBuilder;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::lines::{Line, read_line, rfc3339};
use crate::pty::ColorEnvFlags;
use crate::rpc::{self, MAX_LINE, code};
use crate::term::{Snapshot, Terminal};

use super::error::{ErrorCode, SessionError};
use super::hangup::HangupWatch;
use super::instance::{Outcome, STOP_GRACE, Session, SessionSpec, State, StopReason, check_size};
use super::paths;
use super::protocol::{
    HistoryLine, HistoryParams, HistoryReply, IdParams, Lifecycle, ListParams, ListReply,
    PingReply, ReadParams, ReadReply, ResizeParams, ResizeReply, Response, ScreenReply, SendParams,
    SendReply, SessionSummary, StartParams, StartReply, StopFailure, StopParams, StopReply,
    StoppedProcesses, WaitParams, params,
};
use super::rows::{Rows, RowsError};
use super::wait::{Target, Until, WaitCondition, WaitResult, wait};

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
    title: Option<String>,
    group: Option<String>,
    cwd: String,
    created_at: SystemTime,
    retain: Duration,
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

/// A screen to report on: a live session's terminal, or an ended session's final snapshot.
enum ScreenSource<'a> {
    Live(&'a Terminal),
    Ended(&'a Snapshot),
}

impl ScreenSource<'_> {
    /// The full snapshot (built only when asked for: it costs far more than the text).
    fn snapshot(&self) -> Snapshot {
        match self {
            ScreenSource::Live(term) => term.snapshot(),
            ScreenSource::Ended(snapshot) => (*snapshot).clone(),
        }
    }

    /// The `screen` object of `read` and `wait`.
    fn screen(&self, p: &ReadParams) -> Result<ScreenReply, SessionError> {
        let rows = Rows::parse(p.top, p.bottom, p.start, p.end, 0).map_err(|e| {
            SessionError::invalid_request(match e {
                RowsError::Several => "use one of --top, --bottom and --start/--end",
                RowsError::Reversed => "--start is after --end",
                RowsError::Unpaired => "--start and --end go together",
            })
        })?;
        let blank =
            |width, height, (cursor_row, cursor_column, cursor_visible), alt, scrollback| {
                ScreenReply {
                    cursor_column,
                    cursor_row,
                    cursor_visible,
                    height,
                    is_alternate_screen: alt,
                    scope: "viewport".into(),
                    scrollback_rows: scrollback,
                    structured: None,
                    text: String::new(),
                    truncated: false,
                    width,
                }
            };
        let (all_text, mut screen) = match self {
            ScreenSource::Live(term) => {
                let s = term.screen();
                let cursor = s.cursor();
                (
                    term.text(),
                    blank(
                        term.width(),
                        term.height(),
                        (cursor.row, cursor.col, s.modes().cursor_visible),
                        s.is_alternate_screen(),
                        s.scrollback().len(),
                    ),
                )
            }
            ScreenSource::Ended(snapshot) => (
                snapshot.text(),
                blank(
                    snapshot.width as usize,
                    snapshot.height as usize,
                    (
                        snapshot.cursor.row as usize,
                        snapshot.cursor.col as usize,
                        snapshot.cursor.visible,
                    ),
                    snapshot.alternate_screen,
                    snapshot.scrollback_lines as usize,
                ),
            ),
        };
        let mut text = rows.select(&all_text);
        let truncated = text.chars().count() > MAX_SCREEN_CHARS;
        if truncated {
            let cut = text
                .char_indices()
                .nth(MAX_SCREEN_CHARS)
                .map_or(text.len(), |(i, _)| i);
            text.truncate(cut);
        }
        screen.text = text;
        screen.truncated = truncated;
        if p.structured {
            // Through a JSON value, whose keys are sorted, as this reply has always had them.
            screen.structured = Some(json!(self.snapshot()));
        }
        Ok(screen)
    }
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

/// Work finished off the executor, whose result is the reply.
type Deferred = Box<dyn FnOnce() -> Result<Value, SessionError> + Send>;

/// What a method gives the executor.
enum Answer {
    /// The result, serialised.
    Now(Box<RawValue>),
    /// Work to finish on a thread of its own (it holds no lock the executor needs).
    Later(Deferred),
}

/// Work for the executor, done one at a time in arrival order.
enum Job {
    /// A request and where its response goes.
    Request(rpc::Request, SyncSender<Response>),
    /// End the process if the host is idle. Queued behind requests, so a request that arrived
    /// first is answered first (and makes the host busy again) rather than cut short.
    ExitIfIdle,
}

fn millis(ms: Option<u64>) -> Option<Duration> {
    ms.map(Duration::from_millis)
}

fn session_file(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
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

fn is_valid_id(id: &str) -> bool {
    id.strip_prefix("s_")
        .is_some_and(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// URLs of local services seen in output (`http://localhost:5173`). A server listening on
/// every address prints `0.0.0.0` or `[::]`, which a browser may refuse: the `localhost` form
/// is listed too.
fn detect_urls(text: &str) -> Vec<String> {
    static URL: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let Some(re) = URL
        .get_or_init(|| {
            regex::Regex::new(r#"https?://[A-Za-z0-9.\-\[\]:]+(?::\d+)?(?:/[^\s"'<>]*)?"#).ok()
        })
        .as_ref()
    else {
        return Vec::new();
    };
    let mut urls: Vec<String> = re
        .find_iter(text)
        .map(|m| m.as_str().trim_end_matches(['.', ',', ')', ';']).to_owned())
        .collect();
    let local: Vec<String> = urls.iter().filter_map(|url| localhost_form(url)).collect();
    urls.extend(local);
    urls.sort();
    urls.dedup();
    urls.truncate(20);
    urls
}

/// `url` with a wildcard host (`0.0.0.0`, `[::]`) replaced by `localhost`.
fn localhost_form(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    ["0.0.0.0", "[::]"].iter().find_map(|wildcard| {
        let after = rest.strip_prefix(wildcard)?;
        (after.is_empty() || after.starts_with([':', '/']))
            .then(|| format!("{scheme}://localhost{after}"))
    })
}

/// How many of `lines` were written: the blank rows below the last written line are screen,
/// not output.
fn written_lines(lines: &[(u64, String)]) -> usize {
    lines
        .iter()
        .rposition(|(_, t)| !t.is_empty())
        .map_or(0, |i| i + 1)
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
                let _ = std::fs::remove_file(&path);
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
            let _ = std::fs::remove_file(session_file(&self.state_dir, &id));
            self.note_expired(id);
        }
    }

    fn lookup(&self, id: &str) -> Result<Entry, SessionError> {
        if !is_valid_id(id) {
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
        };
        drop(live);
        self.write_record(&record)?;
        let record = Arc::new(record);
        *slot = RecordSlot::Written(Arc::clone(&record));
        if let Some(e) = self.entries().get_mut(&record.session_id)
            && matches!(e, Entry::Live(l) if Arc::ptr_eq(&l.session, &entry.session))
        {
            *e = Entry::Ended(Arc::clone(&record));
        }
        Ok(Some(record))
    }

    fn write_record(&self, record: &Record) -> Result<(), SessionError> {
        let json = serde_json::to_vec(record)
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.state_dir)
            .map_err(|e| SessionError::io("cannot write the session state", e))?;
        tmp.write_all(&json)
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(|e| SessionError::io("cannot write the session state", e))?;
        tmp.persist(session_file(&self.state_dir, &record.session_id))
            .map_err(|e| SessionError::io("cannot write the session state", e.error))?;
        Ok(())
    }

    // ----- methods ------------------------------------------------------------------------

    fn start(self: &Arc<Self>, p: StartParams) -> Result<StartReply, SessionError> {
        let width = p.width.unwrap_or(100);
        let height = p.height.unwrap_or(24);
        check_size(width, height)?;
        let scrollback = p.scrollback.unwrap_or(5000);
        if !(100..=200_000).contains(&scrollback) {
            return Err(SessionError::invalid_request(format!(
                "scrollback {scrollback} is outside 100–200000"
            )));
        }
        if p.command.is_empty() {
            return Err(SessionError::invalid_request(
                "no command to run (give it after --)",
            ));
        }
        let cwd = match &p.cwd {
            Some(c) => PathBuf::from(c),
            None => {
                std::env::current_dir().map_err(|e| SessionError::io("no working directory", e))?
            }
        };
        let warnings: Vec<String> = p
            .ports
            .iter()
            .filter(|&&port| std::net::TcpListener::bind(("127.0.0.1", port)).is_err())
            .map(|port| format!("port {port} is already in use"))
            .collect();
        let closing = self.closing.read().unwrap_or_else(|e| e.into_inner());
        if *closing {
            return Err(SessionError::new(
                ErrorCode::HostUnavailable,
                "the session host is shutting down",
            ));
        }
        let id = new_session_id()?;
        let spec = SessionSpec {
            command: p.command.clone(),
            width,
            height,
            cwd: Some(cwd.clone()),
            env: p.env.clone(),
            color_env: ColorEnvFlags {
                no_colorenv: p.no_colorenv,
                no_delete_envs: p.no_delete_envs,
            },
            scrollback,
            timeout: millis(p.timeout_ms),
        };
        let session = Session::start(id.clone(), spec)?;
        let meta = Meta {
            command: p.command,
            title: p.title,
            group: p.group,
            cwd: cwd.display().to_string(),
            created_at: SystemTime::now(),
            retain: millis(p.retain_ms).unwrap_or(DEFAULT_RETAIN),
        };
        let entry = Arc::new(LiveEntry {
            session: Arc::clone(&session),
            meta,
            record: Mutex::new(RecordSlot::Pending),
            derived: Mutex::new(None),
        });
        self.entries()
            .insert(id.clone(), Entry::Live(Arc::clone(&entry)));
        drop(closing);
        // The session's own thread writes its record when it ends: no thread waits for that.
        let host = Arc::clone(self);
        session.on_end(Box::new(move || {
            let _ = host.record_if_ended(&entry);
            host.touch();
        }));
        let state = session.lock().state;
        Ok(StartReply {
            height,
            process_id: session.pid(),
            session_id: id,
            state,
            warnings,
            width,
        })
    }

    fn touch(&self) {
        *self.last_activity.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn summary(&self, id: &str, entry: &Entry) -> SessionSummary {
        match entry {
            Entry::Live(l) => {
                let live = l.session.lock();
                let mut derived = l.derived.lock().unwrap_or_else(|e| e.into_inner());
                let Derived {
                    urls, output_lines, ..
                } = match derived.as_ref().filter(|d| d.version == live.version) {
                    Some(d) => d.clone(),
                    None => {
                        let rows: Vec<_> = live.term.history().map(|(_, row)| row).collect();
                        let d = Derived {
                            version: live.version,
                            urls: detect_urls(&live.term.text()),
                            output_lines: rows
                                .iter()
                                .rposition(|row| !row.text().is_empty())
                                .map_or(0, |i| i + 1),
                        };
                        *derived = Some(d.clone());
                        d
                    }
                };
                SessionSummary {
                    command: l.meta.command.clone(),
                    created_at: rfc3339(l.meta.created_at),
                    cwd: l.meta.cwd.clone(),
                    exit_code: live.exit_code,
                    expires_at: None,
                    group: l.meta.group.clone(),
                    height: live.term.height(),
                    outcome: None,
                    output_lines,
                    process_id: l.session.pid(),
                    session_id: id.to_owned(),
                    signal: live.signal.clone(),
                    state: live.state,
                    stop_reason: None,
                    title: l
                        .meta
                        .title
                        .clone()
                        .unwrap_or_else(|| live.term.screen().title().to_owned()),
                    updated_at: rfc3339(live.updated_at),
                    urls,
                    width: live.term.width(),
                }
            }
            Entry::Ended(r) => SessionSummary {
                command: r.meta.command.clone(),
                created_at: rfc3339(r.meta.created_at),
                cwd: r.meta.cwd.clone(),
                exit_code: r.exit_code,
                expires_at: Some(rfc3339(r.expires_at)),
                group: r.meta.group.clone(),
                height: r.snapshot.height as usize,
                outcome: Some(r.outcome),
                output_lines: written_lines(&r.history),
                process_id: r.process_id,
                session_id: id.to_owned(),
                signal: r.signal.clone(),
                state: r.state,
                stop_reason: Some(r.stop_reason),
                title: r
                    .meta
                    .title
                    .clone()
                    .unwrap_or_else(|| r.snapshot.title.clone()),
                updated_at: rfc3339(r.updated_at),
                urls: detect_urls(&r.snapshot.text()),
                width: r.snapshot.width as usize,
            },
        }
    }

    fn list(&self, p: ListParams) -> Result<ListReply, SessionError> {
        self.sweep();
        let state = match &p.state {
            Some(s) => Some(
                serde_json::from_value::<State>(json!(s))
                    .map_err(|_| SessionError::invalid_request(format!("unknown state {s:?}")))?,
            ),
            None => None,
        };
        let entries: Vec<(String, Entry)> = self
            .entries()
            .iter()
            .map(|(id, e)| {
                (
                    id.clone(),
                    match e {
                        Entry::Live(l) => Entry::Live(Arc::clone(l)),
                        Entry::Ended(r) => Entry::Ended(Arc::clone(r)),
                    },
                )
            })
            .collect();
        let mut sessions = Vec::new();
        for (id, entry) in entries {
            // An ended session is described by its record (written here if not yet).
            let entry = match entry {
                Entry::Live(l) => match self.record_if_ended(&l)? {
                    Some(record) => Entry::Ended(record),
                    None => Entry::Live(l),
                },
                ended => ended,
            };
            let summary = self.summary(&id, &entry);
            let ended = matches!(
                summary.state,
                State::Exited | State::Stopped | State::Unavailable
            );
            let shown = match (&p.group, state) {
                (Some(group), _) if summary.group.as_ref() != Some(group) => false,
                (_, Some(state)) => summary.state == state,
                _ => !ended || p.all,
            };
            if shown {
                sessions.push(summary);
            }
        }
        Ok(ListReply { sessions })
    }

    /// The session's screen, settled first if asked, given to `view` (a live terminal or an
    /// ended session's final snapshot), with the lifecycle fields.
    fn current<T>(
        &self,
        id: &str,
        settle_output: bool,
        view: impl FnOnce(ScreenSource<'_>) -> T,
    ) -> Result<(T, Lifecycle), SessionError> {
        match self.lookup(id)? {
            Entry::Live(l) => {
                if let Some(r) = self.record_if_ended(&l)? {
                    return Ok((
                        view(ScreenSource::Ended(&r.snapshot)),
                        Self::status_fields(&r),
                    ));
                }
                let session = &l.session;
                let live = if settle_output {
                    session.settle(READ_SETTLE_MAX)
                } else {
                    session.lock()
                };
                let fields = Lifecycle {
                    exit_code: live.exit_code,
                    process_id: session.pid(),
                    session_id: id.to_owned(),
                    signal: live.signal.clone(),
                    state: live.state,
                    version: live.version,
                };
                Ok((view(ScreenSource::Live(&live.term)), fields))
            }
            Entry::Ended(r) => Ok((
                view(ScreenSource::Ended(&r.snapshot)),
                Self::status_fields(&r),
            )),
        }
    }

    fn status_fields(r: &Record) -> Lifecycle {
        Lifecycle {
            exit_code: r.exit_code,
            process_id: r.process_id,
            session_id: r.session_id.clone(),
            signal: r.signal.clone(),
            state: r.state,
            version: r.version,
        }
    }

    fn read(&self, p: ReadParams) -> Result<ReadReply, SessionError> {
        let (screen, fields) = self.current(&p.session_id, true, |s| s.screen(&p))?;
        Ok(ReadReply::new(fields, screen?))
    }

    fn snapshot(&self, p: IdParams) -> Result<Value, SessionError> {
        let (snapshot, fields) = self.current(&p.session_id, true, |s| s.snapshot())?;
        let mut fields = json!(fields);
        let title = match self.lookup(&p.session_id)? {
            Entry::Live(l) => l.meta.title.clone(),
            Entry::Ended(r) => r.meta.title.clone(),
        };
        fields["title"] = json!(title);
        fields["snapshot"] = json!(snapshot);
        Ok(fields)
    }

    fn live_session(&self, id: &str) -> Result<Arc<Session>, SessionError> {
        match self.lookup(id)? {
            Entry::Live(l) if !l.session.lock().state.is_ended() => Ok(Arc::clone(&l.session)),
            _ => Err(SessionError::new(
                ErrorCode::SessionExited,
                format!("session {id} has ended"),
            )),
        }
    }

    fn send(&self, p: SendParams) -> Result<SendReply, SessionError> {
        let session = self.live_session(&p.session_id)?;
        if p.steps.is_empty() {
            return Err(SessionError::invalid_request("nothing to send"));
        }
        let written = session.send(&p.steps)?;
        let state = session.lock().state;
        Ok(SendReply {
            session_id: p.session_id,
            state,
            written,
        })
    }

    fn resize(&self, p: ResizeParams) -> Result<ResizeReply, SessionError> {
        let session = self.live_session(&p.session_id)?;
        session.resize(p.width, p.height)?;
        Ok(ResizeReply {
            height: p.height,
            session_id: p.session_id,
            width: p.width,
        })
    }

    fn history(&self, p: HistoryParams) -> Result<HistoryReply, SessionError> {
        let (lines, dropped): (Vec<(u64, String)>, u64) = match self.lookup(&p.session_id)? {
            Entry::Live(l) => match self.record_if_ended(&l)? {
                Some(r) => (r.history.clone(), r.dropped),
                None => {
                    let live = l.session.lock();
                    let dropped = live.term.screen().scrollback().dropped();
                    (
                        live.term.history().map(|(i, r)| (i, r.text())).collect(),
                        dropped,
                    )
                }
            },
            Entry::Ended(r) => (r.history.clone(), r.dropped),
        };
        let lines = &lines[..written_lines(&lines)];
        let grep = p
            .grep
            .as_deref()
            .map(|g| {
                RegexBuilder::new(g)
                    .case_insensitive(p.ignore_case)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| {
                        SessionError::new(ErrorCode::InvalidCondition, format!("bad regex: {e}"))
                    })
            })
            .transpose()?;
        let limit = p.limit.unwrap_or(200).clamp(1, 10_000);
        let from = p.from.unwrap_or(0);
        let mut selected: Vec<&(u64, String)> = lines
            .iter()
            .filter(|(i, t)| *i >= from && grep.as_ref().is_none_or(|g| g.is_match(t)))
            .collect();
        if let Some(n) = p.tail {
            let skip = selected.len().saturating_sub(n);
            selected.drain(..skip);
        }
        let truncated = selected.len() > limit;
        let next = selected.get(limit).map(|(i, _)| *i);
        let lines = selected
            .iter()
            .take(limit)
            .map(|(index, text)| HistoryLine {
                index: *index,
                text: text.clone(),
            })
            .collect();
        Ok(HistoryReply {
            dropped,
            lines,
            next,
            session_id: p.session_id,
            truncated,
        })
    }

    fn stop(self: &Arc<Self>, p: StopParams) -> Result<Deferred, SessionError> {
        let targets: Vec<String> = if p.all || p.group.is_some() {
            if !p.session_ids.is_empty() {
                return Err(SessionError::invalid_request(
                    "give ids, --all or --group, not several",
                ));
            }
            self.entries()
                .iter()
                .filter(|(_, e)| match (&p.group, e) {
                    (None, _) => true,
                    (Some(g), Entry::Live(l)) => l.meta.group.as_ref() == Some(g),
                    (Some(g), Entry::Ended(r)) => r.meta.group.as_ref() == Some(g),
                })
                .map(|(id, _)| id.clone())
                .collect()
        } else if p.session_ids.is_empty() {
            return Err(SessionError::invalid_request(
                "give a session id, --all or --group",
            ));
        } else {
            p.session_ids.clone()
        };
        // On the executor, only what is quick: each session is `stopping` from here on, so
        // no input reaches it and no record of it is written. Its tree is signalled and given
        // its grace period off the executor, all trees together.
        let mut stopping = Vec::new();
        let mut failed = Vec::new();
        for id in targets {
            match self.lookup(&id) {
                Ok(entry) => {
                    let before = match &entry {
                        Entry::Live(l) => {
                            let before =
                                std::mem::replace(&mut *l.record_slot(), RecordSlot::Deleted);
                            l.session.mark_stopping(StopReason::User);
                            Some(before)
                        }
                        Entry::Ended(_) => None,
                    };
                    stopping.push((id, entry, before));
                }
                Err(e) => failed.push(StopFailure {
                    code: e.code,
                    message: e.message,
                    session_id: id,
                }),
            }
        }
        let host = Arc::clone(self);
        Ok(Box::new(move || {
            serde_json::to_value(host.finish_stops(stopping, failed))
                .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))
        }))
    }

    /// Ends the trees of sessions marked stopping, with one grace period for all, and deletes
    /// every trace of them, on disk too; a session that cannot be ended is kept and reported.
    fn finish_stops(
        &self,
        stopping: Vec<(String, Entry, Option<RecordSlot>)>,
        mut failed: Vec<StopFailure>,
    ) -> StopReply {
        let live: Vec<&Session> = stopping
            .iter()
            .filter_map(|(_, entry, _)| match entry {
                Entry::Live(l) => Some(&*l.session),
                Entry::Ended(_) => None,
            })
            .collect();
        let mut ended = Session::stop_all(&live, StopReason::User, STOP_GRACE).into_iter();
        let mut stopped = Vec::new();
        let mut processes = Vec::new();
        for (id, entry, before) in stopping {
            let result = match &entry {
                Entry::Live(_) => ended.next().unwrap_or(Ok(None)),
                Entry::Ended(_) => Ok(None),
            };
            let result = result.and_then(|ended| {
                self.entries().remove(&id);
                match std::fs::remove_file(session_file(&self.state_dir, &id)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        Err(SessionError::io("cannot delete the session's record", e))
                    }
                    _ => Ok(ended),
                }
            });
            match result {
                Ok(ended) => {
                    let (ended, killed) =
                        ended.map_or_else(Default::default, |t| (t.ended, t.killed));
                    processes.push(StoppedProcesses {
                        killed,
                        process_ids: ended,
                        session_id: id.clone(),
                    });
                    stopped.push(id);
                }
                Err(e) => {
                    if let (Entry::Live(l), Some(before)) = (&entry, before) {
                        *l.record_slot() = before;
                    }
                    failed.push(StopFailure {
                        code: e.code,
                        message: e.message,
                        session_id: id,
                    });
                }
            }
        }
        self.touch();
        StopReply {
            failed,
            processes,
            stopped,
        }
    }

    fn wait(
        &self,
        p: WaitParams,
        cancel: &AtomicBool,
        on_session: impl FnOnce(Arc<Session>),
    ) -> Result<Value, SessionError> {
        let until = match p.until.as_deref() {
            None | Some("present") => Until::Present,
            Some("absent") => Until::Absent,
            Some(other) => {
                return Err(SessionError::new(
                    ErrorCode::InvalidCondition,
                    format!("--until must be present or absent, not {other:?}"),
                ));
            }
        };
        let targets = [
            p.text.is_some(),
            p.regex.is_some(),
            p.idle_ms.is_some(),
            p.exit,
        ];
        if targets.iter().filter(|t| **t).count() != 1 {
            return Err(SessionError::new(
                ErrorCode::InvalidCondition,
                "give exactly one of --text, --regex, --idle and --exit",
            ));
        }
        let target = match (&p.text, &p.regex, p.idle_ms) {
            (Some(t), ..) if t.is_empty() => {
                return Err(SessionError::new(
                    ErrorCode::InvalidCondition,
                    "--text is empty",
                ));
            }
            (Some(t), ..) => Target::Text(t.clone()),
            (_, Some(r), _) => WaitCondition::regex(r)?,
            (_, _, Some(ms)) => Target::Idle(Duration::from_millis(ms)),
            _ => Target::Exit,
        };
        let condition = WaitCondition {
            target,
            until,
            stable_for: millis(p.stable_for_ms),
            timeout: millis(p.timeout_ms),
        };
        let entry = self.lookup(&p.session_id)?;
        let (result, waited, version, session) = match entry {
            Entry::Live(l) => {
                on_session(Arc::clone(&l.session));
                let o = wait(&l.session, &condition, cancel);
                (o.result, o.waited, o.version, Some(l))
            }
            // An ended session cannot change: evaluate once.
            Entry::Ended(r) => {
                let text = r.snapshot.text();
                let holds = match &condition.target {
                    Target::Text(t) => until == Until::Present && text.contains(t.as_str()),
                    Target::Regex(re) => until == Until::Present && re.is_match(&text),
                    Target::Idle(_) | Target::Exit => true,
                };
                let result = if holds {
                    WaitResult::Matched
                } else {
                    WaitResult::SessionEnded
                };
                (result, Duration::ZERO, r.version, None)
            }
        };
        if let Some(l) = &session {
            self.record_if_ended(l)?;
        }
        let read = ReadParams {
            session_id: p.session_id.clone(),
            ..ReadParams::default()
        };
        let (screen, fields) = self.current(&p.session_id, false, |s| s.screen(&read))?;
        let mut reply = json!({
            "sessionId": p.session_id,
            "result": result,
            "until": until,
            "text": p.text.or(p.regex),
            "matched": result == WaitResult::Matched,
            "timedOut": result == WaitResult::Timeout,
            "waitedMs": waited.as_millis() as u64,
            "version": version,
            "state": fields.state,
            "screen": screen?,
        });
        let error = match result {
            WaitResult::Matched => None,
            WaitResult::Timeout => {
                Some((ErrorCode::WaitTimeout, "the condition was not met in time"))
            }
            WaitResult::SessionEnded => Some((ErrorCode::SessionExited, "the session ended first")),
            WaitResult::Cancelled => Some((ErrorCode::Cancelled, "the wait was cancelled")),
        };
        if let Some((code, message)) = error {
            reply["status"] = json!("error");
            reply["error"] = json!({ "code": code, "message": message });
        }
        Ok(reply)
    }

    /// Runs one request (everything but `wait`) and sends its response to `reply`: on the
    /// executor, or on the connection's thread for [`Host::answered_on_connection`] methods. A panic
    /// inside it becomes a `session_error` reply: whatever one request does, the host keeps
    /// serving everyone. Work that takes long (a stop's grace period) is finished on a thread
    /// of its own, which replies when done; the executor goes on with the next request.
    fn execute(self: &Arc<Self>, request: rpc::Request, reply: SyncSender<Response>) {
        self.touch();
        let id = request.id.clone();
        let method = request.method.clone();
        let result = match catch_panic(&method, || self.dispatch(request)) {
            Ok(Some(Ok(Answer::Later(work)))) => {
                let worker = {
                    let (id, method, reply) = (id.clone(), method.clone(), reply.clone());
                    move || {
                        let result = catch_panic(&method, work).and_then(|r| r);
                        let _ = reply.send(Response::from_result(id, result));
                    }
                };
                match std::thread::Builder::new()
                    .name(format!("shotty-{method}"))
                    .spawn(worker)
                {
                    Ok(_) => return,
                    Err(e) => Err(SessionError::io("cannot start a worker thread", e)),
                }
            }
            Ok(Some(Ok(Answer::Now(v)))) => Ok(v),
            Ok(Some(Err(e))) | Err(e) => Err(e),
            Ok(None) => {
                let e = SessionError::invalid_request(format!("unknown method {method:?}"));
                let _ = reply.send(Response::rpc_err(id, code::METHOD_NOT_FOUND, &e));
                return;
            }
        };
        let _ = reply.send(Response::from_result(id, result));
    }

    /// Whether `method` is answered on its connection's thread rather than by the executor:
    /// those that only read (a `list` of a thousand sessions, a `read` that waits for the
    /// screen to settle) never hold up the other clients' requests. `ping` stays with the
    /// executor: its answer tells that the executor is alive.
    fn answered_on_connection(method: &str) -> bool {
        matches!(method, "list" | "read" | "snapshot" | "history")
    }

    /// The method's outcome; `None` for an unknown method. (`wait` never comes here: it is
    /// answered on its connection's thread.)
    fn dispatch(self: &Arc<Self>, request: rpc::Request) -> Option<Result<Answer, SessionError>> {
        if self.panic_in.as_deref() == Some(request.method.as_str()) {
            panic!("{PANIC_HOOK_ENV} asked for a panic in {:?}", request.method);
        }
        let p = Value::Object(request.params);
        fn now(r: Result<impl Serialize, SessionError>) -> Result<Answer, SessionError> {
            let result = r?;
            serde_json::value::to_raw_value(&result)
                .map(Answer::Now)
                .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))
        }
        Some(match request.method.as_str() {
            "start" => now(params(p).and_then(|p| self.start(p))),
            "read" => now(params(p).and_then(|p| self.read(p))),
            "snapshot" => now(params(p).and_then(|p| self.snapshot(p))),
            "send" => now(params(p).and_then(|p| self.send(p))),
            "resize" => now(params(p).and_then(|p| self.resize(p))),
            "history" => now(params(p).and_then(|p| self.history(p))),
            "list" => now(params(p).and_then(|p| self.list(p))),
            "stop" => params(p).and_then(|p| self.stop(p)).map(Answer::Later),
            "ping" => now(Ok(PingReply {
                pid: std::process::id(),
            })),
            _ => return None,
        })
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

    /// Stops every live session (host shutdown), all trees together with one grace period,
    /// and writes their records.
    fn shutdown(&self) {
        *self.closing.write().unwrap_or_else(|e| e.into_inner()) = true;
        let live: Vec<Arc<LiveEntry>> = self
            .entries()
            .values()
            .filter_map(|e| match e {
                Entry::Live(l) => Some(Arc::clone(l)),
                Entry::Ended(_) => None,
            })
            .collect();
        let sessions: Vec<&Session> = live.iter().map(|l| &*l.session).collect();
        Session::stop_all(&sessions, StopReason::Shutdown, STOP_GRACE);
        for l in &live {
            let _ = self.record_if_ended(l);
        }
    }
}

/// Runs `f`, turning a panic into a `session_error` that names `method`.
fn catch_panic<T>(method: &str, f: impl FnOnce() -> T) -> Result<T, SessionError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_owned());
        SessionError::new(
            ErrorCode::SessionError,
            format!("internal error in {method}: {what} (the host keeps running)"),
        )
    })
}

/// Refuses connections from other users.
fn peer_is_us(stream: &UnixStream) -> bool {
    rustix::net::sockopt::socket_peercred(stream)
        .is_ok_and(|cred| cred.uid == rustix::process::getuid())
}

fn write_response(stream: &mut UnixStream, response: &Response) -> bool {
    let Ok(mut line) = serde_json::to_vec(response) else {
        return false;
    };
    line.push(b'\n');
    stream
        .write_all(&line)
        .and_then(|()| stream.flush())
        .is_ok()
}

fn serve_connection(host: Arc<Host>, stream: UnixStream, jobs: SyncSender<Job>) {
    let Ok(reader_stream) = stream.try_clone() else {
        return;
    };
    let mut writer = stream;
    let mut reader = BufReader::new(reader_stream);
    let mut buf = Vec::new();
    loop {
        let line = match read_line(&mut reader, &mut buf, MAX_LINE) {
            Ok(Line::Eof) | Err(_) => return,
            Ok(Line::TooLong) => {
                let e = SessionError::invalid_request(format!(
                    "request line longer than {MAX_LINE} bytes"
                ));
                let reply = Response::rpc_err(Value::Null, code::INVALID_REQUEST, &e);
                if !write_response(&mut writer, &reply) {
                    return;
                }
                continue;
            }
            Ok(Line::Complete) => &buf,
        };
        if line.trim_ascii().is_empty() {
            continue;
        }
        let request = match rpc::parse_request(line) {
            Ok(r) => r,
            Err((id, e)) => {
                let err = SessionError::invalid_request(e.message);
                if !write_response(&mut writer, &Response::rpc_err(id, e.code, &err)) {
                    return;
                }
                continue;
            }
        };
        let response = if request.method == "wait" {
            host.touch();
            let id = request.id.clone();
            // The client hanging up cancels its wait.
            let cancel = Arc::new(AtomicBool::new(false));
            let watched: Arc<Mutex<Option<Arc<Session>>>> = Arc::new(Mutex::new(None));
            let watch = writer.try_clone().ok().and_then(|probe| {
                let cancel = Arc::clone(&cancel);
                let watched = Arc::clone(&watched);
                HangupWatch::start(probe, move || {
                    cancel.store(true, Ordering::SeqCst);
                    if let Some(s) = watched.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                        s.notify();
                    }
                })
                .ok()
            });
            let result = catch_panic("wait", || {
                params(Value::Object(request.params)).and_then(|p| {
                    host.wait(p, &cancel, |s| {
                        *watched.lock().unwrap_or_else(|e| e.into_inner()) = Some(s);
                    })
                })
            })
            .and_then(|r| r);
            let response = Response::from_result(id, result);
            drop(watch);
            // One request per connection for wait.
            let _ = write_response(&mut writer, &response);
            let _ = writer.shutdown(std::net::Shutdown::Both);
            return;
        } else {
            let (tx, rx) = mpsc::sync_channel(1);
            if Host::answered_on_connection(&request.method) {
                host.execute(request, tx);
            } else if jobs.send(Job::Request(request, tx)).is_err() {
                return;
            }
            match rx.recv() {
                Ok(r) => r,
                Err(_) => return,
            }
        };
        if !write_response(&mut writer, &response) {
            return;
        }
    }
}

fn executor(host: Arc<Host>, jobs: Receiver<Job>, socket: &Path) {
    for job in jobs {
        match job {
            Job::Request(request, reply) => {
                if host.panic_in.as_deref() == Some("executor") && request.method == "ping" {
                    panic!("{PANIC_HOOK_ENV} asked for the executor to fail");
                }
                host.execute(request, reply);
            }
            Job::ExitIfIdle => {
                if host.is_idle() {
                    // Connections not yet answered are closed unread by the exit; their
                    // clients start a new host and send again.
                    let _ = std::fs::remove_file(socket);
                    std::process::exit(0);
                }
            }
        }
    }
}

/// Runs the host until it has been idle (no live sessions, no requests) for its idle time.
/// The caller holds the host lock; `socket` is bound here (0600) and removed on exit.
pub fn run(socket: &Path, state_dir: PathBuf, idle_exit: Duration) -> Result<(), SessionError> {
    raise_open_file_limit();
    let host = Arc::new(Host::new(socket, state_dir, idle_exit)?);
    let _ = std::fs::remove_file(socket);
    let listener = UnixListener::bind(socket)
        .map_err(|e| SessionError::io(&format!("cannot listen on {}", socket.display()), e))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| SessionError::io("cannot protect the socket", e))?;
    let (jobs_tx, jobs_rx) = mpsc::sync_channel::<Job>(64);
    {
        let host = Arc::clone(&host);
        let socket = socket.to_path_buf();
        std::thread::Builder::new()
            .name("shotty-executor".into())
            .spawn(move || {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    executor(Arc::clone(&host), jobs_rx, &socket)
                }));
                // The executor cannot end otherwise: a host that can no longer execute must
                // not linger holding the socket. Its sessions are kept as records, and the
                // next command starts a fresh host that finds them.
                host.shutdown();
                let _ = std::fs::remove_file(&socket);
                std::process::exit(70);
            })
            .map_err(|e| SessionError::io("cannot start the executor", e))?;
    }
    {
        let host = Arc::clone(&host);
        let socket = socket.to_path_buf();
        let jobs = jobs_tx.clone();
        std::thread::Builder::new()
            .name("shotty-housekeeper".into())
            .spawn(move || housekeeper(&host, &socket, &jobs))
            .map_err(|e| SessionError::io("cannot start the housekeeper", e))?;
    }
    {
        // SIGINT, SIGTERM, SIGHUP: stop every session (reason `shutdown`, records written),
        // then leave.
        let host = Arc::clone(&host);
        let socket = socket.to_path_buf();
        let _ = crate::signals::on_termination(move || {
            host.shutdown();
            let _ = std::fs::remove_file(&socket);
            std::process::exit(0);
        });
    }
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            continue;
        };
        if !peer_is_us(&stream) {
            continue;
        }
        let host = Arc::clone(&host);
        let jobs = jobs_tx.clone();
        let _ = std::thread::Builder::new()
            .name("shotty-conn".into())
            .spawn(move || serve_connection(host, stream, jobs));
    }
    Ok(())
}

/// Raises the soft limit on open files towards the hard one, to at most
/// [`OPEN_FILES_WANTED`]: each session holds three descriptors, and the usual soft limit of
/// 1024 would stop a host at about 300 sessions. (Sessions inherit the raised limit; it stays
/// moderate because some programs walk every possible descriptor at start.)
fn raise_open_file_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    let wanted = limit
        .maximum
        .map_or(OPEN_FILES_WANTED, |max| max.min(OPEN_FILES_WANTED));
    if limit.current.is_some_and(|current| current < wanted) {
        limit.current = Some(wanted);
        let _ = setrlimit(Resource::Nofile, limit);
    }
}

/// The soft limit on open files the host asks for.
const OPEN_FILES_WANTED: u64 = 16_384;

/// Ends the host process once it has been idle long enough (through the executor, see
/// [`Job::ExitIfIdle`]), or when its socket was removed (a newer host took over). Checked once
/// a second: this is housekeeping, not a reaction to anything a client waits for.
fn housekeeper(host: &Host, socket: &Path, jobs: &SyncSender<Job>) {
    loop {
        std::thread::sleep(Duration::from_secs(1).min(host.idle_exit));
        host.sweep();
        if std::fs::symlink_metadata(socket).is_err() {
            host.shutdown();
            std::process::exit(0);
        }
        if host.is_idle() {
            let _ = jobs.try_send(Job::ExitIfIdle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_on_every_address_is_also_offered_at_localhost() {
        let text =
            "Serving on http://0.0.0.0:8765/ and http://[::]:3000, see http://example.com/x.";
        assert_eq!(
            detect_urls(text),
            [
                "http://0.0.0.0:8765/",
                "http://[::]:3000",
                "http://example.com/x",
                "http://localhost:3000",
                "http://localhost:8765/",
            ]
        );
        assert_eq!(
            detect_urls("http://0.0.0.0.example/"),
            ["http://0.0.0.0.example/"]
        );
    }

    #[test]
    fn urls_are_found_and_deduplicated() {
        let text = "  VITE ready\n  ➜  Local:   http://localhost:5173/\n  ➜  Network: http://192.168.1.2:5173/ (http://localhost:5173/).";
        assert_eq!(
            detect_urls(text),
            ["http://192.168.1.2:5173/", "http://localhost:5173/"]
        );
    }

    #[test]
    fn ids_are_validated() {
        let id = new_session_id().unwrap();
        assert!(is_valid_id(&id), "{id}");
        assert!(!is_valid_id("s_123"));
        assert!(!is_valid_id("x_00000000000000000000000000000000"));
    }
}
