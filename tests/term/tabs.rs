//! HT, HTS, TBC, CHT and CBT.

use crate::common::*;

#[test]
fn default_stops_every_eight_columns() {
    let mut t = term(30, 2, b"\t");
    assert_eq!(cursor(&t), (0, 8));
    t.advance(b"\t");
    assert_eq!(cursor(&t), (0, 16));
    t.advance(b"\x1b[1;4H\t");
    assert_eq!(cursor(&t), (0, 8));
    t.advance(b"\x1b[1;9H\t");
    assert_eq!(
        cursor(&t),
        (0, 16),
        "a stop at the cursor column itself is skipped"
    );
}

#[test]
fn tab_writes_nothing() {
    let t = term(20, 2, b"ab\tc");
    assert_eq!(line(&t, 0), "ab      c");
    assert_eq!(ch(&t, 0, 4), " ");
}

#[test]
fn tab_stops_at_the_last_column_without_wrapping() {
    let t = term(20, 2, b"\t\t\t\t");
    assert_eq!(cursor(&t), (0, 19));
    let t = term(20, 2, b"\t\t\t\tX");
    assert_eq!(lines(&t), ["                   X", ""]);
}

#[test]
fn hts_sets_a_stop_at_the_cursor() {
    let t = term(30, 2, b"\x1b[1;4H\x1bH\r\t");
    assert_eq!(cursor(&t), (0, 3));
    let t = term(30, 2, b"\x1b[1;4H\x1bH\r\t\t");
    assert_eq!(cursor(&t), (0, 8));
}

#[test]
fn tbc0_clears_the_stop_at_the_cursor() {
    let t = term(30, 2, b"\x1b[1;9H\x1b[g\r\t");
    assert_eq!(cursor(&t), (0, 16));
    let t = term(30, 2, b"\x1b[1;9H\x1b[0g\r\t");
    assert_eq!(cursor(&t), (0, 16));
    let t = term(30, 2, b"\x1b[1;10H\x1b[g\r\t");
    assert_eq!(cursor(&t), (0, 8), "TBC 0 away from a stop clears nothing");
}

#[test]
fn tbc3_clears_all_stops() {
    // With no stops left, HT goes to the right margin (xterm TabToNextStop).
    let t = term(30, 2, b"\x1b[3g\t");
    assert_eq!(cursor(&t), (0, 29));
    let t = term(30, 2, b"\x1b[3g\x1b[1;6H\x1bH\r\t\t");
    assert_eq!(cursor(&t), (0, 29));
}

#[test]
fn cht_moves_forward_n_stops() {
    assert_eq!(cursor(&term(40, 2, b"\x1b[I")), (0, 8));
    assert_eq!(cursor(&term(40, 2, b"\x1b[3I")), (0, 24));
    assert_eq!(cursor(&term(40, 2, b"\x1b[99I")), (0, 39));
}

#[test]
fn cbt_moves_back_n_stops() {
    assert_eq!(cursor(&term(40, 2, b"\x1b[1;20H\x1b[Z")), (0, 16));
    assert_eq!(cursor(&term(40, 2, b"\x1b[1;20H\x1b[2Z")), (0, 8));
    assert_eq!(cursor(&term(40, 2, b"\x1b[1;17H\x1b[Z")), (0, 8));
    assert_eq!(cursor(&term(40, 2, b"\x1b[1;20H\x1b[9Z")), (0, 0));
    assert_eq!(cursor(&term(40, 2, b"\x1b[1;5H\x1b[Z")), (0, 0));
}

#[test]
fn custom_stops_are_used_by_cht_and_cbt() {
    let t = term(
        40,
        2,
        b"\x1b[3g\x1b[1;4H\x1bH\x1b[1;11H\x1bH\x1b[1;1H\x1b[2I",
    );
    assert_eq!(cursor(&t), (0, 10));
    let t = term(
        40,
        2,
        b"\x1b[3g\x1b[1;4H\x1bH\x1b[1;11H\x1bH\x1b[1;30H\x1b[Z",
    );
    assert_eq!(cursor(&t), (0, 10));
}

#[test]
fn tab_stops_are_per_column_not_per_line() {
    let t = term(30, 3, b"\x1b[1;6H\x1bH\x1b[3;1H\t");
    assert_eq!(cursor(&t), (2, 5));
}
