//! OSC: titles and the title stack, palette and dynamic colours, hyperlinks, clipboard,
//! shell-integration marks.

use shotty::term::{DynamicColor, PromptMark};

use crate::common::*;

#[test]
fn osc0_and_osc2_set_the_title() {
    assert_eq!(term(10, 2, b"\x1b]0;hello\x07").screen().title(), "hello");
    assert_eq!(term(10, 2, b"\x1b]2;world\x07").screen().title(), "world");
    assert_eq!(term(10, 2, b"\x1b]2;st\x1b\\").screen().title(), "st");
    assert_eq!(
        term(10, 2, b"\x1b]2;one\x07\x1b]2;two\x07")
            .snapshot()
            .title,
        "two"
    );
}

#[test]
fn osc1_sets_only_the_icon_name() {
    assert_eq!(
        term(10, 2, b"\x1b]2;t\x07\x1b]1;icon\x07").screen().title(),
        "t"
    );
}

#[test]
fn title_keeps_semicolons_and_utf8() {
    assert_eq!(term(10, 2, b"\x1b]2;a;b;c\x07").screen().title(), "a;b;c");
    assert_eq!(
        term(10, 2, "\x1b]2;héllo ✓\x07".as_bytes())
            .screen()
            .title(),
        "héllo ✓"
    );
}

#[test]
fn title_does_not_print() {
    let t = term(10, 2, b"\x1b]2;title\x07ab\x1b]0;x\x1b\\c");
    assert_eq!(lines(&t), ["abc", ""]);
}

#[test]
fn empty_title_clears_it() {
    assert_eq!(term(10, 2, b"\x1b]2;x\x07\x1b]2;\x07").screen().title(), "");
}

#[test]
fn title_stack_push_and_pop() {
    let t = term(10, 2, b"\x1b]2;first\x07\x1b[22t\x1b]2;second\x07");
    assert_eq!(t.screen().title(), "second");
    let t = term(
        10,
        2,
        b"\x1b]2;first\x07\x1b[22;0t\x1b]2;second\x07\x1b[23;0t",
    );
    assert_eq!(t.screen().title(), "first");
    let t = term(
        10,
        2,
        b"\x1b]2;a\x07\x1b[22t\x1b]2;b\x07\x1b[22t\x1b]2;c\x07\x1b[23t\x1b[23t",
    );
    assert_eq!(t.screen().title(), "a");
}

#[test]
fn popping_an_empty_title_stack_changes_nothing() {
    assert_eq!(
        term(10, 2, b"\x1b]2;keep\x07\x1b[23t").screen().title(),
        "keep"
    );
}

#[test]
fn osc4_sets_palette_entries() {
    let t = term(
        10,
        2,
        b"\x1b]4;1;rgb:12/34/56\x07\x1b]4;200;#abcdef;201;rgb:ff/00/00\x1b\\",
    );
    assert_eq!(t.screen().palette_color(1), (0x12, 0x34, 0x56));
    assert_eq!(t.screen().palette_color(200), (0xab, 0xcd, 0xef));
    assert_eq!(t.screen().palette_color(201), (0xff, 0x00, 0x00));
}

#[test]
fn osc4_query_reports_in_xterm_format_with_matching_terminator() {
    let mut t = term(10, 2, b"\x1b]4;1;rgb:12/34/56\x07\x1b]4;1;?\x07");
    assert_eq!(replies(&mut t), "\x1b]4;1;rgb:1212/3434/5656\x07");
    t.advance(b"\x1b]4;1;?\x1b\\");
    assert_eq!(replies(&mut t), "\x1b]4;1;rgb:1212/3434/5656\x1b\\");
}

