//! ED, EL and ECH, with back-colour erase and wide characters.

use crate::common::*;

/// Three rows of ten characters, cursor at row 1 (0-based), column 4.
fn filled() -> shotty::term::Terminal {
    term(10, 3, b"0123456789\r\nabcdefghij\r\nABCDEFGHIJ\x1b[2;5H")
}

#[test]
fn el0_erases_from_cursor_to_end_of_line() {
    let mut t = filled();
    t.advance(b"\x1b[K");
    assert_eq!(lines(&t), ["0123456789", "abcd", "ABCDEFGHIJ"]);
    assert_eq!(cursor(&t), (1, 4));
    let mut t = filled();
    t.advance(b"\x1b[0K");
    assert_eq!(line(&t, 1), "abcd");
}

#[test]
fn el1_erases_from_line_start_to_cursor_inclusive() {
    let mut t = filled();
    t.advance(b"\x1b[1K");
    assert_eq!(lines(&t), ["0123456789", "     fghij", "ABCDEFGHIJ"]);
    assert_eq!(cursor(&t), (1, 4));
}

#[test]
fn el2_erases_the_whole_line() {
    let mut t = filled();
    t.advance(b"\x1b[2K");
    assert_eq!(lines(&t), ["0123456789", "", "ABCDEFGHIJ"]);
    assert_eq!(cursor(&t), (1, 4));
}

#[test]
fn ed0_erases_from_cursor_to_end_of_screen() {
    let mut t = filled();
    t.advance(b"\x1b[J");
    assert_eq!(lines(&t), ["0123456789", "abcd", ""]);
    assert_eq!(cursor(&t), (1, 4));
}

#[test]
fn ed1_erases_from_screen_start_to_cursor_inclusive() {
    let mut t = filled();
    t.advance(b"\x1b[1J");
    assert_eq!(lines(&t), ["", "     fghij", "ABCDEFGHIJ"]);
    assert_eq!(cursor(&t), (1, 4));
}

#[test]
fn ed2_erases_the_screen_without_moving_the_cursor() {
    let mut t = filled();
    t.advance(b"\x1b[2J");
    assert_eq!(lines(&t), ["", "", ""]);
    assert_eq!(cursor(&t), (1, 4));
}

#[test]
fn ed2_does_not_feed_scrollback() {
    let mut t = filled();
    t.advance(b"\x1b[2J");
    assert!(scrollback(&t).is_empty());
}

#[test]
fn ed3_clears_scrollback_and_keeps_the_screen() {
    let mut t = term(10, 2, b"one\r\ntwo\r\nthree\r\nfour");
    assert_eq!(scrollback(&t), ["one", "two"]);
    t.advance(b"\x1b[3J");
    assert!(scrollback(&t).is_empty());
    assert_eq!(lines(&t), ["three", "four"]);
    assert_eq!(t.snapshot().scrollback_lines, 0);
}

#[test]
fn erased_cells_take_only_the_current_background() {
    // Back-colour erase: xterm fills with the current background colour; other attributes
    // (bold, underline, foreground …) are not applied to blank cells.
    let mut t = filled();
    t.advance(b"\x1b[1;4;7;31;44m\x1b[K");
    for col in 4..10 {
        let s = style(&t, 1, col);
        assert_eq!(s.bg, idx(4), "col {col}");
        assert_eq!(s.fg, None);
        assert!(!s.bold && !s.inverse && s.underline.is_none());
        assert_eq!(ch(&t, 1, col), " ");
    }
    assert_eq!(
        style(&t, 1, 3),
        Default::default(),
        "cells before the cursor keep theirs"
    );
}

#[test]
fn bce_with_true_colour_background() {
    let mut t = filled();
    t.advance(b"\x1b[48;2;1;2;3m\x1b[2J");
    let snap = t.snapshot();
    for row in &snap.rows {
        for c in &row.cells {
            assert_eq!(snap.styles[c.s as usize].bg, rgb("#010203"));
        }
    }
}

