//! Answers the terminal sends back: DA1, DA2, DSR/CPR, DECRQM, DECRQSS, colour queries,
//! XTVERSION, XTWINOPS 18, XTGETTCAP — and requests that must get no answer.

use crate::common::*;

/// The numeric parameters of a reply `prefix … final`.
fn params(reply: &str, prefix: &str, fin: char) -> Vec<u32> {
    let body = reply
        .strip_prefix(prefix)
        .and_then(|r| r.strip_suffix(fin))
        .unwrap_or_else(|| panic!("malformed reply {reply:?}"));
    body.split(';')
        .map(|p| {
            p.parse()
                .unwrap_or_else(|_| panic!("bad parameter in {reply:?}"))
        })
        .collect()
}

#[test]
fn da1_reports_a_vt_class_with_attributes() {
    // ctlseqs: `CSI ? 6 2 ; Ps … c` (VT220) and up; xterm's first parameter is the class.
    for req in [&b"\x1b[c"[..], b"\x1b[0c"] {
        let mut t = term(10, 3, req);
        let r = replies(&mut t);
        let p = params(&r, "\x1b[?", 'c');
        assert!((62..=65).contains(&p[0]), "{r:?}");
    }
}

#[test]
fn da2_reports_three_parameters() {
    // ctlseqs: `CSI > Pp ; Pv ; Pc c`.
    for req in [&b"\x1b[>c"[..], b"\x1b[>0c"] {
        let mut t = term(10, 3, req);
        let r = replies(&mut t);
        assert_eq!(params(&r, "\x1b[>", 'c').len(), 3, "{r:?}");
    }
}

#[test]
fn dsr5_reports_ok() {
    let mut t = term(10, 3, b"\x1b[5n");
    assert_eq!(replies(&mut t), "\x1b[0n");
}

#[test]
fn dsr6_reports_the_cursor_one_based() {
    let mut t = term(10, 5, b"\x1b[3;7H\x1b[6n");
    assert_eq!(replies(&mut t), "\x1b[3;7R");
    t.advance(b"\x1b[H\x1b[6n");
    assert_eq!(replies(&mut t), "\x1b[1;1R");
}

#[test]
fn cpr_with_pending_wrap_reports_the_last_column() {
    let mut t = term(5, 3, b"abcde\x1b[6n");
    assert_eq!(replies(&mut t), "\x1b[1;5R");
}

#[test]
fn cpr_in_origin_mode_is_relative_to_the_region() {
    // DEC STD 070 / xterm CursorRow(): with DECOM set, the row is counted from the top margin.
    let mut t = term(10, 8, b"\x1b[3;6r\x1b[?6h\x1b[2;4H\x1b[6n");
    assert_eq!(replies(&mut t), "\x1b[2;4R");
    t.advance(b"\x1b[?6l\x1b[4;4H\x1b[6n");
    assert_eq!(replies(&mut t), "\x1b[4;4R");
}

#[test]
fn decxcpr_reports_position_and_page() {
    // ctlseqs: `CSI ? 6 n` → `CSI ? r ; c ; p R`.
    let mut t = term(10, 5, b"\x1b[2;3H\x1b[?6n");
    assert_eq!(replies(&mut t), "\x1b[?2;3;1R");
}

#[test]
fn decrqm_ansi_modes() {
    let mut t = term(10, 3, b"\x1b[4$p\x1b[20$p");
    assert_eq!(replies(&mut t), "\x1b[4;2$y\x1b[20;2$y");
    t.advance(b"\x1b[4h\x1b[20h\x1b[4$p\x1b[20$p");
    assert_eq!(replies(&mut t), "\x1b[4;1$y\x1b[20;1$y");
}

#[test]
fn decrqm_dec_modes() {
    let mut t = term(10, 3, b"\x1b[?7$p\x1b[?25$p\x1b[?1$p\x1b[?2004$p\x1b[?6$p");
    assert_eq!(
        replies(&mut t),
        "\x1b[?7;1$y\x1b[?25;1$y\x1b[?1;2$y\x1b[?2004;2$y\x1b[?6;2$y"
    );
    t.advance(b"\x1b[?7l\x1b[?25l\x1b[?1h\x1b[?2004h\x1b[?7$p\x1b[?25$p\x1b[?1$p\x1b[?2004$p");
    assert_eq!(
        replies(&mut t),
        "\x1b[?7;2$y\x1b[?25;2$y\x1b[?1;1$y\x1b[?2004;1$y"
    );
}

#[test]
fn decrqm_alternate_screen_and_mouse() {
    let mut t = term(
        10,
        3,
        b"\x1b[?1049$p\x1b[?1049h\x1b[?1049$p\x1b[?1000h\x1b[?1000$p",
    );
    assert_eq!(
        replies(&mut t),
        "\x1b[?1049;2$y\x1b[?1049;1$y\x1b[?1000;1$y"
    );
}

