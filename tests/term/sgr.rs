//! SGR: every attribute, the reset codes, 16/256/true colour in `;` and `:` forms, underline
//! styles and underline colour.

use shotty::term::StyleSnapshot;

use crate::common::*;

/// The style of a character printed after `sgr`.
fn sgr(seq: &str) -> StyleSnapshot {
    let t = term(10, 2, format!("{seq}X").as_bytes());
    style(&t, 0, 0)
}

#[test]
fn default_style_is_empty() {
    assert_eq!(sgr(""), StyleSnapshot::default());
    assert_eq!(term(5, 1, b"X").snapshot().rows[0].cells[0].s, 0);
}

#[test]
fn each_attribute_sets_its_flag() {
    assert!(sgr("\x1b[1m").bold);
    assert!(sgr("\x1b[2m").dim);
    assert!(sgr("\x1b[3m").italic);
    assert_eq!(sgr("\x1b[4m").underline.as_deref(), Some("single"));
    assert!(sgr("\x1b[5m").blink);
    assert!(sgr("\x1b[6m").blink, "rapid blink");
    assert!(sgr("\x1b[7m").inverse);
    assert!(sgr("\x1b[8m").hidden);
    assert!(sgr("\x1b[9m").strike);
    assert!(sgr("\x1b[53m").overline);
}

#[test]
fn each_reset_code_clears_its_attribute_only() {
    let all = "\x1b[1;3;4;5;7;8;9;53;31;42m";
    let s = sgr(&format!("{all}\x1b[22m"));
    assert!(!s.bold && !s.dim && s.italic);
    let s = sgr("\x1b[2;1m\x1b[22m");
    assert!(!s.bold && !s.dim, "22 resets both bold and faint");
    assert!(!sgr(&format!("{all}\x1b[23m")).italic);
    assert_eq!(sgr(&format!("{all}\x1b[24m")).underline, None);
    assert!(!sgr(&format!("{all}\x1b[25m")).blink);
    assert!(!sgr(&format!("{all}\x1b[27m")).inverse);
    assert!(!sgr(&format!("{all}\x1b[28m")).hidden);
    assert!(!sgr(&format!("{all}\x1b[29m")).strike);
    assert!(!sgr(&format!("{all}\x1b[55m")).overline);
    let s = sgr(&format!("{all}\x1b[39m"));
    assert_eq!((s.fg, s.bg.clone()), (None, idx(2)));
    let s = sgr(&format!("{all}\x1b[49m"));
    assert_eq!((s.fg, s.bg), (idx(1), None));
    let s = sgr(&format!("{all}\x1b[29m"));
    assert!(s.bold && s.italic && s.blink && s.inverse && s.hidden && s.overline);
}

#[test]
fn sgr0_and_empty_sgr_reset_everything() {
    assert_eq!(sgr("\x1b[1;4;31;42m\x1b[0m"), StyleSnapshot::default());
    assert_eq!(sgr("\x1b[1;4;31;42m\x1b[m"), StyleSnapshot::default());
    assert_eq!(sgr("\x1b[1;4;58;5;2m\x1b[m"), StyleSnapshot::default());
}

#[test]
fn reset_inside_a_parameter_list_applies_in_order() {
    let s = sgr("\x1b[1;31;0;4m");
    assert_eq!(s.underline.as_deref(), Some("single"));
    assert!(!s.bold);
    assert_eq!(s.fg, None);
    // An empty parameter is 0.
    let s = sgr("\x1b[1m\x1b[;3m");
    assert!(!s.bold && s.italic);
}

#[test]
fn ansi_colours() {
    for i in 0..8u8 {
        assert_eq!(sgr(&format!("\x1b[{}m", 30 + i)).fg, idx(i));
        assert_eq!(sgr(&format!("\x1b[{}m", 40 + i)).bg, idx(i));
        assert_eq!(sgr(&format!("\x1b[{}m", 90 + i)).fg, idx(8 + i));
        assert_eq!(sgr(&format!("\x1b[{}m", 100 + i)).bg, idx(8 + i));
    }
}

#[test]
fn bold_does_not_change_the_colour_index() {
    let s = sgr("\x1b[1;31m");
    assert!(s.bold);
    assert_eq!(s.fg, idx(1));
}

#[test]
fn indexed_colours_semicolon_form() {
    let s = sgr("\x1b[38;5;196;48;5;21m");
    assert_eq!((s.fg, s.bg), (idx(196), idx(21)));
    assert_eq!(sgr("\x1b[38;5;0m").fg, idx(0));
    assert_eq!(sgr("\x1b[38;5;255m").fg, idx(255));
}

