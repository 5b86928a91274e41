//! The host's methods: each request's params in, its typed reply out.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use regex::RegexBuilder;
use serde_json::json;

use crate::input::CastReader;
use crate::lines::rfc3339;
use crate::pty::ColorEnvFlags;
use crate::recording::Event;
use crate::session::output::{
    self, MAX_OUTPUT_REPLY, MAX_OUTPUT_WAIT_MS, OutputParams, OutputReply,
};
use crate::term::{FindScope, Snapshot, StyleFilter, Terminal};

/// Matches `find` returns at most.
const MAX_FIND_MATCHES: usize = 1000;
/// How long `output` with `screen` waits for the end of a string too long for a keyframe.
const KEYFRAME_WAIT: Duration = Duration::from_secs(1);

use crate::pty::new_tree_tag;
use crate::session::error::{ErrorCode, SessionError};
use crate::session::instance::{
    DEFAULT_RECORD_LIMIT, Live, STOP_GRACE, Session, SessionSpec, State, StopReason,
    check_record_limit, check_size, content_hash,
};
use crate::session::protocol::{
    CommandsParams, CommandsReply, ExportParams, ExportReply, FindParams, FindReply, GoldenParams,
    GoldenReply, GoldenVerdict, HistoryParams, HistoryReply, IdParams, JournalReply, Lifecycle,
    ListParams, ListReply, MarkParams, MarkReply, PromptState, ReadAnswer, ReadParams, ReadReply,
    ResizeParams, ResizeReply, ScreenReply, SendParams, SendReply, SessionSummary, SnapshotReply,
    StartParams, StartReply, StopFailure, StopParams, StopReply, StoppedProcesses, UnchangedReply,
    WaitError, WaitParams, WaitReply,
};
use crate::session::rows::{Rows, RowsError};
use crate::session::wait::{Target, Until, WaitCondition, WaitResult, wait};

use super::connection::Deferred;
use super::history::{self, LineQuery};
use super::leftovers::{LiveMark, remove_mark};
use super::owner::Owner;
use super::{
    DEFAULT_RETAIN, Derived, Entry, Host, LiveEntry, MAX_SCREEN_CHARS, Meta, READ_SETTLE_MAX,
    Record, RecordSlot, Start, cast_of, new_session_id, recording_file, remove_session_files,
};
use crate::session::golden::{Screen, Verdict};

/// A screen to report on: a live session's terminal, or an ended session's final snapshot.
enum ScreenSource<'a> {
    Live(&'a Terminal),
    /// The final snapshot and its content hash (`None` in records written before hashes).
    Ended(&'a Snapshot, Option<&'a str>),
}

