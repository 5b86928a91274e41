//! Cursor movement: CUP/HVP, CUU/CUD/CUF/CUB, CHA/HPA/VPA/HPR/VPR, CNL/CPL, BS, DECOM,
//! DECSC/DECRC.

use crate::common::*;

#[test]
fn cup_without_parameters_homes() {
    let t = term(10, 5, b"abc\r\nde\x1b[H");
    assert_eq!(cursor(&t), (0, 0));
    let t = term(10, 5, b"\x1b[3;4H\x1b[;H");
    assert_eq!(cursor(&t), (0, 0));
    // A zero parameter means the default (1).
    let t = term(10, 5, b"\x1b[3;4H\x1b[0;0H");
    assert_eq!(cursor(&t), (0, 0));
}

#[test]
fn cup_is_one_based_and_each_parameter_defaults_separately() {
    assert_eq!(cursor(&term(10, 5, b"\x1b[3;5H")), (2, 4));
    assert_eq!(cursor(&term(10, 5, b"\x1b[4;6H\x1b[2H")), (1, 0));
    assert_eq!(cursor(&term(10, 5, b"\x1b[4;6H\x1b[;3H")), (0, 2));
}

#[test]
fn cup_clamps_to_the_screen() {
    assert_eq!(cursor(&term(10, 5, b"\x1b[99;99H")), (4, 9));
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;99H")), (1, 9));
}