#[test]
fn osc4_query_of_default_entries() {
    // xterm's default colour cube: entry 196 is (255, 0, 0); grey 232 is 8,8,8.
    let mut t = term(10, 2, b"\x1b]4;196;?\x07\x1b]4;232;?\x07");
    assert_eq!(
        replies(&mut t),
        "\x1b]4;196;rgb:ffff/0000/0000\x07\x1b]4;232;rgb:0808/0808/0808\x07"
    );
}

#[test]
fn osc104_resets_palette_entries() {
    let t = term(10, 2, b"\x1b]4;196;#000000\x07\x1b]104;196\x07");
    assert_eq!(t.screen().palette_color(196), (255, 0, 0));
    let t = term(10, 2, b"\x1b]4;196;#000000;21;#000000\x07\x1b]104\x07");
    assert_eq!(t.screen().palette_color(196), (255, 0, 0));
    assert_eq!(t.screen().palette_color(21), (0, 0, 255));
}

#[test]
fn osc10_and_osc11_set_and_query() {
    let mut t = term(10, 2, b"\x1b]10;rgb:aa/bb/cc\x07\x1b]11;#102030\x07");
    assert_eq!(
        t.screen().dynamic_color(DynamicColor::Foreground),
        Some((0xaa, 0xbb, 0xcc))
    );
    assert_eq!(
        t.screen().dynamic_color(DynamicColor::Background),
        Some((0x10, 0x20, 0x30))
    );
    t.advance(b"\x1b]10;?\x07\x1b]11;?\x1b\\");
    assert_eq!(
        replies(&mut t),
        "\x1b]10;rgb:aaaa/bbbb/cccc\x07\x1b]11;rgb:1010/2020/3030\x1b\\"
    );
}

#[test]
fn osc110_and_osc111_reset_dynamic_colours() {
    let t = term(
        10,
        2,
        b"\x1b]10;#ffffff\x07\x1b]11;#ffffff\x07\x1b]110\x07\x1b]111\x07",
    );
    assert_eq!(t.screen().dynamic_color(DynamicColor::Foreground), None);
    assert_eq!(t.screen().dynamic_color(DynamicColor::Background), None);
}

#[test]
fn osc10_with_several_values_addresses_following_colours() {
    // ctlseqs: "OSC 10 ; fg ; bg" sets the foreground and then the next colour (11).
    let t = term(10, 2, b"\x1b]10;#010203;#040506\x07");
    assert_eq!(
        t.screen().dynamic_color(DynamicColor::Foreground),
        Some((1, 2, 3))
    );
    assert_eq!(
        t.screen().dynamic_color(DynamicColor::Background),
        Some((4, 5, 6))
    );
}

#[test]
fn osc8_marks_cells_with_the_link() {
    let t = term(
        20,
        2,
        b"a\x1b]8;;http://example.com/\x1b\\link\x1b]8;;\x1b\\b",
    );
    let snap = t.snapshot();
    let cells = &snap.rows[0].cells;
    assert_eq!(cells[0].l, None);
    assert_eq!(cells[5].l, None, "the link ends with an empty URI");
    let l = cells[1].l.expect("linked");
    for c in &cells[1..5] {
        assert_eq!(c.l, Some(l));
    }
    assert_eq!(snap.links[l as usize].uri, "http://example.com/");
    assert_eq!(snap.links[l as usize].id, None);
    assert_eq!(line(&t, 0), "alinkb");
}

#[test]
fn osc8_id_parameter() {
    let t = term(20, 2, b"\x1b]8;id=x1;http://a/\x07A\x1b]8;;\x07");
    let snap = t.snapshot();
    let l = snap.rows[0].cells[0].l.unwrap() as usize;
    assert_eq!(snap.links[l].id.as_deref(), Some("x1"));
    // Other key=value pairs are separated by ':'.
    let t = term(20, 2, b"\x1b]8;foo=bar:id=y2;http://a/\x07A\x1b]8;;\x07");
    let snap = t.snapshot();
    let l = snap.rows[0].cells[0].l.unwrap() as usize;
    assert_eq!(snap.links[l].id.as_deref(), Some("y2"));
}

