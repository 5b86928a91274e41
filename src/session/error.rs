//! The session layer's errors and their stable codes: one enum, one place. Every front end
//! (CLI envelope, host protocol, JSON-RPC endpoint, MCP tool errors) converts from here.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Stable error codes; programs branch on these, never on messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No session has this id.
    SessionNotFound,
    /// The session ended and its retention period is over.
    SessionExpired,
    /// The session's program has ended (for operations that need it running).
    SessionExited,
    /// The session host cannot be reached or started.
    HostUnavailable,
    /// A key name is not in the vocabulary.
    UnsupportedKey,
    /// A wait condition is malformed (bad regex, contradictory options).
    InvalidCondition,
    /// A wait timed out.
    WaitTimeout,
    /// The operation was cancelled (Ctrl+C).
    Cancelled,
    /// The program could not be started.
    SessionNotStarted,
    /// The request is malformed: unknown option, missing argument, bad value.
    InvalidRequest,
    /// The request is valid but not possible in the current state.
    InvalidOperation,
    /// A file or socket has the wrong owner or mode, or a peer is another user.
    PermissionDenied,
    /// Reading or writing failed.
    IoError,
    /// Anything else that went wrong inside a session.
    SessionError,
}

impl ErrorCode {
    /// The code as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::SessionExpired => "session_expired",
            ErrorCode::SessionExited => "session_exited",
            ErrorCode::HostUnavailable => "host_unavailable",
            ErrorCode::UnsupportedKey => "unsupported_key",
            ErrorCode::InvalidCondition => "invalid_condition",
            ErrorCode::WaitTimeout => "wait_timeout",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::SessionNotStarted => "session_not_started",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidOperation => "invalid_operation",
            ErrorCode::PermissionDenied => "permission_denied",
            ErrorCode::IoError => "io_error",
            ErrorCode::SessionError => "session_error",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with a stable code and a message for people.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionError {
    /// Stable code.
    pub code: ErrorCode,
    /// Human-readable message; wording may change.
    pub message: String,
}

impl SessionError {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> SessionError {
        SessionError {
            code,
            message: message.into(),
        }
    }

    /// `invalid_request`.
    pub fn invalid_request(message: impl Into<String>) -> SessionError {
        SessionError::new(ErrorCode::InvalidRequest, message)
    }

    /// `session_not_found` for `id`.
    pub fn not_found(id: &str) -> SessionError {
        SessionError::new(ErrorCode::SessionNotFound, format!("no session {id}"))
    }

    /// `io_error` from an I/O error with context.
    pub fn io(context: &str, e: std::io::Error) -> SessionError {
        SessionError::new(ErrorCode::IoError, format!("{context}: {e}"))
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for SessionError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialise_as_their_stable_names() {
        for code in [
            ErrorCode::SessionNotFound,
            ErrorCode::SessionExpired,
            ErrorCode::SessionExited,
            ErrorCode::HostUnavailable,
            ErrorCode::UnsupportedKey,
            ErrorCode::InvalidCondition,
            ErrorCode::WaitTimeout,
            ErrorCode::Cancelled,
            ErrorCode::SessionNotStarted,
            ErrorCode::InvalidRequest,
            ErrorCode::InvalidOperation,
            ErrorCode::PermissionDenied,
            ErrorCode::IoError,
            ErrorCode::SessionError,
        ] {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert_eq!(serde_json::from_str::<ErrorCode>(&json).unwrap(), code);
        }
    }
}
