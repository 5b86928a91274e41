//! The host's wire protocol: newline-delimited JSON-RPC 2.0 over a Unix socket
//! (`docs/host-protocol.md`). Method names are the `shotty session` subcommands; params and
//! results are the types below, whose JSON is also what the CLI prints inside its envelope.

#[cfg(feature = "mcp")]
use rmcp::schemars::{self, JsonSchema};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::commands::CommandRecord;
use super::error::{ErrorCode, SessionError};
use super::instance::{Outcome, State, StopReason};
pub use super::send::SendStep;
use super::wait::{Until, WaitResult};
use crate::rpc::{RpcError, code};

/// Whether `id` is a session id as the host makes them: `s_` and 32 hex digits.
pub fn is_session_id(id: &str) -> bool {
    id.strip_prefix("s_")
        .is_some_and(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The requests that only report what the host holds and change no session. Asked again,
/// one answers as of the asking: a client may send it again to a new host when the one it
/// asked died before answering, and the host answers it off its executor. (The Python and
/// JavaScript clients keep copies of this list; a test here checks them.)
pub const CHANGES_NO_SESSION: [&str; 9] = [
    "ping", "list", "read", "snapshot", "history", "export", "commands", "find", "output",
];

/// Whether `method` is one of [`CHANGES_NO_SESSION`].
pub fn changes_no_session(method: &str) -> bool {
    CHANGES_NO_SESSION.contains(&method)
}

/// A request.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Request {
    /// Always "2.0".
    pub jsonrpc: String,
    /// Request id (number or string).
    pub id: Value,
    /// Method name.
    pub method: String,
    /// Parameters object.
    #[serde(default)]
    pub params: Value,
}

/// A response: exactly one of `result` and `error`.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Response {
    /// Always "2.0".
    pub jsonrpc: String,
    /// The request's id (`null` when it could not be read).
    pub id: Value,
    /// Success, serialised when the response is made (a large result, such as the `list` of a
    /// thousand sessions, is never built as a `Value` tree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<RawValue>>,
    /// Failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

impl Response {
    /// A success.
    pub fn ok(id: Value, result: &impl Serialize) -> Response {
        match serde_json::value::to_raw_value(result) {
            Ok(raw) => Response {
                jsonrpc: "2.0".into(),
                id,
                result: Some(raw),
                error: None,
            },
            Err(e) => Response::err(
                id,
                &SessionError::new(
                    ErrorCode::SessionError,
                    format!("the result cannot be written: {e}"),
                ),
            ),
        }
    }

    /// The response for a method's result.
    pub fn from_result(id: Value, result: Result<impl Serialize, SessionError>) -> Response {
        match result {
            Ok(v) => Response::ok(id, &v),
            Err(e) => Response::err(id, &e),
        }
    }

    /// A failure carrying a session error: `data.code` is its stable code; the JSON-RPC code
    /// is -32602 for a request whose params are wrong, -32603 for a failure inside the host
    /// (`session_error`), -32000 for the rest.
    pub fn err(id: Value, e: &SessionError) -> Response {
        let rpc_code = match e.code {
            ErrorCode::InvalidRequest | ErrorCode::UnsupportedKey | ErrorCode::InvalidCondition => {
                code::INVALID_PARAMS
            }
            ErrorCode::SessionError => code::INTERNAL_ERROR,
            _ => code::SERVER_ERROR,
        };
        Response::rpc_err(id, rpc_code, e)
    }

    /// A failure with an explicit JSON-RPC code (parse errors, invalid envelopes, unknown
    /// methods), still carrying the stable code in `data.code`.
    pub fn rpc_err(id: Value, rpc_code: i64, e: &SessionError) -> Response {
        Response {
            jsonrpc: "2.0".into(),
            id,
            result: None,
            error: Some(RpcError {
                code: rpc_code,
                message: e.message.clone(),
                data: Some(serde_json::json!({ "code": e.code })),
            }),
        }
    }

    /// The session error this response carries, if any.
    pub fn session_error(&self) -> Option<SessionError> {
        let e = self.error.as_ref()?;
        let code = e
            .data
            .as_ref()
            .and_then(|d| d.get("code"))
            .and_then(|c| serde_json::from_value::<ErrorCode>(c.clone()).ok())
            .unwrap_or(ErrorCode::SessionError);
        Some(SessionError::new(code, e.message.clone()))
    }
}

/// Decodes a method's params, naming unknown or missing fields (`invalid_request`).
pub fn params<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, SessionError> {
    let value = if value.is_null() {
        Value::Object(Default::default())
    } else {
        value
    };
    if !value.is_object() {
        return Err(SessionError::invalid_request("params must be an object"));
    }
    serde_json::from_value(value).map_err(|e| SessionError::invalid_request(e.to_string()))
}

/// `start`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartParams {
    /// Program and arguments.
    pub command: Vec<String>,
    /// Columns (1–500, default 100).
    #[serde(default)]
    pub width: Option<u16>,
    /// Rows (1–500, default 24).
    #[serde(default)]
    pub height: Option<u16>,
    /// Working directory (absolute; the client resolves relative paths).
    #[serde(default)]
    pub cwd: Option<String>,
    /// The environment the program starts from, in place of the host's: a client passes its
    /// own, so that the program sees what the client sees (the host was started by whichever
    /// client came first). The colour environment and `env` are applied on top. Kept in the
    /// host's memory only (for `restart`), never written to disk: it may hold secrets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_env: Option<Vec<(String, String)>>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: Vec<(String, String)>,
    /// Title shown in lists and screenshots.
    #[serde(default)]
    pub title: Option<String>,
    /// Group name, for `list --group` and `stop --group`.
    #[serde(default)]
    pub group: Option<String>,
    /// Stop the session after this many milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Keep the ended session this many milliseconds (default 24 h).
    #[serde(default)]
    pub retain_ms: Option<u64>,
    /// Scrollback lines (100–200000, default 5000).
    #[serde(default)]
    pub scrollback: Option<usize>,
    /// Bytes the recording keeps (output, input and marker labels; 64 KiB–1 GiB, default
    /// 16 MiB); the oldest part is dropped past it, the recording then starts from a keyframe.
    #[serde(default)]
    pub record_limit: Option<u64>,
    /// TCP ports the program will listen on; a port already in use gives a warning.
    #[serde(default)]
    pub ports: Vec<u16>,
    /// Do not set the colour environment.
    #[serde(default)]
    pub no_colorenv: bool,
    /// Keep CI and TF_BUILD.
    #[serde(default)]
    pub no_delete_envs: bool,
    /// A name for the session, usable wherever its id is (unique among the sessions the host
    /// holds).
    #[serde(default)]
    pub name: Option<String>,
    /// Make bash, zsh or fish print shell-integration marks (OSC 133).
    #[serde(default)]
    pub shell_integration: bool,
    /// Reply once the program waits for input (its first prompt, with shell integration),
    /// waiting at most this many milliseconds.
    #[serde(default)]
    pub wait_ready_ms: Option<u64>,
    /// Stop the session, as `stop` does, within a second of the process with this id ending
    /// (a client's own: the programs a test run started end with it, however it ends).
    #[serde(default)]
    pub owner_pid: Option<u32>,
}

