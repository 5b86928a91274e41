//! Property test: several megabytes of random, grammar-generated and mutated input (fixed
//! seed) must never panic the emulator or break its invariants: cursor in bounds, every row
//! exactly `width` cells, wide characters always paired with their spacer, bounded tables.
//! The same input is also fed all at once and (every few rounds) byte by byte: screen,
//! scrollback, modes, replies and bells must match the chunked terminal exactly. A sample of
//! the screens is rendered: the SVG must be XML and the PNG must rasterise.

use shotty::render::{self, Appearance, PngCompression, WindowStyle};
use shotty::term::{MAX_LINKS, MAX_STYLES, MAX_TITLE_LEN, Terminal, TerminalOptions};

use crate::common::Rng;

const CSI_FINALS: &[u8] = b"@ABCDEFGHIJKLMPSTXZ`abcdefghlmnpqrstu";
const INTERMEDIATES: &[&[u8]] = &[b"", b"", b"", b"?", b">", b" ", b"!", b"$", b"?$", b"="];
const TEXT: &[&str] = &[
    "a",
    "hello",
    " ",
    "日本",
    "😀",
    "👍🏽",
    "e\u{301}",
    "\u{200d}",
    "\u{fe0f}",
    "│",
    "ＡＢ",
    "\u{301}",
    "\u{7f}",
    "\u{fffd}",
    "\u{85}",
    "🇺🇸",
    "x\u{308}\u{308}\u{308}",
    // Noncharacters: U+FFFE and U+FFFF are not XML characters, U+FDD0 and U+1FFFE are.
    "\u{fffe}",
    "\u{ffff}",
    "\u{fdd0}",
    "\u{1fffe}",
];

fn number(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => String::new(),
        1 => "65535".into(),
        2 => "99999999".into(),
        3..=5 => rng.below(4).to_string(),
        _ => rng.below(300).to_string(),
    }
}

/// One syntactically plausible piece of terminal output.
fn piece(rng: &mut Rng, out: &mut Vec<u8>) {
    match rng.below(12) {
        0..=3 => out.extend_from_slice(TEXT[rng.below(TEXT.len())].as_bytes()),
        4 => out.push(b"\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"[rng.below(9)]),
        5..=7 => {
            out.extend_from_slice(b"\x1b[");
            out.extend_from_slice(INTERMEDIATES[rng.below(INTERMEDIATES.len())]);
            for i in 0..rng.below(6) {
                if i > 0 {
                    out.push(if rng.chance(20) { b':' } else { b';' });
                }
                out.extend_from_slice(number(rng).as_bytes());
            }
            out.push(CSI_FINALS[rng.below(CSI_FINALS.len())]);
        }
        8 => {
            // SGR with extended colours in both forms.
            let sgr = match rng.below(5) {
                0 => format!(
                    "\x1b[38;2;{};{};{}m",
                    rng.below(256),
                    rng.below(256),
                    rng.below(256)
                ),
                1 => format!(
                    "\x1b[48:2::{}:{}:{}m",
                    rng.below(256),
                    rng.below(256),
                    rng.below(256)
                ),
                2 => format!("\x1b[4:{};58;5;{}m", rng.below(7), rng.below(300)),
                3 => format!("\x1b[{};{}m", rng.below(110), rng.below(110)),
                _ => "\x1b[m".into(),
            };
            out.extend_from_slice(sgr.as_bytes());
        }
        9 => {
            let osc = match rng.below(9) {
                0 => format!("\x1b]0;title {}\x07", rng.below(1000)),
                1 => format!(
                    "\x1b]8;id={};https://e.com/{}\x1b\\",
                    rng.below(9),
                    rng.next()
                ),
                2 => "\x1b]8;;\x1b\\".into(),
                3 => format!(
                    "\x1b]4;{};rgb:{:x}/00/ff\x07",
                    rng.below(300),
                    rng.below(256)
                ),
                4 => "\x1b]11;?\x07\x1b]4;1;?\x1b\\".into(),
                5 => format!("\x1b]133;{}\x07", ["A", "B", "C", "D", "Z"][rng.below(5)]),
                6 => "\x1b]52;c;aGVsbG8=\x07".into(),
                // Link targets keep what cells never hold (DEL, C1 controls); titles drop
                // those but keep noncharacters.
                7 => "\x1b]2;t\u{fffe}\x7f\u{9b}\u{ffff}\x07".into(),
                _ => format!(
                    "\x1b]8;;https://e.com/\u{fffe}\x7f\u{85}{}\x1b\\",
                    rng.below(9)
                ),
            };
            out.extend_from_slice(osc.as_bytes());
        }
        10 => {
            let esc: &[&[u8]] = &[
                b"\x1b7",
                b"\x1b8",
                b"\x1bD",
                b"\x1bE",
                b"\x1bH",
                b"\x1bM",
                b"\x1bc",
                b"\x1b#8",
                b"\x1b(0",
                b"\x1b(B",
                b"\x1b)0",
                b"\x1bN",
                b"\x1b=",
                b"\x1b>",
                b"\x1bP1$r\x1b\\",
                b"\x1b_apc\x1b\\",
            ];
            out.extend_from_slice(esc[rng.below(esc.len())]);
        }
        _ => {
            let modes = [
                1, 5, 6, 7, 25, 47, 1047, 1048, 1049, 2004, 2026, 1000, 1006, 4, 20,
            ];
            let m = modes[rng.below(modes.len())];
            let private = if m == 4 || m == 20 { "" } else { "?" };
            let hl = if rng.chance(50) { 'h' } else { 'l' };
            out.extend_from_slice(format!("\x1b[{private}{m}{hl}").as_bytes());
        }
    }
}

