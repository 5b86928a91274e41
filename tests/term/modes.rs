//! SM/RM and DECSET/DECRST: IRM, LNM, DECAWM, DECTCEM, DECCKM, DECKPAM, mouse, paste, 2026.

use shotty::term::{MouseEncoding, MouseTracking};

use crate::common::*;

#[test]
fn irm_inserts_and_pushes_text_right() {
    let t = term(6, 2, b"abcd\r\x1b[4hXY");
    assert_eq!(line(&t, 0), "XYabcd");
    assert!(t.screen().modes().insert);
    let t = term(6, 2, b"abcdef\r\x1b[4hXY");
    assert_eq!(
        line(&t, 0),
        "XYabcd",
        "characters pushed past the margin are lost"
    );
    assert_eq!(cursor(&t), (0, 2));
}

#[test]
fn irm_reset_replaces_again() {
    let t = term(6, 2, b"abcd\r\x1b[4hX\x1b[4lY");
    assert_eq!(line(&t, 0), "XYbcd");
    assert!(!t.screen().modes().insert);
}

#[test]
fn irm_with_wide_char() {
    let t = term(6, 2, "abcd\r\x1b[4h中".as_bytes());
    assert_eq!(line(&t, 0), "中abcd");
    check(&t);
}

#[test]
fn lnm_makes_lf_vt_ff_return_the_carriage() {
    // ctlseqs: LNM "Automatic Newline"; xterm applies it to LF, VT and FF.
    for lf in [b'\n', 0x0b, 0x0c] {
        let t = term(
            10,
            3,
            &[b'\x1b', b'[', b'2', b'0', b'h', b'a', b'b', lf, b'c'],
        );
        assert_eq!(lines(&t), ["ab", "c", ""], "{lf:#x}");
    }
    let t = term(10, 3, b"\x1b[20h\x1b[20lab\nc");
    assert_eq!(lines(&t), ["ab", "  c", ""]);
}

#[test]
fn lf_vt_ff_are_index_without_lnm() {
    for lf in [b'\n', 0x0b, 0x0c] {
        let t = term(10, 3, &[b'a', b'b', lf, b'c']);
        assert_eq!(lines(&t), ["ab", "  c", ""], "{lf:#x}");
    }
}

#[test]
fn decawm_off_overwrites_the_last_column() {
    let t = term(5, 2, b"\x1b[?7labcdefg");
    assert_eq!(lines(&t), ["abcdg", ""]);
    assert_eq!(cursor(&t), (0, 4));
    assert!(!t.screen().modes().autowrap);
    assert_eq!(wrapped(&t), [false, false]);
}

#[test]
fn decawm_on_again_wraps() {
    let t = term(5, 2, b"\x1b[?7l\x1b[?7habcdefg");
    assert_eq!(lines(&t), ["abcde", "fg"]);
}

#[test]
fn dectcem_hides_and_shows_the_cursor() {
    let t = term(5, 2, b"");
    assert!(t.snapshot().cursor.visible);
    let t = term(5, 2, b"\x1b[?25l");
    assert!(!t.snapshot().cursor.visible);
    let t = term(5, 2, b"\x1b[?25l\x1b[?25h");
    assert!(t.snapshot().cursor.visible);
}

#[test]
fn decckm_is_tracked() {
    let t = term(5, 2, b"\x1b[?1h");
    assert!(t.screen().modes().cursor_keys_application);
    let t = term(5, 2, b"\x1b[?1h\x1b[?1l");
    assert!(!t.screen().modes().cursor_keys_application);
}

#[test]
fn deckpam_and_deckpnm_are_tracked() {
    let t = term(5, 2, b"\x1b=");
    assert!(t.screen().modes().keypad_application);
    let t = term(5, 2, b"\x1b=\x1b>");
    assert!(!t.screen().modes().keypad_application);
    // DECNKM (?66) is the mode form of the same setting.
    let t = term(5, 2, b"\x1b[?66h");
    assert!(t.screen().modes().keypad_application);
}

#[test]
fn mouse_tracking_modes() {
    let cases: &[(&[u8], MouseTracking)] = &[
        (b"", MouseTracking::Off),
        (b"\x1b[?9h", MouseTracking::X10),
        (b"\x1b[?1000h", MouseTracking::Normal),
        (b"\x1b[?1002h", MouseTracking::ButtonEvent),
        (b"\x1b[?1003h", MouseTracking::AnyEvent),
        (b"\x1b[?1000h\x1b[?1003h", MouseTracking::AnyEvent),
        (b"\x1b[?1003h\x1b[?1000h", MouseTracking::Normal),
        (b"\x1b[?1000h\x1b[?1000l", MouseTracking::Off),
    ];
    for (seq, want) in cases {
        assert_eq!(
            term(5, 2, seq).screen().modes().mouse_tracking,
            *want,
            "{seq:?}"
        );
    }
}

#[test]
fn resetting_any_mouse_tracking_mode_turns_tracking_off() {
    // xterm dpmodes: set_mousemode(mode) stores `IsSM() ? mode : MOUSE_OFF`, so a DECRST of
    // any of 9/1000/1002/1003 disables reporting, whichever mode was active.
    let t = term(5, 2, b"\x1b[?1002h\x1b[?1000l");
    assert_eq!(t.screen().modes().mouse_tracking, MouseTracking::Off);
    let t = term(5, 2, b"\x1b[?1003h\x1b[?9l");
    assert_eq!(t.screen().modes().mouse_tracking, MouseTracking::Off);
}

