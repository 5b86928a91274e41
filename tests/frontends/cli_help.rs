//! Help on every command: `shotty man --dir` writes a page per command, so it names them all;
//! each answers `--help` with its usage on stdout and exit 0, and `-h` with its short help,
//! except where `-h` is `--height` (the console2svg screenshot options), which its help says.
//! The man pages carry the examples of the long help.

use std::process::{Command, Output};

fn shotty(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shotty"))
        .args(args)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .expect("shotty runs")
}

/// A directory of `shotty man --dir`'s pages.
fn man_pages() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = shotty(&["man", "--dir", dir.path().to_str().expect("UTF-8")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// Every command path, from the man pages' names (`shotty-session-start.1` is
/// `["session", "start"]`), the top level first.
fn command_paths() -> Vec<Vec<String>> {
    let dir = man_pages();
    let mut paths: Vec<Vec<String>> = std::fs::read_dir(dir.path())
        .expect("the pages")
        .map(|entry| {
            let name = entry.expect("an entry").file_name();
            let name = name.to_string_lossy();
            let stem = name.strip_suffix(".1").expect("a section 1 page");
            stem.split('-').skip(1).map(str::to_owned).collect()
        })
        .collect();
    paths.sort();
    paths
}

#[test]
fn every_command_answers_help_and_h_is_help_wherever_it_is_not_height() {
    let paths = command_paths();
    for expected in [
        &["test"][..],
        &["session", "start"],
        &["scenario", "run"],
        &["serve"],
    ] {
        assert!(
            paths.iter().any(|p| p == expected),
            "{expected:?} in {paths:?}"
        );
    }
    let mut failures = Vec::new();
    for path in &paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let long = shotty(&args);
        let text = String::from_utf8_lossy(&long.stdout).into_owned();
        let usage = format!("Usage: shotty {}", path.join(" "));
        if long.status.code() != Some(0) || !text.contains(usage.trim_end()) {
            failures.push(format!(
                "{args:?}: exit {:?}, no {usage:?}:\n{text}{}",
                long.status.code(),
                String::from_utf8_lossy(&long.stderr)
            ));
            continue;
        }
        let height = text
            .lines()
            .any(|l| l.trim_start().starts_with("-h, --height"));
        if height {
            if !text.contains("`-h` is `--height` here") {
                failures.push(format!(
                    "{args:?}: -h is --height, and the help does not say so"
                ));
            }
            continue;
        }
        // `-h` is clap's short help: the same usage, without the long text and examples.
        *args.last_mut().expect("an argument") = "-h";
        let short = shotty(&args);
        let short_text = String::from_utf8_lossy(&short.stdout);
        if short.status.code() != Some(0) || !short_text.contains(usage.trim_end()) {
            failures.push(format!(
                "{args:?}: exit {:?}, not the help:\n{}{}",
                short.status.code(),
                String::from_utf8_lossy(&short.stdout),
                String::from_utf8_lossy(&short.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `-h` stays `--height` where console2svg has it: plain `shotty` and `shotty capture`.
#[test]
fn h_is_height_in_capture() {
    for args in [
        &[
            "-h", "3", "--format", "txt", "--stdout", "--", "printf", "a\\nb",
        ][..],
        &[
            "capture", "-h", "3", "--format", "txt", "--stdout", "--", "printf", "a\\nb",
        ],
    ] {
        let out = shotty(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).lines().count(),
            3,
            "{args:?}"
        );
    }
}

/// `-C/--config` is listed wherever a config file applies.
#[test]
fn config_flag_is_in_the_help_of_the_commands_it_applies_to() {
    for path in [
        &[][..],
        &["capture"],
        &["render"],
        &["record"],
        &["session", "capture"],
        &["session", "inspect"],
    ] {
        let mut args = path.to_vec();
        args.push("--help");
        let out = shotty(&args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("-C, --config <PATH>"), "{args:?}:\n{text}");
    }
}

/// The man pages carry the long help and the examples: `shotty-capture.1` has an EXAMPLES
/// section with the same command lines as `shotty capture --help`, kept as written (no fill).
#[test]
fn man_pages_carry_the_examples() {
    let dir = man_pages();
    for (page, path) in [
        ("shotty-capture.1", &["capture"][..]),
        ("shotty-render.1", &["render"]),
        ("shotty-test.1", &["test"]),
        ("shotty-session.1", &["session"]),
        ("shotty-session-send.1", &["session", "send"]),
        ("shotty-serve.1", &["serve"]),
        ("shotty-mcp.1", &["mcp"]),
    ] {
        let roff = std::fs::read_to_string(dir.path().join(page)).expect("the page");
        let examples = roff
            .split(".SH EXAMPLES\n.nf\n")
            .nth(1)
            .and_then(|rest| rest.split("\n.fi\n").next())
            .unwrap_or_else(|| panic!("{page} has no EXAMPLES section:\n{roff}"));
        let mut args = path.to_vec();
        args.push("--help");
        let help = String::from_utf8_lossy(&shotty(&args).stdout).into_owned();
        let commands: Vec<&str> = help
            .split("Examples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{args:?} shows no examples:\n{help}"))
            .lines()
            .filter(|l| l.starts_with("  ") && !l.starts_with("      "))
            .collect();
        assert!(!commands.is_empty(), "{page}");
        for command in commands {
            assert!(
                examples.lines().any(|l| l.replace("\\e", "\\") == command),
                "{page} lacks {command:?}:\n{examples}"
            );
        }
    }
    // The top-level page has the whole description, not only the one-line summary.
    let top = std::fs::read_to_string(dir.path().join("shotty.1")).expect("shotty.1");
    assert!(top.contains("captures a command"), "{top}");
}