fn random_bytes(rng: &mut Rng, out: &mut Vec<u8>, n: usize) {
    for _ in 0..n {
        // Bias towards ESC, controls and UTF-8 lead bytes, where parsers break.
        let b = match rng.below(8) {
            0 => 0x1b,
            1 => rng.below(0x20) as u8,
            2 => 0x80 + rng.below(0x80) as u8,
            _ => rng.next() as u8,
        };
        out.push(b);
    }
}

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(16) {
        if out.is_empty() {
            break;
        }
        let i = rng.below(out.len());
        match rng.below(4) {
            0 => out[i] ^= 1 << rng.below(8),
            1 => out[i] = rng.next() as u8,
            2 => {
                out.remove(i);
            }
            _ => {
                let j = rng.below(out.len());
                let (a, b) = (i.min(j), i.max(j));
                let slice = out[a..b.min(a + 64)].to_vec();
                out.splice(i..i, slice);
            }
        }
    }
    out
}

fn check_invariants(term: &Terminal, context: &str) {
    let screen = term.screen();
    let (w, h) = (term.width(), term.height());
    let cursor = screen.cursor();
    assert!(
        cursor.row < h && cursor.col < w,
        "{context}: cursor {cursor:?} outside {w}x{h}"
    );
    assert_eq!(screen.grid().height(), h, "{context}");
    let (top, bottom) = screen.scroll_region();
    assert!(
        top <= bottom && bottom < h,
        "{context}: region {top}..{bottom} in {h} rows"
    );
    for (r, row) in screen.grid().rows().iter().enumerate() {
        assert_eq!(
            row.len(),
            w,
            "{context}: row {r} has {} cells, width {w}",
            row.len()
        );
        let cells = row.cells();
        for (c, cell) in cells.iter().enumerate() {
            if cell.is_wide() {
                assert!(
                    cells.get(c + 1).is_some_and(|n| n.is_spacer()),
                    "{context}: wide char at {r},{c} without its spacer"
                );
            }
            if cell.is_spacer() {
                assert!(
                    c > 0 && cells[c - 1].is_wide(),
                    "{context}: spacer at {r},{c} without its wide char"
                );
            }
        }
    }
    assert!(
        screen.scrollback().len() <= screen.scrollback().limit(),
        "{context}"
    );
    assert!(screen.styles().len() <= MAX_STYLES, "{context}");
    assert!(screen.links().len() <= MAX_LINKS, "{context}");
    assert!(screen.title().len() <= MAX_TITLE_LEN, "{context}");
}

fn check_snapshot(term: &Terminal, context: &str) {
    let snap = term.snapshot();
    assert_eq!(snap.rows.len(), term.height(), "{context}");
    for row in &snap.rows {
        assert_eq!(row.cells.len(), term.width(), "{context}");
        for cell in &row.cells {
            assert!(
                (cell.s as usize) < snap.styles.len(),
                "{context}: style index"
            );
            if let Some(l) = cell.l {
                assert!((l as usize) < snap.links.len(), "{context}: link index");
            }
        }
    }
    let json = serde_json::to_string(&snap).expect("snapshot serialises");
    let back: shotty::term::Snapshot = serde_json::from_str(&json).expect("snapshot parses");
    assert_eq!(back, snap, "{context}: snapshot round trip");
}

