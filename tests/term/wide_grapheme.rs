//! Wide characters (CJK, emoji) and zero-width characters (combining marks, ZWJ, VS16).
//! Widths follow wcwidth per code point, as xterm computes them.

use crate::common::*;

#[test]
fn cjk_takes_two_cells() {
    let t = term(10, 2, "日本語".as_bytes());
    assert_eq!(cursor(&t), (0, 6));
    let snap = t.snapshot();
    let widths: Vec<u8> = snap.rows[0].cells[..6].iter().map(|c| c.w).collect();
    assert_eq!(widths, [2, 0, 2, 0, 2, 0]);
    assert_eq!(ch(&t, 0, 0), "日");
    assert_eq!(ch(&t, 0, 1), "");
    assert_eq!(line(&t, 0), "日本語");
    check(&t);
}

#[test]
fn emoji_takes_two_cells() {
    let t = term(10, 2, "a😀b".as_bytes());
    assert_eq!(cursor(&t), (0, 4));
    assert_eq!(cell(&t, 0, 1).w, 2);
    assert_eq!(ch(&t, 0, 3), "b");
    check(&t);
}

#[test]
fn wide_char_keeps_its_style_on_both_halves() {
    let t = term(10, 2, "\x1b[31m中".as_bytes());
    assert_eq!(style(&t, 0, 0).fg, idx(1));
    assert_eq!(style(&t, 0, 1).fg, idx(1));
}

#[test]
fn combining_mark_joins_the_previous_cell() {
    let t = term(10, 2, "e\u{301}x".as_bytes());
    assert_eq!(ch(&t, 0, 0), "e\u{301}");
    assert_eq!(ch(&t, 0, 1), "x");
    assert_eq!(cursor(&t), (0, 2));
    assert_eq!(line(&t, 0), "e\u{301}x");
}

#[test]
fn several_combining_marks_stack() {
    let t = term(10, 2, "a\u{301}\u{323}".as_bytes());
    assert_eq!(ch(&t, 0, 0), "a\u{301}\u{323}");
    assert_eq!(cursor(&t), (0, 1));
}

#[test]
fn combining_mark_after_wide_char_joins_the_wide_cell() {
    let t = term(10, 2, "中\u{301}".as_bytes());
    assert_eq!(ch(&t, 0, 0), "中\u{301}");
    assert_eq!(ch(&t, 0, 1), "");
    assert_eq!(cursor(&t), (0, 2));
}

#[test]
fn combining_mark_with_pending_wrap_joins_the_last_column() {
    let t = term(3, 2, "abc\u{301}".as_bytes());
    assert_eq!(ch(&t, 0, 2), "c\u{301}");
    assert!(t.screen().cursor().pending_wrap);
    assert_eq!(line(&t, 1), "");
}

#[test]
fn zwj_sequence_is_split_per_code_point() {
    // wcwidth: ZWJ is zero-width and joins the man; the woman is a separate wide character.
    let t = term(10, 2, "👨\u{200d}👩x".as_bytes());
    assert_eq!(ch(&t, 0, 0), "👨\u{200d}");
    assert_eq!(cell(&t, 0, 0).w, 2);
    assert_eq!(ch(&t, 0, 2), "👩");
    assert_eq!(ch(&t, 0, 4), "x");
    assert_eq!(cursor(&t), (0, 5));
    check(&t);
}

#[test]
fn vs16_joins_the_previous_cell_without_widening_it() {
    // wcwidth(U+2764) == 1 and VS16 is zero-width; the cursor advances by one.
    let t = term(10, 2, "\u{2764}\u{fe0f}x".as_bytes());
    assert_eq!(ch(&t, 0, 0), "\u{2764}\u{fe0f}");
    assert_eq!(cell(&t, 0, 0).w, 1);
    assert_eq!(ch(&t, 0, 1), "x");
}

#[test]
fn wide_char_at_last_column_wraps_and_leaves_a_blank() {
    let t = term(5, 3, "abcd中".as_bytes());
    assert_eq!(lines(&t), ["abcd", "中", ""]);
    assert_eq!(ch(&t, 0, 4), " ");
    assert_eq!(cell(&t, 0, 4).w, 1);
    assert_eq!(wrapped(&t), [true, false, false]);
    assert_eq!(cursor(&t), (1, 2));
    check(&t);
}

#[test]
fn wide_char_filling_the_last_two_columns_sets_pending_wrap() {
    let mut t = term(4, 2, "ab中".as_bytes());
    assert_eq!(cursor(&t), (0, 3));
    assert!(t.screen().cursor().pending_wrap);
    t.advance(b"x");
    assert_eq!(lines(&t), ["ab中", "x"]);
}

#[test]
fn narrow_char_over_left_half_blanks_right_half() {
    let t = term(10, 2, "中文\x1b[1;1Hx".as_bytes());
    assert_eq!(line(&t, 0), "x 文");
    assert_eq!(cell(&t, 0, 1).w, 1);
    check(&t);
}

#[test]
fn narrow_char_over_right_half_blanks_left_half() {
    let t = term(10, 2, "中文\x1b[1;2Hx".as_bytes());
    assert_eq!(line(&t, 0), " x文");
    assert_eq!(cell(&t, 0, 0).w, 1);
    check(&t);
}

#[test]
fn wide_char_straddling_two_wide_chars_blanks_both_leftovers() {
    let t = term(10, 2, "中文\x1b[1;2H字".as_bytes());
    assert_eq!(line(&t, 0), " 字");
    assert_eq!(cell(&t, 0, 1).w, 2);
    assert_eq!(cell(&t, 0, 3).w, 1);
    check(&t);
}

#[test]
fn wide_char_over_wide_char_replaces_it() {
    let t = term(10, 2, "中\x1b[1;1H文".as_bytes());
    assert_eq!(line(&t, 0), "文");
    check(&t);
}

#[test]
fn cursor_on_spacer_after_cup_overwrites_cleanly() {
    let t = term(6, 1, "中中中\x1b[1;4Hab".as_bytes());
    assert_eq!(line(&t, 0), "中 ab");
    assert_eq!(ch(&t, 0, 5), " ");
    check(&t);
}

/// Where the input is split between `advance` calls changes nothing, even inside a UTF-8
/// sequence followed by a control or another character (vte 0.15 on its own consumes the
/// byte after a sequence split across calls: alacritty/vte#159).
#[test]
fn a_split_anywhere_in_utf8_text_changes_nothing() {
    let input = "x\u{308}\u{308}\r\u{2500}B\u{301}C日\n\u{1b}[1m😀👍🏽é\u{7}\u{1b}]0;tït\u{7}ça\r\n"
        .as_bytes();
    let whole = term(20, 4, input);
    for at in 1..input.len() {
        let mut split = shotty::term::Terminal::new(20, 4);
        split.advance(&input[..at]);
        split.advance(&input[at..]);
        assert_eq!(split.snapshot(), whole.snapshot(), "split at byte {at}");
    }
    let mut bytewise = shotty::term::Terminal::new(20, 4);
    for byte in input {
        bytewise.advance(std::slice::from_ref(byte));
    }
    assert_eq!(bytewise.snapshot(), whole.snapshot(), "one byte at a time");
}
