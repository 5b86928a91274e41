//! The emulator (`shotty::term`): one test binary for the escape-sequence tests by topic, the
//! pinned snapshots of the recorded fixtures, the differential test against
//! `alacritty_terminal` and the property test.
//!
//! Run one part with a filter, e.g. `cargo test --test term sgr::`.

mod common;
#[path = "../support/mod.rs"]
mod support;

mod alternate_screen;
mod charsets;
mod cursor;
mod differential;
mod erase;
mod find_text;
mod fixtures_snapshots;
mod fuzz;
mod insert_delete;
mod keyframe;
mod line_size;
mod margins;
mod modes;
mod osc;
mod protection;
mod redraw;
mod replies;
mod resize;
mod scroll_region;
mod sgr;
mod tabs;
mod wide_grapheme;
mod wrap;
mod xterm;
