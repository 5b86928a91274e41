//! Golden images: the project's own reference SVGs (and PNGs for a subset) in `golden/`.
//!
//! Every case renders through the real binary. A normal run fails on any byte difference and
//! prints the cell-level `diff` report; `UPDATE_GOLDEN=1 cargo test --test golden` rewrites
//! the references (review them before committing).

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Input bytes for a case.
enum Input {
    Bytes(Vec<u8>),
    /// A recorded fixture, cut just before its last alternate-screen exit when `alt`.
    Fixture {
        name: &'static str,
        alt: bool,
    },
}

struct Case {
    name: &'static str,
    input: Input,
    size: (u16, u16),
    args: &'static [&'static str],
    png: bool,
}

fn bytes(s: &str) -> Input {
    Input::Bytes(s.as_bytes().to_vec())
}

/// A small colourful shell session used for chrome and theme cases.
fn sample() -> Input {
    bytes(concat!(
        "\x1b[1;32m~/shotty\x1b[0m on \x1b[35m main\x1b[0m \x1b[1;33m❯\x1b[0m cargo test\r\n",
        "   \x1b[1;32mCompiling\x1b[0m shotty v0.1.0\r\n",
        "    \x1b[1;32mFinished\x1b[0m `test` profile in 4.2s\r\n",
        "test term::wrap ... \x1b[32mok\x1b[0m\r\n",
        "test term::wide ... \x1b[31mFAILED\x1b[0m\r\n",
        "\x1b[1mtest result:\x1b[0m \x1b[31mFAILED\x1b[0m. 1 passed; 1 failed\r\n",
        "\x1b[1;32m~/shotty\x1b[0m \x1b[1;33m❯\x1b[0m ",
    ))
}

fn palette() -> Input {
    let mut s = String::new();
    for i in 0..16 {
        s.push_str(&format!("\x1b[48;5;{i}m  "));
    }
    s.push_str("\x1b[0m\r\n");
    for row in 0..6 {
        for i in 0..36 {
            s.push_str(&format!("\x1b[48;5;{}m ", 16 + row * 36 + i));
        }
        s.push_str("\x1b[0m\r\n");
    }
    for i in 232..256 {
        s.push_str(&format!("\x1b[48;5;{i}m "));
    }
    s.push_str("\x1b[0m\r\n");
    for i in 0..48 {
        let v = i * 255 / 47;
        s.push_str(&format!("\x1b[48;2;{v};{};{}m ", 255 - v, (v * 2) % 256));
    }
    s.push_str("\x1b[0m\r\n");
    for i in 0..8 {
        s.push_str(&format!("\x1b[3{i}mfg{i}\x1b[0m \x1b[9{i}mbr{i}\x1b[0m "));
    }
    Input::Bytes(s.into_bytes())
}

fn attributes() -> Input {
    bytes(concat!(
        "\x1b[1mbold\x1b[0m \x1b[2mdim\x1b[0m \x1b[3mitalic\x1b[0m \x1b[1;3mbold-italic\x1b[0m ",
        "\x1b[7minverse\x1b[0m \x1b[8mhidden\x1b[0m \x1b[5mblink\x1b[0m\r\n",
        "\x1b[4msingle\x1b[0m \x1b[4:2mdouble\x1b[0m \x1b[4:3mcurly\x1b[0m \x1b[4:4mdotted\x1b[0m ",
        "\x1b[4:5mdashed\x1b[0m\r\n",
        "\x1b[4:3;58;2;255;0;0mred curly\x1b[0m \x1b[4;58;5;33mblue line\x1b[0m ",
        "\x1b[9mstrike\x1b[0m \x1b[53moverline\x1b[0m \x1b[1;4;9;53;31mall\x1b[0m\r\n",
        "\x1b[2;31mdim red\x1b[0m \x1b[7;32minverse green\x1b[0m \x1b[30;47mblack on white\x1b[0m",
    ))
}

fn box_drawing() -> Input {
    bytes(concat!(
        "┌─────┬─────┐ ┏━━━━━┳━━━━━┓ ╔═════╦═════╗ ╭─────╮\r\n",
        "│ a   │ b   │ ┃ a   ┃ b   ┃ ║ a   ║ b   ║ │ ╭─╮ │\r\n",
        "├─────┼─────┤ ┣━━━━━╋━━━━━┫ ╠═════╬═════╣ │ ╰─╯ │\r\n",
        "│ c   │ d   │ ┃ c   ┃ d   ┃ ║ c   ║ d   ║ ╰─────╯\r\n",
        "└─────┴─────┘ ┗━━━━━┻━━━━━┛ ╚═════╩═════╝ ┄┄┅┅ ┆┇ ╌╍\r\n",
        "▀▄█▌▐ ▁▂▃▄▅▆▇█ ▏▎▍▌▋▊▉ ░▒▓ ▖▗▘▙▚▛▜▝▞▟ ╱╲╳\r\n",
        "\x1b[36m╭──────────╮\x1b[0m\r\n\x1b[36m│\x1b[0m \x1b[1mcoloured\x1b[0m \x1b[36m│\x1b[0m\r\n\x1b[36m╰──────────╯\x1b[0m",
    ))
}

