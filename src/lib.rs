//! shotty: terminal screenshots and terminal automation, built on its own emulator.
//!
//! Data flows one way: bytes → [`Terminal`] → [`Snapshot`] → text, JSON or an image. The
//! [`input`] module reads recordings, [`session`] runs programs in PTYs and drives them; the
//! CLI in `src/cli/` is a thin layer on top. `docs/architecture.md` maps the modules.
//!
//! Bytes to text:
//!
//! ```
//! let mut term = shotty::Terminal::new(20, 2);
//! term.advance(b"\x1b[1;32mok\x1b[0m done");
//! assert_eq!(term.text(), "ok done\n");
//! ```
//!
//! Bytes to an SVG (and, the same way, a PNG with [`render::to_png`]):
//!
//! ```
//! # fn main() -> Result<(), shotty::render::RenderError> {
//! let mut term = shotty::Terminal::new(40, 3);
//! term.advance("\x1b[31mred\x1b[0m and 日本".as_bytes());
//! let svg = shotty::to_svg(&term.snapshot(), &shotty::Appearance::default())?;
//! assert!(svg.starts_with("<svg") && svg.contains(">日本<"));
//! # Ok(())
//! # }
//! ```
//!
//! A program driven from Rust: start it in a PTY, type into it, wait for its answer.
//!
//! ```
//! # #[cfg(feature = "session")]
//! # fn main() -> Result<(), shotty::session::SessionError> {
//! use std::sync::atomic::AtomicBool;
//! use std::time::Duration;
//! use shotty::session::protocol::SendStep;
//! use shotty::session::wait::{Target, Until, WaitCondition, WaitResult, wait};
//! use shotty::session::{Session, SessionSpec, StopReason};
//!
//! let command = ["sh", "-c", "read name; echo hello, $name"].map(String::from).to_vec();
//! let session = Session::start("example".into(), SessionSpec::new(command, 40, 5))?;
//! session.send(&[SendStep::Text("world\r".into())])?;
//! let answer = WaitCondition {
//!     target: Target::Text("hello, world".into()),
//!     until: Until::Present,
//!     stable_for: None,
//!     timeout: Some(Duration::from_secs(10)),
//!     fresh: false,
//! };
//! assert_eq!(wait(&session, &answer, &AtomicBool::new(false)).result, WaitResult::Matched);
//! assert!(session.lock().term.text().contains("hello, world"));
//! session.stop(StopReason::User, Duration::from_secs(1))?;
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "session"))]
//! # fn main() {}
//! ```
// Modules a feature leaves out are linked to the whole crate's documentation instead.
#![cfg_attr(
    not(feature = "serde"),
    doc = "\n[`input`]: https://docs.rs/shotty/latest/shotty/input/"
)]
#![cfg_attr(
    not(feature = "session"),
    doc = "\n[`session`]: https://docs.rs/shotty/latest/shotty/session/"
)]
#![cfg_attr(
    not(feature = "png"),
    doc = "\n[`render::to_png`]: https://docs.rs/shotty/latest/shotty/render/fn.to_png.html"
)]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod bytesize;
#[cfg(feature = "serde")]
pub mod diff;
pub mod duration;
#[cfg(feature = "serde")]
pub mod input;
pub mod lines;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "session")]
pub mod pty;
pub mod recording;
pub mod render;
#[cfg(feature = "session")]
pub mod rpc;
#[cfg(feature = "scenario")]
pub mod scenario;
#[cfg(feature = "session")]
pub mod serve;
#[cfg(feature = "session")]
pub mod session;
#[cfg(feature = "session")]
pub mod signals;
// Its place in the API since before it moved beside the session host that serves it too.
#[cfg(feature = "session")]
pub use session::golden;
#[cfg(feature = "tape")]
pub mod tape;
pub mod term;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "web")]
pub mod web;

#[cfg(feature = "png")]
pub use render::to_png;
pub use render::{Appearance, to_svg};
pub use term::{Snapshot, Terminal};