#[test]
fn decrqm_synchronized_output() {
    // The synchronized-output spec uses DECRQM ?2026 for feature detection: 1 or 2 when known.
    let mut t = term(10, 3, b"\x1b[?2026$p\x1b[?2026h\x1b[?2026$p");
    assert_eq!(replies(&mut t), "\x1b[?2026;2$y\x1b[?2026;1$y");
}

#[test]
fn decrqm_unknown_modes_report_zero() {
    let mut t = term(10, 3, b"\x1b[?9999$p\x1b[99$p");
    assert_eq!(replies(&mut t), "\x1b[?9999;0$y\x1b[99;0$y");
}

#[test]
fn osc_colour_queries() {
    let mut t = term(10, 3, b"\x1b]11;#102030\x07\x1b]11;?\x07");
    assert_eq!(replies(&mut t), "\x1b]11;rgb:1010/2020/3030\x07");
    let mut t = term(10, 3, b"\x1b]10;?\x1b\\");
    let r = replies(&mut t);
    assert!(
        r.starts_with("\x1b]10;rgb:") && r.ends_with("\x1b\\"),
        "{r:?}"
    );
    assert_eq!(r.len(), "\x1b]10;rgb:0000/0000/0000\x1b\\".len(), "{r:?}");
}

#[test]
fn xtversion_reports_a_dcs_string() {
    // ctlseqs: `CSI > 0 q` → `DCS > | text ST`.
    let mut t = term(10, 3, b"\x1b[>q");
    let r = replies(&mut t);
    assert!(r.starts_with("\x1bP>|") && r.ends_with("\x1b\\"), "{r:?}");
    assert!(r.len() > 6);
    let mut t = term(10, 3, b"\x1b[>0q");
    assert!(replies(&mut t).starts_with("\x1bP>|"));
}

#[test]
fn xtwinops_18_reports_text_area_in_characters() {
    let mut t = term(80, 24, b"\x1b[18t");
    assert_eq!(replies(&mut t), "\x1b[8;24;80t");
    t.resize(100, 30);
    t.advance(b"\x1b[18t");
    assert_eq!(replies(&mut t), "\x1b[8;30;100t");
}

/// The kitty keyboard query (`CSI ? u`) is answered with the current flags, before the DA1
/// reply of a DA1 that follows it (programs send both and read "the flags came first" as
/// support).
#[test]
fn kitty_keyboard_query_is_answered_with_the_flags() {
    let mut t = term(10, 3, b"\x1b[?u");
    assert_eq!(replies(&mut t), "\x1b[?0u");
    t.advance(b"\x1b[>5u\x1b[?u\x1b[c");
    let da1 = replies(&mut term(10, 3, b"\x1b[c"));
    assert!(da1.starts_with("\x1b[?6") && da1.ends_with('c'), "{da1:?}");
    assert_eq!(replies(&mut t), format!("\x1b[?5u{da1}"));
}

#[test]
fn requests_that_are_not_queries_produce_nothing() {
    let mut t = term(
        10,
        3,
        b"hello\x1b[2J\x1b[1;31m\x1b[?25l\x1b]2;x\x07\x1b[3;1H",
    );
    assert_eq!(replies(&mut t), "");
}

#[test]
fn replies_are_kept_in_order_and_drained() {
    let mut t = term(10, 3, b"\x1b[5n\x1b[2;2H\x1b[6n");
    assert_eq!(replies(&mut t), "\x1b[0n\x1b[2;2R");
    assert_eq!(replies(&mut t), "");
}

#[test]
fn decrqss_reports_settings_as_the_sequences_that_set_them() {
    let mut t = term(20, 10, b"\x1b[1;3;4;31;48;5;17m\x1bP$qm\x1b\\");
    assert_eq!(replies(&mut t), "\x1bP1$r0;1;4;3;31;48:5:17m\x1b\\");
    t.advance(b"\x1b[0;2;9;21;93;48;2;1;2;3m\x1bP$qm\x1b\\");
    assert_eq!(replies(&mut t), "\x1bP1$r0;2;9;21;93;48:2::1:2:3m\x1b\\");
    t.advance(b"\x1b[3;7r\x1bP$qr\x1b\\\x1b[r\x1bP$qr\x1b\\");
    assert_eq!(replies(&mut t), "\x1bP1$r3;7r\x1b\\\x1bP1$r1;10r\x1b\\");
    t.advance(b"\x1b[5 q\x1bP$q q\x1b\\\x1b[1\"q\x1bP$q\"q\x1b\\\x1bP$qs\x1b\\");
    assert_eq!(
        replies(&mut t),
        "\x1bP1$r5 q\x1b\\\x1bP1$r1\"q\x1b\\\x1bP1$r1;20s\x1b\\"
    );
}

