//! `Terminal::contains_text`: what `wait --text` and `--until-text` look for on the screen.

use crate::common::*;

#[test]
fn blanks_on_screen_are_spaces() {
    let t = term(10, 3, b">>> ");
    assert!(t.contains_text(">>> "));
    assert!(t.contains_text(">>>      "), "blanks up to the row's end");
    assert!(!t.contains_text(">>>           "), "but not past it");
    assert!(!t.contains_text(" >>>"));
}

#[test]
fn a_line_break_is_the_end_of_a_row() {
    let t = term(10, 4, b"ab\r\ncd\r\nef");
    assert!(t.contains_text("ab\ncd"));
    assert!(t.contains_text("b\ncd\ne"));
    assert!(t.contains_text("ab \ncd"), "blanks after a row's text");
    assert!(!t.contains_text("a\ncd"), "the first line must end its row");
    assert!(
        !t.contains_text("ab\nd"),
        "the last line must start its row"
    );
    assert!(
        !t.contains_text("ab\nc\nef"),
        "a middle line is a whole row"
    );
    assert!(
        !t.contains_text("ef\n\n\n"),
        "not past the screen's last row"
    );
    assert!(t.contains_text("ef\n"));
}

#[test]
fn wide_characters_count_once() {
    let t = term(10, 2, "日本 x".as_bytes());
    assert!(t.contains_text("日本 x"));
    assert!(t.contains_text("本 x "));
}
