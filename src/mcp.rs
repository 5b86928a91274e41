//! `shotty mcp`: a Model Context Protocol server on stdio, backed by the session host, so the
//! sessions it starts are the ones `shotty session list` shows (and the other way round).
//!
//! Each tool maps onto one host method (docs/host-protocol.md); `capture` and `inspect`
//! render the host's snapshot here, like the CLI (see [`crate::session::artifacts`]). A
//! failure is an MCP tool error (`isError: true`) whose content is
//! `{"error": {"code": <stable session error code>, "message": …}}`.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine;
use rmcp::RoleServer;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientJsonRpcMessage, ContentBlock,
    ErrorData, ServerCapabilities, ServerConfig,
};
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWriteExt};

use crate::lines::{Line, LineReader};
use crate::recording::frames::Timing;
use crate::render::{Appearance, Format};
use crate::rpc::{MAX_LINE, RpcError, code};
use crate::serve;
use crate::session::client::{Client, reply_timeout, reply_timeout_after};
use crate::session::host::PANIC_HOOK_ENV;
use crate::session::instance::MAX_SIZE;
use crate::session::output::OutputParams;
use crate::session::protocol::{
    CommandsParams, FindParams, HistoryParams, IdParams, ListParams, MarkParams, ReadParams,
    ResizeParams, SendParams, SendStep, StartParams, StopParams, WaitParams,
};
use crate::session::send::MouseStep;
use crate::session::wait::Until;
use crate::session::{ErrorCode, SessionError, artifacts};

/// How long `wait` waits when the caller gives no `timeout`.
const DEFAULT_WAIT_MS: u64 = 30_000;

/// Arguments of `spawn`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpawnArgs {
    /// The program to run, e.g. "bash" (looked up on PATH). Not run through a shell: for
    /// shell syntax use "sh" with args ["-c", "…"]. (An array of the program and its
    /// arguments is accepted too.)
    #[schemars(with = "String")]
    pub command: Program,
    /// The program's arguments, e.g. ["--norc", "-i"].
    #[serde(default)]
    pub args: Vec<String>,
    /// Working directory (default: the MCP server's working directory).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Terminal width in columns, 1–500 (default 100).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_SIZE))]
    pub cols: Option<u16>,
    /// Terminal height in rows, 1–500 (default 24).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_SIZE))]
    pub rows: Option<u16>,
    /// Extra environment variables for the program, e.g. {"PS1": "$ "}.
    #[serde(default)]
    pub env: Option<BTreeMap<String, String>>,
    /// A title shown by `list` and in screenshots.
    #[serde(default)]
    pub title: Option<String>,
    /// A group name, for `list` and `kill` of several sessions at once.
    #[serde(default)]
    pub group: Option<String>,
    /// Stop the session after this many milliseconds (default: it runs until killed or it
    /// exits).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub timeout: Option<u64>,
    /// A name to use instead of the session id in every tool (unique among sessions).
    #[serde(default)]
    pub name: Option<String>,
    /// For bash, zsh or fish: mark the prompt and each command (OSC 133) so `wait` with
    /// command=true reports a finished command with its exit code and output, `read` says
    /// whether the prompt is ready, and `commands` lists them. The user's start-up files are
    /// still read and left unchanged.
    #[serde(default, rename = "shellIntegration")]
    pub shell_integration: Option<bool>,
    /// Return only once the program waits for input (its first prompt, with
    /// shellIntegration), waiting at most this many milliseconds; the reply's `ready` says
    /// whether it did.
    #[serde(default, rename = "waitReady")]
    pub wait_ready: Option<u64>,
}

/// `spawn`'s `command`: the program's name, or the program and its arguments in one array.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Program {
    /// The program (its arguments in `args`).
    Name(String),
    /// The program and its first arguments (`args` follow them).
    Argv(Vec<String>),
}

