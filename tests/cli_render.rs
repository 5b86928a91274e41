//! `shotty render` through the real binary: inputs, formats, `--at`, output files and errors.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use shotty::term::Snapshot;

fn shotty(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("shotty starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin)
        .expect("stdin accepts the input");
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
    assert_eq!((cells[0].t.as_str(), cells[0].s), ("A", 1));
    assert!(snap.styles[1].bold);
    assert_eq!((cells[1].t.as_str(), cells[1].w), ("你", 2));
    assert_eq!((cells[2].t.as_str(), cells[2].w), ("", 0));
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
        &["render", "--format", "gif"],
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
    let fill_of = |svg: &str, text: &str| {
        let at = svg.find(&format!(">{text}<")).expect("the text");
        let class = svg[..at]
            .rsplit("class=\"")
            .next()
            .and_then(|c| c.split('"').next());
        let class = class.expect("a class");
        let rule = format!(".{class}{{fill:");
        let start = svg.find(&rule).expect("the class's rule") + rule.len();
        svg[start..start + 7].to_owned()
    };
    let bright = svg(&[]);
    assert_eq!(fill_of(&bright, "BOLD"), "#ffffff", "{bright}");
    assert_eq!(fill_of(&bright, "plain"), "#e5e5e5", "not bold: colour 7");
    let plain = svg(&["--no-bold-bright"]);
    assert_eq!(fill_of(&plain, "BOLD"), "#e5e5e5", "{plain}");
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

/// Debian's colour emoji font (`.ci/run` installs fonts-noto-color-emoji).
const COLOR_EMOJI: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";

#[test]
fn fonts_the_user_names_come_before_the_bundled_fallbacks() {
    assert!(
        std::path::Path::new(COLOR_EMOJI).is_file(),
        "{COLOR_EMOJI} is missing: apt-get install fonts-noto-color-emoji"
    );
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
    assert!(
        svg.contains(">-x<") && svg.contains(">--- cut ---<"),
        "{svg}"
    );
    assert!(!svg.contains(">a<"), "cropped at the pattern: {svg}");
}
