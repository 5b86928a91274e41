//! shotty: terminal screenshots and terminal automation, built on its own emulator.
//!
//! Data flows one way: bytes → [`term::Terminal`] → [`term::Snapshot`] → text, JSON or an
//! image. The [`input`] module reads recordings; the CLI in `src/cli/` is a thin layer on top.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod diff;
pub mod duration;
pub mod input;
pub mod lines;
pub mod mcp;
pub mod pty;
pub mod render;
pub mod rpc;
pub mod serve;
pub mod session;
pub mod signals;
pub mod term;