/// One input action: give exactly one of its fields.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(inline)]
pub struct Action {
    /// Text typed as is (use `key` for Enter, Tab, arrows …).
    #[serde(default)]
    pub text: Option<String>,
    /// One key, e.g. "Enter", "Ctrl+C", "Shift+Tab", "Alt+F4" (several keys: several
    /// actions). Names: Enter, Tab, Escape, Backspace, Delete, Insert, Up, Down, Left, Right,
    /// Home, End, PageUp, PageDown, Space, Plus, F1–F12, KP0–KP9, or one printable character;
    /// modifiers Ctrl+, Alt+, Shift+, Meta+ (tmux spellings such as C-c, M-x, S-Tab work too).
    #[serde(default)]
    pub key: Option<String>,
    /// A key's release, e.g. "a" or "Ctrl+Left", for programs that asked for key release
    /// events (kitty keyboard protocol, flag 2; an error otherwise).
    #[serde(default)]
    pub key_release: Option<String>,
    /// A key's auto-repeat (kitty keyboard protocol, flag 2).
    #[serde(default)]
    pub key_repeat: Option<String>,
    /// Text sent as a bracketed paste when the program asked for it, else as typed.
    #[serde(default)]
    pub paste: Option<String>,
    /// Raw bytes as hexadecimal, e.g. "1b5b41".
    #[serde(default)]
    pub raw_hex: Option<String>,
    /// A mouse gesture at a cell (row, col 0-based as `read` reports the cursor) or on a
    /// text shown on the screen, e.g. {"action": "click", "row": 3, "col": 10},
    /// {"action": "click", "text": "OK"}, {"action": "scroll", "direction": "down",
    /// "count": 3}, {"action": "drag", "row": 0, "col": 0, "toRow": 5, "toCol": 20}. Only
    /// for programs that turned mouse tracking on (the error says when it is off); encoded
    /// for the program's mouse mode.
    #[serde(default)]
    #[schemars(schema_with = "mouse_schema")]
    pub mouse: Option<MouseStep>,
    /// A pause in milliseconds before the next action (e.g. between Escape and a letter, so
    /// the program does not read them as Alt+letter). At most 60000 in one write.
    #[serde(default)]
    pub delay: Option<u64>,
}

/// One action or several, sent in order as one uninterrupted write.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Actions {
    /// A single action.
    One(Box<Action>),
    /// Several actions, in order.
    Many(Vec<Action>),
}

/// Arguments of `write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WriteArgs {
    /// The session id.
    pub session_id: String,
    /// What to send, in order: an array of actions such as {"text": "ls"}, {"key": "Enter"},
    /// {"paste": "…"}, {"rawHex": "03"}, e.g. [{"text": "echo hi"}, {"key": "Enter"}]. A
    /// single action object is accepted too.
    #[schemars(with = "Vec<Action>")]
    pub action: Actions,
}

/// Arguments of `wait`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WaitArgs {
    /// The session id.
    pub session_id: String,
    /// Wait for this literal text on the screen; blanks on screen are spaces (`">>> "` is
    /// found) and a line break is a row's end. Give exactly one of `match`, `regex`, `idle`,
    /// `exit`, `command`, `title`, `bell`, `changed`.
    #[serde(default, rename = "match")]
    pub text: Option<String>,
    /// Wait for a regular expression (Rust regex syntax) to match the screen text, one line
    /// per row; `^` and `$` anchor lines.
    #[serde(default)]
    pub regex: Option<String>,
    /// Wait until the screen has not changed for this many milliseconds.
    #[serde(default)]
    pub idle: Option<u64>,
    /// Wait for the program to exit.
    #[serde(default)]
    pub exit: Option<bool>,
    /// Wait until a shell command finished after the session's last input, and return it
    /// as `command` {text, exitCode, output, durationMs}: send a command line ending with
    /// Enter, then wait with command=true. Needs shell integration (spawn with
    /// shellIntegration=true for bash, zsh, fish). Never reports a command still running.
    #[serde(default)]
    pub command: Option<bool>,
    /// Wait until the window title contains this text.
    #[serde(default)]
    pub title: Option<String>,
    /// Wait until the terminal rings its bell (after the last input).
    #[serde(default)]
    pub bell: Option<bool>,
    /// Wait until the screen's content changes: after `since` (a `version` from `read`), else
    /// after the wait began. A cursor that only moves or blinks is no change.
    #[serde(default)]
    pub changed: Option<bool>,
    /// With `changed`: the `version` to compare with.
    #[serde(default)]
    pub since: Option<u64>,
    /// The condition must become true after the wait begins: text already on screen (such as
    /// the echo of the command line just typed) does not count, only text that appears
    /// where it was not.
    #[serde(default)]
    pub fresh: Option<bool>,
    /// "present" (default): until the text appears; "absent": until it has been seen and is
    /// gone; "gone": until it is not on the settled screen, seen or not.
    #[serde(default)]
    #[schemars(schema_with = "until_schema")]
    pub until: Option<Until>,
    /// The condition must hold this many milliseconds without interruption.
    #[serde(default)]
    pub stable_for: Option<u64>,
    /// Give up after this many milliseconds (default 30000); a timeout is a tool error with
    /// code wait_timeout.
    #[serde(default)]
    pub timeout: Option<u64>,
}

