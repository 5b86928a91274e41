//! Protected characters: DECSCA with the selective erases DECSED and DECSEL, SPA/EPA guarded
//! areas, and what the plain erases do with both (as xterm: `tests/term/xterm.rs` compares).

use crate::common::*;

/// `PROT` protected with DECSCA, then `free`, on two rows; cursor at the start.
fn dec_protected() -> shotty::term::Terminal {
    term(
        12,
        2,
        b"\x1b[1\"qPROT\x1b[0\"qfree\r\nab\x1b[1\"qCD\x1b[2\"qef\x1b[H",
    )
}

#[test]
fn decsel_erases_only_unprotected_characters() {
    let mut t = dec_protected();
    t.advance(b"\x1b[?2K");
    assert_eq!(line(&t, 0), "PROT");
    t.advance(b"\x1b[2;4H\x1b[?1K");
    assert_eq!(line(&t, 1), "  CDef", "DECSEL 1 keeps C and D");
    t.advance(b"\x1b[?0K");
    assert_eq!(line(&t, 1), "  CD");
}

#[test]
fn decsed_erases_only_unprotected_characters() {
    let mut t = dec_protected();
    t.advance(b"\x1b[?2J");
    assert_eq!(lines(&t), ["PROT", "  CD"]);
    assert_eq!(cursor(&t), (0, 0), "DECSED leaves the cursor");
    let mut t = dec_protected();
    t.advance(b"\x1b[1;3H\x1b[?J");
    assert_eq!(lines(&t), ["PROT", "  CD"]);
    let mut t = dec_protected();
    t.advance(b"\x1b[2;2H\x1b[?1J");
    assert_eq!(lines(&t), ["PROT", "  CDef"]);
}

#[test]
fn plain_erases_ignore_dec_protection() {
    let mut t = dec_protected();
    t.advance(b"\x1b[2K");
    assert_eq!(line(&t, 0), "");
    let mut t = dec_protected();
    t.advance(b"\x1b[2J");
    assert_eq!(lines(&t), ["", ""]);
    let mut t = dec_protected();
    t.advance(b"\x1b[6X");
    assert_eq!(line(&t, 0), "      ee", "ECH too");
}

#[test]
fn a_guarded_area_survives_every_erase() {
    let mut t = term(12, 2, b"\x1bVguard\x1bWfree\r\n\x1bVg2\x1bWf2\x1b[H");
    t.advance(b"\x1b[K\x1b[2;1H\x1b[2K");
    assert_eq!(lines(&t), ["guard", "g2"]);
    t.advance(b"\x1b[H\x1b[8X\x1b[2J\x1b[?2J");
    assert_eq!(lines(&t), ["guard", "g2"]);
}

#[test]
fn protection_is_saved_with_the_cursor_and_ended_by_decstr() {
    let mut t = term(
        12,
        1,
        b"\x1b[1\"q\x1b7\x1b[0\"q\x1b8SAVED\x1b[0\"qx\x1b[H\x1b[?K",
    );
    assert_eq!(line(&t, 0), "SAVED", "DECRC restored the protection");
    t.advance(b"\x1b[1\"q\x1b[!p\x1b[Hafter\x1b[H\x1b[?K");
    assert_eq!(line(&t, 0), "", "DECSTR ended it");
}

#[test]
fn a_whole_screen_selective_erase_leaving_nothing_protected_ends_protection() {
    // Nothing is protected when DECSED 2 runs, so protection ends: the protected X printed
    // afterwards is erased by the next DECSED like any other character.
    let mut t = term(5, 1, b"\x1b[1\"q\x1b[?2JX\x1b[?2J");
    assert_eq!(line(&t, 0), "");
    // DECSCA turns it on again; with protected text left on the screen, it stays on.
    t.advance(b"\x1b[H\x1b[1\"qP\x1b[?2JQ\x1b[?2J");
    assert_eq!(line(&t, 0), "PQ");
}

#[test]
fn both_halves_of_a_protected_wide_character_survive() {
    let t = term(8, 1, "\x1b[1\"q日\x1b[0\"q本\x1b[H\x1b[?K".as_bytes());
    assert_eq!(line(&t, 0), "日");
    assert_eq!(cell(&t, 0, 0).w, 2);
    assert_eq!(cell(&t, 0, 1).w, 0);
    check(&t);
}
