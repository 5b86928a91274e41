//! The alternate screen buffer: modes 47, 1047, 1048 and 1049.

use crate::common::*;

fn primary() -> shotty::term::Terminal {
    term(10, 3, b"main1\r\nmain2\x1b[2;3H")
}

#[test]
fn mode_1049_saves_cursor_switches_and_clears() {
    let mut t = primary();
    t.advance(b"\x1b[?1049h");
    assert!(t.screen().is_alternate_screen());
    assert!(t.snapshot().alternate_screen);
    assert_eq!(lines(&t), ["", "", ""]);
    t.advance(b"\x1b[3;5Halt");
    assert_eq!(line(&t, 2), "    alt");
    t.advance(b"\x1b[?1049l");
    assert!(!t.screen().is_alternate_screen());
    assert_eq!(lines(&t), ["main1", "main2", ""]);
    assert_eq!(cursor(&t), (1, 2), "cursor restored as by DECRC");
}

#[test]
fn mode_1049_clears_the_alternate_screen_on_every_entry() {
    let mut t = primary();
    t.advance(b"\x1b[?1049hjunk\x1b[?1049l\x1b[?1049h");
    assert_eq!(lines(&t), ["", "", ""]);
}

#[test]
fn mode_1049_restores_attributes() {
    let mut t = primary();
    t.advance(b"\x1b[1;31m\x1b[?1049h\x1b[0m\x1b[?1049lX");
    let s = style(&t, 1, 2);
    assert!(s.bold);
    assert_eq!(s.fg, idx(1));
}

#[test]
fn mode_47_switches_without_clearing_or_saving() {
    let mut t = primary();
    t.advance(b"\x1b[?47h");
    assert!(t.screen().is_alternate_screen());
    assert_eq!(cursor(&t), (1, 2), "the cursor is shared, not reset");
    t.advance(b"alt");
    t.advance(b"\x1b[?47l");
    assert_eq!(lines(&t), ["main1", "main2", ""]);
    assert_eq!(cursor(&t), (1, 5), "47 does not restore the cursor");
    t.advance(b"\x1b[?47h");
    assert_eq!(
        line(&t, 1),
        "  alt",
        "the alternate buffer kept its content"
    );
}

#[test]
fn mode_1047_clears_the_alternate_screen_when_leaving() {
    // ctlseqs: 1047 reset: "Use Normal Screen Buffer, clearing screen first if in the
    // Alternate Screen Buffer".
    let mut t = primary();
    t.advance(b"\x1b[?1047halt\x1b[?1047l");
    assert_eq!(lines(&t), ["main1", "main2", ""]);
    t.advance(b"\x1b[?47h");
    assert_eq!(lines(&t), ["", "", ""]);
}

#[test]
fn mode_1047_does_not_clear_on_entry() {
    let mut t = primary();
    t.advance(b"\x1b[?47halt\x1b[?47l\x1b[?1047h");
    assert_eq!(line(&t, 1), "  alt");
}

#[test]
fn mode_1048_saves_and_restores_the_cursor() {
    let t = term(10, 3, b"\x1b[2;4H\x1b[?1048h\x1b[H\x1b[?1048l");
    assert_eq!(cursor(&t), (1, 3));
}

#[test]
fn alternate_screen_never_feeds_scrollback() {
    let mut t = primary();
    t.advance(b"\x1b[?1049h");
    for i in 0..10 {
        t.advance(format!("line{i}\r\n").as_bytes());
    }
    t.advance(b"\x1b[5S");
    assert!(scrollback(&t).is_empty());
    assert_eq!(t.snapshot().scrollback_lines, 0);
    t.advance(b"\x1b[?1049l");
    assert!(scrollback(&t).is_empty());
    assert_eq!(lines(&t), ["main1", "main2", ""]);
}

#[test]
fn primary_scrollback_survives_a_trip_to_the_alternate_screen() {
    let mut t = term(10, 2, b"a\r\nb\r\nc");
    assert_eq!(scrollback(&t), ["a"]);
    t.advance(b"\x1b[?1049hx\r\ny\r\nz\x1b[?1049l");
    assert_eq!(scrollback(&t), ["a"]);
    assert_eq!(lines(&t), ["b", "c"]);
}

#[test]
fn saved_cursors_are_per_buffer() {
    // xterm keeps one DECSC slot per buffer (screen->sc[screen->whichBuf]).
    let mut t = term(
        10,
        4,
        b"\x1b[2;2H\x1b7\x1b[?47h\x1b[4;4H\x1b7\x1b[H\x1b[?47l\x1b8",
    );
    assert_eq!(cursor(&t), (1, 1));
    t.advance(b"\x1b[?47h\x1b8");
    assert_eq!(cursor(&t), (3, 3));
}

#[test]
fn alternate_screen_uses_current_background_when_cleared() {
    let mut t = primary();
    t.advance(b"\x1b[44m\x1b[?1049h");
    assert_eq!(style(&t, 0, 0).bg, idx(4));
}

#[test]
fn modes_survive_switching() {
    let t = term(10, 3, b"\x1b[?2004h\x1b[?1049h\x1b[?1l\x1b[?1049l");
    assert!(t.screen().modes().bracketed_paste);
    assert!(!t.screen().modes().cursor_keys_application);
}

#[test]
fn primary_grid_is_reachable_while_alternate_is_shown() {
    let t = term(10, 3, b"main\x1b[?1049halt");
    assert_eq!(t.screen().primary_grid().row(0).text(), "main");
    // 1049 saves the cursor but does not move it.
    assert_eq!(t.screen().grid().row(0).text(), "    alt");
}

#[test]
fn repeated_1049_set_clears_again_and_keeps_the_first_saved_cursor() {
    let mut t = term(10, 3, b"\x1b[2;2H\x1b[?1049hxyz\x1b[3;3H\x1b[?1049h");
    assert_eq!(lines(&t), ["", "", ""]);
    t.advance(b"\x1b[?1049l");
    assert_eq!(cursor(&t), (1, 1));
}

#[test]
fn an_alternate_screen_first_entered_after_resizes_has_the_screens_size() {
    // Mode 47 does not clear: whatever the alternate buffer holds shows.
    for (width, height) in [(6, 2), (14, 5)] {
        let mut t = primary();
        t.resize(width, height);
        t.advance(b"\x1b[?47h");
        assert_eq!(lines(&t), vec![""; height]);
        t.advance(b"\x1b[1;1Halt\x1b[?47l");
        t.resize(width + 1, height + 1);
        t.advance(b"\x1b[?47h");
        assert_eq!(line(&t, 0), "alt", "kept across a resize");
        assert_eq!(lines(&t).len(), height + 1);
        check(&t);
    }
}