/// Methods that address one session (also the arguments of the MCP tools that do).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdParams {
    /// The session: its id (`s_` + 32 hex digits, from `start`/`spawn` or `list`), the
    /// name given at start, a unique prefix of its id, or `last` (the newest session).
    pub session_id: String,
}

/// `list` (also the MCP `list` tool's arguments).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListParams {
    /// Include ended, retained sessions.
    #[serde(default)]
    pub all: bool,
    /// Only this group.
    #[serde(default)]
    pub group: Option<String>,
    /// Only this state.
    #[serde(default)]
    pub state: Option<String>,
    /// Only this session (an id, a name, an id prefix or `last`), ended or not:
    /// `session_not_found` when there is none.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// One session in a `list` reply. The keys are in alphabetical order, like those of every
/// other reply (serde_json's maps are sorted).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// When it started (RFC 3339).
    pub created_at: String,
    /// Its working directory.
    pub cwd: String,
    /// Exit code, once the program exited by itself.
    pub exit_code: Option<i32>,
    /// Ended sessions: when the record is deleted (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Its group, if it was given one.
    pub group: Option<String>,
    /// Rows.
    pub height: usize,
    /// The name given at start.
    pub name: Option<String>,
    /// Ended sessions: how it ended (`null` if that cannot be told).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Option<Outcome>>,
    /// Lines of output written so far (scrollback and screen, up to the last non-blank one).
    pub output_lines: usize,
    /// The program's pid (also its session and process group).
    pub process_id: u32,
    /// The session's id.
    pub session_id: String,
    /// Name of the signal that ended it.
    pub signal: Option<String>,
    /// Lifecycle state.
    pub state: State,
    /// Ended sessions: why it was stopped (`null` if it was not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<Option<StopReason>>,
    /// The title given at start, else the terminal's title.
    pub title: String,
    /// When anything last changed (RFC 3339).
    pub updated_at: String,
    /// URLs on the screen.
    pub urls: Vec<String>,
    /// Columns.
    pub width: usize,
}

