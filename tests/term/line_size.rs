//! Line sizes: DECDWL (`ESC # 6`), DECDHL (`ESC # 3` / `ESC # 4`) and DECSWL (`ESC # 5`) —
//! the row keeps its size in the snapshot and holds half the columns (checked against xterm in
//! `tests/term/xterm.rs`).

use crate::common::*;

fn size(t: &shotty::term::Terminal, row: usize) -> Option<String> {
    t.snapshot().rows[row].size.clone()
}

#[test]
fn each_sequence_sets_the_cursor_rows_size() {
    let mut t = term(20, 4, b"\x1b#6a\r\n\x1b#3b\r\n\x1b#4b\r\nplain");
    assert_eq!(size(&t, 0).as_deref(), Some("doubleWidth"));
    assert_eq!(size(&t, 1).as_deref(), Some("doubleHeightTop"));
    assert_eq!(size(&t, 2).as_deref(), Some("doubleHeightBottom"));
    assert_eq!(size(&t, 3), None);
    t.advance(b"\x1b[1;1H\x1b#5");
    assert_eq!(size(&t, 0), None, "DECSWL");
}

#[test]
fn a_double_width_row_wraps_at_half_the_columns() {
    let t = term(20, 3, b"\x1b#60123456789abc");
    assert_eq!(lines(&t)[..2], ["0123456789", "abc"]);
    assert_eq!(cursor(&t), (1, 3));
    let mut t = term(20, 2, b"\x1b#6\x1b[99Cx");
    assert_eq!(cursor(&t), (0, 9), "CUF stops at the half");
    // Addressed past the half, nothing is printed and the cursor stays (as xterm).
    t.advance(b"\x1b[1;15Hy");
    assert_eq!((line(&t, 0), cursor(&t)), ("         x".into(), (0, 14)));
}

#[test]
fn decdwl_keeps_the_cursor_near_the_half_and_the_text() {
    let mut t = term(20, 2, b"01234567890123456789\x1b#6");
    assert_eq!(
        line(&t, 0),
        "01234567890123456789",
        "the row keeps its cells"
    );
    t.advance(b"\x1b[6n");
    assert_eq!(replies(&mut t), "\x1b[1;11R");
}

#[test]
fn sizes_move_with_their_rows_and_go_with_erases() {
    let mut t = term(10, 3, b"\x1b#6top\r\nx\x1b[S");
    assert_eq!(size(&t, 0), None);
    assert_eq!(
        t.history_snapshot(10).rows[0].size.as_deref(),
        Some("doubleWidth")
    );
    t.advance(b"\x1b[2;1H\x1b#3\x1b[T");
    assert_eq!(
        size(&t, 2).as_deref(),
        Some("doubleHeightTop"),
        "SD moved it down"
    );
    t.advance(b"\x1b[3;1H\x1b[2K");
    assert_eq!(
        size(&t, 2).as_deref(),
        Some("doubleHeightTop"),
        "EL keeps it"
    );
    t.advance(b"\x1b[2J");
    assert_eq!(size(&t, 2), None, "ED 2 resets it");
    t.advance(b"\x1b#6\x1b#8");
    assert_eq!(size(&t, 2), None, "DECALN resets it");
}