/// The schema of `wait`'s `until`: a plain string enum (a derived one would be a reference to a
/// `oneOf`, which some function-calling clients reject).
fn until_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": ["string", "null"],
        "enum": Until::ALL.map(|u| Some(u.name())).into_iter().chain([None]).collect::<Vec<_>>(),
        "description": "\"present\" (default): until the text appears; \"absent\": until it has been on the screen and is gone; \"gone\": until it is not on the screen once the program has reacted to the input sent before, seen or not."
    })
}

/// The schema of a `write` action's `mouse`: the host protocol's mouse step, written out
/// plainly (derived, its enums would be references and unions, which some function-calling
/// clients reject).
fn mouse_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let cell = |what: &str| json!({ "type": "integer", "minimum": 0, "description": what });
    schemars::json_schema!({
        "type": ["object", "null"],
        "additionalProperties": false,
        "description": "A mouse gesture, encoded for the mouse mode the program enabled.",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["click", "doubleClick", "drag", "move", "scroll"],
                "description": "What the mouse does."
            },
            "row": cell("Row of the cell (0-based, as `read` reports the cursor)."),
            "col": cell("Column of the cell (0-based)."),
            "text": {
                "type": "string",
                "description": "Instead of row/col: the first cell of this text on the screen."
            },
            "nth": {
                "type": "integer",
                "minimum": 1,
                "description": "With text: its Nth occurrence in screen order (default 1)."
            },
            "toRow": cell("drag: the row where the button comes up."),
            "toCol": cell("drag: the column where the button comes up."),
            "button": {
                "type": "string",
                "enum": ["left", "middle", "right"],
                "description": "click, doubleClick, drag: the button (default left)."
            },
            "direction": {
                "type": "string",
                "enum": ["up", "down", "left", "right"],
                "description": "scroll: which way the wheel turns."
            },
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": 1000,
                "description": "scroll: notches (default 1). Without row/col the wheel turns where the last mouse action left the pointer."
            },
            "mods": {
                "type": "array",
                "items": { "type": "string", "enum": ["shift", "alt", "meta", "ctrl"] },
                "description": "Modifier keys held."
            }
        },
        "required": ["action"]
    })
}

/// Arguments of `resize`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResizeArgs {
    /// The session id.
    pub session_id: String,
    /// New width in columns, 1–500.
    #[schemars(range(min = 1, max = MAX_SIZE))]
    pub cols: u16,
    /// New height in rows, 1–500.
    #[schemars(range(min = 1, max = MAX_SIZE))]
    pub rows: u16,
}

/// Arguments of `capture`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CaptureArgs {
    /// The session id.
    pub session_id: String,
    /// Output file; the extension picks the format: .svg, .png, .txt or .json. A relative
    /// path is relative to the MCP server's working directory.
    pub path: String,
}

/// Arguments of `mark`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MarkArgs {
    /// The session id.
    pub session_id: String,
    /// The marker's label (at most 1024 characters).
    pub label: Option<String>,
}

/// Arguments of `export`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExportArgs {
    /// The session id.
    pub session_id: String,
    /// Output file; the extension picks the format: .cast (asciicast v2), or .svg, .gif,
    /// .apng for an animation. A relative path is relative to the MCP server's working
    /// directory.
    pub path: String,
    /// Caption the keys typed (`--show-keys`) in an animation.
    #[serde(default)]
    pub show_keys: bool,
}

/// The MCP server.
#[derive(Debug, Clone)]
pub struct Server {
    tool_router: ToolRouter<Self>,
    /// The tool [`PANIC_HOOK_ENV`] names (a test-only hook).
    panic_in: Option<String>,
}

impl Default for Server {
    fn default() -> Self {
        Self::new()
    }
}

fn call(method: &str, params: &impl serde::Serialize) -> Result<Value, SessionError> {
    Client::connect()?.call(method, params, reply_timeout(method))
}

fn error_result(e: &SessionError) -> CallToolResult {
    CallToolResult::structured_error(json!({ "error": { "code": e.code, "message": e.message } }))
}

/// Runs blocking host calls off the async executor and turns the outcome into a tool result.
async fn run(f: impl FnOnce() -> Result<Value, SessionError> + Send + 'static) -> CallToolResult {
    let outcome = tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(SessionError::new(
            ErrorCode::SessionError,
            format!("the tool failed: {e}"),
        ))
    });
    match outcome {
        // A failed wait keeps its result and carries its own `error`.
        Ok(v) if v.get("status").and_then(Value::as_str) == Some("error") => {
            CallToolResult::structured_error(v)
        }
        Ok(v) => CallToolResult::structured(v),
        Err(e) => error_result(&e),
    }
}