/// The `list` reply.
#[derive(Clone, Debug, Serialize)]
pub struct ListReply {
    /// The sessions, by id.
    pub sessions: Vec<SessionSummary>,
}

/// `read` (also the MCP `read` tool's arguments).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadParams {
    /// The session id.
    pub session_id: String,
    /// Also return per-cell structure (colours, attributes) under `screen.structured`.
    #[serde(default)]
    pub structured: bool,
    /// Only the first N rows of the screen.
    #[serde(default)]
    pub top: Option<usize>,
    /// Only the last N rows of the screen.
    #[serde(default)]
    pub bottom: Option<usize>,
    /// Only rows `start` to `end` (0-based, inclusive; give both).
    #[serde(default)]
    pub start: Option<usize>,
    /// Last row of a `start`–`end` range (0-based, inclusive).
    #[serde(default)]
    pub end: Option<usize>,
    /// A `version` from an earlier read: when the screen's content has not changed since,
    /// the reply is `changed: false` without the screen (cheap polling).
    #[serde(default)]
    pub since: Option<u64>,
    /// Leave out the blank rows at the end of the text (each is an empty line otherwise).
    /// Default: on for the MCP `read` tool, off for the host protocol and the CLI.
    #[serde(default)]
    pub trim: Option<bool>,
}

/// `wait`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitParams {
    /// Session id.
    pub session_id: String,
    /// Literal text.
    #[serde(default)]
    pub text: Option<String>,
    /// Regular expression.
    #[serde(default)]
    pub regex: Option<String>,
    /// `present` (default), `absent` (seen, then gone) or `gone` (not on the settled screen,
    /// seen or not): [`crate::session::wait::Until`].
    #[serde(default)]
    pub until: Option<String>,
    /// The condition must hold this many milliseconds.
    #[serde(default)]
    pub stable_for_ms: Option<u64>,
    /// Give up after this many milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Wait until the screen content has not changed for this many milliseconds.
    #[serde(default)]
    pub idle_ms: Option<u64>,
    /// Wait until the program ends.
    #[serde(default)]
    pub exit: bool,
    /// Wait until a shell command finished after the session's last input (shell
    /// integration); the reply's `command` is that command.
    #[serde(default)]
    pub command: bool,
    /// Wait until the window title contains this text.
    #[serde(default)]
    pub title: Option<String>,
    /// Wait until the bell rings after the last input.
    #[serde(default)]
    pub bell: bool,
    /// Wait until the screen's content changes (after `since`, else after the wait began).
    #[serde(default)]
    pub changed: bool,
    /// With `changed`: a `version` from `read`.
    #[serde(default)]
    pub since: Option<u64>,
    /// The condition must become true after the wait began (see
    /// [`WaitCondition::fresh`](super::wait::WaitCondition::fresh)).
    #[serde(default)]
    pub fresh: bool,
}

