//! Autowrap: xterm's pending-wrap ("last column flag") and the snapshot `wrapped` flags.

use crate::common::*;

#[test]
fn printing_in_last_column_keeps_cursor_there_with_pending_wrap() {
    let t = term(5, 3, b"abcde");
    assert_eq!(cursor(&t), (0, 4));
    assert!(t.screen().cursor().pending_wrap);
    assert_eq!(lines(&t), ["abcde", "", ""]);
    assert_eq!(wrapped(&t), [false, false, false], "no wrap happened yet");
    assert_eq!(t.snapshot().cursor.col, 4);
}

#[test]
fn next_character_wraps() {
    let t = term(5, 3, b"abcdef");
    assert_eq!(lines(&t), ["abcde", "f", ""]);
    assert_eq!(cursor(&t), (1, 1));
    assert_eq!(wrapped(&t), [true, false, false]);
}

#[test]
fn long_text_wraps_over_several_rows() {
    let t = term(3, 4, b"abcdefghij");
    assert_eq!(lines(&t), ["abc", "def", "ghi", "j"]);
    assert_eq!(wrapped(&t), [true, true, true, false]);
}

#[test]
fn cr_clears_pending_wrap() {
    let t = term(5, 3, b"abcde\rX");
    assert_eq!(lines(&t), ["Xbcde", "", ""]);
    assert_eq!(wrapped(&t), [false, false, false]);
}

#[test]
fn crlf_after_full_line_is_a_single_newline() {
    let t = term(5, 3, b"abcde\r\nf");
    assert_eq!(lines(&t), ["abcde", "f", ""]);
    assert_eq!(
        wrapped(&t),
        [false, false, false],
        "a hard newline is not a soft wrap"
    );
}

#[test]
fn lf_with_pending_wrap_moves_down_in_the_last_column() {
    let t = term(5, 3, b"abcde\nX");
    assert_eq!(lines(&t), ["abcde", "    X", ""]);
    assert_eq!(cursor(&t), (1, 4));
}

#[test]
fn cursor_motion_clears_pending_wrap() {
    let t = term(5, 3, b"abcde\x1b[2;1HX");
    assert_eq!(lines(&t), ["abcde", "X", ""]);
    assert_eq!(wrapped(&t), [false, false, false]);
}

#[test]
fn wrap_at_bottom_scrolls() {
    let t = term(3, 2, b"abcdefg");
    assert_eq!(lines(&t), ["def", "g"]);
    assert_eq!(scrollback(&t), ["abc"]);
    assert_eq!(wrapped(&t), [true, false]);
    assert!(t.screen().scrollback().rows()[0].wrapped);
}

#[test]
fn wrap_at_bottom_margin_scrolls_the_region() {
    let t = term(3, 4, b"\x1b[2;3r\x1b[3;1Habcd");
    assert_eq!(lines(&t), ["", "abc", "d", ""]);
    assert!(scrollback(&t).is_empty());
}

#[test]
fn wrapped_flag_set_on_the_row_that_overflowed() {
    let t = term(4, 4, b"ab\r\ncdefgh\r\nij");
    assert_eq!(lines(&t), ["ab", "cdef", "gh", "ij"]);
    assert_eq!(wrapped(&t), [false, true, false, false]);
}

#[test]
fn exact_fit_then_newline_is_not_wrapped() {
    let t = term(4, 3, b"abcd\r\nefgh\r\n");
    assert_eq!(wrapped(&t), [false, false, false]);
}

#[test]
fn pending_wrap_with_decawm_off_never_wraps() {
    let mut t = term(3, 2, b"\x1b[?7labcdef");
    assert_eq!(lines(&t), ["abf", ""]);
    assert_eq!(cursor(&t), (0, 2));
    // xterm's dotext sets the last-column flag whatever DECAWM says; only the wrap itself
    // depends on it, so re-enabling autowrap makes the next character wrap.
    t.advance(b"\x1b[?7hg");
    assert_eq!(lines(&t), ["abf", "g"]);
}

#[test]
fn disabling_autowrap_while_pending_does_not_wrap() {
    // xterm only wraps when the flag is set *and* DECAWM is on at print time.
    let t = term(3, 2, b"abc\x1b[?7ld");
    assert_eq!(lines(&t), ["abd", ""]);
}

#[test]
fn wrapped_text_keeps_the_pen() {
    let t = term(3, 2, b"\x1b[32mabcd");
    assert_eq!(style(&t, 1, 0).fg, idx(2));
}

#[test]
fn repeat_rep_wraps_like_printing() {
    let t = term(3, 3, b"a\x1b[4b");
    assert_eq!(lines(&t), ["aaa", "aa", ""]);
    assert_eq!(wrapped(&t), [true, false, false]);
}