#[test]
fn osc8_uri_may_contain_semicolons() {
    let t = term(20, 2, b"\x1b]8;;http://a/?x=1;y=2\x07A\x1b]8;;\x07");
    let snap = t.snapshot();
    let l = snap.rows[0].cells[0].l.unwrap() as usize;
    assert_eq!(snap.links[l].uri, "http://a/?x=1;y=2");
}

#[test]
fn osc8_link_spans_wrapped_lines() {
    let t = term(4, 3, b"\x1b]8;id=w;http://wrap/\x07abcdef\x1b]8;;\x07g");
    let snap = t.snapshot();
    let l = snap.rows[0].cells[0].l.unwrap();
    for c in &snap.rows[0].cells {
        assert_eq!(c.l, Some(l));
    }
    assert_eq!(snap.rows[1].cells[0].l, Some(l));
    assert_eq!(snap.rows[1].cells[1].l, Some(l));
    assert_eq!(snap.rows[1].cells[2].l, None);
    assert_eq!(snap.links.len(), 1);
}

#[test]
fn osc8_new_link_replaces_the_open_one() {
    let t = term(
        20,
        2,
        b"\x1b]8;;http://a/\x07A\x1b]8;;http://b/\x07B\x1b]8;;\x07",
    );
    let snap = t.snapshot();
    let (a, b) = (
        snap.rows[0].cells[0].l.unwrap(),
        snap.rows[0].cells[1].l.unwrap(),
    );
    assert_ne!(a, b);
    assert_eq!(snap.links[b as usize].uri, "http://b/");
}

#[test]
fn erased_cells_lose_the_link() {
    let t = term(
        20,
        2,
        b"\x1b]8;;http://a/\x07ABC\x1b[1;1H\x1b[K\x1b]8;;\x07",
    );
    assert!(t.snapshot().rows[0].cells.iter().all(|c| c.l.is_none()));
}

#[test]
fn osc52_is_ignored() {
    let mut t = term(10, 2, b"\x1b]2;t\x07\x1b]52;c;aGVsbG8=\x07\x1b]52;c;?\x07x");
    assert_eq!(replies(&mut t), "");
    assert_eq!(lines(&t), ["x", ""]);
    assert_eq!(t.screen().title(), "t");
}

#[test]
fn unknown_osc_is_ignored() {
    let mut t = term(10, 2, b"\x1b]999;whatever\x07\x1b]7;file://host/tmp\x07x");
    assert_eq!(replies(&mut t), "");
    assert_eq!(lines(&t), ["x", ""]);
}

#[test]
fn osc133_marks_rows() {
    let t = term(
        20,
        4,
        b"\x1b]133;A\x07$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07out\r\n\x1b]133;D;0\x07",
    );
    let g = t.screen().grid();
    assert_eq!(
        g.row(0).mark,
        PromptMark::CommandStart,
        "last mark on the row wins"
    );
    assert_eq!(g.row(1).mark, PromptMark::OutputStart);
    assert_eq!(g.row(2).mark, PromptMark::CommandEnd);
    assert_eq!(g.row(3).mark, PromptMark::None);
    assert_eq!(lines(&t), ["$ ls", "out", "", ""]);
}

#[test]
fn osc_split_across_reads() {
    let mut t = term(10, 2, b"\x1b]2;ab");
    t.advance(b"cd\x1b");
    t.advance(b"\\x");
    assert_eq!(t.screen().title(), "abcd");
    assert_eq!(lines(&t), ["x", ""]);
}

#[test]
fn osc4_several_queries_in_one_sequence() {
    let mut t = term(10, 2, b"\x1b]4;1;?;2;?\x07");
    assert_eq!(
        replies(&mut t),
        "\x1b]4;1;rgb:cdcd/0000/0000\x07\x1b]4;2;rgb:0000/cdcd/0000\x07"
    );
}
