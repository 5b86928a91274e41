//! What the methods answer: the result structs, and each response line as it is written.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::rpc::{RpcError, code};
use crate::session::error::{ErrorCode, SessionError};

/// A 1-based cursor position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// Row, 1 = top.
    pub row: usize,
    /// Column, 1 = left.
    pub col: usize,
}

/// The terminal's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Size {
    /// Columns.
    pub cols: usize,
    /// Rows.
    pub rows: usize,
}

/// `pty/read`'s result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScreenResult {
    /// The selected rows of the screen as text: each row with its trailing spaces removed and
    /// followed by `\n`, down to the last row that is not blank (`""` when all are).
    pub screen: String,
    /// The cursor.
    pub cursor: Position,
    /// The terminal size.
    pub size: Size,
}

/// `pty/write`'s result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteResult {
    /// Bytes written (UTF-8 text and key sequences, all actions together).
    pub written: usize,
}

/// `pty/wait`'s result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitReply {
    /// The text appeared before the timeout.
    pub matched: bool,
    /// The whole screen when the wait ended (as in [`ScreenResult::screen`]).
    pub screen: String,
    /// The cursor then.
    pub cursor: Position,
    /// The size then.
    pub size: Size,
    /// How long the wait took, in milliseconds.
    pub waited_ms: u64,
}

/// `pty/status`'s result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusResult {
    /// The program has not ended.
    pub running: bool,
    /// Its exit code once it exited (`null` while running or after a signal).
    pub exit_code: Option<i32>,
    /// Its pid (also its process group).
    pub pid: u32,
}

/// `pty/mark`'s result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MarkResult {
    /// Milliseconds from the start of the recording.
    pub at_ms: u64,
    /// The marker's label.
    pub label: String,
}

/// `pty/export`'s result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportResult {
    /// The file written.
    pub path: std::path::PathBuf,
    /// `cast`, `svg`, `gif` or `apng`.
    pub format: String,
    /// What the recording holds.
    #[serde(flatten)]
    pub recording: crate::recording::RecordingSummary,
}

/// The empty result of `pty/resize` and `pty/kill`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyResult {}

#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum Outcome {
    Screen(ScreenResult),
    Written(WriteResult),
    Waited(WaitReply),
    Status(StatusResult),
    Marked(MarkResult),
    Exported(ExportResult),
    Empty(EmptyResult),
}

impl RpcError {
    pub(super) fn from_session(e: SessionError) -> RpcError {
        let (code, message) = match e.code {
            ErrorCode::InvalidRequest | ErrorCode::UnsupportedKey | ErrorCode::InvalidCondition => {
                (
                    code::INVALID_PARAMS,
                    format!("Invalid params: {}", e.message),
                )
            }
            ErrorCode::SessionExited => (code::SERVER_ERROR, "the session has ended".to_owned()),
            ErrorCode::IoError | ErrorCode::SessionError => (code::INTERNAL_ERROR, e.message),
            _ => (code::SERVER_ERROR, e.message),
        };
        RpcError {
            code,
            message,
            data: Some(json!({ "code": e.code })),
        }
    }
}

#[derive(Serialize)]
struct Success<'a, T> {
    jsonrpc: &'static str,
    result: &'a T,
    id: &'a Value,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    error: &'a RpcError,
    id: &'a Value,
}

/// One response line (with its newline).
pub(super) fn response_line(id: &Value, result: Result<Outcome, RpcError>) -> Vec<u8> {
    let encoded = match &result {
        Ok(r) => serde_json::to_vec(&Success {
            jsonrpc: "2.0",
            result: r,
            id,
        }),
        Err(e) => serde_json::to_vec(&Failure {
            jsonrpc: "2.0",
            error: e,
            id,
        }),
    };
    let mut line = encoded.unwrap_or_else(|e| {
        let e = RpcError::new(code::INTERNAL_ERROR, format!("Internal error: {e}"));
        serde_json::to_vec(&Failure {
            jsonrpc: "2.0",
            error: &e,
            id,
        })
        .unwrap_or_default()
    });
    line.push(b'\n');
    line
}

/// The protocol's screen text: each row (right-trimmed) followed by `\n`, without the blank
/// rows at the end — `"hello\n"` for a screen showing just `hello`, `""` for a blank one.
pub(super) fn screen_text(rows: &str) -> String {
    let content = rows.trim_end_matches('\n');
    if content.is_empty() {
        return String::new();
    }
    let mut text = String::with_capacity(content.len() + 1);
    text.push_str(content);
    text.push('\n');
    text
}