fn appearance(title: Option<String>) -> Result<Appearance, String> {
    Ok(Appearance {
        title,
        ..Appearance::default()
    })
}

fn step(a: Action) -> Result<SendStep, SessionError> {
    let fields = [
        a.text.map(SendStep::Text),
        a.key.map(SendStep::Keys),
        a.key_release.map(SendStep::KeyRelease),
        a.key_repeat.map(SendStep::KeyRepeat),
        a.paste.map(SendStep::Paste),
        a.raw_hex.map(SendStep::RawHex),
        a.mouse.map(SendStep::Mouse),
        a.delay.map(SendStep::Delay),
    ];
    let mut given = fields.into_iter().flatten();
    match (given.next(), given.next()) {
        (Some(step), None) => Ok(step),
        _ => Err(SessionError::invalid_request(
            "each action needs exactly one of text, key, keyRelease, keyRepeat, paste, rawHex, mouse, delay",
        )),
    }
}

#[tool_router]
impl Server {
    /// A server with every tool.
    pub fn new() -> Self {
        Server {
            tool_router: Self::tool_router(),
            panic_in: std::env::var(PANIC_HOOK_ENV).ok().filter(|m| !m.is_empty()),
        }
    }

    #[tool(
        description = "Start a program in a new background terminal session (a PTY that keeps running between calls), e.g. {\"command\": \"bash\"} or {\"command\": \"python3\", \"args\": [\"-q\"]}. Durations are milliseconds in every tool. Returns {sessionId, state, processId, width, height, warnings}. Use `write` to type, `wait` to wait for output, `read` for the screen text, `inspect` to see it, `kill` to end it. Sessions are shared with `shotty session` on the command line."
    )]
    async fn spawn(&self, Parameters(a): Parameters<SpawnArgs>) -> CallToolResult {
        run(move || {
            let mut command = match a.command {
                Program::Name(name) => vec![name],
                Program::Argv(argv) => argv,
            };
            if command.first().is_none_or(String::is_empty) {
                return Err(SessionError::invalid_request("command is empty"));
            }
            command.extend(a.args);
            if a.timeout == Some(0) {
                return Err(SessionError::invalid_request(
                    "timeout must be a positive number of milliseconds",
                ));
            }
            let cwd = match a.cwd {
                Some(c) => std::path::absolute(&c),
                None => std::env::current_dir(),
            }
            .map_err(|e| SessionError::io("bad cwd", e))?;
            let env: Vec<(String, String)> = a.env.unwrap_or_default().into_iter().collect();
            call(
                "start",
                &StartParams {
                    command,
                    width: Some(a.cols.unwrap_or(100)),
                    height: Some(a.rows.unwrap_or(24)),
                    cwd: Some(cwd.display().to_string()),
                    env,
                    title: a.title,
                    group: a.group,
                    timeout_ms: a.timeout,
                    name: a.name,
                    shell_integration: a.shell_integration.unwrap_or(false),
                    wait_ready_ms: a.wait_ready,
                    ..StartParams::default()
                },
            )
        })
        .await
    }

    #[tool(
        description = "Read a session's screen as text (blank rows at the end left out unless trim=false). Waits briefly for output to settle. Returns {sessionId, state, processId, exitCode, version, screen: {width, height, text, cursorRow, cursorColumn, cursorVisible, isAlternateScreen, scrollbackRows, …}}. For earlier output that scrolled away use `history`."
    )]
    async fn read(&self, Parameters(mut p): Parameters<ReadParams>) -> CallToolResult {
        // Blank rows at the end cost an agent tokens and tell it nothing.
        p.trim.get_or_insert(true);
        run(move || call("read", &p)).await
    }

    #[tool(
        description = "Send input to a session: text, keys, a paste, raw bytes, mouse clicks/drags/scrolls or pauses, or an array of them sent in order. Example: {\"sessionId\": \"s_…\", \"action\": [{\"text\": \"ls -l\"}, {\"key\": \"Enter\"}]}. Returns {sessionId, state, written} (bytes written). Follow with `wait` to see the effect."
    )]
    async fn write(&self, Parameters(a): Parameters<WriteArgs>) -> CallToolResult {
        run(move || {
            let actions = match a.action {
                Actions::One(x) => vec![*x],
                Actions::Many(v) => v,
            };
            if actions.is_empty() {
                return Err(SessionError::invalid_request("action is an empty array"));
            }
            let steps = actions
                .into_iter()
                .map(step)
                .collect::<Result<Vec<_>, _>>()?;
            let params = SendParams {
                session_id: a.session_id,
                steps,
            };
            Client::connect()?.call(
                "send",
                &params,
                reply_timeout_after("send", params.pauses()),
            )
        })
        .await
    }

    #[tool(
        description = "Wait until a condition holds on a session's screen: `match` text present (or gone with until=\"gone\", or seen and then gone with until=\"absent\"), a `regex`, `idle` ms without change, `exit`, `command` (a shell command finished after the last input; with shell integration), `title`, `bell` or `changed` (any content change; `since` a read's version); `fresh` ignores what was already on screen. Returns {result: \"matched\", text, matched, waitedMs, version, state, screen, command?}; a timeout (default 30000 ms) or the session ending first is a tool error carrying the same fields plus error.code wait_timeout / session_exited."
    )]
    async fn wait(&self, Parameters(a): Parameters<WaitArgs>) -> CallToolResult {
        run(move || {
            let until = a.until.map(Until::name);
            let params = WaitParams {
                session_id: a.session_id,
                text: a.text,
                regex: a.regex,
                until: until.map(str::to_owned),
                stable_for_ms: a.stable_for,
                timeout_ms: Some(a.timeout.unwrap_or(DEFAULT_WAIT_MS)),
                idle_ms: a.idle,
                exit: a.exit.unwrap_or(false),
                command: a.command.unwrap_or(false),
                title: a.title,
                bell: a.bell.unwrap_or(false),
                changed: a.changed.unwrap_or(false),
                since: a.since,
                fresh: a.fresh.unwrap_or(false),
            };
            Client::connect()?.call("wait", &params, None)
        })
        .await
    }

    #[tool(
        description = "Resize a session's terminal (the program gets SIGWINCH). Returns {sessionId, width, height}."
    )]
    async fn resize(&self, Parameters(a): Parameters<ResizeArgs>) -> CallToolResult {
        run(move || {
            call(
                "resize",
                &ResizeParams {
                    session_id: a.session_id,
                    width: a.cols,
                    height: a.rows,
                },
            )
        })
        .await
    }

    #[tool(
        description = "A session's status without its screen: {sessionId, state (running/exited), processId, exitCode, width, height, command, title, group, cwd, createdAt, updatedAt, urls, outputLines; ended sessions add outcome, stopReason, expiresAt}."
    )]
    async fn status(&self, Parameters(a): Parameters<IdParams>) -> CallToolResult {
        run(move || {
            let reply = call(
                "list",
                &ListParams {
                    session_id: Some(a.session_id.clone()),
                    ..ListParams::default()
                },
            )?;
            reply["sessions"]
                .as_array()
                .and_then(|s| s.first())
                .cloned()
                .ok_or_else(|| {
                    SessionError::new(
                        ErrorCode::SessionNotFound,
                        format!("no session {}", a.session_id),
                    )
                })
        })
        .await
    }

    #[tool(
        description = "Stop a session and its whole process tree, and forget it: afterwards its id is unknown (session_not_found). Works on ended sessions too. Returns {stopped: [sessionId], failed: []}."
    )]
    async fn kill(&self, Parameters(a): Parameters<IdParams>) -> CallToolResult {
        run(move || {
            let reply = call(
                "stop",
                &StopParams {
                    session_ids: vec![a.session_id],
                    ..StopParams::default()
                },
            )?;
            match reply["failed"].as_array().and_then(|f| f.first()) {
                Some(f) => Err(SessionError::new(
                    serde_json::from_value(f["code"].clone()).unwrap_or(ErrorCode::SessionError),
                    f["message"].as_str().unwrap_or("cannot stop the session"),
                )),
                None => Ok(reply),
            }
        })
        .await
    }

    #[tool(
        description = "List sessions (running ones; all=true adds retained ended ones), including those started with `shotty session start`. Returns {sessions: [{sessionId, state, processId, exitCode, width, height, command, title, group, cwd, createdAt, updatedAt, …}]}."
    )]
    async fn list(&self, Parameters(p): Parameters<ListParams>) -> CallToolResult {
        run(move || call("list", &p)).await
    }

    #[tool(
        description = "Lines of a session's scrollback and screen with their global indices, oldest first. Returns {lines: [{index, text}], next, truncated, dropped}; pass `next` as `from` to continue."
    )]
    async fn history(&self, Parameters(p): Parameters<HistoryParams>) -> CallToolResult {
        run(move || call("history", &p)).await
    }

    #[tool(
        description = "Find text on a session's screen: every occurrence of `text` (or `regex`) as {row, col, length, text}, 0-based cells as `read` reports the cursor (click it with `write` {\"mouse\": {\"action\": \"click\", \"row\": …, \"col\": …}}). `style` keeps matches whose cells all have it, e.g. \"bold\", \"inverse\", \"fg=1\", \"bg=#ff0000\" (comma-separated); `history` searches the scrollback too. Returns {sessionId, matches, truncated}."
    )]
    async fn find(&self, Parameters(p): Parameters<FindParams>) -> CallToolResult {
        run(move || call("find", &p)).await
    }

    #[tool(
        description = "Restart a session's program: end it and start the same command again (same size, environment, directory, name, options) in a new session. Returns the new session as `spawn` does, plus previousSessionId; the old session stays readable as stopped (stopReason \"restart\")."
    )]
    async fn restart(&self, Parameters(p): Parameters<IdParams>) -> CallToolResult {
        run(move || call("restart", &p)).await
    }

    #[tool(
        description = "The output a session's program wrote, as a stream with byte offsets: the log of a dev server or a build beyond what the screen shows. Plain text unless ansi=true. Pass the reply's `end` as `since` next time to get only what is new; waitMs waits for new output (at most 60000). Returns {sessionId, start, end, text, more, dropped, state}."
    )]
    async fn output(&self, Parameters(p): Parameters<OutputParams>) -> CallToolResult {
        run(move || {
            let wait = Duration::from_millis(p.wait_ms.unwrap_or(0));
            Client::connect()?.call("output", &p, reply_timeout_after("output", wait))
        })
        .await
    }

    #[tool(
        description = "The shell commands a session ran, oldest first, with exit codes (needs shell integration: spawn with shellIntegration=true). Returns {sessionId, commands: [{index, text, exitCode, output, durationMs, finishedAtMs}], dropped}; `last` limits to the last N (default 20)."
    )]
    async fn commands(&self, Parameters(p): Parameters<CommandsParams>) -> CallToolResult {
        run(move || call("commands", &p)).await
    }

    #[tool(
        description = "Save a screenshot of a session's screen to a file; the extension picks the format (.svg, .png, .txt, .json). Returns {sessionId, artifact: {path (absolute), format}}. To look at the screen yourself use `inspect`."
    )]
    async fn capture(&self, Parameters(a): Parameters<CaptureArgs>) -> CallToolResult {
        run(move || {
            let out = PathBuf::from(&a.path);
            let format = Format::from_path(&out).ok_or_else(|| {
                SessionError::invalid_request(format!(
                    "cannot tell the format of {} from its extension; use .svg, .png, .txt or .json",
                    a.path
                ))
            })?;
            let (bytes, _) =
                artifacts::render_to(Client::connect()?, &a.session_id, format, appearance)?;
            let path = std::path::absolute(&out).map_err(|e| SessionError::io("bad path", e))?;
            artifacts::write_file(&path, &bytes)
                .map_err(|e| SessionError::new(ErrorCode::IoError, e))?;
            Ok(json!({ "sessionId": a.session_id, "artifact": { "path": path, "format": format.name() } }))
        })
        .await
    }

    #[tool(
        description = "Add a marker to a session's recording (every session records its output, input and resizes), e.g. before a step worth finding again. Returns {sessionId, label, atMs}."
    )]
    async fn mark(&self, Parameters(a): Parameters<MarkArgs>) -> CallToolResult {
        let params = MarkParams {
            session_id: a.session_id,
            label: a.label,
        };
        run(move || call("mark", &params)).await
    }

    #[tool(
        description = "Save a session's recording to a file: .cast (asciicast v2, plays in asciinema), or an animation of the run as .svg, .gif or .apng (showKeys captions the keys typed). Returns {sessionId, path (absolute), format, events, outputBytes, truncated}."
    )]
    async fn export(&self, Parameters(a): Parameters<ExportArgs>) -> CallToolResult {
        run(move || {
            let out = PathBuf::from(&a.path);
            let format = artifacts::export_format(&out).map_err(SessionError::invalid_request)?;
            let timing = Timing {
                show_keys: a.show_keys,
                ..Timing::default()
            };
            let look = appearance(None).map_err(SessionError::invalid_request)?;
            let animation = format.map(|f| (f, timing, &look));
            let (bytes, mut reply) =
                artifacts::export(Client::connect()?, &a.session_id, animation)?;
            let path = std::path::absolute(&out).map_err(|e| SessionError::io("bad path", e))?;
            artifacts::write_recording(&path, &bytes)
                .map_err(|e| SessionError::new(ErrorCode::IoError, e))?;
            reply["path"] = json!(path);
            Ok(reply)
        })
        .await
    }

    #[tool(
        description = "Look at a session's screen: returns the screenshot as a PNG image, plus a text item with the path of the same screenshot as SVG (a private temporary file)."
    )]
    async fn inspect(&self, Parameters(a): Parameters<IdParams>) -> CallToolResult {
        let id = a.session_id;
        let outcome = tokio::task::spawn_blocking(move || {
            let fetched = artifacts::fetch(Client::connect()?, &id)?;
            let look = appearance(fetched.title.clone()).map_err(SessionError::invalid_request)?;
            // Both from the same snapshot, so they show the same screen.
            let svg = artifacts::render(&fetched, Format::Svg, &look)?;
            let path = artifacts::inspect_file(&fetched.reply, &svg, Format::Svg)?;
            let png = artifacts::render(&fetched, Format::Png, &look)?;
            Ok::<_, SessionError>((png, path, id))
        })
        .await
        .unwrap_or_else(|e| {
            Err(SessionError::new(
                ErrorCode::SessionError,
                format!("the tool failed: {e}"),
            ))
        });
        match outcome {
            Ok((png, path, id)) => CallToolResult::success(vec![
                ContentBlock::image(
                    base64::engine::general_purpose::STANDARD.encode(png),
                    "image/png",
                ),
                ContentBlock::text(
                    json!({ "sessionId": id, "svg": path, "format": "png" }).to_string(),
                ),
            ]),
            Err(e) => error_result(&e),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let call = async {
            if self.panic_in.as_deref() == Some(name.as_str()) {
                panic!("{PANIC_HOOK_ENV} asked for a panic in {name:?}");
            }
            let tcc = ToolCallContext::new(self, request, context);
            self.tool_router.call(tcc).await
        };
        // A panic inside one tool call becomes its error result; without this the request
        // would never be answered (rmcp's task dies with it) while the server runs on.
        match CatchUnwind(Box::pin(call)).await {
            Ok(response) => response,
            Err(what) => Ok(error_result(&SessionError::new(
                ErrorCode::SessionError,
                format!("internal error in {name}: {what} (the server keeps running)"),
            ))
            .into()),
        }
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new(
                "shotty",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Drive programs in background terminals: spawn, write, wait, read, inspect \
                 (screenshot), kill. Sessions are shared with `shotty session`.",
            )
    }
}