#[test]
fn decrqss_of_an_unknown_or_overlong_selector_is_invalid() {
    let mut t = term(20, 10, b"\x1bP$qz\x1b\\");
    assert_eq!(replies(&mut t), "\x1bP0$r\x1b\\");
    let long = format!("\x1bP$q{}m\x1b\\", "x".repeat(10_000));
    t.advance(long.as_bytes());
    assert_eq!(replies(&mut t), "\x1bP0$r\x1b\\");
    // Other DCS strings (sixel, unknown) get no answer.
    t.advance(b"\x1bPq#0;2;0;0;0~~\x1b\\\x1bP+zabc\x1b\\");
    assert_eq!(replies(&mut t), "");
}

/// `s` hex-encoded as XTGETTCAP writes names and values.
fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02X}")).collect()
}

/// The XTGETTCAP reply for one name: `DCS 1 + r NAME = VALUE ST`, or `DCS 0 + r ST`.
fn tcap(name: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("\x1bP1+r{}={}\x1b\\", hex(name), hex(v)),
        None => "\x1bP0+r\x1b\\".to_owned(),
    }
}

#[test]
fn xtgettcap_reports_name_colours_and_direct_colour() {
    for (name, value) in [
        ("TN", "xterm-256color"),
        ("name", "xterm-256color"),
        ("Co", "256"),
        ("colors", "256"),
        ("RGB", "8"),
    ] {
        let mut t = term(10, 3, format!("\x1bP+q{}\x1b\\", hex(name)).as_bytes());
        assert_eq!(replies(&mut t), tcap(name, Some(value)), "{name}");
    }
}

#[test]
fn xtgettcap_keys_are_what_the_keys_send_in_the_current_modes() {
    // Cursor keys follow DECCKM, as the key encoder does; the others do not change.
    let cases = [
        ("kcuu1", "\x1b[A", "\x1bOA"),
        ("kl", "\x1b[D", "\x1bOD"),
        ("khome", "\x1b[H", "\x1bOH"),
        ("kdch1", "\x1b[3~", "\x1b[3~"),
        ("kf1", "\x1bOP", "\x1bOP"),
        ("k;", "\x1b[21~", "\x1b[21~"),
        ("F2", "\x1b[24~", "\x1b[24~"),
        ("kcbt", "\x1b[Z", "\x1b[Z"),
        ("kLFT", "\x1b[1;2D", "\x1b[1;2D"),
        ("kbs", "\x7f", "\x7f"),
    ];
    for (name, normal, application) in cases {
        let query = format!("\x1bP+q{}\x1b\\", hex(name));
        let mut t = term(10, 3, query.as_bytes());
        assert_eq!(replies(&mut t), tcap(name, Some(normal)), "{name}");
        let mut t = term(10, 3, format!("\x1b[?1h{query}").as_bytes());
        assert_eq!(
            replies(&mut t),
            tcap(name, Some(application)),
            "{name} in DECCKM"
        );
    }
}

#[test]
fn xtgettcap_answers_names_up_to_the_first_unknown_one() {
    // Several names: one reply, `;`-separated, as xterm.
    let mut t = term(10, 3, b"\x1bP+q544E;436F\x1b\\");
    assert_eq!(
        replies(&mut t),
        format!("\x1bP1+r544E={};436F=323536\x1b\\", hex("xterm-256color"))
    );
    // An unknown name ends the reply (after its separator); first, it makes the reply invalid.
    let mut t = term(10, 3, b"\x1bP+q436F;7A7A;544E\x1b\\");
    assert_eq!(replies(&mut t), "\x1bP1+r436F=323536;\x1b\\");
    // Lower-case hex is accepted and echoed as sent.
    let mut t = term(10, 3, b"\x1bP+q636f6c6f7273\x1b\\");
    assert_eq!(replies(&mut t), "\x1bP1+r636f6c6f7273=323536\x1b\\");
    // Not hex, an odd length, an empty name, an unknown name: refused.
    for bad in ["5G", "544", "", "7a7a", "7a7a;544e"] {
        let mut t = term(10, 3, format!("\x1bP+q{bad}\x1b\\").as_bytes());
        assert_eq!(replies(&mut t), "\x1bP0+r\x1b\\", "{bad:?}");
    }
    // An over-long request gets no answer, and the terminal goes on.
    let long = format!("\x1bP+q{}\x1b\\ok", "544e;".repeat(400));
    let mut t = term(10, 3, long.as_bytes());
    assert_eq!(replies(&mut t), "");
    assert_eq!(t.text().lines().next(), Some("ok"));
}
