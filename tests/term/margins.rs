//! Left and right margins: DECLRMM (`CSI ? 69 h`) and DECSLRM (`CSI Pl ; Pr s`), and what
//! they confine: printing and wrapping, CR, tabs, cursor motion, ICH/DCH, IL/DL, scrolling,
//! origin mode (checked against xterm in `tests/term/xterm.rs`).

use crate::common::*;

/// Eight rows of `0123456789` at 10×8, with margins at columns 3–6 (1-based) and the scroll
/// region at rows 2–5.
fn boxed() -> shotty::term::Terminal {
    let rows = ["0123456789"; 8].join("\r\n");
    term(
        10,
        8,
        format!("{rows}\x1b[?69h\x1b[3;6s\x1b[2;5r").as_bytes(),
    )
}

#[test]
fn csi_s_sets_margins_only_under_declrmm() {
    let mut t = term(10, 3, b"\x1b[2;3H\x1b[4;6s\x1b[H\x1b[u");
    assert_eq!(
        cursor(&t),
        (1, 2),
        "without DECLRMM, CSI s saved the cursor"
    );
    t.advance(b"\x1b[?69h\x1b[4;6s");
    assert_eq!(cursor(&t), (0, 0), "DECSLRM homes the cursor");
    t.advance(b"\x1bP$qs\x1b\\\x1b[?69$p");
    assert_eq!(replies(&mut t), "\x1bP1$r4;6s\x1b\\\x1b[?69;1$y");
    t.advance(b"\x1b[6;4s\x1bP$qs\x1b\\");
    assert_eq!(
        replies(&mut t),
        "\x1bP1$r4;6s\x1b\\",
        "left >= right is ignored"
    );
    t.advance(b"\x1b[?69l\x1bP$qs\x1b\\");
    assert_eq!(
        replies(&mut t),
        "\x1bP1$r1;10s\x1b\\",
        "DECRST 69 removes them"
    );
}

#[test]
fn printing_wraps_at_the_right_margin_to_the_left_margin() {
    let mut t = term(10, 3, b"\x1b[?69h\x1b[3;6s\x1b[1;3Habcdef");
    assert_eq!(lines(&t), ["  abcd", "  ef", ""]);
    assert_eq!(cursor(&t), (1, 4));
    // Right of the right margin, printing goes on to the screen's edge.
    t.advance(b"\x1b[3;8Hxyz");
    assert_eq!(line(&t, 2), "       xyz");
}

#[test]
fn cr_tabs_and_cursor_motion_stop_at_the_margins() {
    let mut t = term(20, 2, b"\x1b[?69h\x1b[5;10s\x1b[1;8H\r");
    assert_eq!(cursor(&t), (0, 4), "CR to the left margin");
    t.advance(b"\x1b[99C");
    assert_eq!(cursor(&t), (0, 9));
    t.advance(b"\x1b[99D");
    assert_eq!(cursor(&t), (0, 4));
    t.advance(b"\t\t");
    assert_eq!(cursor(&t), (0, 9), "HT stops at the right margin");
    t.advance(b"\x1b[1;2H\r");
    assert_eq!(cursor(&t), (0, 0), "CR left of the margin goes to column 0");
}

#[test]
fn insert_and_delete_stay_inside_the_margins() {
    let mut t = boxed();
    t.advance(b"\x1b[1;4H\x1b[2@");
    assert_eq!(
        line(&t, 0),
        "012  36789",
        "ICH pushes up to the right margin only"
    );
    t.advance(b"\x1b[2;3H\x1b[1P");
    assert_eq!(
        line(&t, 1),
        "01345 6789",
        "DCH pulls from the right margin only"
    );
    t.advance(b"\x1b[3;4H\x1b[1L");
    assert_eq!(
        lines(&t)[2..6],
        ["01    6789", "0123456789", "0123456789", "0123456789"]
    );
    assert_eq!(cursor(&t), (2, 2), "IL moves to the left margin");
    t.advance(b"\x1b[3;3H\x1b[2M");
    assert_eq!(line(&t, 4), "01    6789");
}

#[test]
fn scrolling_moves_only_the_rectangle_and_feeds_no_scrollback() {
    let mut t = boxed();
    t.advance(b"\x1b[5;4H\nX");
    assert_eq!(
        lines(&t)[1..6],
        [
            "0123456789",
            "0123456789",
            "0123456789",
            "01 X  6789",
            "0123456789"
        ]
    );
    t.advance(b"\x1b[2T");
    assert_eq!(lines(&t)[1..3], ["01    6789", "01    6789"]);
    assert_eq!(scrollback(&t), Vec::<String>::new());
    // Outside the side margins the bottom margin neither scrolls nor moves the cursor.
    t.advance(b"\x1b[5;9H\n");
    assert_eq!(cursor(&t), (4, 8));
}

#[test]
fn origin_mode_is_relative_to_both_margins() {
    let mut t = term(
        20,
        10,
        b"\x1b[?69h\x1b[5;10s\x1b[3;8r\x1b[?6h\x1b[1;1Ho\x1b[99;99Hx",
    );
    assert_eq!(ch(&t, 2, 4), "o");
    assert_eq!(ch(&t, 7, 9), "x");
    // CPR counts the row from the top margin and the column from the screen's edge, as
    // xterm does.
    t.advance(b"\x1b[6n");
    assert_eq!(replies(&mut t), "\x1b[6;10R");
}

#[test]
fn decstr_and_resize_remove_the_margins() {
    let mut t = term(10, 2, b"\x1b[?69h\x1b[3;6s\x1b[!p\x1b[Habcdefgh");
    assert_eq!(line(&t, 0), "abcdefgh");
    t.advance(b"\x1b[?69h\x1b[3;6s");
    t.resize(12, 2);
    t.advance(b"\x1bP$qs\x1b\\");
    assert_eq!(replies(&mut t), "\x1bP1$r1;12s\x1b\\");
}