/// Renders the screen to SVG, which must be well-formed XML, and with `raster` also to PNG
/// through the crate's own rasteriser (which parses that SVG again, with usvg).
fn check_render(term: &Terminal, context: &str, style: usize, raster: bool) {
    let snap = term.snapshot();
    let appearance = match style % 3 {
        0 => Appearance::default(),
        1 => Appearance {
            window: WindowStyle::Macos,
            ..Appearance::default()
        },
        _ => Appearance {
            window: WindowStyle::WindowsPc,
            embed_font: true,
            ..Appearance::default()
        },
    };
    let svg = render::to_svg(&snap, &appearance)
        .unwrap_or_else(|e| panic!("{context}: cannot render: {e}"));
    if let Err(e) = roxmltree::Document::parse(&svg) {
        let line = svg.lines().nth(e.pos().row as usize - 1).unwrap_or("");
        let start = line
            .char_indices()
            .map(|(i, _)| i)
            .take_while(|i| *i + 80 < e.pos().col as usize)
            .last()
            .unwrap_or(0);
        let around: String = line[start..].chars().take(160).collect();
        panic!("{context}: the SVG is not XML: {e}\n…{around:?}…");
    }
    if raster {
        // What matters is that usvg accepts the document; small, quickly compressed pixels
        // keep the unoptimised rasteriser and deflate out of the test's time.
        let appearance = Appearance {
            scale: 0.25,
            png_compression: PngCompression::Fast,
            ..appearance
        };
        let png = render::to_png(&snap, &appearance)
            .unwrap_or_else(|e| panic!("{context}: cannot rasterise: {e}"));
        assert!(png.starts_with(b"\x89PNG"), "{context}");
    }
}

const TOTAL_BYTES: usize = 8_000_000;
/// Every this many rounds the snapshot's indices and JSON round trip are checked and the
/// scrollbacks compared …
const SNAPSHOT_EVERY: usize = 10;
/// … and the terminal fed byte by byte is compared (a parser call per byte costs).
const BYTE_BY_BYTE_EVERY: usize = 8;
/// Every this many rounds the screen is rendered to SVG and parsed: ~100 of ~2500 rounds,
/// under a second in a debug build …
const RENDER_EVERY: usize = 25;
/// … and every this many rasterised too: 10 PNGs, about a second in all.
const RASTER_EVERY: usize = 250;

#[test]
fn random_generated_and_mutated_input_keeps_invariants() {
    let mut rng = Rng(0x5eed_cafe_f00d_d00d);
    let fixtures: Vec<Vec<u8>> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"))
            .expect("fixtures directory")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "bin"))
            .map(|e| std::fs::read(e.path()).expect("fixture readable"))
            .collect();
    assert!(!fixtures.is_empty());

    let options = TerminalOptions {
        scrollback: 200,
        ..Default::default()
    };
    // The same input three ways: in random chunks, all at once, and one byte at a time. The
    // parser keeps its state between calls, so all three must end up identical.
    let new = |w, h| Terminal::with_options(w, h, options.clone());
    let (mut term, mut whole, mut bytewise) = (new(80, 24), new(80, 24), new(80, 24));
    let mut fed = 0;
    let mut round = 0;
    let mut rendered = 0;
    let mut compared = 0;
    while fed < TOTAL_BYTES {
        round += 1;
        let mut input = Vec::new();
        match rng.below(3) {
            0 => random_bytes(&mut rng, &mut input, 2000),
            1 => {
                for _ in 0..400 {
                    piece(&mut rng, &mut input);
                }
            }
            _ => {
                let f = &fixtures[rng.below(fixtures.len())];
                input = mutate(&mut rng, f);
            }
        }
        // Feed in random-sized chunks so sequences are split at every kind of boundary.
        let mut rest = &input[..];
        while !rest.is_empty() {
            let n = (1 + rng.below(300)).min(rest.len());
            term.advance(&rest[..n]);
            rest = &rest[n..];
        }
        whole.advance(&input);
        let by_byte = round % BYTE_BY_BYTE_EVERY == 0;
        if by_byte {
            for byte in &input {
                bytewise.advance(std::slice::from_ref(byte));
            }
        } else {
            bytewise.advance(&input);
        }
        fed += input.len();
        let context = format!("round {round}");
        check_invariants(&term, &context);
        let replies = term.take_replies();
        assert!(replies.len() <= shotty::term::MAX_REPLY_BYTES);
        // A difference in the scrollback stays there: looking now and then finds it.
        let scrollback = round % SNAPSHOT_EVERY == 0;
        assert_same(
            &term,
            &replies,
            &mut whole,
            ("all at once", scrollback),
            &context,
        );
        if by_byte {
            assert_same(
                &term,
                &replies,
                &mut bytewise,
                ("byte by byte", true),
                &context,
            );
            compared += 1;
        } else {
            let _ = bytewise.take_replies();
        }
        if rng.chance(10) {
            let (w, h) = (1 + rng.below(150), 1 + rng.below(60));
            term.resize(w, h);
            whole.resize(w, h);
            bytewise.resize(w, h);
            check_invariants(&term, &format!("{context} after resize to {w}x{h}"));
            let context = format!("{context}, resized");
            assert_same(&term, &[], &mut whole, ("all at once", false), &context);
        }
        if round % SNAPSHOT_EVERY == 0 {
            check_snapshot(&term, &context);
        }
        if round % RENDER_EVERY == 0 {
            let style = round / RENDER_EVERY;
            check_render(&term, &context, style, round % RASTER_EVERY == 0);
            rendered += 1;
        }
        if rng.chance(2) {
            let (w, h) = (1 + rng.below(120), 1 + rng.below(40));
            (term, whole, bytewise) = (new(w, h), new(w, h), new(w, h));
        }
    }
    assert!(rendered >= 80, "only {rendered} screens rendered");
    assert!(
        compared >= 250,
        "only {compared} rounds compared byte by byte"
    );
}

