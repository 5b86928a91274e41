//! Character set designation (`ESC ( F` …) and invocation (SO/SI, SS2/SS3).

use crate::common::*;

#[test]
fn dec_special_graphics_in_g0_draws_lines() {
    let t = term(10, 3, b"\x1b(0lqqk\r\nx  x\r\nmqqj");
    assert_eq!(lines(&t), ["┌──┐", "│  │", "└──┘"]);
}

#[test]
fn dec_special_graphics_table() {
    // VT100 User Guide, table 3-9 (Special Graphics Characters).
    let t = term(40, 1, b"\x1b(0`afgjklmnqtuvwx~");
    assert_eq!(line(&t, 0), "◆▒°±┘┐┌└┼─├┤┴┬│·");
    let t = term(40, 1, b"\x1b(0opqrsyz{|}");
    assert_eq!(line(&t, 0), "⎺⎻─⎼⎽≤≥π≠£");
}

#[test]
fn dec_special_graphics_leaves_other_characters_alone() {
    let t = term(20, 1, b"\x1b(0ABC 123 XYZ");
    assert_eq!(line(&t, 0), "ABC 123 XYZ");
}

#[test]
fn esc_paren_b_returns_to_ascii() {
    let t = term(10, 1, b"\x1b(0q\x1b(Bq");
    assert_eq!(line(&t, 0), "─q");
}

#[test]
fn so_and_si_switch_between_g1_and_g0() {
    let t = term(10, 1, b"\x1b)0q\x0eq\x0fq");
    assert_eq!(line(&t, 0), "q─q");
}

#[test]
fn so_with_ascii_g1_changes_nothing() {
    let t = term(10, 1, b"\x0eq\x0fq");
    assert_eq!(line(&t, 0), "qq");
}

#[test]
fn designating_g1_does_not_affect_gl_until_invoked() {
    let t = term(10, 1, b"\x1b)0qq");
    assert_eq!(line(&t, 0), "qq");
}

#[test]
fn uk_charset_maps_pound() {
    let t = term(10, 1, b"\x1b(A#a\x1b(B#");
    assert_eq!(line(&t, 0), "£a#");
}

#[test]
fn single_shift_applies_to_one_character() {
    // SS2 (ESC N) takes the next character from G2 only.
    let t = term(10, 1, b"\x1b*0\x1bNqq");
    assert_eq!(line(&t, 0), "─q");
    let t = term(10, 1, b"\x1b+0\x1bOqq");
    assert_eq!(line(&t, 0), "─q");
}

#[test]
fn locking_shifts_ls2_and_ls3() {
    let t = term(10, 1, b"\x1b*0\x1bnq\x0fq");
    assert_eq!(line(&t, 0), "─q");
    let t = term(10, 1, b"\x1b+0\x1boq\x0fq");
    assert_eq!(line(&t, 0), "─q");
}

#[test]
fn charset_does_not_translate_non_ascii() {
    let t = term(10, 1, "\x1b(0é中".as_bytes());
    assert_eq!(line(&t, 0), "é中");
}

#[test]
fn line_drawing_cells_are_narrow() {
    let t = term(10, 1, b"\x1b(0qqq");
    assert_eq!(cursor(&t), (0, 3));
    assert_eq!(cell(&t, 0, 1).w, 1);
}