#[test]
fn hvp_is_cup() {
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;3f")), (1, 2));
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;3f\x1b[f")), (0, 0));
}

#[test]
fn cup_places_text() {
    let t = term(10, 3, b"\x1b[2;4HX");
    assert_eq!(lines(&t), ["", "   X", ""]);
}

#[test]
fn relative_moves_default_to_one_and_clamp_at_edges() {
    let t = term(10, 5, b"\x1b[3;3H\x1b[A");
    assert_eq!(cursor(&t), (1, 2));
    let t = term(10, 5, b"\x1b[3;3H\x1b[0A");
    assert_eq!(cursor(&t), (1, 2), "CUU 0 moves one line");
    let t = term(10, 5, b"\x1b[3;3H\x1b[B");
    assert_eq!(cursor(&t), (3, 2));
    let t = term(10, 5, b"\x1b[3;3H\x1b[C");
    assert_eq!(cursor(&t), (2, 3));
    let t = term(10, 5, b"\x1b[3;3H\x1b[D");
    assert_eq!(cursor(&t), (2, 1));
    let t = term(10, 5, b"\x1b[3;3H\x1b[9A");
    assert_eq!(cursor(&t), (0, 2));
    let t = term(10, 5, b"\x1b[3;3H\x1b[9B");
    assert_eq!(cursor(&t), (4, 2));
    let t = term(10, 5, b"\x1b[3;3H\x1b[99C");
    assert_eq!(cursor(&t), (2, 9));
    let t = term(10, 5, b"\x1b[3;3H\x1b[99D");
    assert_eq!(cursor(&t), (2, 0));
}

#[test]
fn cuu_stops_at_top_margin_when_inside_region() {
    // Region rows 3..5 (1-based) of 8.
    let t = term(10, 8, b"\x1b[3;5r\x1b[5;2H\x1b[10A");
    assert_eq!(cursor(&t), (2, 1));
}

#[test]
fn cuu_above_region_ignores_margin() {
    let t = term(10, 8, b"\x1b[4;6r\x1b[2;2H\x1b[10A");
    assert_eq!(cursor(&t), (0, 1));
}

#[test]
fn cuu_below_region_stops_at_top_margin() {
    // xterm CursorUp: the limit is the top margin whenever cur_row >= top_marg.
    let t = term(10, 8, b"\x1b[3;5r\x1b[8;1H\x1b[2A");
    assert_eq!(
        cursor(&t),
        (5, 0),
        "plain move while the margin is not reached"
    );
    let t = term(10, 8, b"\x1b[3;5r\x1b[8;1H\x1b[20A");
    assert_eq!(cursor(&t), (2, 0));
}

#[test]
fn cud_stops_at_bottom_margin_when_inside_region() {
    let t = term(10, 8, b"\x1b[3;5r\x1b[3;2H\x1b[10B");
    assert_eq!(cursor(&t), (4, 1));
}

#[test]
fn cud_above_region_stops_at_bottom_margin() {
    // xterm CursorDown: the limit is the bottom margin whenever cur_row <= bot_marg.
    let t = term(10, 8, b"\x1b[3;5r\x1b[1;1H\x1b[20B");
    assert_eq!(cursor(&t), (4, 0));
}

#[test]
fn cud_below_region_ignores_margin() {
    let t = term(10, 8, b"\x1b[2;4r\x1b[6;1H\x1b[20B");
    assert_eq!(cursor(&t), (7, 0));
}

#[test]
fn cha_and_hpa_set_the_column() {
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;2H\x1b[5G")), (1, 4));
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;2H\x1b[G")), (1, 0));
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;2H\x1b[99G")), (1, 9));
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;2H\x1b[3`")), (1, 2));
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;2H\x1b[`")), (1, 0));
}

#[test]
fn vpa_sets_the_row_and_keeps_the_column() {
    assert_eq!(cursor(&term(10, 5, b"\x1b[1;4H\x1b[3d")), (2, 3));
    assert_eq!(cursor(&term(10, 5, b"\x1b[3;4H\x1b[d")), (0, 3));
    assert_eq!(cursor(&term(10, 5, b"\x1b[1;4H\x1b[99d")), (4, 3));
}

#[test]
fn hpr_and_vpr_move_relative() {
    let t = term(10, 5, b"\x1b[2;2H\x1b[3a");
    assert_eq!(cursor(&t), (1, 4));
    let t = term(10, 5, b"\x1b[2;2H\x1b[2e");
    assert_eq!(cursor(&t), (3, 1));
    let t = term(10, 5, b"\x1b[2;2H\x1b[a\x1b[e");
    assert_eq!(cursor(&t), (2, 2));
    let t = term(10, 5, b"\x1b[2;2H\x1b[99a\x1b[99e");
    assert_eq!(cursor(&t), (4, 9));
}

#[test]
fn cnl_and_cpl_move_lines_to_column_zero() {
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;5H\x1b[2E")), (3, 0));
    assert_eq!(cursor(&term(10, 5, b"\x1b[2;5H\x1b[E")), (2, 0));
    assert_eq!(cursor(&term(10, 5, b"\x1b[4;5H\x1b[2F")), (1, 0));
    assert_eq!(cursor(&term(10, 5, b"\x1b[4;5H\x1b[F")), (2, 0));
    assert_eq!(cursor(&term(10, 5, b"\x1b[4;5H\x1b[9F")), (0, 0));
    assert_eq!(cursor(&term(10, 5, b"\x1b[4;5H\x1b[9E")), (4, 0));
}

#[test]
fn cnl_and_cpl_respect_margins() {
    let t = term(10, 8, b"\x1b[3;5r\x1b[4;5H\x1b[9E");
    assert_eq!(cursor(&t), (4, 0));
    let t = term(10, 8, b"\x1b[3;5r\x1b[4;5H\x1b[9F");
    assert_eq!(cursor(&t), (2, 0));
}

#[test]
fn backspace_moves_left_and_stops_at_column_zero() {
    let t = term(10, 3, b"ab\x08");
    assert_eq!(cursor(&t), (0, 1));
    let t = term(10, 3, b"ab\x08\x08\x08\x08");
    assert_eq!(cursor(&t), (0, 0));
    // BS does not reverse-wrap to the previous line (DECSET 45 is off by default).
    let t = term(10, 3, b"ab\r\n\x08");
    assert_eq!(cursor(&t), (1, 0));
}

#[test]
fn backspace_with_pending_wrap_moves_from_last_column() {
    // xterm CursorBack: without reverse-wrap, BS counts from the last column and clears the
    // wrap flag, so the next character lands in the second-to-last column.
    let mut t = term(5, 3, b"abcde");
    assert!(t.screen().cursor().pending_wrap);
    t.advance(b"\x08");
    assert_eq!(cursor(&t), (0, 3));
    assert!(!t.screen().cursor().pending_wrap);
    t.advance(b"X");
    assert_eq!(lines(&t), ["abcXe", "", ""]);
    assert_eq!(cursor(&t), (0, 4));
}

#[test]
fn origin_mode_homes_to_top_margin() {
    let t = term(10, 8, b"\x1b[5;5H\x1b[3;5r\x1b[?6h");
    assert_eq!(cursor(&t), (2, 0));
    assert!(t.screen().modes().origin);
}

#[test]
fn origin_mode_addresses_relative_to_region_and_clamps_to_it() {
    let t = term(10, 8, b"\x1b[3;5r\x1b[?6h\x1b[2;3H");
    assert_eq!(cursor(&t), (3, 2));
    let t = term(10, 8, b"\x1b[3;5r\x1b[?6h\x1b[9;1H");
    assert_eq!(cursor(&t), (4, 0));
    let t = term(10, 8, b"\x1b[3;5r\x1b[?6h\x1b[2dX");
    assert_eq!(cursor(&t), (3, 1));
    assert_eq!(line(&t, 3), "X");
}

#[test]
fn decstbm_in_origin_mode_homes_to_new_top_margin() {
    let t = term(10, 8, b"\x1b[?6h\x1b[4;6r");
    assert_eq!(cursor(&t), (3, 0));
}

#[test]
fn resetting_origin_mode_homes_to_screen_origin() {
    let t = term(10, 8, b"\x1b[3;5r\x1b[?6h\x1b[2;2H\x1b[?6l");
    assert_eq!(cursor(&t), (0, 0));
    assert!(!t.screen().modes().origin);
}

#[test]
fn decsc_decrc_restore_position() {
    let t = term(10, 5, b"\x1b[3;4H\x1b7\x1b[H\x1b8");
    assert_eq!(cursor(&t), (2, 3));
    // SCOSC / SCORC (CSI s / CSI u) save the same state.
    let t = term(10, 5, b"\x1b[2;6H\x1b[s\x1b[5;1H\x1b[u");
    assert_eq!(cursor(&t), (1, 5));
}

#[test]
fn decrc_restores_sgr_attributes() {
    let t = term(10, 3, b"\x1b[1;3;31;44m\x1b7\x1b[0m\x1b[2;2H\x1b8X");
    let s = style(&t, 0, 0);
    assert!(s.bold && s.italic);
    assert_eq!(s.fg, idx(1));
    assert_eq!(s.bg, idx(4));
}

#[test]
fn decrc_restores_designated_charsets() {
    let t = term(10, 3, b"\x1b(0\x1b7\x1b(B\x1b8q");
    assert_eq!(ch(&t, 0, 0), "\u{2500}");
}

#[test]
fn decrc_restores_the_shift_state() {
    // DECSC saves which set is invoked into GL (VT510: "character sets in GL and GR").
    let t = term(10, 3, b"\x1b)0\x0e\x1b7\x0f\x1b8q");
    assert_eq!(ch(&t, 0, 0), "\u{2500}");
}

#[test]
fn decrc_restores_origin_mode() {
    let t = term(10, 8, b"\x1b[2;4r\x1b[?6h\x1b7\x1b[?6l\x1b8");
    assert!(t.screen().modes().origin);
    let mut t = t;
    t.advance(b"\x1b[1;1H");
    assert_eq!(cursor(&t), (1, 0));
}

#[test]
fn decrc_restores_pending_wrap() {
    // xterm CursorRestore: `do_wrap = sc->wrap_flag` after the cursor is placed.
    let t = term(5, 3, b"abcde\x1b7\x1b[3;1H\x1b8X");
    assert_eq!(lines(&t), ["abcde", "X", ""]);
    assert_eq!(cursor(&t), (1, 1));
}

#[test]
fn decrc_without_decsc_homes_and_resets_attributes() {
    // xterm CursorRestore with nothing saved: position 0,0, attributes and charsets reset.
    let t = term(10, 3, b"\x1b[1;31m\x1b(0\x1b[3;3H\x1b8q");
    assert_eq!(ch(&t, 0, 0), "q");
    assert_eq!(style(&t, 0, 0), Default::default());
}

#[test]
fn cursor_moves_clear_pending_wrap() {
    // Every cursor-positioning control resets xterm's wrap flag (ResetWrap in cursor.c).
    let cases: &[(&[u8], &[&str])] = &[
        (b"\x1b[D", &["abcXe", ""]),
        (b"\x1b[C", &["abcdX", ""]),
        (b"\x1b[A", &["abcdX", ""]),
        (b"\x1b[B", &["abcde", "    X"]),
        (b"\x1b[1;5H", &["abcdX", ""]),
        (b"\x1b[5G", &["abcdX", ""]),
        (b"\x1b[1d", &["abcdX", ""]),
        (b"\r", &["Xbcde", ""]),
    ];
    for (seq, want) in cases {
        let mut t = term(5, 2, b"abcde");
        t.advance(seq);
        assert!(!t.screen().cursor().pending_wrap, "{seq:?}");
        t.advance(b"X");
        assert_eq!(lines(&t), *want, "{seq:?}");
    }
}

#[test]
fn huge_parameters_clamp() {
    assert_eq!(cursor(&term(10, 5, b"\x1b[99999;99999H")), (4, 9));
    assert_eq!(cursor(&term(10, 5, b"\x1b[3;3H\x1b[99999A")), (0, 2));
    assert_eq!(cursor(&term(10, 5, b"\x1b[3;3H\x1b[99999C")), (2, 9));
}

#[test]
fn c0_controls_inside_a_csi_are_executed() {
    // VT100 User Guide: control characters received during a control sequence are executed
    // and the sequence continues.
    let t = term(10, 2, b"abcd\x1b[\x082D");
    assert_eq!(cursor(&t), (0, 1));
}

#[test]
fn can_aborts_a_sequence() {
    // CAN (0x18) cancels the sequence in progress; the final byte then prints as text.
    let t = term(10, 2, b"ab\x1b[2\x18D");
    assert_eq!(line(&t, 0), "abD");
}