#[test]
fn ed_and_ech_use_bce_too() {
    let mut t = filled();
    t.advance(b"\x1b[42m\x1b[1J");
    assert_eq!(style(&t, 0, 9).bg, idx(2));
    assert_eq!(style(&t, 1, 4).bg, idx(2));
    assert_eq!(style(&t, 1, 5).bg, None);
    let mut t = filled();
    t.advance(b"\x1b[43m\x1b[2X");
    assert_eq!(style(&t, 1, 4).bg, idx(3));
    assert_eq!(style(&t, 1, 5).bg, idx(3));
    assert_eq!(style(&t, 1, 6).bg, None);
}

#[test]
fn erase_with_default_background_gives_default_cells() {
    let mut t = term(10, 2, b"\x1b[44mabc\x1b[0m\r\x1b[K");
    assert_eq!(style(&t, 0, 0), Default::default());
    t.advance(b"\x1b[1m\x1b[2J");
    assert_eq!(
        style(&t, 1, 5),
        Default::default(),
        "bold alone does not colour blanks"
    );
}

#[test]
fn el0_on_right_half_of_wide_char_erases_the_whole_char() {
    // xterm ClearRight: DamagedCells widens the erased range to whole multi-column chars.
    let mut t = term(10, 2, "ab中cd".as_bytes());
    t.advance(b"\x1b[1;4H\x1b[K");
    assert_eq!(line(&t, 0), "ab");
    assert_eq!(cell(&t, 0, 2).w, 1);
    check(&t);
}

#[test]
fn el1_on_left_half_of_wide_char_erases_the_whole_char() {
    let mut t = term(10, 2, "ab中cd".as_bytes());
    t.advance(b"\x1b[1;3H\x1b[1K");
    assert_eq!(line(&t, 0), "    cd");
    check(&t);
}

#[test]
fn ech_on_either_half_of_wide_char_erases_the_whole_char() {
    let mut t = term(10, 2, "ab中cd".as_bytes());
    t.advance(b"\x1b[1;4H\x1b[X");
    assert_eq!(line(&t, 0), "ab  cd");
    check(&t);
    let mut t = term(10, 2, "ab中cd".as_bytes());
    t.advance(b"\x1b[1;3H\x1b[X");
    assert_eq!(line(&t, 0), "ab  cd");
    check(&t);
}

#[test]
fn ech_erases_without_moving_or_shifting() {
    let mut t = filled();
    t.advance(b"\x1b[3X");
    assert_eq!(line(&t, 1), "abcd   hij");
    assert_eq!(cursor(&t), (1, 4));
    let mut t = filled();
    t.advance(b"\x1b[X");
    assert_eq!(line(&t, 1), "abcd fghij", "ECH defaults to 1");
    let mut t = filled();
    t.advance(b"\x1b[0X");
    assert_eq!(line(&t, 1), "abcd fghij", "ECH 0 erases 1");
    let mut t = filled();
    t.advance(b"\x1b[99X");
    assert_eq!(lines(&t), ["0123456789", "abcd", "ABCDEFGHIJ"]);
}

#[test]
fn el0_clears_the_wrapped_flag() {
    // xterm ClearRight: "with the right part cleared, we can't be wrapping".
    let mut t = term(5, 3, b"abcdefg");
    assert_eq!(wrapped(&t), [true, false, false]);
    t.advance(b"\x1b[1;3H\x1b[K");
    assert_eq!(wrapped(&t), [false, false, false]);
}

#[test]
fn erase_clears_pending_wrap() {
    let t = term(5, 2, b"abcde\x1b[1KX");
    assert_eq!(lines(&t), ["    X", ""]);
    let t = term(5, 2, b"abcde\x1b[KX");
    assert_eq!(lines(&t), ["abcdX", ""]);
}

#[test]
fn decaln_fills_with_e_homes_and_resets_margins() {
    // VT100 DECALN (ESC # 8): fill the screen with 'E', reset margins, cursor home.
    let t = term(4, 3, b"\x1b[2;3r\x1b[3;3Hab\x1b#8");
    assert_eq!(lines(&t), ["EEEE", "EEEE", "EEEE"]);
    assert_eq!(cursor(&t), (0, 0));
    assert_eq!(t.screen().scroll_region(), (0, 2));
}
