//! DECSTBM, IND/RI/NEL/LF at the margins, SU/SD and what feeds the scrollback.

use crate::common::*;

fn five_lines() -> shotty::term::Terminal {
    term(4, 5, b"1\r\n2\r\n3\r\n4\r\n5")
}

#[test]
fn decstbm_sets_region_and_homes_cursor() {
    let t = term(10, 8, b"\x1b[5;5H\x1b[3;6r");
    assert_eq!(t.screen().scroll_region(), (2, 5));
    assert_eq!(cursor(&t), (0, 0));
}

#[test]
fn decstbm_defaults_and_reset() {
    let t = term(10, 8, b"\x1b[3;6r\x1b[r");
    assert_eq!(t.screen().scroll_region(), (0, 7));
    let t = term(10, 8, b"\x1b[3r");
    assert_eq!(
        t.screen().scroll_region(),
        (2, 7),
        "missing bottom means last line"
    );
    let t = term(10, 8, b"\x1b[;4r");
    assert_eq!(
        t.screen().scroll_region(),
        (0, 3),
        "missing top means first line"
    );
    let t = term(10, 8, b"\x1b[2;99r");
    assert_eq!(
        t.screen().scroll_region(),
        (1, 7),
        "bottom beyond the screen is clamped"
    );
}

#[test]
fn invalid_decstbm_is_ignored() {
    // xterm: the margins are set only when bottom > top; otherwise nothing happens (no homing).
    for seq in [&b"\x1b[4;4r"[..], b"\x1b[5;2r", b"\x1b[8;8r", b"\x1b[9;12r"] {
        let mut t = term(10, 8, b"\x1b[2;5r\x1b[4;4H");
        t.advance(seq);
        assert_eq!(t.screen().scroll_region(), (1, 4), "{seq:?}");
        assert_eq!(cursor(&t), (3, 3), "{seq:?}");
    }
}

#[test]
fn lf_at_bottom_margin_scrolls_only_the_region() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[4;1H\nX");
    assert_eq!(lines(&t), ["1", "3", "4", "X", "5"]);
    assert_eq!(cursor(&t), (3, 1));
    assert!(
        scrollback(&t).is_empty(),
        "a region below the top row never feeds the scrollback"
    );
}