/// `send`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendParams {
    /// Session id.
    pub session_id: String,
    /// The steps, sent in order as one operation.
    pub steps: Vec<SendStep>,
}

impl SendParams {
    /// The pauses its `delay` steps add up to.
    pub fn pauses(&self) -> std::time::Duration {
        let ms = self
            .steps
            .iter()
            .map(|s| match s {
                SendStep::Delay(ms) => *ms,
                _ => 0,
            })
            .fold(0u64, u64::saturating_add);
        std::time::Duration::from_millis(ms)
    }
}

/// `resize`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResizeParams {
    /// Session id.
    pub session_id: String,
    /// Columns.
    pub width: u16,
    /// Rows.
    pub height: u16,
}

/// `mark`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MarkParams {
    /// Session id.
    pub session_id: String,
    /// The marker's label (empty when absent).
    #[serde(default)]
    pub label: Option<String>,
}

/// `export`: the host writes the session's recording to `path`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportParams {
    /// Session id.
    pub session_id: String,
    /// Where to write the asciicast v2 file: an absolute path (replaced whole, never left
    /// half-written).
    pub path: PathBuf,
}

/// `golden`: the session's screen compared with a golden file cell by cell
/// (the comparison of `shotty::golden::compare_screen`), for test runners in other languages.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GoldenParams {
    /// Session id.
    pub session_id: String,
    /// The golden: an absolute path to a `.svg` (written by shotty, with its metadata) or a
    /// `.json` snapshot.
    pub path: PathBuf,
    /// Rewrite the golden from the screen instead of comparing.
    #[serde(default)]
    pub update: bool,
    /// A missing golden fails (the screen is written to `NAME.actual.svg`) instead of being
    /// written: what a CI run wants.
    #[serde(default)]
    pub missing_fails: bool,
    /// How long a running program has to come to match (default 5000, at most 60000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// How a `golden` comparison came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GoldenVerdict {
    /// The screen matches the golden.
    Matched,
    /// `update` was given: the golden was rewritten.
    Updated,
    /// There was no golden: it was written from the screen.
    New,
    /// The screen differs, the golden is missing and `missingFails` was given, or the golden
    /// cannot be read: `message` says which.
    Failed,
}

/// `golden`'s reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GoldenReply {
    /// Session id.
    pub session_id: String,
    /// The golden's path.
    pub path: PathBuf,
    /// The outcome.
    pub verdict: GoldenVerdict,
    /// Why it failed: for a difference, the golden's path and the cell report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `NAME.actual.svg`: the screen as it was, when a failure wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<PathBuf>,
    /// `NAME.diff.svg`: the screen with the differing cells marked, when a failure wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<PathBuf>,
}

/// `history` (also the MCP `history` tool's arguments).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryParams {
    /// Session id.
    pub session_id: String,
    /// First global line index.
    #[serde(default)]
    pub from: Option<u64>,
    /// Lines at most (default 200).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only lines matching this regex.
    #[serde(default)]
    pub grep: Option<String>,
    /// Case-insensitive grep.
    #[serde(default)]
    pub ignore_case: bool,
    /// Only the last N (matching) lines.
    #[serde(default)]
    pub tail: Option<usize>,
}

/// `commands` (also the MCP `commands` tool's arguments).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CommandsParams {
    /// The session id.
    pub session_id: String,
    /// Only the last N commands (default 20).
    #[serde(default)]
    pub last: Option<usize>,
}

/// The `commands` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandsReply {
    /// The commands, oldest first.
    pub commands: Vec<CommandRecord>,
    /// Commands no longer kept (a session keeps its last 1,000).
    pub dropped: u64,
    /// The session.
    pub session_id: String,
}

