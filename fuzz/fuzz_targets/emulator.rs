//! Coverage-guided fuzzing of the emulator: `cargo +nightly fuzz run emulator` (or
//! `cargo fuzz run emulator` where the toolchain supports it).
//!
//! The first two bytes choose the size; the rest is fed in chunks whose boundaries the next
//! bytes choose, with a resize in the middle. Invariants are checked after every chunk.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shotty::term::{Terminal, TerminalOptions};

fuzz_target!(|data: &[u8]| {
    let [w, h, rest @ ..] = data else {
        return;
    };
    let mut term = Terminal::with_options(
        1 + *w as usize % 200,
        1 + *h as usize % 60,
        TerminalOptions {
            scrollback: 100,
            ..Default::default()
        },
    );
    let mid = rest.len() / 2;
    for (i, chunk) in rest.chunks(97).enumerate() {
        term.advance(chunk);
        if i == mid / 97 {
            term.resize(1 + chunk.len() % 150, 1 + chunk.len() % 40);
        }
        let cursor = term.screen().cursor();
        assert!(cursor.row < term.height() && cursor.col < term.width());
        for row in term.screen().grid().rows() {
            assert_eq!(row.len(), term.width());
        }
    }
    let snap = term.snapshot();
    assert_eq!(snap.rows.len(), term.height());
    let _ = term.take_replies();
});
