//! Background terminal sessions: programs in PTYs driven from separate CLI calls, the
//! JSON-RPC endpoint and the MCP server.

pub mod artifacts;
pub mod client;
pub mod commands;
pub mod error;
pub mod golden;
pub mod hangup;
pub mod host;
pub mod instance;
pub mod journal;
pub mod output;
pub mod paths;
pub mod protocol;
pub mod rows;
pub mod run;
pub mod send;
pub mod shell_integration;
pub mod wait;
pub mod whole_file;

pub use error::{ErrorCode, SessionError};
pub use instance::{Outcome, Session, SessionSpec, State, StopReason};