fn unicode() -> Input {
    bytes(concat!(
        "CJK: 中文 日本語 한국어 ＡＢＣ\r\n",
        "emoji: 😀 👍🏽 ❤\u{fe0f} 👨\u{200d}👩\u{200d}👧 🇺🇸 ✨\r\n",
        "marks: e\u{301} a\u{308} n\u{303} | café | naïve\r\n",
        "braille: ⣿⣷⣯⣟⡿⢿ arrows: ← ↑ → ↓ ⇒ symbols: ✓ ✗ ★ ☂ ♥\r\n",
        "x全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全\r\n",
    ))
}

fn powerline() -> Input {
    bytes(concat!(
        "\x1b[30;44m user \x1b[34;42m\u{e0b0}\x1b[30;42m ~/src/shotty \x1b[32;45m\u{e0b0}",
        "\x1b[30;45m  main \x1b[35;49m\u{e0b0}\x1b[0m \u{e0b1} ok\r\n",
        "\x1b[33m\u{e0b2}\x1b[30;43m 12:00 \x1b[0m\x1b[33m\u{e0b0}\x1b[0m",
    ))
}

fn links() -> Input {
    bytes(concat!(
        "docs: \x1b]8;;https://example.com/docs\x1b\\\x1b[4;34mexample.com/docs\x1b[0m\x1b]8;;\x1b\\\r\n",
        "file: \x1b]8;id=f;file:///etc/hosts\x1b\\/etc/hosts\x1b]8;;\x1b\\ ",
        "unsafe: \x1b]8;;javascript:alert(1)\x1b\\not a link\x1b]8;;\x1b\\\r\n",
    ))
}

fn tall() -> Input {
    let mut s = String::from("$ cargo build\r\n");
    for i in 1..=14 {
        s.push_str(&format!("   Compiling crate-{i:02} v0.{i}.0\r\n"));
    }
    s.push_str("error[E0308]: mismatched types\r\n --> src/main.rs:4:5\r\n");
    s.push_str("    Finished with 1 error\r\n$ ");
    Input::Bytes(s.into_bytes())
}

fn cursor(shape: u8) -> Input {
    Input::Bytes(format!("\x1b[{shape} q$ echo cursor\r\ncursor\r\n$ ").into_bytes())
}