/// Polls a future, turning a panic inside it into its message.
struct CatchUnwind<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match serve::catch_panic(|| inner.poll(cx)) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(what) => Poll::Ready(Err(what)),
        }
    }
}

/// Buffer of the pipes between stdio and rmcp.
const PIPE_BUFFER: usize = 64 * 1024;
/// How long tool calls still running when the client hangs up may take to finish.
const EXIT_GRACE: Duration = Duration::from_millis(100);

/// Serves MCP on stdin/stdout until the client closes stdin.
pub fn serve() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let outcome = runtime.block_on(serve_stdio());
    // A tool call still running (a long `wait`) must not keep the process once its client
    // has gone: it is abandoned, and its host connection, closed by the exit, cancels it
    // there. (Dropping the runtime would wait for it.)
    runtime.shutdown_timeout(EXIT_GRACE);
    outcome
}

/// rmcp behind a screen: every line from stdin is checked as JSON-RPC 2.0 first, so that
/// whatever a client sends is answered the way the host and `serve` answer it — `-32700`
/// for what is not JSON, `-32600` for what is not a request, `-32602` for a `tools/call` of
/// the wrong shape, each with the request's id or `null` — where rmcp would stay silent,
/// leave the id out or say "method not found". Replies from rmcp and from the screen go to
/// stdout a whole line at a time.
async fn serve_stdio() -> Result<(), String> {
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE_BUFFER);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE_BUFFER);
    let (lines, mut to_stdout) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = to_stdout.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                return;
            }
        }
    });
    let replies = {
        let lines = lines.clone();
        tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(from_rmcp);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) if lines.send(line).is_err() => return,
                    Ok(_) => {}
                }
            }
        })
    };
    let screen = tokio::spawn(screen_requests(tokio::io::stdin(), to_rmcp, lines));
    let outcome = match Server::new().serve((rmcp_in, rmcp_out)).await {
        Ok(service) => service
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| format!("MCP server failed: {e}")),
        Err(e) => Err(format!("MCP initialization failed: {e}")),
    };
    // rmcp may have ended first (stdout closed); stdin is then no longer read.
    screen.abort();
    let _ = replies.await;
    let _ = writer.await;
    outcome
}