#[test]
fn mouse_encodings_reset_only_against_the_matching_mode() {
    // xterm dpmodes: "a reset is only effective against the matching mode".
    let t = term(5, 2, b"\x1b[?1006h");
    assert_eq!(t.screen().modes().mouse_encoding, MouseEncoding::Sgr);
    let t = term(5, 2, b"\x1b[?1006h\x1b[?1005l");
    assert_eq!(t.screen().modes().mouse_encoding, MouseEncoding::Sgr);
    let t = term(5, 2, b"\x1b[?1006h\x1b[?1006l");
    assert_eq!(t.screen().modes().mouse_encoding, MouseEncoding::Default);
    let t = term(5, 2, b"\x1b[?1005h\x1b[?1015h");
    assert_eq!(t.screen().modes().mouse_encoding, MouseEncoding::Urxvt);
}

#[test]
fn focus_events_are_tracked() {
    assert!(term(5, 2, b"\x1b[?1004h").screen().modes().focus_events);
    assert!(
        !term(5, 2, b"\x1b[?1004h\x1b[?1004l")
            .screen()
            .modes()
            .focus_events
    );
}

#[test]
fn bracketed_paste_is_tracked() {
    assert!(!term(5, 2, b"").screen().modes().bracketed_paste);
    assert!(term(5, 2, b"\x1b[?2004h").screen().modes().bracketed_paste);
    assert!(
        !term(5, 2, b"\x1b[?2004h\x1b[?2004l")
            .screen()
            .modes()
            .bracketed_paste
    );
}

#[test]
fn synchronized_output_is_tracked() {
    assert!(
        term(5, 2, b"\x1b[?2026h")
            .screen()
            .modes()
            .synchronized_output
    );
    assert!(
        !term(5, 2, b"\x1b[?2026h\x1b[?2026l")
            .screen()
            .modes()
            .synchronized_output
    );
}

#[test]
fn several_modes_in_one_sequence() {
    let t = term(5, 2, b"\x1b[?25;2004;1h");
    let m = t.screen().modes();
    assert!(m.cursor_visible && m.bracketed_paste && m.cursor_keys_application);
    let t = term(5, 2, b"\x1b[?25;2004;1h\x1b[?25;1l");
    let m = t.screen().modes();
    assert!(!m.cursor_visible && m.bracketed_paste && !m.cursor_keys_application);
}

#[test]
fn ansi_and_dec_mode_numbers_are_separate() {
    // `CSI 4 h` is IRM; `CSI ? 4 h` is DECSCLM, not insert mode.
    let t = term(5, 2, b"\x1b[?4h");
    assert!(!t.screen().modes().insert);
    // `CSI 7 h` is not DECAWM.
    let t = term(5, 2, b"\x1b[?7l\x1b[7h");
    assert!(!t.screen().modes().autowrap);
}

#[test]
fn reverse_video_is_tracked() {
    assert!(term(5, 2, b"\x1b[?5h").screen().modes().reverse_video);
}

#[test]
fn decscusr_sets_the_cursor_shape() {
    let cases: &[(&[u8], &str)] = &[
        (b"", "block"),
        (b"\x1b[1 q", "block"),
        (b"\x1b[2 q", "block"),
        (b"\x1b[3 q", "underline"),
        (b"\x1b[4 q", "underline"),
        (b"\x1b[5 q", "bar"),
        (b"\x1b[6 q", "bar"),
        (b"\x1b[6 q\x1b[0 q", "block"),
    ];
    for (seq, shape) in cases {
        assert_eq!(term(5, 2, seq).snapshot().cursor.shape, *shape, "{seq:?}");
    }
}

#[test]
fn ris_resets_modes_screen_and_cursor() {
    let t = term(
        6,
        3,
        b"abc\x1b[4h\x1b[?7l\x1b[?25l\x1b[?1000h\x1b[?2004h\x1b[?1h\x1b=\x1b[2;3r\x1b[1;31m\x1b[3;3H\x1bc",
    );
    let m = t.screen().modes();
    assert!(!m.insert && m.autowrap && m.cursor_visible && !m.bracketed_paste);
    assert!(!m.cursor_keys_application && !m.keypad_application);
    assert_eq!(m.mouse_tracking, MouseTracking::Off);
    assert_eq!(lines(&t), ["", "", ""]);
    assert_eq!(cursor(&t), (0, 0));
    assert_eq!(t.screen().scroll_region(), (0, 2));
    let mut t = t;
    t.advance(b"x");
    assert_eq!(style(&t, 0, 0), Default::default());
}

#[test]
fn deccolm_switches_columns_only_while_mode_40_allows_it() {
    let mut t = term(80, 5, b"text\x1b[2;4r\x1b[3;3H\x1b[?3h");
    assert_eq!(
        (t.snapshot().width, line(&t, 0)),
        (80, "text".into()),
        "?3 alone: nothing"
    );
    assert_eq!(cursor(&t), (2, 2));
    t.advance(b"\x1b[?40h\x1b[?3h");
    let s = t.snapshot();
    assert_eq!((s.width, s.height), (132, 5));
    assert_eq!(lines(&t), ["", "", "", "", ""], "cleared");
    assert_eq!(cursor(&t), (0, 0), "home");
    assert_eq!(t.screen().scroll_region(), (0, 4), "the margins were reset");
    t.advance(b"\x1b[?3$p\x1b[?40$p");
    assert_eq!(replies(&mut t), "\x1b[?3;1$y\x1b[?40;1$y");
    t.advance(b"abc\x1b[?3l");
    assert_eq!((t.snapshot().width, cursor(&t)), (80, (0, 0)));
    assert_eq!(line(&t, 4), "");
}
