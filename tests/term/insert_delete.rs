//! ICH, DCH, ECH (character editing) and IL, DL (line editing).

use crate::common::*;

#[test]
fn ich_inserts_blanks_and_drops_characters_off_the_right_edge() {
    let t = term(6, 2, b"abcdef\x1b[1;3H\x1b[2@");
    assert_eq!(line(&t, 0), "ab  cd");
    assert_eq!(cursor(&t), (0, 2), "ICH does not move the cursor");
}

#[test]
fn ich_defaults_to_one_and_clamps_to_the_line() {
    let t = term(6, 2, b"abcdef\x1b[1;3H\x1b[@");
    assert_eq!(line(&t, 0), "ab cde");
    let t = term(6, 2, b"abcdef\x1b[1;3H\x1b[0@");
    assert_eq!(line(&t, 0), "ab cde");
    let t = term(6, 2, b"abcdef\x1b[1;3H\x1b[99@");
    assert_eq!(line(&t, 0), "ab");
    check(&t);
}

#[test]
fn ich_blanks_take_the_background() {
    let t = term(6, 2, b"abcdef\x1b[1;3H\x1b[1;45m\x1b[2@");
    for col in 2..4 {
        let s = style(&t, 0, col);
        assert_eq!(s.bg, idx(5));
        assert!(!s.bold);
    }
    assert_eq!(
        style(&t, 0, 4),
        Default::default(),
        "shifted text keeps its style"
    );
}

#[test]
fn ich_clears_pending_wrap() {
    let t = term(5, 2, b"abcde\x1b[@X");
    assert_eq!(lines(&t), ["abcdX", ""]);
}

#[test]
fn ich_blanks_a_wide_char_pushed_half_off_the_edge() {
    // xterm InsertChar: a multi-column character shifted partly past the margin is blanked.
    let t = term(5, 2, "abc中\x1b[1;1H\x1b[@".as_bytes());
    assert_eq!(line(&t, 0), " abc");
    assert_eq!(cell(&t, 0, 4).w, 1);
    check(&t);
}

#[test]
fn ich_moves_a_whole_wide_char() {
    let t = term(6, 2, "a中b\x1b[1;1H\x1b[@".as_bytes());
    assert_eq!(line(&t, 0), " a中b");
    assert_eq!(cell(&t, 0, 2).w, 2);
    check(&t);
}

#[test]
fn ich_on_right_half_of_wide_char_blanks_it() {
    // xterm InsertChar: the damaged character left of the cursor is filled with blanks.
    let t = term(6, 2, "a中bc\x1b[1;3H\x1b[@".as_bytes());
    assert_eq!(line(&t, 0), "a   bc");
    check(&t);
}

#[test]
fn dch_deletes_and_fills_from_the_right_with_background() {
    let t = term(6, 2, b"abcdef\x1b[1;2H\x1b[44m\x1b[2P");
    assert_eq!(line(&t, 0), "adef");
    assert_eq!(cursor(&t), (0, 1));
    assert_eq!(style(&t, 0, 4).bg, idx(4));
    assert_eq!(style(&t, 0, 5).bg, idx(4));
    assert_eq!(style(&t, 0, 3).bg, None);
}

#[test]
fn dch_defaults_to_one_and_clamps() {
    let t = term(6, 2, b"abcdef\x1b[1;2H\x1b[P");
    assert_eq!(line(&t, 0), "acdef");
    let t = term(6, 2, b"abcdef\x1b[1;2H\x1b[99P");
    assert_eq!(line(&t, 0), "a");
}

#[test]
fn dch_shifts_a_whole_wide_char() {
    let t = term(6, 2, "xa中b\x1b[1;1H\x1b[2P".as_bytes());
    assert_eq!(line(&t, 0), "中b");
    assert_eq!(cell(&t, 0, 0).w, 2);
    check(&t);
}

#[test]
fn dch_on_half_of_wide_char_leaves_no_half() {
    // xterm DeleteChar: the rest of a partly deleted multi-column char is blanked.
    let t = term(6, 2, "中ab\x1b[1;1H\x1b[P".as_bytes());
    assert_eq!(line(&t, 0), " ab");
    check(&t);
    let t = term(6, 2, "x中ab\x1b[1;3H\x1b[P".as_bytes());
    assert_eq!(line(&t, 0), "x ab");
    check(&t);
}

#[test]
fn dch_clears_pending_wrap() {
    let t = term(5, 2, b"abcde\x1b[PX");
    assert_eq!(lines(&t), ["abcdX", ""]);
}

#[test]
fn ech_does_not_shift() {
    let t = term(6, 2, b"abcdef\x1b[1;2H\x1b[2X");
    assert_eq!(line(&t, 0), "a  def");
    assert_eq!(cursor(&t), (0, 1));
}

fn five_lines() -> shotty::term::Terminal {
    term(4, 5, b"1\r\n2\r\n3\r\n4\r\n5")
}

#[test]
fn il_inserts_lines_at_the_cursor() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;3H\x1b[2L");
    assert_eq!(lines(&t), ["1", "", "", "2", "3"]);
    assert_eq!(
        cursor(&t),
        (1, 0),
        "IL moves to the left margin (xterm CASE_IL)"
    );
    assert!(scrollback(&t).is_empty());
}

#[test]
fn il_defaults_to_one_and_clamps_to_region() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;1H\x1b[L");
    assert_eq!(lines(&t), ["1", "", "2", "3", "4"]);
    let mut t = five_lines();
    t.advance(b"\x1b[2;1H\x1b[99L");
    assert_eq!(lines(&t), ["1", "", "", "", ""]);
}

#[test]
fn il_within_region_preserves_lines_below_bottom_margin() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[3;1H\x1b[L");
    assert_eq!(lines(&t), ["1", "2", "", "3", "5"]);
}

#[test]
fn il_outside_region_is_ignored() {
    // DEC STD 070: "IL is ignored if the Active Position is outside the Scroll Area".
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[1;1H\x1b[L\x1b[5;1H\x1b[L");
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5"]);
}

#[test]
fn il_lines_take_the_background() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;1H\x1b[4;41m\x1b[L");
    let s = style(&t, 1, 3);
    assert_eq!(s.bg, idx(1));
    assert!(s.underline.is_none());
}

#[test]
fn dl_deletes_lines_and_adds_blanks_at_bottom() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;3H\x1b[2M");
    assert_eq!(lines(&t), ["1", "4", "5", "", ""]);
    assert_eq!(
        cursor(&t),
        (1, 0),
        "DL moves to the left margin (xterm CASE_DL)"
    );
}

#[test]
fn dl_defaults_to_one_and_clamps() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;1H\x1b[M");
    assert_eq!(lines(&t), ["1", "3", "4", "5", ""]);
    let mut t = five_lines();
    t.advance(b"\x1b[2;1H\x1b[99M");
    assert_eq!(lines(&t), ["1", "", "", "", ""]);
}

#[test]
fn dl_within_region_inserts_blanks_at_bottom_margin() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[2;1H\x1b[45m\x1b[M");
    assert_eq!(lines(&t), ["1", "3", "4", "", "5"]);
    assert_eq!(style(&t, 3, 0).bg, idx(5));
    assert_eq!(style(&t, 4, 1).bg, None);
}

#[test]
fn dl_outside_region_is_ignored() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[1;1H\x1b[M\x1b[5;1H\x1b[2M");
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5"]);
}
