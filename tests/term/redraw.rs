//! Keyframes (`Snapshot::redraw_bytes`): the bytes written for a screen, fed to a fresh
//! terminal of the same size, give back the same snapshot. `scrollback_lines` is the one field
//! a snapshot cannot carry over (the scrollback is not in it); the redraw must not scroll
//! anything into the fresh terminal's scrollback either, so that one comes out 0.

use shotty::term::{CellSnapshot, CursorSnapshot, RowSnapshot, Snapshot, Terminal};

use crate::common::{Rng, check_invariants};
use crate::support::{escape_bytes, fixtures, last_alt_screen_exit};

/// Redraws `a`'s snapshot on a fresh terminal of its size and returns that terminal.
fn redrawn(snap: &Snapshot) -> Terminal {
    let bytes = snap.redraw_bytes();
    let mut b = Terminal::new(snap.width as usize, snap.height as usize);
    b.advance(&bytes);
    b
}

/// The round trip of a terminal's screen; `what` names the case in a failure.
fn assert_redraws(a: &Terminal, what: &str) {
    let original = a.snapshot();
    let bytes = original.redraw_bytes();
    let b = redrawn(&original);
    let copy = b.snapshot();
    assert_eq!(
        copy.scrollback_lines,
        0,
        "{what}: the redraw scrolled into the scrollback\nbytes: {}",
        escape_bytes(&bytes)
    );
    let mut expected = original.clone();
    expected.scrollback_lines = 0;
    if copy != expected {
        let rows: Vec<String> = (0..expected.rows.len())
            .filter(|&r| expected.rows.get(r) != copy.rows.get(r))
            .map(|r| {
                format!(
                    "row {r}: want {:?}\n        got  {:?}",
                    expected.rows[r],
                    copy.rows.get(r)
                )
            })
            .collect();
        panic!(
            "{what}: redraw differs\n{}\nwant cursor {:?} title {:?} alt {}\ngot  cursor {:?} \
             title {:?} alt {}\nstyles want {:?}\n       got  {:?}\nlinks want {:?}\n      got  \
             {:?}\nbytes: {}",
            rows.join("\n"),
            expected.cursor,
            expected.title,
            expected.alternate_screen,
            copy.cursor,
            copy.title,
            copy.alternate_screen,
            expected.styles,
            copy.styles,
            expected.links,
            copy.links,
            escape_bytes(&bytes)
        );
    }
    // Deterministic, and a fixed point: the copy's screen gives the same bytes.
    assert_eq!(bytes, original.redraw_bytes(), "{what}: not deterministic");
    assert_eq!(
        bytes,
        copy.redraw_bytes(),
        "{what}: copy redraws differently"
    );
}

fn round_trip(w: usize, h: usize, input: &[u8]) {
    let mut a = Terminal::new(w, h);
    a.advance(input);
    assert_redraws(&a, &format!("{w}x{h} {}", escape_bytes(input)));
}

#[test]
fn fixtures_at_80x24_and_37x9_at_many_points() {
    for fixture in fixtures() {
        for (w, h) in [(80, 24), (37, 9), (fixture.width, fixture.height)] {
            let mut cuts: Vec<usize> = (1..16).map(|i| fixture.bytes.len() * i / 16).collect();
            cuts.extend(last_alt_screen_exit(&fixture.bytes));
            cuts.push(fixture.bytes.len());
            cuts.sort_unstable();
            cuts.dedup();
            let mut a = Terminal::new(w, h);
            let mut fed = 0;
            for cut in cuts {
                a.advance(&fixture.bytes[fed..cut]);
                fed = cut;
                assert_redraws(&a, &format!("{} at {w}x{h}, {cut} bytes", fixture.name));
            }
        }
    }
}