fn cases() -> Vec<Case> {
    let c = |name, input, size, args, png| Case {
        name,
        input,
        size,
        args,
        png,
    };
    vec![
        c("window-none", sample(), (60, 8), &[], true),
        c(
            "window-transparent",
            sample(),
            (60, 8),
            &["-d", "transparent"],
            true,
        ),
        c(
            "window-macos",
            sample(),
            (60, 8),
            &["-d", "macos", "--title", "cargo test"],
            true,
        ),
        c(
            "window-windows",
            sample(),
            (60, 8),
            &["-d", "windows", "--title", "cargo test"],
            true,
        ),
        c(
            "window-macos-pc",
            sample(),
            (60, 8),
            &["-d", "macos-pc", "--title", "cargo test"],
            true,
        ),
        c(
            "window-windows-pc",
            sample(),
            (60, 8),
            &[
                "-d",
                "windows-pc",
                "--title",
                "cargo test",
                "--pc-padding",
                "32",
            ],
            false,
        ),
        c("window-bare-d", sample(), (60, 8), &["-d"], false),
        c(
            "theme-dracula",
            sample(),
            (60, 8),
            &["-t", "dracula", "-d", "macos"],
            false,
        ),
        c(
            "theme-solarized-light",
            sample(),
            (60, 8),
            &["-t", "solarized-light", "-d", "macos"],
            false,
        ),
        c(
            "theme-github-light",
            sample(),
            (60, 8),
            &["-t", "github-light"],
            false,
        ),
        c("theme-nord", sample(), (60, 8), &["-t", "nord"], false),
        c(
            "theme-gruvbox-dark",
            sample(),
            (60, 8),
            &["-t", "gruvbox-dark"],
            false,
        ),
        c(
            "theme-tokyo-night",
            palette(),
            (60, 10),
            &["-t", "tokyo-night"],
            false,
        ),
        c(
            "theme-campbell-palette",
            palette(),
            (60, 10),
            &["-t", "campbell"],
            true,
        ),
        c(
            "theme-xterm-palette",
            palette(),
            (60, 10),
            &["-t", "xterm"],
            false,
        ),
        c("attributes", attributes(), (72, 4), &[], true),
        c(
            "attributes-light",
            attributes(),
            (72, 4),
            &["-t", "one-half-light"],
            false,
        ),
        c("box-drawing", box_drawing(), (56, 9), &[], true),
        c(
            "box-drawing-line-height-1",
            box_drawing(),
            (56, 9),
            &["--line-height", "1"],
            false,
        ),
        c(
            "box-drawing-line-height-2",
            box_drawing(),
            (56, 9),
            &["--line-height", "2"],
            false,
        ),
        c("unicode", unicode(), (90, 6), &[], true),
        c("powerline", powerline(), (60, 3), &[], false),
        c("hyperlinks", links(), (60, 3), &[], false),
        c(
            "crop-top-bottom-ch",
            tall(),
            (48, 20),
            &["--crop-top", "2ch", "--crop-bottom", "3ch"],
            false,
        ),
        c(
            "crop-text-pattern",
            tall(),
            (48, 20),
            &["--crop-top", "error", "--crop-bottom", "Finished:-1"],
            false,
        ),
        c(
            "crop-left-right",
            tall(),
            (48, 20),
            &[
                "--crop-left",
                "3ch",
                "--crop-right",
                "20ch",
                "--crop-top",
                "1ch",
            ],
            false,
        ),
        c(
            "crop-pixels",
            tall(),
            (48, 20),
            &[
                "--crop-top",
                "30px",
                "--crop-bottom",
                "30.5px",
                "-d",
                "macos",
            ],
            false,
        ),
        c(
            "size-width-only",
            sample(),
            (60, 8),
            &["--size", "400x*"],
            false,
        ),
        c(
            "size-both",
            sample(),
            (60, 8),
            &["--size", "800x300", "-d", "macos"],
            false,
        ),
        c(
            "font-size-20",
            sample(),
            (60, 8),
            &["--fontsize", "20"],
            false,
        ),
        c(
            "padding-margin",
            sample(),
            (60, 8),
            &[
                "--padding",
                "24",
                "--margin",
                "16",
                "--background",
                "#334455",
            ],
            false,
        ),
        c(
            "background-gradient",
            sample(),
            (60, 8),
            &["-d", "macos-pc", "--background", "#ff8800", "#0088ff"],
            false,
        ),
        c(
            "opacity",
            sample(),
            (60, 8),
            &["-d", "macos-pc", "--opacity", "0.75"],
            false,
        ),
        c(
            "colors-override",
            sample(),
            (60, 8),
            &["--forecolor", "#00ff00", "--backcolor", "#101010"],
            false,
        ),
        c("cursor-bar", cursor(6), (30, 4), &[], false),
        c("cursor-underline", cursor(4), (30, 4), &[], false),
        c("cursor-hidden", cursor(2), (30, 4), &["--no-cursor"], false),
        c("no-metadata", sample(), (60, 8), &["--no-metadata"], false),
        c(
            "embed-font",
            sample(),
            (60, 8),
            &["--embed-font", "-d", "macos"],
            false,
        ),
        c(
            "embed-font-unicode",
            unicode(),
            (90, 6),
            &["--embed-font"],
            false,
        ),
        c(
            "fixture-vim",
            Input::Fixture {
                name: "vim_split_number",
                alt: true,
            },
            (80, 24),
            &["-d", "macos"],
            true,
        ),
        c(
            "fixture-htop",
            Input::Fixture {
                name: "htop",
                alt: true,
            },
            (100, 30),
            &[],
            false,
        ),
        c(
            "fixture-less",
            Input::Fixture {
                name: "less_search",
                alt: true,
            },
            (80, 24),
            &[],
            false,
        ),
        c(
            "fixture-dialog",
            Input::Fixture {
                name: "dialog_menu",
                alt: true,
            },
            (80, 24),
            &["-t", "vga"],
            false,
        ),
        c(
            "fixture-rich",
            Input::Fixture {
                name: "rich_table",
                alt: false,
            },
            (100, 30),
            &["-d", "windows"],
            false,
        ),
        c(
            "fixture-git-log",
            Input::Fixture {
                name: "git_log_graph",
                alt: false,
            },
            (100, 30),
            &[],
            false,
        ),
        c(
            "fixture-ls",
            Input::Fixture {
                name: "ls_color",
                alt: false,
            },
            (100, 30),
            &["-t", "one-dark"],
            false,
        ),
        c(
            "fixture-bash",
            Input::Fixture {
                name: "bash_line_editing",
                alt: false,
            },
            (80, 24),
            &[],
            false,
        ),
        c(
            "fixture-emoji-cjk",
            Input::Fixture {
                name: "emoji_cjk",
                alt: false,
            },
            (80, 24),
            &[],
            false,
        ),
        c(
            "fixture-python",
            Input::Fixture {
                name: "python_repl",
                alt: false,
            },
            (80, 24),
            &["-t", "catppuccin-latte"],
            false,
        ),
    ]
}