/// `other`, fed the same input as `term` another way, holds the same: the screen (and with
/// `with_scrollback` the scrollback) as snapshots, modes, replies and the bell count.
fn assert_same(
    term: &Terminal,
    replies: &[u8],
    other: &mut Terminal,
    (how, with_scrollback): (&str, bool),
    context: &str,
) {
    let theirs = other.take_replies();
    assert!(
        replies == theirs.as_slice(),
        "{context}: fed {how}, the replies differ: {:?} vs {:?}",
        String::from_utf8_lossy(replies),
        String::from_utf8_lossy(&theirs)
    );
    assert_eq!(
        term.screen().modes(),
        other.screen().modes(),
        "{context}: fed {how}, the modes differ"
    );
    assert_eq!(
        term.screen().bell_count(),
        other.screen().bell_count(),
        "{context}: fed {how}"
    );
    let what = format!("{context}: fed {how}, the screen");
    assert_same_snapshot(&term.snapshot(), &other.snapshot(), &what);
    if with_scrollback {
        let what = format!("{context}: fed {how}, the scrollback");
        assert_same_snapshot(
            &term.history_snapshot(usize::MAX),
            &other.history_snapshot(usize::MAX),
            &what,
        );
    }
}

/// Equal snapshots, or a failure naming the first difference (whole snapshots are too long
/// to read in a failure message).
fn assert_same_snapshot(a: &shotty::term::Snapshot, b: &shotty::term::Snapshot, what: &str) {
    if a == b {
        return;
    }
    let row = a.rows.iter().zip(&b.rows).position(|(x, y)| x != y);
    let detail = match row {
        Some(r) => {
            let col = a.rows[r]
                .cells
                .iter()
                .zip(&b.rows[r].cells)
                .position(|(x, y)| x != y);
            let text = |s: &shotty::term::Snapshot| -> String {
                s.rows[r].cells.iter().map(|c| &*c.t).collect()
            };
            format!(
                "row {r} (of {}), column {col:?}: {:?} / {:?}\n  cells {:?}\n  vs    {:?}",
                a.rows.len(),
                text(a),
                text(b),
                col.map(|c| &a.rows[r].cells[c]),
                col.map(|c| &b.rows[r].cells[c]),
            )
        }
        None => {
            let strip = |s: &shotty::term::Snapshot| {
                let mut s = s.clone();
                s.rows.clear();
                format!("{s:?}")
            };
            format!(
                "rows alike ({} vs {}): {} / {}",
                a.rows.len(),
                b.rows.len(),
                strip(a),
                strip(b)
            )
        }
    };
    panic!("{what} differs: {detail}");
}

#[test]
fn unterminated_osc_is_cut_off_and_skipped() {
    let mut term = Terminal::new(20, 2);
    term.advance(b"\x1b]0;");
    let junk = vec![b'x'; 1 << 20];
    for _ in 0..4 {
        term.advance(&junk);
    }
    // The rest of the string up to its terminator is dropped; text after it prints.
    term.advance(b"\x07after");
    assert_eq!(term.text(), "after\n");
    assert_eq!(term.screen().title(), "");
}