#[test]
fn the_alternate_screen_of_fixtures_is_redrawn_on_the_alternate_screen() {
    let mut seen = 0;
    for fixture in fixtures() {
        let Some(exit) = last_alt_screen_exit(&fixture.bytes) else {
            continue;
        };
        let mut a = Terminal::new(fixture.width, fixture.height);
        a.advance(&fixture.bytes[..exit]);
        if a.snapshot().alternate_screen {
            assert_redraws(&a, &fixture.name);
            seen += 1;
        }
    }
    assert!(seen > 0, "no fixture uses the alternate screen");
}

#[test]
fn alternate_screen_content() {
    round_trip(12, 4, b"primary\x1b[?1049h\x1b[2;3H\x1b[1malt\x1b[m screen");
    round_trip(12, 4, b"\x1b[?47h\x1b[4;1Hbottom");
}

#[test]
fn attributes_of_every_kind() {
    let codes = [
        "1",
        "2",
        "3",
        "4",
        "4:2",
        "21",
        "4:3",
        "4:4",
        "4:5",
        "5",
        "7",
        "8",
        "9",
        "53",
        "1;2",
        "1;3;4;5;7;8;9;53",
    ];
    for code in codes {
        round_trip(10, 2, format!("a\x1b[{code}mXY\x1b[mb").as_bytes());
    }
    let all = codes
        .iter()
        .map(|c| format!("\x1b[{c}m{c}\x1b[m "))
        .collect::<String>();
    round_trip(20, 8, all.as_bytes());
}

#[test]
fn colours_16_256_and_truecolour() {
    let mut input = String::new();
    for i in 0..8 {
        input.push_str(&format!("\x1b[3{i};4{}m{i}\x1b[9{i};10{i}m{i}", 7 - i));
    }
    for i in (0..=255).step_by(7) {
        input.push_str(&format!("\x1b[38;5;{i};48:5:{}mc", 255 - i));
    }
    input.push_str("\x1b[38;2;1;2;3;48:2::250:128:0mT\x1b[58:2::9:8:7;4:3mU\x1b[58;5;200mV");
    input.push_str("\x1b[39;49;59mW\x1b[m");
    round_trip(16, 6, input.as_bytes());
}

#[test]
fn blank_cells_keep_their_style_and_link() {
    // Erased cells with a background, and blank cells with a link, are not skipped.
    round_trip(
        10,
        3,
        b"\x1b[44m\x1b[2K\x1b[m\r\nab\x1b[41m   \x1b[m\x1b[K\r\n\x1b]8;;u\x07  \x1b]8;;\x07",
    );
    round_trip(10, 3, b"\x1b[2;5H\x1b[45m\x1b[J\x1b[m");
}

#[test]
fn hyperlinks_with_and_without_id() {
    round_trip(
        20,
        4,
        b"\x1b]8;;https://a.example/x;y?z=1\x1b\\plain\x1b]8;;\x1b\\ \
          \x1b]8;id=one;https://b.example\x07with id\x1b]8;;\x07 \
          \x1b]8;id=two:k=v;https://b.example\x07same uri\x1b]8;;\x07",
    );
    // A link over a wrap, and two links next to each other.
    round_trip(
        6,
        3,
        b"\x1b]8;id=w;file:///long\x1b\\0123456789\x1b]8;;\x1b\\\x1b]8;;a\x07x\x1b]8;;b\x07y",
    );
}

#[test]
fn wide_characters_and_emoji() {
    round_trip(10, 3, "日本語 😀 👍🏽 ＡＢ".as_bytes());
    // The last two columns hold a wide character; the row ends there.
    round_trip(6, 3, "abcd日\r\nx".as_bytes());
    // A wide character that does not fit in the last column wraps, leaving a blank.
    round_trip(6, 3, "abcde日本".as_bytes());
    round_trip(6, 3, "\x1b[42mabcde日本\x1b[m".as_bytes());
    // Wrapped rows of wide characters, and one in the bottom-right corner.
    round_trip(5, 3, "日本語日本語日本".as_bytes());
    round_trip(6, 2, "\x1b[2;5H😀".as_bytes());
    // A wide character half overwritten.
    round_trip(8, 2, "日本語\x1b[1;2Hx\x1b[1;5H\x1b[1P".as_bytes());
}

