//! Resizing: the cursor stays valid, soft-wrapped lines reflow, lines move between the screen
//! and the scrollback, and every row always has exactly `width` cells.

use crate::common::*;

#[test]
fn shrinking_width_rewraps_soft_wrapped_text() {
    let mut t = term(10, 4, b"abcdefgh");
    t.resize(5, 4);
    assert_eq!(lines(&t), ["abcde", "fgh", "", ""]);
    assert_eq!(wrapped(&t), [true, false, false, false]);
    assert_eq!(
        cursor(&t),
        (1, 3),
        "the cursor stays after the last character"
    );
    check(&t);
}

#[test]
fn growing_width_joins_soft_wrapped_rows() {
    let mut t = term(5, 4, b"abcdefgh");
    assert_eq!(lines(&t), ["abcde", "fgh", "", ""]);
    t.resize(10, 4);
    assert_eq!(lines(&t), ["abcdefgh", "", "", ""]);
    assert_eq!(wrapped(&t), [false; 4]);
    assert_eq!(cursor(&t), (0, 8));
    t.advance(b"ij");
    assert_eq!(line(&t, 0), "abcdefghij");
    check(&t);
}

#[test]
fn hard_newlines_are_never_joined() {
    let mut t = term(10, 4, b"abc\r\ndef");
    t.resize(2, 4);
    assert_eq!(lines(&t), ["ab", "c", "de", "f"]);
    assert_eq!(wrapped(&t), [true, false, true, false]);
    t.resize(10, 4);
    assert_eq!(lines(&t), ["abc", "def", "", ""]);
    check(&t);
}

#[test]
fn pending_wrap_survives_as_a_position_after_the_text() {
    let mut t = term(5, 3, b"abcde");
    t.resize(10, 3);
    assert_eq!(cursor(&t), (0, 5));
    t.advance(b"f");
    assert_eq!(lines(&t), ["abcdef", "", ""]);
}

#[test]
fn shrinking_height_pushes_top_lines_into_scrollback() {
    let mut t = term(10, 5, b"1\r\n2\r\n3\r\n4\r\n5");
    t.resize(10, 3);
    assert_eq!(lines(&t), ["3", "4", "5"]);
    assert_eq!(scrollback(&t), ["1", "2"]);
    assert_eq!(cursor(&t), (2, 1));
    check(&t);
}

#[test]
fn growing_height_pulls_lines_back_from_scrollback() {
    let mut t = term(10, 3, b"1\r\n2\r\n3\r\n4\r\n5");
    assert_eq!(scrollback(&t), ["1", "2"]);
    t.resize(10, 5);
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5"]);
    assert!(scrollback(&t).is_empty());
    assert_eq!(cursor(&t), (4, 1));
    t.resize(10, 7);
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5", "", ""]);
    assert_eq!(cursor(&t), (4, 1));
    check(&t);
}

#[test]
fn shrinking_height_drops_blank_lines_below_the_cursor_first() {
    let mut t = term(10, 5, b"a\r\nb");
    t.resize(10, 2);
    assert_eq!(lines(&t), ["a", "b"]);
    assert!(scrollback(&t).is_empty());
    assert_eq!(cursor(&t), (1, 1));
}

#[test]
fn scrollback_lines_reflow_too() {
    let mut t = term(4, 2, b"abcdefgh\r\nxy");
    assert_eq!(scrollback(&t), ["abcd"]);
    t.resize(8, 2);
    assert!(scrollback(&t).is_empty());
    assert_eq!(lines(&t), ["abcdefgh", "xy"]);
    assert_eq!(cursor(&t), (1, 2));
}

#[test]
fn wide_characters_reflow_whole() {
    let mut t = term(4, 3, "ab中".as_bytes());
    t.resize(3, 3);
    assert_eq!(lines(&t), ["ab", "中", ""]);
    assert_eq!(cell(&t, 1, 0).w, 2);
    assert_eq!(cell(&t, 0, 2).w, 1);
    check(&t);
    t.resize(4, 3);
    assert_eq!(lines(&t), ["ab中", "", ""]);
    check(&t);
}

#[test]
fn combining_marks_survive_reflow() {
    let mut t = term(4, 3, "abce\u{301}f".as_bytes());
    t.resize(2, 3);
    assert_eq!(lines(&t), ["ab", "ce\u{301}", "f"]);
    t.resize(6, 3);
    assert_eq!(line(&t, 0), "abce\u{301}f");
}

#[test]
fn styles_survive_reflow() {
    let mut t = term(4, 3, b"ab\x1b[31mcdef");
    t.resize(2, 3);
    assert_eq!(style(&t, 1, 0).fg, idx(1));
    assert_eq!(style(&t, 0, 1).fg, None);
}

#[test]
fn cursor_is_clamped_into_the_new_screen() {
    let mut t = term(10, 5, b"\x1b[5;10H");
    t.resize(4, 2);
    let (r, c) = cursor(&t);
    assert!(r < 2 && c < 4, "cursor at ({r},{c})");
    check(&t);
}

#[test]
fn every_row_has_exactly_width_cells() {
    let mut t = term(
        7,
        4,
        "hello 世界 wrapped text\r\n\x1b[44mcolour\x1b[0m\r\nxyz😀\u{301}end".as_bytes(),
    );
    for &(w, h) in &[
        (3, 2),
        (20, 6),
        (1, 1),
        (2, 9),
        (11, 3),
        (4, 4),
        (30, 1),
        (7, 4),
    ] {
        t.resize(w, h);
        let snap = t.snapshot();
        assert_eq!((snap.width, snap.height), (w as u32, h as u32));
        check_invariants(&snap);
        assert_eq!(t.width(), w);
        assert_eq!(t.height(), h);
        let (top, bottom) = t.screen().scroll_region();
        assert!(
            top <= bottom && bottom < h,
            "region {top}..{bottom} at {w}x{h}"
        );
    }
}

#[test]
fn zero_size_is_clamped_to_one_cell() {
    let mut t = term(5, 5, b"abc");
    t.resize(0, 0);
    assert_eq!((t.width(), t.height()), (1, 1));
    check(&t);
}

#[test]
fn resize_while_on_alternate_screen() {
    let mut t = term(8, 3, b"primary text\x1b[?1049h\x1b[3;8Halt");
    t.resize(4, 2);
    assert!(t.screen().is_alternate_screen());
    check(&t);
    t.resize(8, 3);
    t.advance(b"\x1b[?1049l");
    assert!(!t.screen().is_alternate_screen());
    assert_eq!(line(&t, 0), "primary");
    assert_eq!(line(&t, 1), "text");
    check(&t);
}

#[test]
fn printing_after_shrink_uses_the_new_width() {
    let mut t = term(10, 3, b"");
    t.resize(3, 3);
    t.advance(b"abcdef");
    assert_eq!(lines(&t), ["abc", "def", ""]);
}

#[test]
fn new_columns_get_default_tab_stops() {
    let mut t = term(10, 1, b"");
    t.resize(40, 1);
    t.advance(b"\t\t\t");
    assert_eq!(cursor(&t), (0, 24));
}