/// A line of output: a JSON-RPC error reply.
fn error_line(id: &Value, code: i64, message: String) -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct Failure<'a> {
        jsonrpc: &'static str,
        error: RpcError,
        id: &'a Value,
    }
    let failure = Failure {
        jsonrpc: "2.0",
        error: RpcError::new(code, message),
        id,
    };
    let mut line = serde_json::to_vec(&failure).unwrap_or_default();
    line.push(b'\n');
    line
}

/// What becomes of one line from the client.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// Handed to rmcp as it is.
    Pass,
    /// Ignored: a blank line, or a malformed notification (which gets no reply).
    Ignore,
    /// Answered here with this line.
    Reply(Vec<u8>),
}

/// The UTF-8 byte order mark, which RFC 8259 lets a parser ignore (rmcp does).
const BOM: &[u8] = b"\xef\xbb\xbf";

fn screen(line: &[u8]) -> Verdict {
    let line = line.strip_prefix(BOM).unwrap_or(line);
    if line.trim_ascii().is_empty() {
        return Verdict::Ignore;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Reply(error_line(
                &Value::Null,
                code::PARSE_ERROR,
                format!("Parse error: {e}"),
            ));
        }
    };
    let invalid = |id: &Value, detail: &str| {
        Verdict::Reply(error_line(
            id,
            code::INVALID_REQUEST,
            format!("Invalid Request: {detail}"),
        ))
    };
    let Value::Object(obj) = &value else {
        return invalid(
            &Value::Null,
            "a message is a JSON object (batches are not supported)",
        );
    };
    // MCP request ids are strings or integers (rmcp's are 64-bit signed); another number is
    // still an id to answer with.
    let id = match obj.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.is_i64() => Some(id.clone()),
        Some(id @ Value::Number(_)) => {
            return invalid(id, "id must be a string or a 64-bit signed integer");
        }
        Some(_) => return invalid(&Value::Null, "id must be a string or an integer"),
    };
    let detail = if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        Some("jsonrpc must be \"2.0\"")
    } else if !obj.get("method").is_some_and(Value::is_string) {
        Some("method must be a string")
    } else if !obj.get("params").is_none_or(Value::is_object) {
        Some("params must be an object")
    } else {
        None
    };
    let Some(id) = id else {
        // A notification is never answered; one rmcp cannot read is dropped here, since rmcp
        // would answer it without an id.
        return match detail {
            Some(detail) => invalid(&Value::Null, detail),
            None if serde_json::from_value::<ClientJsonRpcMessage>(value).is_ok() => Verdict::Pass,
            None => Verdict::Ignore,
        };
    };
    if let Some(detail) = detail {
        return invalid(&id, detail);
    }
    let bad_params = |detail: String| {
        Verdict::Reply(error_line(
            &id,
            code::INVALID_PARAMS,
            format!("Invalid params: {detail}"),
        ))
    };
    // rmcp takes a tools/call it cannot read for an unknown method.
    if obj.get("method").and_then(Value::as_str) == Some("tools/call") {
        let params = obj.get("params").and_then(Value::as_object);
        if !params.is_some_and(|p| p.get("name").is_some_and(Value::is_string)) {
            return bad_params("tools/call needs the tool's name".to_owned());
        }
        if !params.is_some_and(|p| p.get("arguments").is_none_or(Value::is_object)) {
            return bad_params("a tool's arguments are an object".to_owned());
        }
    }
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(_) => Verdict::Pass,
        Err(e) => bad_params(e.to_string()),
    }
}