#[test]
fn combining_marks_and_graphemes() {
    round_trip(
        10,
        3,
        "e\u{301}x\u{308}\u{308}\u{308} 👨\u{200d}👩\u{200d}👧 ☺\u{fe0f} 🇺🇸".as_bytes(),
    );
    // A mark on a blank cell at the start of a row, on the last column, and on a wide
    // character in the last two columns.
    round_trip(5, 3, "\u{301}\r\nabcde\u{302}\r\nabc日\u{303}".as_bytes());
    // On a wrapped row's last cell.
    round_trip(5, 3, "abcde\u{302}fg".as_bytes());
}

#[test]
fn soft_wrapped_rows() {
    round_trip(5, 4, b"0123456789abcdefg");
    // A wrapped row whose continuation is blank, and one with trailing blanks.
    round_trip(5, 4, b"01234 \x1b[2K");
    round_trip(5, 4, b"abc  \x1b[2C\x1b[1Dx");
    round_trip(5, 4, b"\x1b[2;1H     z");
    // Wrapped, then a hard newline, then wrapped again.
    round_trip(5, 5, b"abcdefg\r\n12345678");
}

#[test]
fn wrapped_last_row() {
    // The wrapped rows moved down by RI at the top, SD and IL.
    round_trip(5, 3, b"\x1b[2;1Habcdefg\x1b[H\x1bM");
    round_trip(5, 3, b"\x1b[2;1Habcdefg\x1b[T");
    round_trip(5, 3, b"abcdefghijk\x1b[1;1H\x1b[L");
    // Every row wrapped, the last one included, and colours throughout.
    round_trip(4, 3, b"\x1b[41mabcdefghijklmn\x1b[m\x1b[H\x1b[T\x1b[Hxy");
    // The last row wrapped while the one before it is not.
    round_trip(4, 3, b"\x1b[3;1Habcdef\x1b[T\x1b[2;1Hpq");
    // Wide characters on it and after it.
    round_trip(5, 3, "\x1b[2;1Habcd日x\x1b[T".as_bytes());
    // With a bottom margin: the wrap at the last row of the region.
    round_trip(6, 4, b"\x1b[1;3r\x1b[3;1Habcdefgh\x1b[r\x1b[H\x1b[T");
}

#[test]
fn one_row_and_one_column_screens() {
    round_trip(6, 1, "\x1b[1mab\x1b[m日x\x1b]2;t\x07".as_bytes());
    round_trip(6, 1, b"abcdefgh");
    round_trip(1, 4, b"abc\x1b[?25l");
    round_trip(1, 4, b"a\r\nb\x1b[2;1H\x1b#6");
}

#[test]
fn bottom_right_cell_does_not_scroll() {
    let full: Vec<u8> = (0..4 * 3).map(|i| b'a' + i as u8).collect();
    round_trip(4, 3, &full);
    round_trip(4, 3, "\x1b[3;3H日".as_bytes());
    round_trip(4, 3, b"\x1b[3;4H\x1b[7mZ");
}

#[test]
fn double_width_and_double_height_rows() {
    round_trip(
        12,
        5,
        b"\x1b#6wide\r\n\x1b#3tall\r\n\x1b#4tall\r\n\x1b#5single\r\nnormal",
    );
    // Cells right of the half a double-size row shows are kept by the emulator.
    round_trip(
        10,
        3,
        b"0123456789\x1b[1;1H\x1b#6\x1b[2;1Habcdefghij\x1b[2;1H\x1b#3",
    );
    // Text printed on a double-width row wraps at its half.
    round_trip(10, 3, b"\x1b#6abcdefgh");
    round_trip(10, 3, "\x1b#6abcd日本".as_bytes());
    // A wrapped row made double-width afterwards, and a double-width last row.
    round_trip(6, 3, b"abcdefgh\x1b[1;1H\x1b#6\x1b[3;1H\x1b#6xy");
    // Odd width.
    round_trip(7, 2, b"\x1b#6abcdefg\x1b[2;1H\x1b#4xyz");
}