/// `find` (also the MCP `find` tool's arguments).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "mcp", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FindParams {
    /// The session id.
    pub session_id: String,
    /// Literal text to find (case-sensitive). Give `text` or `regex`.
    #[serde(default)]
    pub text: Option<String>,
    /// A regular expression (Rust syntax) matched against each row.
    #[serde(default)]
    pub regex: Option<String>,
    /// Only where every cell of the match has this style: comma-separated `bold`, `dim`,
    /// `italic`, `underline`, `blink`, `inverse`, `hidden`, `strikethrough`, `overline`,
    /// `fg=C`, `bg=C` (C: `default`, a palette index 0–255, an ANSI colour name such as `red`
    /// or `bright-blue`, or `#rrggbb`).
    #[serde(default)]
    pub style: Option<String>,
    /// Search the scrollback and the primary screen (rows are then global line indices, as
    /// `history` numbers them) instead of the visible screen.
    #[serde(default)]
    pub history: bool,
}

/// The `find` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindReply {
    /// The matches in screen order, at most 1,000: `row`, `col` (0-based cells, a wide
    /// character counting two), `length` (columns), `text`.
    pub matches: Vec<crate::term::Found>,
    /// The session.
    pub session_id: String,
    /// More matched than were returned.
    pub truncated: bool,
}

/// `read`'s `prompt`: what shell integration says of the shell.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
pub struct PromptState {
    /// The shell shows its prompt and waits for a command (false while one runs).
    pub ready: bool,
}

/// `stop`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopParams {
    /// These sessions.
    #[serde(default)]
    pub session_ids: Vec<String>,
    /// Every session.
    #[serde(default)]
    pub all: bool,
    /// Every session of this group.
    #[serde(default)]
    pub group: Option<String>,
}

// Replies. Fields are declared in alphabetical order of their JSON names: the replies built
// from maps before these types had their keys sorted, and the wire format stays as it was.

/// The `send` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SendReply {
    /// The session.
    pub session_id: String,
    /// Its state after the write.
    pub state: State,
    /// Bytes written to the program.
    pub written: usize,
}

/// The `resize` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResizeReply {
    /// Rows now.
    pub height: u16,
    /// The session.
    pub session_id: String,
    /// Columns now.
    pub width: u16,
}

/// The `mark` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MarkReply {
    /// The marker's time from the session's start, in milliseconds.
    pub at_ms: u64,
    /// Its label.
    pub label: String,
    /// The session.
    pub session_id: String,
}

/// The `journal` reply: what started a session and the steps that drove it (see
/// [`Journal`](super::journal::Journal)), for a scenario export.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalReply {
    /// The session.
    pub session_id: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// Its working directory.
    pub cwd: String,
    /// The extra environment it was started with.
    pub env: Vec<(String, String)>,
    /// Columns at the start.
    pub width: u16,
    /// Rows at the start.
    pub height: u16,
    /// The steps, in the scenario file's form.
    pub journal: super::journal::Journal,
    /// Its state when asked (absent from a host older than this field): how the export
    /// ends the replay.
    #[serde(default)]
    pub state: Option<super::instance::State>,
}

/// The `export` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportReply {
    /// Events written (the keyframe a truncated recording starts with counts as one).
    pub events: usize,
    /// The output bytes in the recording.
    pub output_bytes: usize,
    /// The file written.
    pub path: PathBuf,
    /// The session.
    pub session_id: String,
    /// The oldest part was dropped (`--record-limit`): the file starts from a keyframe.
    pub truncated: bool,
}

/// One line of a `history` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct HistoryLine {
    /// The line's global index (0 is the first line the terminal ever had).
    pub index: u64,
    /// Its text, trailing blanks removed.
    pub text: String,
}

/// The `history` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryReply {
    /// Lines the scrollback ring has dropped (the first index still held).
    pub dropped: u64,
    /// The selected lines, oldest first.
    pub lines: Vec<HistoryLine>,
    /// The index to ask `from` next when the reply was cut at its limit.
    pub next: Option<u64>,
    /// The session.
    pub session_id: String,
    /// More lines matched than the limit allowed.
    pub truncated: bool,
}

/// A session `stop` could not end.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StopFailure {
    /// The stable error code.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
    /// The session.
    pub session_id: String,
}

/// What `stop` ended of one session's process tree.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoppedProcesses {
    /// Processes that needed SIGKILL.
    pub killed: Vec<u32>,
    /// Every process of the tree that was ended.
    pub process_ids: Vec<u32>,
    /// The session.
    pub session_id: String,
}