#[test]
fn indexed_colours_colon_form() {
    let s = sgr("\x1b[38:5:196;48:5:21m");
    assert_eq!((s.fg, s.bg), (idx(196), idx(21)));
}

#[test]
fn true_colour_semicolon_form() {
    let s = sgr("\x1b[38;2;255;128;0;48;2;1;2;3m");
    assert_eq!(s.fg, rgb("#ff8000"));
    assert_eq!(s.bg, rgb("#010203"));
}

#[test]
fn true_colour_colon_forms() {
    // ITU T.416: `38:2:<colour space id>:R:G:B`; the id may be empty. xterm also accepts
    // the common `38:2:R:G:B` variant.
    assert_eq!(sgr("\x1b[38:2::255:128:0m").fg, rgb("#ff8000"));
    assert_eq!(sgr("\x1b[38:2:0:255:128:0m").fg, rgb("#ff8000"));
    assert_eq!(sgr("\x1b[38:2:255:128:0m").fg, rgb("#ff8000"));
    assert_eq!(sgr("\x1b[48:2::10:20:30m").bg, rgb("#0a141e"));
}

#[test]
fn parameters_after_an_extended_colour_still_apply() {
    let s = sgr("\x1b[38;5;100;1;48;2;1;2;3;4m");
    assert_eq!(s.fg, idx(100));
    assert!(s.bold);
    assert_eq!(s.bg, rgb("#010203"));
    assert_eq!(s.underline.as_deref(), Some("single"));
    let s = sgr("\x1b[38:2::1:2:3;1m");
    assert_eq!(s.fg, rgb("#010203"));
    assert!(s.bold);
}

#[test]
fn out_of_range_colours_are_ignored() {
    assert_eq!(sgr("\x1b[31m\x1b[38;5;256m").fg, idx(1));
    assert_eq!(sgr("\x1b[31m\x1b[38;2;300;0;0m").fg, idx(1));
}

#[test]
fn underline_styles() {
    assert_eq!(sgr("\x1b[4:0m").underline, None);
    assert_eq!(sgr("\x1b[4m\x1b[4:0m").underline, None);
    assert_eq!(sgr("\x1b[4:1m").underline.as_deref(), Some("single"));
    assert_eq!(sgr("\x1b[4:2m").underline.as_deref(), Some("double"));
    assert_eq!(sgr("\x1b[4:3m").underline.as_deref(), Some("curly"));
    assert_eq!(sgr("\x1b[4:4m").underline.as_deref(), Some("dotted"));
    assert_eq!(sgr("\x1b[4:5m").underline.as_deref(), Some("dashed"));
    assert_eq!(sgr("\x1b[4:3m\x1b[24m").underline, None);
}

#[test]
fn sgr21_is_double_underline() {
    // ctlseqs: "Ps = 2 1  ⇒  Doubly-underlined (ECMA-48)".
    let s = sgr("\x1b[21m");
    assert_eq!(s.underline.as_deref(), Some("double"));
    assert!(!s.bold);
}

#[test]
fn underline_colour() {
    let s = sgr("\x1b[4;58:2::255:0:0m");
    assert_eq!(s.underline_color, rgb("#ff0000"));
    assert_eq!(s.fg, None, "58 does not touch the foreground");
    assert_eq!(sgr("\x1b[58:5:9m").underline_color, idx(9));
    assert_eq!(sgr("\x1b[58;5;9m").underline_color, idx(9));
    assert_eq!(sgr("\x1b[58;2;1;2;3m").underline_color, rgb("#010203"));
    assert_eq!(sgr("\x1b[58:5:9m\x1b[59m").underline_color, None);
}

#[test]
fn style_applies_only_to_later_characters() {
    let t = term(10, 1, b"a\x1b[1mb\x1b[0mc");
    assert!(!style(&t, 0, 0).bold);
    assert!(style(&t, 0, 1).bold);
    assert!(!style(&t, 0, 2).bold);
}

#[test]
fn snapshot_style_table_is_deduplicated() {
    let t = term(10, 1, b"\x1b[31ma\x1b[32mb\x1b[31mc");
    let snap = t.snapshot();
    let cells = &snap.rows[0].cells;
    assert_eq!(cells[0].s, cells[2].s);
    assert_ne!(cells[0].s, cells[1].s);
    assert_eq!(snap.styles[0], StyleSnapshot::default());
}

#[test]
fn private_marker_m_sequences_are_not_sgr() {
    // `CSI > 4 ; 2 m` is XTMODKEYS (vim sends it); it must not underline or change colours.
    let s = sgr("\x1b[>4;2m");
    assert_eq!(s, StyleSnapshot::default());
    let s = sgr("\x1b[1m\x1b[>0m");
    assert!(s.bold, "`CSI > 0 m` is not SGR 0 either");
}