#[test]
fn cursor_position_visibility_and_shape() {
    round_trip(10, 4, b"abc\x1b[3;7H");
    round_trip(10, 4, b"abc\x1b[?25l");
    for n in 0..=6 {
        round_trip(10, 4, format!("x\x1b[{n} q").as_bytes());
    }
    // In the bottom-right corner; on a double-width row beyond its half.
    round_trip(10, 4, b"\x1b[4;10H");
    round_trip(10, 4, b"\x1b#6\x1b[1;9H");
}

/// What the snapshot cannot say: a cursor waiting to wrap. The redraw restores the snapshot
/// (cursor in the last column), but the next character lands there instead of wrapping.
#[test]
fn a_pending_wrap_is_not_restored() {
    let mut a = Terminal::new(4, 3);
    a.advance(b"abcd");
    assert_redraws(&a, "pending wrap");
    let mut b = redrawn(&a.snapshot());
    a.advance(b"e");
    b.advance(b"e");
    assert_eq!(a.text(), "abcd\ne\n");
    assert_eq!(b.text(), "abce\n\n");
}

#[test]
fn title() {
    round_trip(10, 2, b"\x1b]2;a title; with semicolons\x07x");
    round_trip(10, 2, "\x1b]0;日本 ☺\x1b\\".as_bytes());
    // An empty title is not written.
    let mut a = Terminal::new(4, 2);
    a.advance(b"x");
    assert!(
        !a.snapshot()
            .redraw_bytes()
            .windows(3)
            .any(|w| w == b"\x1b]2")
    );
}

#[test]
fn line_drawing_charset() {
    round_trip(10, 3, b"\x1b(0lqqk\r\nx  x\r\nmqqj\x1b(B ok");
}

#[test]
fn ends_with_a_default_pen_and_no_link() {
    let mut a = Terminal::new(10, 2);
    a.advance(b"\x1b[1;31m\x1b]8;;http://x\x07red link");
    let mut b = redrawn(&a.snapshot());
    b.advance(b"\x1b[2;1Hplain");
    let snap = b.snapshot();
    let cell = &snap.rows[1].cells[0];
    assert_eq!((cell.s, cell.l), (0, None), "{:?}", snap.styles);
}

#[test]
fn starts_from_a_known_state() {
    // A terminal left in odd modes gets the same screen as a fresh one.
    let mut a = Terminal::new(8, 3);
    a.advance(b"\x1b[44mabcdefghij\x1b[2;1H\x1b#6dw");
    let bytes = a.snapshot().redraw_bytes();
    let mut b = Terminal::new(8, 3);
    b.advance(b"\x1b[?7l\x1b[4h\x1b[?6h\x1b[2;3r\x1b(0\x1b[5m\x1b]8;;u\x07zz\x1b[?25l");
    b.advance(&bytes);
    let mut expected = a.snapshot();
    expected.scrollback_lines = 0;
    assert_eq!(b.snapshot(), expected);
}

const TEXT: &[&str] = &[
    "a", "bc", "xyz", " ", "  ", "日", "本語", "😀", "e\u{301}", "\u{302}", "│", "\t", "\r", "\n",
    "\r\n", "\x08",
];

