//! Every screen and every piece of user text gives an SVG that a real XML parser accepts and
//! the PNG path rasterises: characters XML 1.0 cannot carry (C0 controls other than tab, LF
//! and CR, U+FFFE, U+FFFF) and the controls it only tolerates (DEL, C1) are drawn as U+FFFD,
//! percent-encoded in link targets and `\u` escaped in the embedded snapshot.

use shotty::render::{self, Appearance, CellMetrics, Theme, WindowStyle};
use shotty::term::{CellSnapshot, LinkSnapshot, Snapshot, Terminal};

/// Every character the renderer must not write as it is, with the allowed whitespace and a
/// few noncharacters XML does allow (U+FDD0, U+1FFFE), which must come through untouched.
fn awkward() -> Vec<char> {
    let mut chars: Vec<char> = (0u32..0x20).filter_map(char::from_u32).collect();
    chars.extend((0x7f..=0x9f).filter_map(char::from_u32));
    chars.extend([
        '\u{fffe}',
        '\u{ffff}',
        '\u{fdd0}',
        '\u{fdef}',
        '\u{1fffe}',
        '\u{10ffff}',
    ]);
    chars
}

/// Whether XML 1.0 allows `c` raw but the renderer replaces it (discouraged controls), or
/// forbids it outright.
fn replaced(c: char) -> bool {
    let c = c as u32;
    (c < 0x20 && !matches!(c, 0x09 | 0x0a | 0x0d))
        || (0x7f..=0x9f).contains(&c)
        || (0xfffe..=0xffff).contains(&c)
}

fn parse(svg: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(svg).unwrap_or_else(|e| {
        let line = svg.lines().nth(e.pos().row as usize - 1).unwrap_or("");
        let around: String = line
            .chars()
            .skip((e.pos().col as usize).saturating_sub(60))
            .take(120)
            .collect();
        panic!("the SVG is not XML: {e}\n…{around:?}…")
    })
}

fn assert_png(snapshot: &Snapshot, appearance: &Appearance) {
    let png = render::to_png(snapshot, appearance).unwrap_or_else(|e| panic!("PNG: {e}"));
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
}