impl ScreenSource<'_> {
    /// The full snapshot (built only when asked for: it costs far more than the text).
    pub(super) fn snapshot(&self) -> Snapshot {
        match self {
            ScreenSource::Live(term) => term.snapshot(),
            ScreenSource::Ended(snapshot, _) => (*snapshot).clone(),
        }
    }

    /// The content hash of `read` (see [`content_hash`]).
    fn hash(&self) -> String {
        match self {
            ScreenSource::Live(term) => content_hash(term),
            ScreenSource::Ended(_, hash) => hash.unwrap_or_default().to_owned(),
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
            ScreenSource::Ended(snapshot, _) => (
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
        if p.trim == Some(true) {
            text.truncate(text.trim_end_matches('\n').len());
        }
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

/// How long a `golden` comparison gives a running program to come to match, by default and at
/// most.
const DEFAULT_GOLDEN_TIMEOUT_MS: u64 = 5000;
const MAX_GOLDEN_TIMEOUT: Duration = Duration::from_secs(60);

/// Refuses an environment variable a program could not be given as asked: a key that is
/// empty or holds `=` (the program would see another variable) or a NUL (in a value too: it
/// would cut it short).
fn check_env_var(key: &str, value: &str) -> Result<(), SessionError> {
    let problem = if key.is_empty() {
        "an empty name"
    } else if key.contains('=') {
        "a name with '=' in it"
    } else if key.contains('\0') || value.contains('\0') {
        "a NUL character"
    } else {
        return Ok(());
    };
    Err(SessionError::invalid_request(format!(
        "environment variable {key:?}: {problem}"
    )))
}

fn millis(ms: Option<u64>) -> Option<Duration> {
    ms.map(Duration::from_millis)
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

/// The lines written since the start, from the global index of the last line with text:
/// those that scrolled out of the history count too, the blank rows below it do not.
fn lines_written(last_written: Option<u64>) -> usize {
    last_written.map_or(0, |index| usize::try_from(index + 1).unwrap_or(usize::MAX))
}

impl Host {
    pub(super) fn start(self: &Arc<Self>, p: StartParams) -> Result<StartReply, SessionError> {
        let width = p.width.unwrap_or(100);
        let height = p.height.unwrap_or(24);
        check_size(width, height)?;
        let owner = p.owner_pid.map(Owner::watch).transpose()?;
        for (key, value) in p.env.iter().chain(p.base_env.iter().flatten()) {
            check_env_var(key, value)?;
        }
        let scrollback = p.scrollback.unwrap_or(5000);
        if !(100..=200_000).contains(&scrollback) {
            return Err(SessionError::invalid_request(format!(
                "scrollback {scrollback} is outside 100–200000"
            )));
        }
        let record_limit = p.record_limit.unwrap_or(DEFAULT_RECORD_LIMIT as u64);
        let record_limit =
            check_record_limit(record_limit).map_err(SessionError::invalid_request)?;
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
        if let Some(name) = &p.name {
            self.check_unique_name(name)?;
        }
        let id = new_session_id()?;
        let mut spec = SessionSpec {
            command: p.command.clone(),
            width,
            height,
            cwd: Some(cwd.clone()),
            base_env: p.base_env.clone(),
            env: p.env.clone(),
            color_env: ColorEnvFlags {
                no_colorenv: p.no_colorenv,
                no_delete_envs: p.no_delete_envs,
            },
            scrollback,
            timeout: millis(p.timeout_ms),
            record_limit,
        };
        if p.shell_integration {
            let hooks = crate::session::paths::runtime_dir().join("shell-integration");
            crate::session::shell_integration::apply(&mut spec, &hooks)?;
        }
        let meta = Meta {
            // The base environment stays in memory, with the session's spec.
            start: Some(StartParams {
                base_env: None,
                ..p.clone()
            }),
            command: p.command.clone(),
            name: p.name.clone(),
            title: p.title.clone(),
            group: p.group.clone(),
            cwd: cwd.display().to_string(),
            created_at: SystemTime::now(),
            retain: millis(p.retain_ms).unwrap_or(DEFAULT_RETAIN),
        };
        // Marked before the spawn, so that a host killed during it leaves nothing unknown.
        let mark = LiveMark {
            session_id: id.clone(),
            host: self.socket.clone(),
            meta,
            width,
            height,
            tag: new_tree_tag(),
        };
        self.create_mark(&mark)?;
        let session = match Session::start_in_tree(id.clone(), spec, Some(&mark.tag)) {
            Ok(session) => session,
            Err(e) => {
                let _ = remove_mark(&self.state_dir, &id);
                return Err(e);
            }
        };
        // Without it a later host still finds the tree by its tag.
        if let Some(leader) = &session.process().tree_id().leader {
            let _ = self.mark_spawned(&id, leader);
        }
        let meta = mark.meta;
        let entry = Arc::new(LiveEntry {
            session: Arc::clone(&session),
            owner,
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
            name: p.name,
            ready: None,
            process_id: session.pid(),
            session_id: id,
            state,
            warnings,
            width,
        })
    }

    pub(super) fn touch(&self) {
        *self.last_activity.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    pub(super) fn summary(&self, id: &str, entry: &Entry) -> SessionSummary {
        match entry {
            Entry::Live(l) => {
                let live = l.session.lock();
                let mut derived = l.derived.lock().unwrap_or_else(|e| e.into_inner());
                let Derived {
                    urls, output_lines, ..
                } = match derived.as_ref().filter(|d| d.version == live.version) {
                    Some(d) => d.clone(),
                    None => {
                        let d = Derived {
                            version: live.version,
                            urls: detect_urls(&live.term.text()),
                            output_lines: lines_written(live.term.last_written_line()),
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
                    name: l.meta.name.clone(),
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
                name: r.meta.name.clone(),
                outcome: Some(r.outcome),
                output_lines: lines_written(history::last_written(&r.history)),
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

    pub(super) fn list(&self, p: ListParams) -> Result<ListReply, SessionError> {
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
            // Already resolved to an id (`resolve_params`).
            .filter(|(id, _)| p.session_id.as_ref().is_none_or(|only| only == *id))
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
                Entry::Live(l) => match self.ended_record(&l) {
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
                _ => !ended || p.all || p.session_id.is_some(),
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
            Entry::Live(l) => self.live_view(id, &l, settle_output, view),
            Entry::Ended(r) => Ok((
                view(ScreenSource::Ended(&r.snapshot, r.hash.as_deref())),
                Self::status_fields(&r),
            )),
        }
    }

    /// [`current`](Self::current) of a live entry in hand: also of one a `stop` has just
    /// removed from the registry, whose last screen and end are still there to be told.
    fn live_view<T>(
        &self,
        id: &str,
        l: &LiveEntry,
        settle_output: bool,
        view: impl FnOnce(ScreenSource<'_>) -> T,
    ) -> Result<(T, Lifecycle), SessionError> {
        if let Some(r) = self.ended_record(l) {
            return Ok((
                view(ScreenSource::Ended(&r.snapshot, r.hash.as_deref())),
                Self::status_fields(&r),
            ));
        }
        let session = &l.session;
        let live = if settle_output {
            session.settle(READ_SETTLE_MAX)
        } else {
            session.lock()
        };
        let fields = Self::live_fields(id, session, &live);
        Ok((view(ScreenSource::Live(&live.term)), fields))
    }

    /// The lifecycle fields of a running session, read under its lock.
    fn live_fields(id: &str, session: &Session, live: &Live) -> Lifecycle {
        Lifecycle {
            exit_code: live.exit_code,
            stop_reason: live.stop_reason,
            process_id: session.pid(),
            session_id: id.to_owned(),
            signal: live.signal.clone(),
            state: live.state,
            version: live.version,
        }
    }

    fn status_fields(r: &Record) -> Lifecycle {
        Lifecycle {
            exit_code: r.exit_code,
            stop_reason: r.stop_reason,
            process_id: r.process_id,
            session_id: r.session_id.clone(),
            signal: r.signal.clone(),
            state: r.state,
            version: r.version,
        }
    }

    pub(super) fn read(&self, p: ReadParams) -> Result<ReadAnswer, SessionError> {
        if let Some(since) = p.since {
            // Nothing changed: answered at once, without settling or the screen.
            let unchanged = match self.lookup(&p.session_id)? {
                Entry::Live(l) => {
                    let live = l.session.lock();
                    (live.content_version <= since).then(|| {
                        let fields = Self::live_fields(&p.session_id, &l.session, &live);
                        UnchangedReply::new(fields, content_hash(&live.term))
                    })
                }
                Entry::Ended(r) => (r.version <= since).then(|| {
                    UnchangedReply::new(Self::status_fields(&r), r.hash.clone().unwrap_or_default())
                }),
            };
            if let Some(reply) = unchanged {
                return Ok(ReadAnswer::Unchanged(reply));
            }
        }
        let (screen, fields) = self.current(&p.session_id, true, |s| (s.screen(&p), s.hash()))?;
        let (screen, hash) = screen;
        let mut reply = ReadReply::new(fields, screen?, hash);
        reply.changed = p.since.map(|_| true);
        if let Entry::Live(l) = self.lookup(&p.session_id)?
            && !reply.state.is_ended()
        {
            reply.prompt = l
                .session
                .lock()
                .term
                .prompt_ready()
                .map(|ready| PromptState { ready });
        }
        Ok(ReadAnswer::Full(reply))
    }

    /// Ends the program (reason `restart`, the session retained as stopped) and starts what
    /// started it again, with the size it has now, in a new session that takes over its name.
    pub(super) fn restart(self: &Arc<Self>, p: IdParams) -> Result<Deferred, SessionError> {
        let Entry::Live(entry) = self.lookup(&p.session_id)? else {
            return Err(SessionError::new(
                ErrorCode::SessionExited,
                format!("session {} has ended and is no longer held", p.session_id),
            ));
        };
        let mut params = entry.meta.start.clone().ok_or_else(|| {
            SessionError::new(
                ErrorCode::SessionError,
                "this session was started by an older host, which did not keep how",
            )
        })?;
        {
            let live = entry.session.lock();
            params.width = Some(live.term.width() as u16);
            params.height = Some(live.term.height() as u16);
        }
        params.wait_ready_ms = None;
        params.base_env = entry.session.spec().base_env.clone();
        entry.session.mark_stopping(StopReason::Restart);
        let host = Arc::clone(self);
        Ok(Box::new(move || {
            entry
                .session
                .stop(StopReason::Restart, STOP_GRACE)
                .map_err(|e| SessionError::new(ErrorCode::SessionError, e.message))?;
            let mut reply = serde_json::to_value(host.start(params)?)
                .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
            reply["previousSessionId"] = json!(p.session_id);
            Ok(reply)
        }))
    }

    /// The program's output from an offset on (see [`crate::session::output`]); waits for
    /// some when there is none yet and `waitMs` asks to (on the connection's thread).
    pub(super) fn output(&self, p: OutputParams) -> Result<OutputReply, SessionError> {
        let since = p.since.unwrap_or(0);
        let max = p
            .max_bytes
            .unwrap_or(MAX_OUTPUT_REPLY)
            .clamp(1, MAX_OUTPUT_REPLY);
        let wait = Duration::from_millis(p.wait_ms.unwrap_or(0).min(MAX_OUTPUT_WAIT_MS));
        let (start, bytes, total, state, keyframe) = match self.lookup(&p.session_id)? {
            Entry::Live(l) => {
                let deadline = Instant::now() + wait;
                let mut live = l.session.lock();
                while live.fed <= since && !live.state.is_ended() && Instant::now() < deadline {
                    live = l.session.wait_change(live, Some(deadline));
                }
                if p.screen {
                    // A keyframe cannot carry a long string being sent (a title, an image):
                    // its rest would show as text. The program is given a moment to end it.
                    let whole_by = Instant::now() + KEYFRAME_WAIT;
                    while !live.term.keyframe_ready()
                        && !live.state.is_ended()
                        && Instant::now() < whole_by
                    {
                        live = l.session.wait_change(live, Some(whole_by));
                    }
                    // Under the lock that `fed` is read under: the keyframe is the screen
                    // after exactly `fed` bytes.
                    let keyframe = live.term.keyframe();
                    (live.fed, Vec::new(), live.fed, live.state, Some(keyframe))
                } else {
                    let chunks = live.recording.events().filter_map(|e| match &e.event {
                        Event::Output(bytes) => Some(bytes.as_slice()),
                        _ => None,
                    });
                    let held = live.recording.output_bytes() as u64;
                    let (start, bytes) = output::slice(chunks, held, live.fed, since, max);
                    (start, bytes, live.fed, live.state, None)
                }
            }
            Entry::Ended(r) if p.screen => {
                let held = r.recording.unwrap_or_default().output_bytes as u64;
                let total = r.output_total.unwrap_or(held);
                // No output follows, so the modes matter no more: the final screen will do.
                let keyframe = r.snapshot.redraw_bytes();
                (total, Vec::new(), total, r.state, Some(keyframe))
            }
            Entry::Ended(r) => {
                let summary = r.recording.unwrap_or_default();
                let cast = std::fs::File::open(recording_file(&self.state_dir, &p.session_id))
                    .map_err(|e| SessionError::io("cannot read the session's recording", e))?;
                let reader = CastReader::new(std::io::BufReader::new(cast))
                    .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
                // A truncated recording's first output is the keyframe that redraws its
                // screen, not the program's.
                let outputs: Vec<Vec<u8>> = reader
                    .events()
                    .filter_map(|e| match e.map(|e| e.event) {
                        Ok(Event::Output(bytes)) => Some(bytes),
                        _ => None,
                    })
                    .skip(usize::from(summary.truncated))
                    .collect();
                let held = summary.output_bytes as u64;
                let total = r.output_total.unwrap_or(held);
                let chunks = outputs.iter().map(Vec::as_slice);
                let (start, bytes) = output::slice(chunks, held, total, since, max);
                (start, bytes, total, r.state, None)
            }
        };
        let end = start + bytes.len() as u64;
        let text = if p.ansi {
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            crate::term::plain_text(&bytes)
        };
        Ok(OutputReply {
            // A keyframe skips the output before it on purpose.
            dropped: start > since && keyframe.is_none(),
            end,
            more: end < total,
            session_id: p.session_id,
            start,
            state,
            text,
            keyframe: keyframe.map(|k| String::from_utf8_lossy(&k).into_owned()),
        })
    }

    pub(super) fn find(&self, p: FindParams) -> Result<FindReply, SessionError> {
        let condition = |m: String| SessionError::new(ErrorCode::InvalidCondition, m);
        let pattern = match (&p.text, &p.regex) {
            (Some(t), None) if !t.is_empty() => regex::escape(t),
            (None, Some(r)) => r.clone(),
            _ => return Err(condition("give --text (not empty) or --regex".into())),
        };
        let Target::Regex(re) = WaitCondition::regex(&pattern)? else {
            return Err(condition("not a pattern".into()));
        };
        let filter = p
            .style
            .as_deref()
            .map(str::parse::<StyleFilter>)
            .transpose()
            .map_err(|e| condition(e.to_string()))?;
        let matcher = |row: &str| -> Vec<std::ops::Range<usize>> {
            re.find_iter(row)
                .filter(|m| !m.is_empty())
                .map(|m| m.range())
                .collect()
        };
        let scope = if p.history {
            FindScope::History(0)
        } else {
            FindScope::Screen
        };
        // One more than the reply holds, to tell whether there were more.
        let limit = MAX_FIND_MATCHES + 1;
        let mut matches = match self.lookup(&p.session_id)? {
            Entry::Live(l) => {
                l.session
                    .lock()
                    .term
                    .find_at_most(scope, filter.as_ref(), limit, matcher)
            }
            Entry::Ended(r) if !p.history => {
                // The final screen, drawn again into a terminal of its size.
                let mut term = Terminal::new(r.snapshot.width as usize, r.snapshot.height as usize);
                term.advance(&r.snapshot.redraw_bytes());
                term.find_at_most(scope, filter.as_ref(), limit, matcher)
            }
            Entry::Ended(_) if filter.is_some() => {
                return Err(condition(
                    "an ended session keeps the text of its history, not its styles: \
                     --style goes with its screen only"
                        .into(),
                ));
            }
            Entry::Ended(r) => r
                .history
                .iter()
                .flat_map(|(index, line)| {
                    matcher(line).into_iter().map(move |range| {
                        let width = |s: &str| {
                            use unicode_width::UnicodeWidthStr;
                            s.width()
                        };
                        let text = line.get(range.clone()).unwrap_or_default();
                        crate::term::Found {
                            row: *index,
                            col: line.get(..range.start).map_or(0, width),
                            length: width(text),
                            text: text.to_owned(),
                        }
                    })
                })
                .take(limit)
                .collect(),
        };
        let truncated = matches.len() > MAX_FIND_MATCHES;
        matches.truncate(MAX_FIND_MATCHES);
        Ok(FindReply {
            matches,
            session_id: p.session_id,
            truncated,
        })
    }

    pub(super) fn commands(&self, p: CommandsParams) -> Result<CommandsReply, SessionError> {
        let last = p.last.unwrap_or(20);
        let (commands, dropped) = match self.lookup(&p.session_id)? {
            Entry::Live(l) => {
                let live = l.session.lock();
                (live.commands.last(last), live.commands.dropped())
            }
            Entry::Ended(r) => {
                let skip = r.commands.len().saturating_sub(last);
                (r.commands[skip..].to_vec(), r.commands_dropped)
            }
        };
        Ok(CommandsReply {
            commands,
            dropped,
            session_id: p.session_id,
        })
    }

    pub(super) fn snapshot(&self, p: IdParams) -> Result<SnapshotReply, SessionError> {
        let (snapshot, fields) = self.current(&p.session_id, true, |s| s.snapshot())?;
        let title = match self.lookup(&p.session_id)? {
            Entry::Live(l) => l.meta.title.clone(),
            Entry::Ended(r) => r.meta.title.clone(),
        };
        Ok(SnapshotReply::new(fields, json!(snapshot), title))
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

    /// Whether session `id` is live and its program has input it has not read yet.
    pub(super) fn input_backlogged(&self, id: &str) -> bool {
        self.live_session(id)
            .is_ok_and(|session| session.input_backlogged())
    }

    pub(super) fn send(&self, p: SendParams) -> Result<SendReply, SessionError> {
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

    pub(super) fn resize(&self, p: ResizeParams) -> Result<ResizeReply, SessionError> {
        let session = self.live_session(&p.session_id)?;
        session.resize(p.width, p.height)?;
        Ok(ResizeReply {
            height: p.height,
            session_id: p.session_id,
            width: p.width,
        })
    }

    pub(super) fn mark(&self, p: MarkParams) -> Result<MarkReply, SessionError> {
        let session = self.live_session(&p.session_id)?;
        let label = p.label.unwrap_or_default();
        let at = session.mark(label.clone())?;
        Ok(MarkReply {
            at_ms: at.as_millis() as u64,
            label,
            session_id: p.session_id,
        })
    }

    /// How a session the host still holds was started and the steps that drove it.
    pub(super) fn journal(&self, p: IdParams) -> Result<JournalReply, SessionError> {
        let (meta, start, state) = match self.lookup(&p.session_id)? {
            Entry::Live(l) => {
                let live = l.session.lock();
                let start = Start::of(&l.session, live.journal.clone());
                (l.meta.clone(), start, live.state)
            }
            Entry::Ended(r) => {
                let start = r.start.clone().ok_or_else(|| {
                    SessionError::new(
                        ErrorCode::SessionError,
                        format!(
                            "session {} ended before this host kept journals",
                            p.session_id
                        ),
                    )
                })?;
                (r.meta.clone(), start, r.state)
            }
        };
        Ok(JournalReply {
            session_id: p.session_id,
            command: meta.command,
            cwd: meta.cwd,
            env: start.env,
            width: start.width,
            height: start.height,
            journal: start.journal,
            state: Some(state),
        })
    }

    /// Writes the recording of a session the host still holds (running, or ended and not yet
    /// expired) as asciicast v2.
    /// The session's screen against a golden file (`golden`): the comparison runs off the
    /// executor, as it may wait for a running program to come to match.
    pub(super) fn golden(&self, p: GoldenParams) -> Result<Deferred, SessionError> {
        if !p.path.is_absolute() {
            return Err(SessionError::invalid_request(
                "golden needs an absolute path (the host's working directory is not the caller's)",
            ));
        }
        let timeout = Duration::from_millis(p.timeout_ms.unwrap_or(DEFAULT_GOLDEN_TIMEOUT_MS));
        if timeout > MAX_GOLDEN_TIMEOUT {
            return Err(SessionError::invalid_request(format!(
                "timeoutMs {} is over {}",
                timeout.as_millis(),
                MAX_GOLDEN_TIMEOUT.as_millis()
            )));
        }
        let entry = self.lookup(&p.session_id)?;
        Ok(Box::new(move || {
            let appearance = crate::render::Appearance::default();
            let check = crate::session::golden::ScreenCheck {
                update: p.update,
                missing_fails: p.missing_fails,
                timeout,
                appearance: &appearance,
            };
            let compared = match &entry {
                Entry::Live(l) => crate::session::golden::compare_screen(
                    Screen::Live(&l.session),
                    &p.path,
                    &check,
                ),
                Entry::Ended(r) => crate::session::golden::compare_screen(
                    Screen::Final(&r.snapshot),
                    &p.path,
                    &check,
                ),
            };
            let mut reply = GoldenReply {
                session_id: p.session_id,
                path: p.path,
                verdict: GoldenVerdict::Failed,
                message: None,
                actual: None,
                diff: None,
            };
            match compared {
                Ok(Verdict::Matched) => reply.verdict = GoldenVerdict::Matched,
                Ok(Verdict::Updated) => reply.verdict = GoldenVerdict::Updated,
                Ok(Verdict::New) => reply.verdict = GoldenVerdict::New,
                Err(failure) => {
                    reply.message = Some(failure.message);
                    reply.actual = failure.actual_svg;
                    reply.diff = failure.diff_svg;
                }
            }
            serde_json::to_value(reply)
                .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))
        }))
    }

    pub(super) fn export(&self, p: ExportParams) -> Result<ExportReply, SessionError> {
        if !p.path.is_absolute() {
            return Err(SessionError::invalid_request(
                "export needs an absolute path (the host's working directory is not the caller's)",
            ));
        }
        let (cast, summary) = match self.lookup(&p.session_id)? {
            Entry::Live(l) => {
                let timeline = l.session.lock().recording.clone();
                (cast_of(&l.meta, &timeline)?, timeline.summary())
            }
            Entry::Ended(r) => {
                let missing = || {
                    SessionError::new(
                        ErrorCode::SessionError,
                        format!("session {} has no recording on disk", p.session_id),
                    )
                };
                let summary = r.recording.ok_or_else(missing)?;
                let cast = std::fs::read(recording_file(&self.state_dir, &p.session_id))
                    .map_err(|_| missing())?;
                (cast, summary)
            }
        };
        crate::session::artifacts::write_recording(&p.path, &cast)
            .map_err(|e| SessionError::new(ErrorCode::IoError, e))?;
        Ok(ExportReply {
            events: summary.events,
            output_bytes: summary.output_bytes,
            path: p.path,
            session_id: p.session_id,
            truncated: summary.truncated,
        })
    }

    pub(super) fn history(&self, p: HistoryParams) -> Result<HistoryReply, SessionError> {
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
        let query = LineQuery {
            from: p.from.unwrap_or(0),
            grep: grep.as_ref(),
            tail: p.tail,
            limit: p.limit.unwrap_or(200).clamp(1, 10_000),
        };
        let from_record = |r: &Record| {
            let rows = r
                .history
                .iter()
                .map(|(index, text)| (*index, text.as_str()));
            (
                query.pick(rows, history::last_written(&r.history), |t| {
                    Cow::Borrowed(*t)
                }),
                r.dropped,
            )
        };
        let (picked, dropped) = match self.lookup(&p.session_id)? {
            Entry::Live(l) => match self.ended_record(&l) {
                Some(r) => from_record(&r),
                None => {
                    let live = l.session.lock();
                    let picked =
                        query.pick(live.term.history(), live.term.last_written_line(), |row| {
                            Cow::Owned(row.text())
                        });
                    (picked, live.term.screen().scrollback().dropped())
                }
            },
            Entry::Ended(r) => from_record(&r),
        };
        Ok(HistoryReply {
            dropped,
            lines: picked.lines,
            next: picked.next,
            session_id: p.session_id,
            truncated: picked.truncated,
        })
    }

    pub(super) fn stop(self: &Arc<Self>, p: StopParams) -> Result<Deferred, SessionError> {
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
                remove_session_files(&self.state_dir, &id)
                    .map(|()| ended)
                    .map_err(|e| SessionError::io("cannot delete the session's record", e))
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

    pub(super) fn wait(
        &self,
        p: WaitParams,
        cancel: &AtomicBool,
        on_session: impl FnOnce(Arc<Session>),
    ) -> Result<WaitReply, SessionError> {
        let until = match p.until.as_deref() {
            None => Until::Present,
            Some(name) => Until::from_name(name).ok_or_else(|| {
                SessionError::new(
                    ErrorCode::InvalidCondition,
                    format!("until must be present, absent or gone, not {name:?}"),
                )
            })?,
        };
        let targets = [
            p.text.is_some(),
            p.regex.is_some(),
            p.idle_ms.is_some(),
            p.exit,
            p.command,
            p.title.is_some(),
            p.bell,
            p.changed,
        ];
        if targets.iter().filter(|t| **t).count() != 1 {
            return Err(SessionError::new(
                ErrorCode::InvalidCondition,
                "give exactly one of --text, --regex, --idle, --exit, --command, --title, --bell \
                 and --changed",
            ));
        }
        if p.since.is_some() && !p.changed {
            return Err(SessionError::new(
                ErrorCode::InvalidCondition,
                "--since goes with --changed",
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
            _ if p.command => Target::Command,
            _ if p.bell => Target::Bell,
            _ if p.changed => Target::Changed(p.since),
            _ => match &p.title {
                Some(t) => Target::Title(t.clone()),
                None => Target::Exit,
            },
        };
        let condition = WaitCondition {
            target,
            until,
            stable_for: millis(p.stable_for_ms),
            timeout: millis(p.timeout_ms),
            fresh: p.fresh,
        };
        let entry = self.lookup(&p.session_id)?;
        let mut command = None;
        let (result, waited, version, session) = match entry {
            Entry::Live(l) => {
                on_session(Arc::clone(&l.session));
                let o = wait(&l.session, &condition, cancel);
                if matches!(condition.target, Target::Command) && o.result == WaitResult::Matched {
                    let live = l.session.lock();
                    command = live.commands.after_input(live.inputs).cloned();
                }
                (o.result, o.waited, o.version, Some(l))
            }
            // An ended session cannot change: evaluate once.
            Entry::Ended(r) => {
                let text = r.snapshot.text();
                let holds = match &condition.target {
                    Target::Text(t) => until == Until::Present && text.contains(t.as_str()),
                    Target::Regex(re) => until == Until::Present && re.is_match(&text),
                    Target::CursorRow(re) => {
                        let row = text.split('\n').nth(r.snapshot.cursor.row as usize);
                        until == Until::Present && re.is_match(row.unwrap_or_default())
                    }
                    Target::Idle(_) | Target::Exit => true,
                    // No input can follow the end: the last command is the answer.
                    Target::Command => {
                        command = r.commands.last().cloned();
                        command.is_some()
                    }
                    Target::Title(t) => !p.fresh && r.snapshot.title.contains(t.as_str()),
                    Target::Bell => false,
                    Target::Changed(since) => since.is_some_and(|v| r.version > v),
                };
                let result = if holds {
                    WaitResult::Matched
                } else {
                    WaitResult::SessionEnded
                };
                (result, Duration::ZERO, r.version, None)
            }
        };
        let read = ReadParams {
            session_id: p.session_id.clone(),
            ..ReadParams::default()
        };
        // The entry waited on, not a new lookup: a `stop` that ended the wait has removed the
        // session from the registry by now.
        let (screen, fields) = match &session {
            Some(l) => self.live_view(&p.session_id, l, false, |s| s.screen(&read))?,
            None => self.current(&p.session_id, false, |s| s.screen(&read))?,
        };
        let error = match result {
            WaitResult::Matched => None,
            WaitResult::Timeout => {
                Some((ErrorCode::WaitTimeout, "the condition was not met in time"))
            }
            WaitResult::SessionEnded => Some((ErrorCode::SessionExited, "the session ended first")),
            WaitResult::Cancelled => Some((ErrorCode::Cancelled, "the wait was cancelled")),
        }
        .map(|(code, message)| WaitError {
            code,
            message: message.into(),
        });
        Ok(WaitReply {
            command,
            status: error.as_ref().map(|_| "error".into()),
            error,
            exit_code: fields.exit_code,
            matched: result == WaitResult::Matched,
            result,
            screen: screen?,
            session_id: p.session_id,
            signal: fields.signal,
            state: fields.state,
            stop_reason: fields.stop_reason,
            text: p.text.or(p.regex),
            timed_out: result == WaitResult::Timeout,
            until,
            version,
            waited_ms: waited.as_millis() as u64,
        })
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
}