const SEQUENCES: &[&str] = &[
    "\x1b[m",
    "\x1b[1m",
    "\x1b[3;4:3m",
    "\x1b[7m",
    "\x1b[31m",
    "\x1b[44m",
    "\x1b[38;5;200m",
    "\x1b[48;2;1;2;3m",
    "\x1b[58:5:3;4m",
    "\x1b[K",
    "\x1b[1K",
    "\x1b[2K",
    "\x1b[J",
    "\x1b[1J",
    "\x1b[H",
    "\x1b[L",
    "\x1b[M",
    "\x1b[P",
    "\x1b[@",
    "\x1b[X",
    "\x1b[S",
    "\x1b[T",
    "\x1bM",
    "\x1b#6",
    "\x1b#3",
    "\x1b#4",
    "\x1b#5",
    "\x1b]8;;http://l\x07",
    "\x1b]8;id=i;http://m\x07",
    "\x1b]8;;\x07",
    "\x1b[?25l",
    "\x1b[5 q",
    "\x1b[4h",
    "\x1b[4l",
    "\x1b[?7l",
    "\x1b[?7h",
    "\x1b[2;3r",
    "\x1b[r",
    "\x1b[?1049h",
    "\x1b[?1049l",
];

fn random_stream(rng: &mut Rng, w: usize, h: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.below(60) + 5 {
        match rng.below(10) {
            0..=4 => out.extend_from_slice(TEXT[rng.below(TEXT.len())].as_bytes()),
            5..=7 => out.extend_from_slice(SEQUENCES[rng.below(SEQUENCES.len())].as_bytes()),
            8 => out.extend_from_slice(
                format!("\x1b[{};{}H", rng.below(h + 1) + 1, rng.below(w + 1) + 1).as_bytes(),
            ),
            _ => out.extend_from_slice(format!("\x1b[{}C", rng.below(w)).as_bytes()),
        }
    }
    out
}

#[test]
fn random_streams_at_small_sizes() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    // How many screens had each feature: the streams must reach the cases that matter.
    let (mut wrapped_last, mut wrapped, mut wide, mut sized, mut alt, mut linked) =
        (0, 0, 0, 0, 0, 0);
    for case in 0..400 {
        let w = rng.below(9) + 3;
        let h = rng.below(5) + 2;
        let input = random_stream(&mut rng, w, h);
        let mut a = Terminal::new(w, h);
        a.advance(&input);
        assert_redraws(&a, &format!("case {case} {w}x{h} {}", escape_bytes(&input)));
        let snap = a.snapshot();
        let rows = &snap.rows;
        wrapped_last += usize::from(rows[h - 1].wrapped);
        wrapped += usize::from(rows.iter().any(|r| r.wrapped));
        wide += usize::from(rows.iter().flat_map(|r| &r.cells).any(|c| c.w == 2));
        sized += usize::from(rows.iter().any(|r| r.size.is_some()));
        alt += usize::from(snap.alternate_screen);
        linked += usize::from(!snap.links.is_empty());
    }
    let counts = [wrapped_last, wrapped, wide, sized, alt, linked];
    assert!(counts.iter().all(|&n| n >= 10), "{counts:?}");
}

/// A snapshot no terminal produced (from JSON, say) must not panic the redraw, and what it
/// writes must be a screen a terminal can hold.
#[test]
fn malformed_snapshots_do_not_panic() {
    let mut snap = Terminal::new(4, 2).snapshot();
    let cell = |t: &str, w: u8, s: u32, l: Option<u32>| CellSnapshot {
        t: t.to_owned().into(),
        w,
        s,
        l,
        m: false,
    };
    snap.rows[0] = RowSnapshot {
        wrapped: true,
        size: Some("bogus".into()),
        cells: vec![
            cell("", 0, 7, Some(9)),
            cell("日", 1, 0, None),
            cell("a\x1b[2J", 2, 0, None),
        ],
    };
    snap.rows.push(RowSnapshot {
        wrapped: true,
        size: None,
        cells: vec![cell("\u{301}", 1, 0, None); 9],
    });
    snap.title = "x\x07\x1b]2;y".into();
    snap.cursor = CursorSnapshot {
        row: 99,
        col: 99,
        visible: false,
        shape: "triangle".into(),
    };
    let b = redrawn(&snap);
    check_invariants(&b.snapshot());
    assert_eq!(b.snapshot().title, "x]2;y");
}