/// The text and `x` of every `<tspan>`, and of every `<text>` holding its text itself, in
/// document order.
fn tspans(doc: &roxmltree::Document) -> Vec<(String, String)> {
    // A `<text>` holding one placed run itself counts as one.
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("tspan")
                || (n.has_tag_name("text") && n.first_child().is_some_and(|c| c.is_text()))
        })
        .map(|n| {
            (
                n.text().unwrap_or("").to_owned(),
                n.attribute("x").unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn appearances() -> Vec<Appearance> {
    let title: String = awkward().into_iter().collect();
    let plain = Appearance::default();
    vec![
        plain.clone(),
        Appearance {
            window: WindowStyle::Macos,
            title: Some(format!("t{title}")),
            font_family: Some(format!("My{title}Font")),
            embed_font: true,
            ..plain.clone()
        },
        Appearance {
            window: WindowStyle::WindowsPc,
            title: Some(title),
            theme: Theme {
                name: "th\u{fffe}\u{1}eme".into(),
                ..plain.theme.clone()
            },
            ..plain
        },
    ]
}

/// A screen with each awkward character in its own cell, between `a` and `b`, in the title
/// and in a link target.
fn snapshot_with(c: char) -> Snapshot {
    snapshot_sized(8, c)
}

fn snapshot_sized(width: usize, c: char) -> Snapshot {
    let mut term = Terminal::new(width, 2);
    term.advance(b"\x1b]8;;https://example.com/\x1b\\axb\x1b]8;;\x1b\\\r\naxb");
    let mut snap = term.snapshot();
    snap.title = format!("title {c} end");
    snap.links[0].uri = format!("https://example.com/{c}?q={c}");
    for row in &mut snap.rows {
        row.cells[1] = CellSnapshot {
            t: c.to_string().into(),
            ..row.cells[1].clone()
        };
    }
    snap
}

#[test]
fn awkward_characters_in_cells_titles_and_links_give_valid_xml() {
    let cell_width = CellMetrics::new(14.0, 1.286).width;
    for c in awkward() {
        let snap = snapshot_with(c);
        for appearance in appearances() {
            let svg = render::to_svg(&snap, &appearance)
                .unwrap_or_else(|e| panic!("U+{:04X}: {e}", c as u32));
            let doc = parse(&svg);

            // The embedded snapshot decodes to the very same snapshot.
            if let Some(meta) = doc.descendants().find(|n| n.has_tag_name("metadata")) {
                let back: Snapshot =
                    serde_json::from_str(meta.text().unwrap_or("")).expect("metadata is JSON");
                assert_eq!(back, snap, "U+{:04X}", c as u32);
                // And so does `shotty diff`'s own reader.
                let read = shotty::diff::load_snapshot(svg.as_bytes()).expect("diff reads it");
                assert_eq!(read, snap, "U+{:04X}", c as u32);
            }

            // The cell is drawn as U+FFFD, or as itself where XML can carry it (CR too,
            // which a parser would turn into LF were it written raw), and `b` still sits two
            // cells right of `a`.
            let spans = tspans(&doc);
            let want = if replaced(c) { '\u{fffd}' } else { c };
            let drawn = spans.iter().filter(|(t, _)| t.contains(want)).count();
            assert!(drawn >= 2, "U+{:04X}: {spans:?}", c as u32);
            let x = |text: &str| {
                spans
                    .iter()
                    .find(|(t, _)| t == text)
                    .map(|(_, x)| x.parse::<f64>().expect("numeric x"))
            };
            if let (Some(a), Some(b)) = (x("a"), x("b")) {
                assert!(
                    (b - a - 2.0 * cell_width).abs() < 0.011,
                    "U+{:04X}: a at {a}, b at {b}",
                    c as u32
                );
            }

            for link in doc.descendants().filter(|n| n.has_tag_name("a")) {
                let href = link.attribute("href").expect("href");
                assert!(href.starts_with("https://example.com/"), "{href:?}");
                assert!(
                    href.chars()
                        .all(|h| !replaced(h) && !matches!(h, '\t' | '\n' | '\r')),
                    "U+{:04X}: {href:?}",
                    c as u32
                );
            }
        }
    }
}

#[test]
fn awkward_characters_rasterise() {
    // Rasterising is slow in debug builds: every awkward character at once, once per
    // appearance.
    let text: String = awkward().into_iter().collect();
    let mut snap = snapshot_sized(40, '\u{fffe}');
    snap.title = text.clone();
    snap.links[0].uri = format!("https://example.com/{text}");
    for (i, c) in text.chars().enumerate() {
        snap.rows[i % 2].cells[i / 2].t = c.to_string().into();
    }
    for appearance in appearances() {
        parse(&render::to_svg(&snap, &appearance).expect("SVG"));
        assert_png(&snap, &appearance);
    }
}

#[test]
fn noncharacters_printed_by_a_program_give_valid_xml() {
    // What the emulator itself lets through: noncharacters in cells and titles, DEL, C1 and
    // noncharacters in link targets (C0 controls are executed, never stored).
    let mut term = Terminal::new(20, 3);
    term.advance("a\u{fffe}b\u{ffff}c\u{fdd0}d\u{1fffe}\r\n".as_bytes());
    term.advance("\x1b]0;ti\u{fffe}tle\u{ffff}\x07".as_bytes());
    term.advance(
        "\x1b]8;;https://e.com/\u{fffe}\x7f\u{85}\u{9f}\x1b\\link\x1b]8;;\x1b\\".as_bytes(),
    );
    let snap = term.snapshot();
    assert!(
        snap.rows[0].cells.iter().any(|c| c.t == "\u{fffe}"),
        "{snap:?}"
    );
    assert!(snap.title.contains('\u{fffe}'), "{:?}", snap.title);
    assert_eq!(
        snap.links,
        vec![LinkSnapshot {
            uri: "https://e.com/\u{fffe}\x7f\u{85}\u{9f}".into(),
            id: None
        }]
    );
    for appearance in appearances() {
        let appearance = Appearance {
            title: None,
            ..appearance
        };
        let svg = render::to_svg(&snap, &appearance).expect("SVG");
        let doc = parse(&svg);
        if let Some(a) = doc.descendants().find(|n| n.has_tag_name("a")) {
            assert_eq!(
                a.attribute("href"),
                Some("https://e.com/%EF%BF%BE%7F%C2%85%C2%9F")
            );
        }
        assert_png(&snap, &appearance);
    }
}

#[test]
fn ordinary_text_is_written_as_before() {
    // Tab, LF and CR are characters XML carries; in attribute values they are written as
    // references so the parser's attribute-value normalisation does not turn them into
    // spaces. Markup characters keep their entities.
    let mut snap = snapshot_with('<');
    snap.links[0].uri = "https://e.com/?a=1&b='2'\t\"".into();
    let svg = render::to_svg(&snap, &Appearance::default()).expect("SVG");
    assert!(
        svg.contains("href=\"https://e.com/?a=1&amp;b=&apos;2&apos;%09&quot;\""),
        "{svg}"
    );
    assert!(svg.contains(">a&lt;b</tspan>"), "{svg}");
    let doc = parse(&svg);
    let spans = tspans(&doc);
    assert!(spans.iter().any(|(t, _)| t == "a<b"), "{spans:?}");
}

#[test]
fn awkward_command_line_text_gives_valid_svg_and_png() {
    // --header and --prompt reach the screen through the emulator; --title and --font
    // go straight into the document. Arguments cannot hold NUL, everything else is fair game.
    let awkward = "\u{1}\u{7}\u{8}\u{1b}\u{7f}\u{85}\u{fffe}\u{ffff}\u{fdd0}";
    let dir = tempfile::tempdir().expect("temp dir");
    for ext in ["svg", "png"] {
        let out = dir.path().join(format!("shot.{ext}"));
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_shotty"))
            // No config file of the machine's: only what the test gives.
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .args(["capture", "-w", "30", "-d", "macos", "--embed-font"])
            .args(["--header", &format!("head{awkward}er")])
            .args(["--prompt", &format!("p{awkward}")])
            .args(["--title", &format!("ti{awkward}tle")])
            .args(["--font", &format!("f{awkward}")])
            .arg("-o")
            .arg(&out)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("shotty runs");
        assert!(
            status.status.success(),
            "{ext}: {}",
            String::from_utf8_lossy(&status.stderr)
        );
        let bytes = std::fs::read(&out).expect("output written");
        if ext == "svg" {
            let svg = String::from_utf8(bytes).expect("UTF-8");
            parse(&svg);
        } else {
            assert!(bytes.starts_with(b"\x89PNG"));
        }
    }
}

/// Every list of `x` values means the same in Chromium, which gives out one value a
/// character, and Firefox, which gives out one a UTF-16 code unit (both seen in headless
/// screenshots of `<text x="20 130 240 350">😀😀AB</text>`: the second emoji at 130 in
/// Chromium, at 240 in Firefox): each value before the last falls on a character of the
/// Basic Multilingual Plane that has its own centre, so the counts agree up to the last.
#[test]
fn lists_of_positions_mean_the_same_in_every_browser() {
    let mut term = Terminal::new(40, 4);
    term.advance("😀👍🏽A ❤️😀中 中😀文 👨‍👩‍👧 🇺🇸\r\n中文日本語😀😀\r\n☃é\u{301}中".as_bytes());
    let appearance = Appearance {
        metadata: false,
        ..Appearance::default()
    };
    let svg = render::to_svg(&term.snapshot(), &appearance).expect("svg");
    let doc = parse(&svg);
    let mut lists = 0;
    for node in doc.descendants() {
        let Some(xs) = node.attribute("x").map(|x| x.split_whitespace().count()) else {
            continue;
        };
        let Some(text) = node.text().filter(|_| xs > 1) else {
            continue;
        };
        lists += 1;
        // The characters the values before the last are read for: the same ones either way
        // only if none of them takes two UTF-16 units.
        let before_last: Vec<char> = text.chars().take(xs - 1).collect();
        assert!(
            before_last.iter().all(|&c| c < '\u{10000}'),
            "{text:?} has {xs} x values: in Firefox they fall on other characters\n{svg}"
        );
        // Nor is any of them a mark, selector or joiner, which has no centre of its own.
        assert!(
            !before_last
                .iter()
                .any(|c| matches!(c, '\u{300}'..='\u{36f}' | '\u{200d}' | '\u{fe00}'..='\u{fe0f}')),
            "{text:?} has {xs} x values: one goes to a mark\n{svg}"
        );
    }
    assert!(lists > 0, "no list of positions to check\n{svg}");
}