/// The `stop` reply.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct StopReply {
    /// Sessions that could not be stopped, and why.
    pub failed: Vec<StopFailure>,
    /// What was ended of each stopped session.
    pub processes: Vec<StoppedProcesses>,
    /// The ids of the sessions stopped and deleted.
    pub stopped: Vec<String>,
}

/// The `ping` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct PingReply {
    /// The host's process id.
    pub pid: u32,
}

/// Where a session's program is in its life, as `read`, `snapshot` and `wait` report it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lifecycle {
    /// The exit code, once it exited by itself.
    pub exit_code: Option<i32>,
    /// Why it was stopped, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// The program's pid.
    pub process_id: u32,
    /// The session.
    pub session_id: String,
    /// The name of the signal that ended it.
    pub signal: Option<String>,
    /// Its state.
    pub state: State,
    /// The screen version (it counts output chunks and resizes).
    pub version: u64,
}

/// The `screen` object of `read` and `wait`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenReply {
    /// The cursor's column (0-based).
    pub cursor_column: usize,
    /// The cursor's row (0-based).
    pub cursor_row: usize,
    /// DECTCEM.
    pub cursor_visible: bool,
    /// Rows.
    pub height: usize,
    /// The program is on the alternate screen.
    pub is_alternate_screen: bool,
    /// What `text` covers: always `"viewport"` for now.
    pub scope: String,
    /// Lines in the scrollback.
    pub scrollback_rows: usize,
    /// The whole snapshot, when asked for (`structured`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// The selected rows as text.
    pub text: String,
    /// `text` was cut at the size limit.
    pub truncated: bool,
    /// Columns.
    pub width: usize,
}

/// The `read` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadReply {
    /// See [`Lifecycle`].
    pub exit_code: Option<i32>,
    /// See [`Lifecycle`].
    pub process_id: u32,
    /// With `since`: the content changed since that version (always true here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<bool>,
    /// A digest of the screen's content (text and styles, not the cursor): equal hashes,
    /// equal screens.
    pub hash: String,
    /// With shell integration: whether the shell waits at its prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptState>,
    /// The screen.
    pub screen: ScreenReply,
    /// See [`Lifecycle`].
    pub session_id: String,
    /// See [`Lifecycle`].
    pub signal: Option<String>,
    /// See [`Lifecycle`].
    pub state: State,
    /// See [`Lifecycle`].
    pub version: u64,
}

impl ReadReply {
    /// The reply of a session in `lifecycle` showing `screen`, whose content hash is `hash`.
    pub fn new(lifecycle: Lifecycle, screen: ScreenReply, hash: String) -> ReadReply {
        let Lifecycle {
            exit_code,
            process_id,
            session_id,
            signal,
            state,
            version,
            stop_reason: _,
        } = lifecycle;
        ReadReply {
            changed: None,
            exit_code,
            hash,
            process_id,
            prompt: None,
            screen,
            session_id,
            signal,
            state,
            version,
        }
    }
}

/// The `read` reply when the content has not changed since `since`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnchangedReply {
    /// Always false.
    pub changed: bool,
    /// See [`Lifecycle`].
    pub exit_code: Option<i32>,
    /// The content hash (as the earlier read's).
    pub hash: String,
    /// See [`Lifecycle`].
    pub process_id: u32,
    /// See [`Lifecycle`].
    pub session_id: String,
    /// See [`Lifecycle`].
    pub signal: Option<String>,
    /// See [`Lifecycle`].
    pub state: State,
    /// See [`Lifecycle`].
    pub version: u64,
}

impl UnchangedReply {
    /// The reply of a session in `lifecycle` whose unchanged content hashes to `hash`.
    pub fn new(lifecycle: Lifecycle, hash: String) -> UnchangedReply {
        let Lifecycle {
            exit_code,
            process_id,
            session_id,
            signal,
            state,
            version,
            stop_reason: _,
        } = lifecycle;
        UnchangedReply {
            changed: false,
            exit_code,
            hash,
            process_id,
            session_id,
            signal,
            state,
            version,
        }
    }
}

