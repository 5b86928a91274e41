//! Golden images: the project's own reference SVGs (and PNGs for a subset) in `golden/`.
//!
//! Every case renders through the real binary and is compared with its reference by
//! [`shotty::golden::compare_bytes`], the comparison every golden of shotty's goes through: a
//! normal run fails on any byte difference and prints the cell-level `diff` report, on a
//! missing reference (which it writes, to be reviewed) and on a reference no case makes any
//! more; `UPDATE_GOLDEN=1 cargo test --test render golden::` rewrites the references and
//! removes stale ones (review them before committing; `UPDATE_GOLDEN=0` or empty compares).
//! Subdirectories of `golden/` belong to other tests (`golden/testing/`: `shotty::testing`'s).

use std::path::{Path, PathBuf};
use std::process::Command;

use shotty::golden::Verdict;

use crate::support::golden_inputs::{
    Input, attributes, box_drawing, cjk, cursor, input_bytes, line_sizes, links, palette,
    powerline, sample, tall, unicode,
};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

struct Case {
    name: &'static str,
    input: Input,
    size: (u16, u16),
    args: &'static [&'static str],
    png: bool,
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
        // Light/dark adaptive SVGs (their PNG draws the scheme asked for).
        c(
            "theme-auto",
            sample(),
            (60, 8),
            &["-t", "auto", "-d", "windows", "--title", "cargo test"],
            false,
        ),
        c(
            "theme-auto-scheme-light",
            sample(),
            (60, 8),
            &["-t", "auto", "--scheme", "light", "-d", "macos"],
            true,
        ),
        c(
            "theme-pair-palette",
            palette(),
            (60, 10),
            &["--dark-theme", "dracula", "--light-theme", "github-light"],
            true,
        ),
        c(
            "attributes-auto",
            attributes(),
            (72, 4),
            &["-t", "auto"],
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
        c("cjk", cjk(), (60, 6), &[], true),
        c("powerline", powerline(), (60, 3), &[], false),
        c("line-sizes", line_sizes(), (34, 5), &[], true),
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

fn render(case: &Case, input: &Path, out: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_shotty"))
        // No config file of the machine's: only what the test gives.
        .env("XDG_CONFIG_HOME", "/nonexistent")
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

#[test]
fn golden_images() {
    let update = shotty::golden::update_requested();
    let golden = PathBuf::from(ROOT).join("golden");
    let tmp = tempfile::tempdir().expect("temp dir");
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut failures = Vec::new();
    let mut produced = std::collections::BTreeSet::new();
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
            produced.insert(reference.clone());
            match shotty::golden::compare_bytes(&reference, &actual, update) {
                Ok(Verdict::Matched | Verdict::Updated) => {}
                Ok(Verdict::New) if update => {}
                Ok(Verdict::New) => failures.push(format!(
                    "{file}: there was no golden file; the output was written to {}: review it",
                    reference.display()
                )),
                Err(report) => failures.push(format!("{}: {report}", case.name)),
            }
        }
    }
    // References no case produces any more are stale.
    for entry in std::fs::read_dir(&golden).expect("golden/ readable") {
        let entry = entry.expect("golden/ entry");
        let path = entry.path();
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        let directory = entry.file_type().is_ok_and(|t| t.is_dir());
        if hidden || directory || produced.contains(&path) {
            continue;
        }
        if update {
            std::fs::remove_file(&path).expect("stale golden removed");
        } else {
            failures.push(format!(
                "{}: stale golden file (no case makes it)",
                path.display()
            ));
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
