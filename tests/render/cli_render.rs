//! `shotty render` through the real binary: inputs, formats, `--at`, output files and errors.

use std::io::{ErrorKind, Write};
use std::process::{Command, Output, Stdio};

use shotty::term::Snapshot;

use crate::support::golden_inputs::{cjk, input_bytes};
use crate::support::needs;

pub(crate) fn shotty(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shotty"))
        // No config file of the machine's: only what the test gives.
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("shotty starts");
    let written = child.stdin.take().expect("stdin is piped").write_all(stdin);
    // A command that fails on its options may exit before the input is written.
    if let Err(e) = written {
        assert_eq!(
            e.kind(),
            ErrorKind::BrokenPipe,
            "stdin accepts the input: {e}"
        );
    }
    child.wait_with_output().expect("shotty finishes")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const CAST: &str = r#"{"version": 2, "width": 12, "height": 3, "title": "demo"}
[0.25, "o", "$ ls\r\n"]
[1.00, "o", "\u001b[1;34msrc\u001b[0m  Cargo.toml\r\n"]
[2.50, "o", "$ "]
"#;

#[test]
fn raw_stdin_to_text() {
    let out = shotty(
        &[
            "render", "--width", "10", "--height", "2", "--format", "txt",
        ],
        b"hello\r\n\x1b[31mworld\x1b[0m",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "hello\nworld\n");
}

#[test]
fn raw_stdin_to_json_snapshot() {
    let out = shotty(
        &[
            "render", "-", "--width", "6", "--height", "1", "--format", "json",
        ],
        b"\x1b[1;31mA\x1b[0m\xe4\xbd\xa0",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let snap: Snapshot = serde_json::from_slice(&out.stdout).expect("schema-1 JSON");
    assert_eq!(snap.schema_version, 1);
    assert_eq!((snap.width, snap.height), (6, 1));
    let cells = &snap.rows[0].cells;
    assert_eq!(cells.len(), 6);
    assert_eq!((&*cells[0].t, cells[0].s), ("A", 1));
    assert!(snap.styles[1].bold);
    assert_eq!((&*cells[1].t, cells[1].w), ("你", 2));
    assert_eq!((&*cells[2].t, cells[2].w), ("", 0));
    // Compact encoding: defaults are omitted.
    let json = stdout(&out);
    assert!(json.contains(r#"{"t":" "}"#), "{json}");
}

#[test]
fn cast_uses_header_size_and_at_selects_a_moment() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("demo.cast");
    std::fs::write(&path, CAST).expect("cast written");
    let p = path.to_str().expect("UTF-8 path");

    let out = shotty(&["render", p, "--format", "json"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let snap: Snapshot = serde_json::from_slice(&out.stdout).expect("schema-1 JSON");
    assert_eq!((snap.width, snap.height), (12, 3));
    // "src  Cargo.toml" wraps at 12 columns, scrolling "$ ls" off the 3-row screen.
    assert_eq!(snap.text(), "src  Cargo.t\noml\n$");
    assert_eq!(snap.scrollback_lines, 1);

    let out = shotty(&["render", p, "--at", "0.5", "--format", "txt"], b"");
    assert_eq!(stdout(&out), "$ ls\n\n\n");
    let out = shotty(&["render", p, "--at", "1", "--format", "txt"], b"");
    assert_eq!(stdout(&out), "src  Cargo.t\noml\n\n");
}

#[test]
fn cast_is_detected_on_stdin() {
    let out = shotty(
        &["render", "--at", "0.3", "--format", "txt"],
        CAST.as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "$ ls\n\n\n");
}

#[test]
fn output_file_is_written_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("screen.json");
    let out = shotty(
        &[
            "render",
            "--format",
            "json",
            "-o",
            path.to_str().expect("UTF-8 path"),
        ],
        b"hi",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let snap: Snapshot =
        serde_json::from_slice(&std::fs::read(&path).expect("file written")).expect("JSON");
    assert_eq!(snap.text().lines().next(), Some("hi"));
}

#[test]
fn special_files_are_written_to_and_symlinks_followed() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().expect("temp dir");
    // A FIFO (like /dev/null or /dev/stdout) is written to in place, not replaced by a file.
    let fifo = dir.path().join("pipe.txt");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("FIFO readable"))
    };
    let out = shotty(
        &["render", "-o", fifo.to_str().expect("UTF-8 path")],
        b"through the pipe",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // Checked before joining: had the FIFO been replaced, the reader would never return.
    let kind = std::fs::symlink_metadata(&fifo)
        .expect("still there")
        .file_type();
    assert!(kind.is_fifo(), "{kind:?}");
    assert_eq!(
        reader.join().expect("reader").lines().next(),
        Some("through the pipe")
    );

    // A symlink keeps pointing at the file, which gets the new content.
    let target = dir.path().join("real.txt");
    std::fs::write(&target, "old").expect("target written");
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let out = shotty(
        &["render", "-o", link.to_str().expect("UTF-8 path")],
        b"new",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(&target)
            .expect("target")
            .lines()
            .next(),
        Some("new")
    );

    // A directory is refused with a message.
    let folder = dir.path().join("folder.txt");
    std::fs::create_dir(&folder).expect("directory made");
    let out = shotty(&["render", "-o", folder.to_str().expect("UTF-8")], b"x");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("directory"), "{}", stderr(&out));
}

#[test]
fn bad_input_gives_one_line_errors() {
    let cases: &[(&[&str], &[u8], &str)] = &[
        (
            &["render", "/nonexistent/file.bin"],
            b"",
            "cannot read /nonexistent/file.bin",
        ),
        (
            &["render", "--at", "1"],
            b"plain bytes",
            "--at needs an asciicast recording",
        ),
        (
            &["render"],
            b"{\"version\": 2, \"width\": 10, \"height\": 2}\n[0.1, \"o\"]\n",
            "asciicast line 2",
        ),
        (
            &["render"],
            b"{\"version\": 2, \"width\": 100000, \"height\": 2}\n",
            "outside 1",
        ),
        (
            &["render", "--at-marker", "x"],
            b"plain bytes",
            "--at-marker needs an asciicast recording",
        ),
        (
            &["render", "--at-marker", "nope"],
            b"{\"version\": 2, \"width\": 10, \"height\": 2}\n[0.1, \"m\", \"here\"]\n",
            "has no marker \"nope\"; its 1 markers: \"here\"",
        ),
        (
            &["render", "--video"],
            b"plain bytes",
            "an animation needs an asciicast recording",
        ),
        (
            &["render", "--video", "--format", "txt"],
            b"{\"version\": 2, \"width\": 10, \"height\": 2}\n",
            "--video writes svg, gif, apng or mp4",
        ),
        (
            &["render", "--from", "2", "--to", "1", "--video"],
            b"{\"version\": 2, \"width\": 10, \"height\": 2}\n",
            "--to must be later than --from",
        ),
    ];
    for (args, stdin, expected) in cases {
        let out = shotty(args, stdin);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Usage errors come from clap with exit code 2.
    for args in [
        &["render", "--width", "0"][..],
        &["render", "--format", "bmp"],
        &["render", "--fps", "0"],
        &["render", "--speed", "-1"],
    ] {
        let out = shotty(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn failed_render_leaves_no_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("out.txt");
    let out = shotty(
        &["render", "-o", path.to_str().expect("UTF-8 path")],
        b"{\"version\": 2, \"width\": 10, \"height\": 2}\n[bad\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(!path.exists());
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
}

#[test]
fn every_command_answers_help_and_every_option_is_explained() {
    let commands: &[&[&str]] = &[
        &[],
        &["capture"],
        &["render"],
        &["diff"],
        &["serve"],
        &["mcp"],
        &["themes"],
        &["session"],
        &["session", "start"],
        &["session", "list"],
        &["session", "read"],
        &["session", "wait"],
        &["session", "send"],
        &["session", "resize"],
        &["session", "capture"],
        &["session", "inspect"],
        &["session", "history"],
        &["session", "stop"],
    ];
    for command in commands {
        let mut args = command.to_vec();
        args.push("--help");
        let out = shotty(&args, b"");
        let text = stdout(&out);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(text.contains("Usage:"), "{args:?}: {text}");
        // An option line is `  -x, --name <V>  what it does` (or the text on the next line).
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let flag = line.trim_start();
            if !(flag.starts_with("--") || flag.starts_with('-') && flag.get(2..4) == Some(", ")) {
                continue;
            }
            let explained = flag.split("  ").filter(|s| !s.is_empty()).count() > 1
                || lines
                    .get(i + 1)
                    .is_some_and(|next| next.starts_with("          ") && !next.trim().is_empty());
            assert!(explained, "{args:?}: no help for {flag:?}");
        }
    }
}

#[test]
fn bare_line_feeds_are_one_rule_for_raw_input_and_recordings_play_exactly() {
    let raw = b"ab\ncd\r\nef\n";
    let rendered = shotty(&["render", "--format", "txt"], raw);
    assert_eq!(
        stdout(&rendered).trim_end(),
        "ab\ncd\nef",
        "{}",
        stderr(&rendered)
    );
    let piped = shotty(&["--format", "txt", "-o", "-"], raw);
    assert_eq!(stdout(&piped).trim_end(), stdout(&rendered).trim_end());
    // A recording was made on a terminal: a bare LF there only moves down.
    let cast = "{\"version\": 2, \"width\": 10, \"height\": 3}\n[0.1, \"o\", \"ab\\ncd\"]\n";
    let out = shotty(&["render", "--format", "txt"], cast.as_bytes());
    assert_eq!(stdout(&out).trim_end(), "ab\n  cd", "{}", stderr(&out));
}

/// The fill colour (`#rrggbb`) of the element that draws `text`: its own `fill` or its class's
/// rule; for characters after a closed `<tspan>` or in an unstyled one, those of the enclosing
/// `<text>` (a row text, whose most common style is its own).
fn text_fill(svg: &str, text: &str) -> String {
    let at = svg
        .match_indices(text)
        .map(|(i, _)| i)
        .find(|&i| {
            let before = &svg[..i];
            before.rfind('>') > before.rfind('<')
        })
        .expect("the text as character data");
    let before = &svg[..at];
    let open = before.rfind('<').expect("a tag before the text");
    let tag_of =
        |start: usize| &svg[start..svg[start..].find('>').map_or(svg.len(), |e| start + e)];
    let styled = |tag: &str| tag.contains(" fill=\"") || tag.contains(" class=\"");
    // A closed tspan before the text, or a tspan of the row's own style: the <text>'s style.
    let tag = if before[open..].starts_with("</") || !styled(tag_of(open)) {
        tag_of(before.rfind("<text").expect("the enclosing <text>"))
    } else {
        tag_of(open)
    };
    if let Some(fill) = tag.split(" fill=\"").nth(1) {
        return fill[..7].to_owned();
    }
    let class = tag
        .split(" class=\"")
        .nth(1)
        .and_then(|c| c.split(['"', ' ']).next())
        .expect("a fill or a class");
    let rule = format!(".{class}{{fill:");
    let start = svg.find(&rule).expect("the class's rule") + rule.len();
    svg[start..start + 7].to_owned()
}

#[test]
fn bold_text_in_the_first_eight_colours_is_bright_as_in_xterm() {
    // dialog's raised borders: bold white on white.
    let input = b"\x1b[1;37;47mBOLD\x1b[0m \x1b[37mplain\x1b[0m";
    let svg = |extra: &[&str]| {
        let mut args = vec![
            "render",
            "--theme",
            "xterm",
            "--no-metadata",
            "--width",
            "20",
        ];
        args.extend_from_slice(extra);
        let out = shotty(&args, input);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let bright = svg(&[]);
    assert_eq!(text_fill(&bright, "BOLD"), "#ffffff", "{bright}");
    assert_eq!(text_fill(&bright, "plain"), "#e5e5e5", "not bold: colour 7");
    let plain = svg(&["--no-bold-bright"]);
    assert_eq!(text_fill(&plain, "BOLD"), "#e5e5e5", "{plain}");
    // The PNG is drawn from the same layout.
    let png = |extra: &[&str]| {
        let mut args = vec![
            "render", "--theme", "xterm", "--format", "png", "--width", "20",
        ];
        args.extend_from_slice(extra);
        shotty(&args, input).stdout
    };
    assert_ne!(png(&[]), png(&["--no-bold-bright"]));
}

/// Debian's colour emoji font (fonts-noto-color-emoji).
const COLOR_EMOJI: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";

#[test]
fn fonts_the_user_names_come_before_the_bundled_fallbacks() {
    if !needs::file(COLOR_EMOJI) {
        return;
    }
    // 😀 is in the bundled Symbola (monochrome); 🫠 (Unicode 14) is in no bundled font.
    let input = "😀 🫠".as_bytes();
    let yellow_pixels = |png: &[u8]| {
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = decoder.read_info().expect("PNG header");
        let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut pixels).expect("PNG data");
        assert_eq!(info.color_type, png::ColorType::Rgba);
        pixels[..info.buffer_size()]
            .chunks(4)
            .filter(|p| p[0] > 200 && p[1] > 150 && p[2] < 100)
            .count()
    };
    let args = [
        "render", "--format", "png", "--width", "10", "--height", "1",
    ];
    let bundled = shotty(&args, input);
    assert!(bundled.status.success(), "{}", stderr(&bundled));
    assert_eq!(
        yellow_pixels(&bundled.stdout),
        0,
        "Symbola's emoji are monochrome"
    );
    // Characters no font has are named, once.
    let warning = stderr(&bundled);
    assert_eq!(warning.lines().count(), 1, "{warning}");
    assert!(
        warning.contains("U+1FAE0") && !warning.contains("U+1F600"),
        "{warning}"
    );

    let mut with_font = args.to_vec();
    with_font.extend(["--font-file", COLOR_EMOJI]);
    let colour = shotty(&with_font, input);
    assert!(colour.status.success(), "{}", stderr(&colour));
    assert!(
        yellow_pixels(&colour.stdout) > 50,
        "the named font's colour glyphs are drawn"
    );
    assert_eq!(stderr(&colour), "", "every character has a font now");
}

#[test]
fn the_bundled_cjk_subsets_cover_the_common_repertoire_and_no_more() {
    let warning = |input: &[u8]| {
        let out = shotty(
            &[
                "render", "--format", "png", "--width", "60", "--height", "6",
            ],
            input,
        );
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    // Text of each repertoire (GB2312, Big5 level 1, JIS X 0208 and kana, KS X 1001 Hangul,
    // fullwidth forms, bopomofo, compatibility jamo) and common emoji: nothing is left blank.
    assert_eq!(warning(&input_bytes(&cjk())), "");
    // Outside the subsets: 㐀 (Extension A, in the full Droid Sans Fallback), 똠 (a Hangul
    // syllable KS X 1001 lacks, mapped to an empty glyph by the full Baekmuk Dotum), 쏀 (in KS
    // X 1001, but its Baekmuk glyph is empty too) and 𠀋 (Extension B, in neither).
    let report = warning("中文 㐀 한국 똠 쏀 日本 𠀋".as_bytes());
    assert!(
        ["U+3400", "U+B620", "U+C3C0", "U+2000B"]
            .iter()
            .all(|c| report.contains(c))
            && ["U+4E2D", "U+6587", "U+D55C", "U+AD6D", "U+65E5", "U+672C"]
                .iter()
                .all(|c| !report.contains(c)),
        "{report}"
    );
}

#[test]
fn option_values_may_start_with_a_dash() {
    let out = shotty(
        &[
            "render",
            "--crop-top",
            "--- cut",
            "--title",
            "-x",
            "-d",
            "macos",
            "--no-metadata",
        ],
        b"a\n--- cut ---\nb\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = stdout(&out);
    // Rows run on in spaces to the grid's right edge.
    assert!(
        svg.contains(">-x<") && svg.contains(">--- cut --- "),
        "{svg}"
    );
    assert!(!svg.contains(">a "), "cropped at the pattern: {svg}");
}

/// Renders `input` at 20×2 to `dir/name` (the format follows the extension) and returns the
/// path.
fn render_file(dir: &std::path::Path, name: &str, input: &[u8], extra: &[&str]) -> String {
    let path = dir.join(name);
    let path = path.to_str().expect("UTF-8 path").to_owned();
    let mut args = vec!["render", "--width", "20", "--height", "2", "-o", &path];
    args.extend_from_slice(extra);
    let out = shotty(&args, input);
    assert!(out.status.success(), "{name}: {}", stderr(&out));
    path
}

/// `shotty diff`: equal screens exit 0 silently (an SVG and a JSON snapshot of the same
/// screen are equal), different ones exit 1 with the report of the changed rows and cells on
/// stdout, and anything it cannot compare exits 2 with one error line; `-o` draws the actual
/// screen with exactly the changed cells highlighted.
#[test]
fn diff_exit_codes_report_and_highlighted_image() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let expected = render_file(d, "expected.json", b"hello \x1b[32mpass\x1b[0m", &[]);
    let same = render_file(d, "same.svg", b"hello \x1b[32mpass\x1b[0m", &[]);
    let actual = render_file(d, "actual.svg", b"hallo \x1b[31mpass\x1b[0m", &[]);

    let equal = shotty(&["diff", &expected, &same], b"");
    assert_eq!(equal.status.code(), Some(0), "{}", stderr(&equal));
    assert_eq!(
        (stdout(&equal), stderr(&equal)),
        (String::new(), String::new())
    );

    let differ = shotty(&["diff", &expected, &actual], b"");
    assert_eq!(differ.status.code(), Some(1), "{}", stderr(&differ));
    assert_eq!(
        stdout(&differ),
        "5 cell(s) differ in 1 row(s):\n\
         row 0:\n  - hello pass\n  + hallo pass\n  \
         col 1: expected \"e\", actual \"a\"\n  \
         col 6: expected \"p\" {\"fg\":2}, actual \"p\" {\"fg\":1}\n  \
         col 7: expected \"a\" {\"fg\":2}, actual \"a\" {\"fg\":1}\n  \
         col 8: expected \"s\" {\"fg\":2}, actual \"s\" {\"fg\":1}\n  \
         col 9: expected \"s\" {\"fg\":2}, actual \"s\" {\"fg\":1}\n"
    );

    let image = d.join("diff.svg");
    let image_arg = image.to_str().expect("UTF-8 path");
    let drawn = shotty(&["diff", &expected, &actual, "-o", image_arg], b"");
    assert_eq!(drawn.status.code(), Some(1), "{}", stderr(&drawn));
    assert_eq!(stdout(&drawn), stdout(&differ), "the report is the same");
    let svg = std::fs::read_to_string(&image).expect("diff image written");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    let marks: Vec<f64> = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("fill") == Some("#ff2d55"))
        .flat_map(|g| g.children().filter(|c| c.has_tag_name("rect")))
        .map(|r| {
            r.attribute("x")
                .and_then(|x| x.parse().ok())
                .expect("numeric x")
        })
        .collect();
    assert_eq!(marks.len(), 5, "one mark per changed cell: {svg}");
    // Columns 1, 6, 7, 8 and 9: one cell apart from 6 on, five cells from 1 to 6.
    let cell = marks[2] - marks[1];
    assert!(cell > 0.0, "{marks:?}");
    assert!(
        ((marks[1] - marks[0]) - 5.0 * cell).abs() < 0.01
            && ((marks[4] - marks[3]) - cell).abs() < 0.01,
        "{marks:?}"
    );
    // It draws the actual screen.
    let drawn_snapshot = shotty::diff::load_snapshot(svg.as_bytes()).expect("metadata");
    assert_eq!(drawn_snapshot.text().lines().next(), Some("hallo pass"));

    let png = d.join("diff.png");
    let out = shotty(
        &[
            "diff",
            &expected,
            &actual,
            "-o",
            png.to_str().expect("UTF-8"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        std::fs::read(&png)
            .expect("PNG written")
            .starts_with(b"\x89PNG")
    );

    // Equal screens with -o: an image without marks.
    let clean = d.join("clean.svg");
    let out = shotty(
        &[
            "diff",
            &expected,
            &same,
            "-o",
            clean.to_str().expect("UTF-8"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !std::fs::read_to_string(&clean)
            .expect("written")
            .contains("#ff2d55")
    );

    let bare = render_file(d, "bare.svg", b"hello", &["--no-metadata"]);
    let missing = d.join("missing.json");
    let text_out = d.join("diff.txt");
    let cases: [(&[&str], &str); 3] = [
        (
            &[&expected, missing.to_str().expect("UTF-8")],
            "cannot read",
        ),
        (&[&expected, &bare], "no <metadata>"),
        (
            &[&expected, &actual, "-o", text_out.to_str().expect("UTF-8")],
            "is an image",
        ),
    ];
    for (args, message) in cases {
        let mut all = vec!["diff"];
        all.extend_from_slice(args);
        let out = shotty(&all, b"");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("shotty: error: ") && err.contains(message),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(!text_out.exists());
}

/// `shotty themes --json` lists every theme file of `themes/` once, with the name and default
/// colours of that file, in the same order and with the same dark/light verdict and names as
/// the plain `shotty themes`.
#[test]
fn themes_json_matches_the_theme_files_and_the_plain_listing() {
    let out = shotty(&["themes", "--json"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON array");
    let plain = shotty(&["themes"], b"");
    assert!(plain.status.success(), "{}", stderr(&plain));
    let plain = stdout(&plain);
    // `ID  dark|light  NAME`, the ids padded to one width; names may contain spaces.
    let plain_rows: Vec<(&str, &str, String)> = plain
        .lines()
        .map(|l| {
            let mut words = l.split_whitespace();
            let id = words.next().expect("an id");
            let kind = words.next().expect("dark or light");
            (id, kind, words.collect::<Vec<_>>().join(" "))
        })
        .collect();

    let themes_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&themes_dir)
        .expect("themes/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{files:?}");
    assert_eq!(listed.len(), files.len(), "{listed:?}");
    assert_eq!(plain_rows.len(), files.len(), "{plain}");

    for ((entry, file), row) in listed.iter().zip(&files).zip(&plain_rows) {
        let id = file
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("UTF-8 name");
        let scheme: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file).expect("theme file"))
                .expect("theme JSON");
        assert_eq!(entry["id"], id, "{entry}");
        assert_eq!(entry["name"], scheme["name"], "{id}");
        for key in ["background", "foreground"] {
            let colour = entry[key].as_str().expect("a colour");
            assert!(
                colour.len() == 7 && colour.starts_with('#'),
                "{id} {key}: {colour}"
            );
            assert_eq!(
                colour,
                scheme[key].as_str().expect("file colour").to_lowercase(),
                "{id} {key}"
            );
        }
        let dark = entry["dark"].as_bool().expect("dark flag");
        let background = shotty::render::theme::parse_hex_color(
            entry["background"].as_str().expect("background"),
        )
        .expect("hex colour");
        let luminance = 0.2126 * f64::from(background.0)
            + 0.7152 * f64::from(background.1)
            + 0.0722 * f64::from(background.2);
        assert_eq!(dark, luminance < 128.0, "{id}: {entry}");
        let name = entry["name"].as_str().expect("name").to_owned();
        assert_eq!(
            row,
            &(id, if dark { "dark" } else { "light" }, name),
            "{plain}"
        );
    }
}

/// A Windows Terminal colour-scheme file given to `--theme` colours the screen: ANSI colours,
/// the default foreground and the background come from the file.
#[test]
fn a_windows_terminal_scheme_file_is_a_theme() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scheme = dir.path().join("My Scheme.json");
    // As Windows Terminal's settings.json writes a scheme (including keys shotty does not
    // use); every colour distinct from every built-in theme's.
    std::fs::write(
        &scheme,
        r##"{
            "name": "My Scheme",
            "background": "#102030",
            "foreground": "#D0E0F0",
            "cursorColor": "#FFFFFF",
            "selectionBackground": "#445566",
            "black": "#010203", "red": "#A1B2C3", "green": "#0A0B0C", "yellow": "#111213",
            "blue": "#212223", "purple": "#313233", "cyan": "#414243", "white": "#515253",
            "brightBlack": "#616263", "brightRed": "#717273", "brightGreen": "#0FEDCB",
            "brightYellow": "#818283", "brightBlue": "#919293", "brightPurple": "#A1A2A3",
            "brightCyan": "#B1B2B3", "brightWhite": "#C1C2C3"
        }"##,
    )
    .expect("scheme written");
    let out = shotty(
        &[
            "render",
            "--theme",
            scheme.to_str().expect("UTF-8 path"),
            "--no-metadata",
            "--width",
            "20",
        ],
        b"\x1b[31mRED\x1b[0m \x1b[92mGRN\x1b[0m plain",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = stdout(&out);
    assert_eq!(text_fill(&svg, "RED"), "#a1b2c3", "{svg}");
    assert_eq!(text_fill(&svg, "GRN"), "#0fedcb", "{svg}");
    assert_eq!(text_fill(&svg, "plain"), "#d0e0f0", "{svg}");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    assert!(
        doc.descendants()
            .any(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#102030")),
        "the screen's background: {svg}"
    );
    // A broken file is an error naming it, not a fallback to some theme.
    std::fs::write(&scheme, r#"{"name": "half"}"#).expect("scheme written");
    let out = shotty(
        &["render", "--theme", scheme.to_str().expect("UTF-8 path")],
        b"x",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("My Scheme.json"), "{}", stderr(&out));
}

/// The width and height of a PNG.
fn png_size(png: &[u8]) -> (u32, u32) {
    let reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("PNG header");
    let info = reader.info();
    (info.width, info.height)
}

/// `--scale N` multiplies both sides of the PNG by N.
#[test]
fn scale_multiplies_the_png_size() {
    let render = |scale: &str| {
        let out = shotty(
            &[
                "render", "--format", "png", "--width", "12", "--height", "3", "-d", "macos",
                "--scale", scale,
            ],
            b"scaled",
        );
        assert!(out.status.success(), "{}", stderr(&out));
        png_size(&out.stdout)
    };
    let (w, h) = render("1");
    for (scale, factor) in [("2", 2.0), ("0.5", 0.5), ("1.5", 1.5)] {
        let (sw, sh) = render(scale);
        let near =
            |scaled: u32, base: u32| (f64::from(scaled) - f64::from(base) * factor).abs() <= 1.0;
        assert!(
            near(sw, w) && near(sh, h),
            "--scale {scale}: {sw}x{sh} from {w}x{h}"
        );
    }
}

/// `--font FAMILY` leads the SVG's font stack, ahead of the bundled JetBrains Mono that always
/// follows it.
#[test]
fn font_family_leads_the_svg_font_stack() {
    let out = shotty(
        &["render", "--font", "Fira Code", "--no-metadata"],
        b"fonts",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = stdout(&out);
    let rule = "text{font-family:";
    let start = svg.find(rule).expect("the text rule") + rule.len();
    let stack: Vec<&str> = svg[start..]
        .split([';', '}'])
        .next()
        .expect("the family list")
        .split(',')
        .collect();
    assert_eq!(
        stack,
        ["Fira Code", "'JetBrains Mono'", "monospace"],
        "{svg}"
    );
}

/// `--background IMAGE` puts the PNG file, byte for byte, behind the window, filling the
/// canvas: the corners of the rendered PNG have the image's colour. A file that is no image
/// is refused.
#[test]
fn a_background_image_fills_the_canvas() {
    use base64::Engine;
    let dir = tempfile::tempdir().expect("temp dir");
    let image = dir.path().join("backdrop.png");
    let mut file = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut file, 4, 4);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().expect("PNG header");
        writer
            .write_image_data(&[0x33, 0x66, 0x99].repeat(16))
            .expect("PNG data");
    }
    std::fs::write(&image, &file).expect("image written");
    let image_arg = image.to_str().expect("UTF-8 path");

    let out = shotty(
        &[
            "render",
            "-d",
            "macos-pc",
            "--background",
            image_arg,
            "--no-metadata",
        ],
        b"on a picture",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = stdout(&out);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    let root = doc.root_element();
    let embedded = doc
        .descendants()
        .find(|n| n.has_tag_name("image"))
        .expect("an <image>");
    let href = embedded.attribute("href").expect("href");
    let data = href
        .strip_prefix("data:image/png;base64,")
        .expect("a PNG data URL");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64");
    assert_eq!(decoded, file, "the file itself");
    let (w, h) = (
        embedded.attribute("width").expect("width"),
        embedded.attribute("height").expect("height"),
    );
    let view: Vec<&str> = root
        .attribute("viewBox")
        .expect("viewBox")
        .split(' ')
        .collect();
    assert_eq!(view[2..], [w, h], "the image covers the canvas");

    let out = shotty(
        &[
            "render",
            "-d",
            "macos-pc",
            "--background",
            image_arg,
            "--format",
            "png",
        ],
        b"on a picture",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let mut reader = png::Decoder::new(std::io::Cursor::new(&out.stdout))
        .read_info()
        .expect("PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut pixels).expect("PNG data");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let (width, height) = (info.width as usize, info.height as usize);
    for (x, y) in [
        (0, 0),
        (width - 1, 0),
        (0, height - 1),
        (width - 1, height - 1),
    ] {
        let at = (y * width + x) * 4;
        assert_eq!(
            pixels[at..at + 4],
            [0x33, 0x66, 0x99, 0xff],
            "pixel {x},{y}"
        );
    }

    let not_image = dir.path().join("notes.txt");
    std::fs::write(&not_image, "text").expect("written");
    let out = shotty(
        &["render", "--background", not_image.to_str().expect("UTF-8")],
        b"x",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("neither PNG nor JPEG"),
        "{}",
        stderr(&out)
    );
}

/// An asciicast v3 recording renders through `shotty render`: the size comes from the
/// header's `term`, event times are intervals since the previous event, resizes apply, and
/// comment lines (`#`) and other events (markers, exit) are skipped, as the v3 format says.
#[test]
fn an_asciicast_v3_recording_renders_with_interval_times() {
    let cast = concat!(
        "{\"version\": 3, \"term\": {\"cols\": 12, \"rows\": 3, \"type\": \"xterm-256color\"}, \"title\": \"v3\"}\n",
        "# the event stream follows\n",
        "[0.5, \"o\", \"one\\r\\n\"]\n",
        "[1.0, \"o\", \"two\\r\\n\"]\n",
        "[0.25, \"m\", \"marker\"]\n",
        "# resized\n",
        "[0.25, \"r\", \"16x3\"]\n",
        "[1.0, \"o\", \"three is wide\"]\n",
        "[0.5, \"x\", \"0\"]\n",
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("demo.cast");
    std::fs::write(&path, cast).expect("cast written");
    let p = path.to_str().expect("UTF-8 path");
    // Read as absolute times (0.5, 1.0, …), "two" would be on screen at 1.2 s already.
    let at = |seconds: &str| {
        let out = shotty(&["render", p, "--at", seconds, "--format", "txt"], b"");
        assert!(out.status.success(), "--at {seconds}: {}", stderr(&out));
        stdout(&out)
    };
    assert_eq!(at("1.2"), "one\n\n\n");
    assert_eq!(at("1.6"), "one\ntwo\n\n");
    let out = shotty(&["render", p, "--format", "json"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let snap: Snapshot = serde_json::from_slice(&out.stdout).expect("schema-1 JSON");
    assert_eq!((snap.width, snap.height), (16, 3));
    assert_eq!(snap.text(), "one\ntwo\nthree is wide");
}

/// What real bash completes from `shotty completions bash` for the words typed so far.
fn bash_completes(script: &std::path::Path, words: &[&str]) -> String {
    let current = words.len() - 1;
    let program = format!(
        "source {}; COMP_WORDS=({}); COMP_CWORD={current}; _shotty shotty {} {}; \
         echo \"${{COMPREPLY[*]}}\"",
        script.display(),
        words.join(" "),
        words[current],
        words[current - 1],
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out).trim().to_owned()
}

/// Completion scripts and man pages are made from the parser itself, the session family's
/// own parser included: bash (the real one) completes subcommands, session subcommands and
/// their flags; every shell gets a script; the man pages name every command and option.
#[test]
fn completions_and_man_pages_come_from_the_parser() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = shotty(&["completions", "bash"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let script = tmp.path().join("shotty.bash");
    std::fs::write(&script, &out.stdout).expect("script written");
    assert_eq!(bash_completes(&script, &["shotty", "ren"]), "render");
    assert_eq!(
        bash_completes(&script, &["shotty", "session", "st"]),
        "start stop"
    );
    assert_eq!(
        bash_completes(&script, &["shotty", "session", "start", "--scr"]),
        "--scrollback"
    );
    assert_eq!(
        bash_completes(&script, &["shotty", "session", "wait", "--unt"]),
        "--until"
    );
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let out = shotty(&["completions", shell], b"");
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(
            text.contains("shotty") && text.contains("scrollback"),
            "{shell}: {text}"
        );
    }
    let out = shotty(&["completions", "tcsh"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let out = shotty(&["man"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let page = stdout(&out);
    assert!(page.contains(".TH shotty 1"), "{page}");
    assert!(page.contains("\\-\\-embed\\-font"), "{page}");
    let dir = tmp.path().join("man");
    let out = shotty(&["man", "--dir", dir.to_str().expect("UTF-8 path")], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    for page in [
        "shotty.1",
        "shotty-render.1",
        "shotty-session-start.1",
        "shotty-serve.1",
    ] {
        assert!(dir.join(page).is_file(), "{page} missing");
    }
    let start = std::fs::read_to_string(dir.join("shotty-session-start.1")).expect("page");
    assert!(start.contains("\\-\\-scrollback"), "{start}");
}

/// Runs the binary in `dir` with `XDG_CONFIG_HOME` set to `config_home`.
fn shotty_in(dir: &std::path::Path, config_home: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shotty"))
        // No config file of the machine's: only what the test gives.
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .args(args)
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", config_home)
        .stdin(Stdio::null())
        .output()
        .expect("shotty runs")
}

/// The snapshot width and whether the Dracula background is drawn, of an SVG on stdout.
fn width_and_dracula(out: &Output) -> (usize, bool) {
    assert!(out.status.success(), "{}", stderr(out));
    let svg = stdout(out);
    let doc = roxmltree::Document::parse(&svg).expect("SVG parses");
    let meta = doc
        .descendants()
        .find(|n| n.has_tag_name("metadata"))
        .and_then(|n| n.text())
        .expect("metadata");
    let snapshot: Snapshot = serde_json::from_str(meta).expect("snapshot");
    (snapshot.width as usize, svg.contains("#282a36"))
}

/// A config file sets appearance defaults (top level) and capture defaults (`[capture]`) for
/// `capture` and `render`; flags on the command line win; `./shotty.toml` comes before the
/// user's `$XDG_CONFIG_HOME/shotty/config.toml`, and `-C PATH` before both; a key that is not
/// an option, or a file that is not TOML, is a usage error naming the file.
#[test]
fn a_config_file_sets_defaults_and_flags_win() {
    let work = tempfile::tempdir().expect("temp dir");
    let home = tempfile::tempdir().expect("temp dir");
    let (dir, xdg) = (work.path(), home.path());
    let capture = ["--stdout", "--", "echo", "hi"];

    // Nothing configured: the built-in defaults.
    assert_eq!(
        width_and_dracula(&shotty_in(dir, xdg, &capture)),
        (100, false)
    );

    // The user's config file.
    std::fs::create_dir_all(xdg.join("shotty")).expect("config dir");
    std::fs::write(
        xdg.join("shotty/config.toml"),
        "theme = \"dracula\"\n[capture]\nwidth = 30\n",
    )
    .expect("config written");
    assert_eq!(
        width_and_dracula(&shotty_in(dir, xdg, &capture)),
        (30, true)
    );
    // Flags win over it.
    let flags = [
        "-w",
        "50",
        "-t",
        "github-light",
        "--stdout",
        "--",
        "echo",
        "hi",
    ];
    assert_eq!(width_and_dracula(&shotty_in(dir, xdg, &flags)), (50, false));
    // `render` takes the appearance part (its size comes from the input).
    let input = dir.join("in.txt");
    std::fs::write(&input, "hi\r\n").expect("input written");
    let render = [
        "render", "in.txt", "--width", "20", "--height", "2", "--format", "svg",
    ];
    assert_eq!(width_and_dracula(&shotty_in(dir, xdg, &render)), (20, true));

    // `./shotty.toml` comes first, `-C` before both.
    std::fs::write(dir.join("shotty.toml"), "[capture]\nwidth = 40\n").expect("written");
    assert_eq!(
        width_and_dracula(&shotty_in(dir, xdg, &capture)),
        (40, false)
    );
    std::fs::write(dir.join("other.toml"), "theme = \"dracula\"\n").expect("written");
    let explicit = ["-C", "other.toml", "--stdout", "--", "echo", "hi"];
    assert_eq!(
        width_and_dracula(&shotty_in(dir, xdg, &explicit)),
        (100, true)
    );

    // Mistakes are usage errors that name the file.
    for (text, says) in [
        ("bogus = 1\n", "`bogus` is not an appearance option"),
        (
            "[capture]\ntheme = \"x\"\n",
            "[capture] has no option `theme`",
        ),
        ("theme = \n", "bad.toml"),
        ("[render]\nwidth = 1\n", "unknown table [render]"),
    ] {
        std::fs::write(dir.join("bad.toml"), text).expect("written");
        let out = shotty_in(dir, xdg, &["-C", "bad.toml", "--stdout", "--", "echo"]);
        assert_eq!(out.status.code(), Some(2), "{text}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{text}: {}", stderr(&out));
    }
}

#[test]
fn at_marker_renders_the_screen_at_a_marker_by_label_or_number() {
    let cast = concat!(
        "{\"version\": 2, \"width\": 20, \"height\": 2}\n",
        "[0.1, \"o\", \"one\"]\n[0.2, \"m\", \"first\"]\n",
        "[0.3, \"o\", \" two\"]\n[0.4, \"m\", \"\"]\n[0.5, \"o\", \" three\"]\n",
    );
    for (marker, text) in [("first", "one"), ("1", "one"), ("2", "one two")] {
        let out = shotty(
            &["render", "--at-marker", marker, "--format", "txt"],
            cast.as_bytes(),
        );
        assert!(out.status.success(), "{marker}: {}", stderr(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim_end(),
            text,
            "{marker}"
        );
    }
}

/// The pixels of a PNG as RGBA rows, and its width.
fn rgba(png: &[u8]) -> (Vec<u8>, usize) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().expect("PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("PNG frame");
    pixels.truncate(info.buffer_size());
    (pixels, info.width as usize)
}

/// A dialog's screen: one background colour around a box and its shadow. The blue left of
/// the box is several rectangles (the rows through the box split theirs), which meet at row
/// boundaries that fall inside pixels at fractional scales and cell heights: every pixel of
/// that blue must be the blue, at every scale, with no lighter seam between the rows.
#[test]
fn one_background_colour_has_no_seams_at_any_scale() {
    let mut screen = String::from("\x1b[44m\x1b[2J");
    for row in 3..8 {
        screen.push_str(&format!(
            "\x1b[{row};11H\x1b[47m{:20}\x1b[40m  \x1b[44m",
            ""
        ));
    }
    for scale in ["1", "2", "3", "1.5"] {
        let out = shotty(
            &[
                "render",
                "--format",
                "png",
                "--width",
                "40",
                "--height",
                "10",
                "--padding",
                "0",
                "--margin",
                "0",
                "--fontsize",
                "14",
                "--line-height",
                "1.2",
                "--scale",
                scale,
            ],
            screen.as_bytes(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let (pixels, width) = rgba(&out.stdout);
        let height = pixels.len() / 4 / width;
        let at = |x: usize, y: usize| &pixels[(y * width + x) * 4..][..4];
        let blue = at(2, 2).to_vec();
        // Left of the box (column 10 starts at a quarter of the width), top to bottom.
        let strip = width / 4 - 2;
        let seams: Vec<usize> = (0..height)
            .filter(|&y| (0..strip).any(|x| at(x, y) != blue.as_slice()))
            .collect();
        assert!(
            seams.is_empty(),
            "×{scale}: rows of other pixels in the blue: {seams:?}"
        );
    }
}

/// Characters no font has (nerd-font icons in the private use area) are drawn as blank cells
/// in a PNG, as stderr says, not as a missing-glyph box.
#[test]
fn characters_no_font_has_are_blank_cells_in_a_png() {
    let png = |text: &str| {
        let out = shotty(
            &["render", "--format", "png", "--width", "12"],
            text.as_bytes(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        (rgba(&out.stdout).0, stderr(&out))
    };
    let (icons, said) = png("x \u{f07b} \u{f115} y");
    assert!(
        said.contains("U+F07B") && said.contains("U+F115") && said.contains("drawn as blank cells"),
        "{said}"
    );
    let (blank, _) = png("x     y");
    assert!(icons == blank, "the icons' cells are not blank");
}

/// A fallback face's glyph wider than its cells (★ in DejaVu Sans is 1.5 cells, ☂ in Symbola
/// 1.75) is narrowed into them, as a terminal keeps every glyph to its cells: in the PNG, no
/// ink of it reaches the neighbouring cells (but a pixel of antialiasing).
#[test]
fn fallback_glyphs_keep_their_ink_in_their_cells() {
    for (style, sample) in [("", "○★☆♥☂⏎✗"), ("\x1b[1m", "○★☂")] {
        for c in sample.chars() {
            let out = shotty(
                &[
                    "render",
                    "--format",
                    "png",
                    "--width",
                    "3",
                    "--height",
                    "1",
                    "--padding",
                    "0",
                    "--margin",
                    "0",
                    "--no-cursor",
                    "--scale",
                    "2",
                ],
                format!("{style} {c} ").as_bytes(),
            );
            assert!(out.status.success(), "{}", stderr(&out));
            let (pixels, width) = rgba(&out.stdout);
            let height = pixels.len() / 4 / width;
            let at = |x: usize, y: usize| &pixels[(y * width + x) * 4..][..3];
            let background = at(0, 0).to_vec();
            let inked = |x: usize| {
                (0..height).any(|y| {
                    at(x, y)
                        .iter()
                        .zip(&background)
                        .any(|(p, b)| p.abs_diff(*b) > 24)
                })
            };
            // The middle cell's pixels, and the one each side that its edges may share.
            let cell = width as f64 / 3.0;
            let (first, last) = (cell.floor() as usize - 1, (2.0 * cell).ceil() as usize);
            let outside: Vec<usize> = (0..width)
                .filter(|&x| x < first || x > last)
                .filter(|&x| inked(x))
                .collect();
            assert!(
                outside.is_empty(),
                "{style:?}{c}: ink in columns {outside:?}, its cell is {first}..={last}"
            );
        }
    }
}