fn input_bytes(input: &Input) -> Vec<u8> {
    match input {
        Input::Bytes(b) => b.clone(),
        Input::Fixture { name, alt } => {
            let path = Path::new(ROOT)
                .join("tests/fixtures")
                .join(format!("{name}.bin"));
            let data = std::fs::read(&path).expect("fixture readable");
            if !alt {
                return data;
            }
            let exits: [&[u8]; 3] = [b"\x1b[?1049l", b"\x1b[?1047l", b"\x1b[?47l"];
            let cut = exits
                .iter()
                .filter_map(|pat| data.windows(pat.len()).rposition(|w| w == *pat))
                .max()
                .expect("fixture leaves the alternate screen");
            data[..cut].to_vec()
        }
    }
}

fn render(case: &Case, input: &Path, out: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .arg("render")
        .arg(input)
        .args([
            "--width",
            &case.size.0.to_string(),
            "--height",
            &case.size.1.to_string(),
        ])
        .args(case.args)
        .arg("-o")
        .arg(out)
        .status()
        .expect("shotty runs");
    assert!(status.success(), "{}: shotty render failed", case.name);
}

fn report(case: &str, expected: &[u8], actual: &[u8], is_svg: bool) -> String {
    let mut msg = format!("{case}: output differs from the golden file");
    if is_svg {
        match (
            shotty::diff::load_snapshot(expected),
            shotty::diff::load_snapshot(actual),
        ) {
            (Ok(e), Ok(a)) => {
                let d = shotty::diff::diff(&e, &a);
                if d.is_empty() {
                    msg.push_str(" (same cells: the rendering changed)");
                } else {
                    msg.push_str(&format!(":\n{d}"));
                }
            }
            _ => msg.push_str(" (no snapshot metadata to compare)"),
        }
        let at = expected
            .iter()
            .zip(actual)
            .position(|(a, b)| a != b)
            .unwrap_or(expected.len().min(actual.len()));
        let from = at.saturating_sub(80);
        let show =
            |b: &[u8]| String::from_utf8_lossy(&b[from..(at + 80).min(b.len())]).into_owned();
        msg.push_str(&format!(
            "\nfirst byte difference at {at}:\n  expected …{}…\n  actual   …{}…",
            show(expected),
            show(actual)
        ));
    } else {
        msg.push_str(&format!(" ({} vs {} bytes)", expected.len(), actual.len()));
    }
    msg
}

#[test]
fn golden_images() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let golden = PathBuf::from(ROOT).join("golden");
    let tmp = tempfile::tempdir().expect("temp dir");
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let input = tmp.path().join(format!("{}.bin", case.name));
        std::fs::write(&input, input_bytes(&case.input)).expect("input written");
        let mut outputs = vec!["svg"];
        if case.png {
            outputs.push("png");
        }
        for ext in outputs {
            let file = format!("{}.{ext}", case.name);
            let out = tmp.path().join(&file);
            render(case, &input, &out);
            let actual = std::fs::read(&out).expect("output written");
            let reference = golden.join(&file);
            if update {
                std::fs::write(&reference, &actual).expect("golden written");
                continue;
            }
            match std::fs::read(&reference) {
                Ok(expected) if expected == actual => {}
                Ok(expected) => failures.push(report(case.name, &expected, &actual, ext == "svg")),
                Err(_) => failures.push(format!(
                    "{file}: golden file missing (run with UPDATE_GOLDEN=1)"
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatch(es):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn output_is_deterministic() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cases = cases();
    let pick = ["window-macos-pc", "unicode", "embed-font", "fixture-vim"];
    for case in cases.iter().filter(|c| pick.contains(&c.name)) {
        let input = tmp.path().join("in.bin");
        std::fs::write(&input, input_bytes(&case.input)).expect("input written");
        for ext in ["svg", "png"] {
            let a = tmp.path().join(format!("a.{ext}"));
            let b = tmp.path().join(format!("b.{ext}"));
            render(case, &input, &a);
            render(case, &input, &b);
            assert_eq!(
                std::fs::read(&a).expect("a"),
                std::fs::read(&b).expect("b"),
                "{} {ext} differs between runs",
                case.name
            );
        }
    }
}