#[test]
fn ind_and_nel_at_bottom_margin_scroll_the_region() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[4;3H\x1bD");
    assert_eq!(lines(&t), ["1", "3", "4", "", "5"]);
    assert_eq!(cursor(&t), (3, 2), "IND keeps the column");
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[4;3H\x1bE");
    assert_eq!(lines(&t), ["1", "3", "4", "", "5"]);
    assert_eq!(cursor(&t), (3, 0), "NEL returns to column 0");
}

#[test]
fn lf_below_region_does_not_scroll() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;3r\x1b[5;1H\n\n");
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5"]);
    assert_eq!(cursor(&t), (4, 0));
    let mut t = five_lines();
    t.advance(b"\x1b[2;3r\x1b[4;1H\n");
    assert_eq!(
        cursor(&t),
        (4, 0),
        "below the region LF is a plain cursor move"
    );
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5"]);
}

#[test]
fn ri_at_top_margin_scrolls_region_down() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[2;2H\x1bM");
    assert_eq!(lines(&t), ["1", "", "2", "3", "5"]);
    assert_eq!(cursor(&t), (1, 1));
}

#[test]
fn ri_at_top_of_screen_without_region_scrolls_down() {
    let mut t = five_lines();
    t.advance(b"\x1b[H\x1bM");
    assert_eq!(lines(&t), ["", "1", "2", "3", "4"]);
}

#[test]
fn ri_above_region_does_not_scroll() {
    let mut t = five_lines();
    t.advance(b"\x1b[3;4r\x1b[2;1H\x1bM\x1bM\x1bM");
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5"]);
    assert_eq!(cursor(&t), (0, 0));
}

#[test]
fn ri_inside_region_moves_up() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[4;1H\x1bM");
    assert_eq!(cursor(&t), (2, 0));
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5"]);
}

#[test]
fn su_and_sd_scroll_the_region_without_moving_the_cursor() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[3;2H\x1b[S");
    assert_eq!(lines(&t), ["1", "3", "4", "", "5"]);
    assert_eq!(cursor(&t), (2, 1));
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[3;2H\x1b[2T");
    assert_eq!(lines(&t), ["1", "", "", "2", "5"]);
    assert_eq!(cursor(&t), (2, 1));
}

#[test]
fn su_and_sd_apply_even_with_cursor_outside_region() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[5;1H\x1b[S");
    assert_eq!(lines(&t), ["1", "3", "4", "", "5"]);
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[1;1H\x1b[T");
    assert_eq!(lines(&t), ["1", "", "2", "3", "5"]);
}

#[test]
fn su_and_sd_clamp_to_region_height() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;4r\x1b[99S");
    assert_eq!(lines(&t), ["1", "", "", "", "5"]);
    let mut t = five_lines();
    t.advance(b"\x1b[99T");
    assert_eq!(lines(&t), ["", "", "", "", ""]);
}

#[test]
fn scrolled_in_lines_take_the_background() {
    let mut t = five_lines();
    t.advance(b"\x1b[1;46m\x1b[S");
    assert_eq!(style(&t, 4, 0).bg, idx(6));
    assert!(!style(&t, 4, 0).bold);
    let mut t = five_lines();
    t.advance(b"\x1b[46m\x1b[H\x1bM");
    assert_eq!(style(&t, 0, 3).bg, idx(6));
    let mut t = five_lines();
    t.advance(b"\x1b[46m\n");
    assert_eq!(style(&t, 4, 3).bg, idx(6));
}

#[test]
fn full_screen_scrolls_of_the_primary_screen_feed_scrollback() {
    let mut t = five_lines();
    t.advance(b"\r\n6");
    assert_eq!(scrollback(&t), ["1"]);
    assert_eq!(lines(&t), ["2", "3", "4", "5", "6"]);
    t.advance(b"\x1b[2S");
    assert_eq!(scrollback(&t), ["1", "2", "3"]);
    t.advance(b"\x1bD");
    assert_eq!(scrollback(&t), ["1", "2", "3", "4"]);
    assert_eq!(t.snapshot().scrollback_lines, 4);
}

#[test]
fn scroll_down_never_touches_scrollback() {
    let mut t = five_lines();
    t.advance(b"\r\n6");
    t.advance(b"\x1b[3T\x1b[H\x1bM");
    assert_eq!(scrollback(&t), ["1"]);
}

#[test]
fn region_scrolls_below_the_top_never_feed_scrollback() {
    let mut t = five_lines();
    t.advance(b"\x1b[2;5r\x1b[5;1H\n\n\x1b[3S");
    assert!(scrollback(&t).is_empty());
    assert_eq!(line(&t, 0), "1");
}

#[test]
fn wrapped_flag_travels_with_scrolled_rows() {
    let mut t = term(4, 3, b"abcdef\r\n");
    assert_eq!(wrapped(&t), [true, false, false]);
    t.advance(b"\n\n");
    assert_eq!(wrapped(&t), [false, false, false]);
    assert!(t.screen().scrollback().rows()[0].wrapped);
    assert_eq!(scrollback(&t), ["abcd", "ef"]);
}

#[test]
fn scrollback_is_bounded_by_its_limit() {
    use shotty::term::{Terminal, TerminalOptions};
    let mut t = Terminal::with_options(
        5,
        2,
        TerminalOptions {
            scrollback: 3,
            ..TerminalOptions::default()
        },
    );
    t.advance(b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7");
    assert_eq!(scrollback(&t), ["3", "4", "5"]);
    assert_eq!(lines(&t), ["6", "7"]);
}

#[test]
fn region_with_top_margin_at_row_one_feeds_scrollback() {
    // xterm (and alacritty) save lines scrolled off the top of the primary screen even when a
    // bottom margin is set: a status line can stay fixed while output scrolls into history.
    let mut t = five_lines();
    t.advance(b"\x1b[1;4r\x1b[4;1H\nX");
    assert_eq!(scrollback(&t), ["1"]);
    assert_eq!(lines(&t), ["2", "3", "4", "X", "5"]);
    // DL on the top row scrolls the same lines.
    t.advance(b"\x1b[H\x1b[M");
    assert_eq!(scrollback(&t), ["1", "2"]);
    assert_eq!(lines(&t), ["3", "4", "X", "", "5"]);
}

#[test]
fn alternate_screen_region_scrolls_never_feed_scrollback() {
    let mut t = five_lines();
    t.advance(b"\x1b[?1049h\x1b[1;4r\x1b[4;1H\n\n\n");
    assert!(scrollback(&t).is_empty());
}