/// Where an over-long string is cut depends on the stream, not on how it arrived: an OSC
/// title just long enough to be cut when the silence is counted from its first byte, fed in
/// one piece, in 7-byte pieces and byte by byte, ends the same way each time.
#[test]
fn the_cut_of_an_unterminated_osc_does_not_depend_on_the_read_size() {
    let mut input = b"hello \x1b]0;".to_vec();
    input.extend(std::iter::repeat_n(b'x', 64 * 1024 + 100));
    input.extend_from_slice(b"\x07 world");
    let mut whole = Terminal::new(20, 2);
    whole.advance(&input);
    for piece in [7, 1] {
        let mut split = Terminal::new(20, 2);
        for chunk in input.chunks(piece) {
            split.advance(chunk);
        }
        assert_eq!(split.text(), whole.text(), "in {piece}-byte pieces");
        let (a, b) = (split.screen().title(), whole.screen().title());
        assert!(
            a == b,
            "in {piece}-byte pieces the title is {} characters, all at once {}",
            a.chars().count(),
            b.chars().count()
        );
    }
}

#[test]
fn apc_payloads_are_not_cut() {
    // Long APC strings (kitty graphics) carry no memory cost in the parser; the guard must not
    // turn their payload into text.
    let mut term = Terminal::new(20, 2);
    term.advance(b"\x1b_G");
    term.advance(&vec![b'A'; 200 * 1024]);
    term.advance(b"\x1b\\ok");
    assert_eq!(term.text(), "ok\n");
}

#[test]
fn a_style_per_cell_stays_bounded() {
    // More distinct true-colour styles than the table can hold: it compacts and stays bounded.
    let mut term = Terminal::with_options(
        100,
        10,
        TerminalOptions {
            scrollback: 50,
            ..Default::default()
        },
    );
    let mut bytes = Vec::new();
    for i in 0..200_000u32 {
        bytes.extend_from_slice(
            format!("\x1b[38;2;{};{};{}mx", i & 0xff, (i >> 8) & 0xff, i >> 16).as_bytes(),
        );
    }
    term.advance(&bytes);
    check_invariants(&term, "styles");
    let snap = term.snapshot();
    // The last cell written keeps its exact colour.
    let last = &snap.rows[term.screen().cursor().row].cells[term.screen().cursor().col];
    let style = &snap.styles[last.s as usize];
    assert_eq!(
        style.fg,
        Some(shotty::term::ColorValue::Rgb("#3f0d03".into())),
        "{style:?}"
    );
}

#[test]
fn reset_clears_the_scrollback_and_what_it_referred_to() {
    // RIS erases the saved lines, as xterm's does, so the style and link tables can start
    // afresh: nothing left on the screen or in the scrollback refers to their old entries
    // (before, RIS kept the scrollback and had to keep the tables for it).
    let mut term = Terminal::with_options(
        10,
        2,
        TerminalOptions {
            scrollback: 10,
            ..Default::default()
        },
    );
    term.advance(b"\x1b[31m\x1b]8;;https://a.example/\x1b\\red\x1b]8;;\x1b\\\x1b[m\r\n\r\n\r\n");
    assert_eq!(term.screen().scrollback().len(), 2);
    term.advance(b"\x1bc");
    assert_eq!(term.screen().scrollback().len(), 0);
    term.advance(b"\x1b[1;32m\x1b]8;;https://b.example/\x1b\\new\x1b]8;;\x1b\\\x1b[m");
    let snap = term.history_snapshot(100);
    check_invariants(&term, "after RIS");
    let texts: Vec<&str> = snap
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .map(|c| &*c.t)
        .collect();
    assert!(!texts.contains(&"r"), "the old line is gone: {snap:?}");
    let new = snap
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .find(|c| c.t == "n")
        .unwrap_or_else(|| panic!("no \"n\" in {snap:?}"));
    let link = new
        .l
        .and_then(|l| snap.links.get(l as usize))
        .map(|l| l.uri.as_str());
    assert_eq!(link, Some("https://b.example/"), "{snap:?}");
    let style = &snap.styles[new.s as usize];
    assert_eq!(
        style.fg,
        Some(shotty::term::ColorValue::Index(2)),
        "{snap:?}"
    );
    assert!(style.bold, "{snap:?}");
    let svg = render::to_svg(&snap, &Appearance::default()).expect("SVG");
    assert!(svg.contains("href=\"https://b.example/\""), "{svg}");
    assert!(!svg.contains("https://a.example/"), "{svg}");
}