/// What `read` answers.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum ReadAnswer {
    /// The screen.
    Full(ReadReply),
    /// Nothing changed since the version asked about.
    Unchanged(UnchangedReply),
}

/// The `start` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StartReply {
    /// Rows.
    pub height: u16,
    /// The name given at start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// With `waitReadyMs`: whether the program was ready for input in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    /// The program's pid.
    pub process_id: u32,
    /// The new session's id.
    pub session_id: String,
    /// Its state.
    pub state: State,
    /// Things the start noticed but did not refuse (a port already in use …).
    pub warnings: Vec<String>,
    /// Columns.
    pub width: u16,
}

/// The `snapshot` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotReply {
    /// See [`Lifecycle`].
    pub exit_code: Option<i32>,
    /// See [`Lifecycle`].
    pub process_id: u32,
    /// See [`Lifecycle`].
    pub session_id: String,
    /// See [`Lifecycle`].
    pub signal: Option<String>,
    /// The structured snapshot, as a JSON value (whose keys are sorted, as this reply has
    /// always had them).
    pub snapshot: Value,
    /// See [`Lifecycle`].
    pub state: State,
    /// The session's title (`start --title`), if it has one.
    pub title: Option<String>,
    /// See [`Lifecycle`].
    pub version: u64,
}

impl SnapshotReply {
    /// The reply of a session in `lifecycle` whose screen is `snapshot`.
    pub fn new(lifecycle: Lifecycle, snapshot: Value, title: Option<String>) -> SnapshotReply {
        let Lifecycle {
            exit_code,
            process_id,
            session_id,
            signal,
            state,
            version,
            stop_reason: _,
        } = lifecycle;
        SnapshotReply {
            exit_code,
            process_id,
            session_id,
            signal,
            snapshot,
            state,
            title,
            version,
        }
    }
}

/// Why a `wait` did not match: its `error` object.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct WaitError {
    /// The stable error code (`wait_timeout`, `session_exited`, `cancelled`).
    pub code: ErrorCode,
    /// What happened, for people.
    pub message: String,
}

/// The `wait` reply. A wait that did not match is still a result (with the screen as it
/// was), marked with `status: "error"` and an [`error`](Self::error).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitReply {
    /// `wait --command`: the command that finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRecord>,
    /// Why it did not match, if it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<WaitError>,
    /// The program's exit code, once it exited by itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The condition was met.
    pub matched: bool,
    /// How the wait ended.
    pub result: WaitResult,
    /// The screen at the end.
    pub screen: ScreenReply,
    /// The session.
    pub session_id: String,
    /// The name of the signal that ended the program, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// Its state at the end.
    pub state: State,
    /// `"error"` when it did not match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Why the session was stopped, if it was (`user` for `stop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// The text or pattern waited for (none for idle and exit waits).
    pub text: Option<String>,
    /// It ran out of time.
    pub timed_out: bool,
    /// Appear or go away.
    pub until: Until,
    /// The screen version at the end.
    pub version: u64,
    /// How long it waited, in milliseconds.
    pub waited_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::CHANGES_NO_SESSION;

    /// The quoted names between `start` and the next `end` in a package's client source.
    fn listed(file: &str, start: &str, end: &str) -> Vec<String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let source = std::fs::read_to_string(&path).expect("the client's source");
        let from = source.find(start).expect("the list") + start.len();
        let list = &source[from..];
        let list = &list[..list.find(end).expect("the list's end")];
        list.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn the_python_and_javascript_clients_ask_again_the_same_questions() {
        let ours: Vec<String> = CHANGES_NO_SESSION.iter().map(|m| m.to_string()).collect();
        let python = listed(
            "python/shotty/_host.py",
            "CHANGES_NO_SESSION = frozenset(",
            ")",
        );
        let javascript = listed("js/src/host.ts", "CHANGES_NO_SESSION = new Set([", "]");
        assert_eq!(python, ours, "python/shotty/_host.py");
        assert_eq!(javascript, ours, "js/src/host.ts");
    }
}