/// Reads the client's lines, hands the good ones to rmcp and answers the others.
async fn screen_requests(
    stdin: impl AsyncRead + Unpin,
    mut to_rmcp: tokio::io::DuplexStream,
    replies: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut reader = tokio::io::BufReader::new(stdin);
    let mut buf = Vec::new();
    loop {
        let verdict = match read_line(&mut reader, &mut buf, MAX_LINE).await {
            Ok(Line::Eof) | Err(_) => return,
            Ok(Line::TooLong) => Verdict::Reply(error_line(
                &crate::rpc::id_in_head(&buf),
                code::INVALID_REQUEST,
                format!("Invalid Request: the line is longer than {MAX_LINE} bytes"),
            )),
            Ok(Line::Complete) => screen(&buf),
        };
        match verdict {
            Verdict::Ignore => {}
            Verdict::Pass => {
                buf.push(b'\n');
                if to_rmcp.write_all(&buf).await.is_err() {
                    return;
                }
            }
            Verdict::Reply(line) => {
                if replies.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// [`crate::lines::read_line`] for async input: one line of at most `max` bytes into `buf`,
/// a longer one skipped whole.
async fn read_line(
    reader: &mut (impl AsyncBufRead + Unpin),
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    let mut line = LineReader::new(buf, max);
    loop {
        let (consumed, done) = line.take(reader.fill_buf().await?);
        reader.consume(consumed);
        if let Some(done) = done {
            return Ok(done);
        }
    }
}
