//! `shotty capture`, the `shotty -- CMD` shorthand and pipe mode, through the real binary
//! and real programs.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use shotty::term::Snapshot;

fn shotty(args: &[&str], stdin: Option<&[u8]>, dir: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shotty"))
        // No config file of the machine's: only what the test gives.
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .args(args)
        .current_dir(dir)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("shotty starts");
    if let Some(bytes) = stdin {
        let written = child.stdin.take().expect("piped stdin").write_all(bytes);
        // A run refused for its options ends before reading its input, closing the pipe
        // under the write: its exit status and message are what the test checks.
        if let Err(e) = written
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            panic!("stdin not written: {e}");
        }
    }
    child.wait_with_output().expect("shotty finishes")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn snapshot(path: &Path) -> Snapshot {
    serde_json::from_slice(&std::fs::read(path).expect("output written")).expect("schema-1 JSON")
}

#[test]
fn capture_renders_a_command_and_returns_its_exit_code() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = shotty(
        &[
            "capture",
            "-o",
            "out.json",
            "--",
            "sh",
            "-c",
            "printf 'hello \\033[1;31mred\\033[0m\\n'; exit 3",
        ],
        None,
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let snap = snapshot(&dir.path().join("out.json"));
    assert_eq!(snap.width, 100);
    assert_eq!(snap.text(), "hello red");
    let red = &snap.rows[0].cells[6];
    assert_eq!(red.t, "r");
    assert!(snap.styles[red.s as usize].bold);
}

#[test]
fn the_shorthand_writes_output_svg_by_default_with_the_command_as_title() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = shotty(&["-d", "macos", "--", "echo", "hi there"], None, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = std::fs::read_to_string(dir.path().join("output.svg")).expect("output.svg");
    assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
    assert!(svg.contains(">echo 'hi there'</tspan>"), "title missing");
    let snap = shotty::diff::load_snapshot(svg.as_bytes()).expect("metadata");
    assert_eq!(snap.text(), "hi there");
}

#[test]
fn height_fits_the_output_including_scrollback_unless_given() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = shotty(
        &["-o", "seq.json", "-w", "20", "--", "seq", "1", "120"],
        None,
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let snap = snapshot(&dir.path().join("seq.json"));
    assert_eq!(snap.height, 120, "all 120 lines, more than the 50-row run");
    assert_eq!(snap.rows[0].cells[0].t, "1");
    assert_eq!(snap.text().lines().last(), Some("120"));

    let out = shotty(
        &[
            "-o",
            "five.json",
            "-w",
            "20",
            "-h",
            "5",
            "--",
            "seq",
            "1",
            "120",
        ],
        None,
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let snap = snapshot(&dir.path().join("five.json"));
    assert_eq!(snap.height, 5);
    // A fixed height shows the screen as it is: the last line feed left the cursor on an
    // empty bottom row.
    assert_eq!(snap.text(), "117\n118\n119\n120\n");
}

#[test]
fn with_command_shows_prompt_and_header() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = shotty(
        &["-c", "-o", "a.txt", "--", "echo", "out"],
        None,
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("a.txt"),
        "$ echo out\nout\n"
    );
    let out = shotty(
        &[
            "--prompt", ">", "--header", "make", "-o", "b.txt", "--", "echo", "ok",
        ],
        None,
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.txt")).expect("b.txt"),
        "> make\nok\n"
    );
}

/// `--after` shows a later moment of a program that keeps running (the first draw is long
/// gone) and exits 0, so `set -e` scripts take the screenshot as the success it is; it
/// refuses to be combined with the other end conditions.
#[test]
fn after_takes_a_later_moment_and_exits_0() {
    let dir = tempfile::tempdir().expect("temp dir");
    let start = std::time::Instant::now();
    let out = shotty(
        &[
            "--after",
            "1s",
            "-o",
            "a.txt",
            "--",
            "sh",
            "-c",
            "echo first; sleep 0.3; echo second; sleep 30",
        ],
        None,
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let took = start.elapsed();
    assert!(took.as_millis() >= 1000 && took.as_secs() < 10, "{took:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("a.txt"),
        "first\nsecond\n"
    );
    // A command that ends sooner is captured at its end, with its exit code.
    let start = std::time::Instant::now();
    let out = shotty(
        &[
            "--after",
            "5s",
            "-o",
            "b.txt",
            "--",
            "sh",
            "-c",
            "echo done; exit 3",
        ],
        None,
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(start.elapsed().as_secs() < 4);
    for other in [&["--timeout", "2s"][..], &["--until-text", "x"]] {
        let mut args = vec!["--after", "1s"];
        args.extend_from_slice(other);
        args.extend_from_slice(&["-o", "c.txt", "--", "true"]);
        let out = shotty(&args, None, dir.path());
        assert_eq!(out.status.code(), Some(2), "{other:?}");
        assert!(
            stderr(&out).contains("cannot be used with"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn timeout_and_until_text_stop_early_and_still_write() {
    let dir = tempfile::tempdir().expect("temp dir");
    let start = std::time::Instant::now();
    let out = shotty(
        &[
            "--timeout",
            "300ms",
            "-o",
            "t.txt",
            "--",
            "sh",
            "-c",
            "echo started; sleep 30",
        ],
        None,
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(124), "{}", stderr(&out));
    assert!(start.elapsed().as_secs() < 10);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("t.txt")).expect("t.txt"),
        "started\n"
    );

    let out = shotty(
        &[
            "--until-text",
            "ready",
            "-o",
            "u.txt",
            "--",
            "sh",
            "-c",
            "sleep 0.1; echo ready; sleep 30",
        ],
        None,
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("u.txt")).expect("u.txt"),
        "ready\n"
    );
}

#[test]
fn colour_environment_reaches_the_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = "echo $TERM $COLORTERM $FORCE_COLOR ${CI-unset}";
    let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
        // No config file of the machine's: only what the test gives.
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .args(["--stdout", "--format", "txt", "--", "sh", "-c", script])
        .env("CI", "1")
        .current_dir(dir.path())
        .output()
        .expect("shotty runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "xterm-256color truecolor 3 unset\n"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
        // No config file of the machine's: only what the test gives.
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .args([
            "--stdout",
            "--format",
            "txt",
            "--no-delete-envs",
            "--",
            "sh",
            "-c",
            script,
        ])
        .env("CI", "1")
        .output()
        .expect("shotty runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "xterm-256color truecolor 3 1\n"
    );
}

/// `--no-colorenv`: the command gets the caller's TERM, COLORTERM and FORCE_COLOR as they are
/// (unset ones stay unset, none is set to shotty's values), while CI is still removed.
#[test]
fn no_colorenv_leaves_the_colour_variables_as_the_caller_has_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).expect("home made");
    let script = "echo ${TERM-unset} ${COLORTERM-unset} ${FORCE_COLOR-unset} ${CI-unset}";
    let run = |colorterm: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_shotty"));
        cmd.args(["--stdout", "--format", "txt", "--no-colorenv", "--"])
            .args(["sh", "-c", script])
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .current_dir(dir.path())
            .env("HOME", &home)
            .env("TMPDIR", dir.path())
            .env("TERM", "vt100")
            .env("CI", "1")
            .env_remove("FORCE_COLOR")
            .stdin(Stdio::null());
        match colorterm {
            Some(value) => cmd.env("COLORTERM", value),
            None => cmd.env_remove("COLORTERM"),
        };
        let out = cmd.output().expect("shotty runs");
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(run(None), "vt100 unset unset unset\n");
    assert_eq!(run(Some("24bit")), "vt100 24bit unset unset\n");
}

#[test]
fn pipe_mode_renders_stdin_with_bare_line_feeds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = shotty(
        &["--stdout", "--format", "txt", "-w", "30"],
        Some(b"first\n\x1b[32msecond\x1b[0m\nthird"),
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "first\nsecond\nthird\n"
    );
}

#[test]
fn bad_input_is_a_one_line_error_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases: &[(&[&str], &str)] = &[
        (
            &["-o", "x.svg", "--", "no-such-command-xyz"],
            "cannot run `no-such-command-xyz`",
        ),
        (
            &["-t", "no-such-theme", "-o", "x.svg", "--", "true"],
            "unknown theme",
        ),
        (
            &["-d", "mac", "-o", "x.svg", "--", "true"],
            "unknown window style",
        ),
        (
            &[
                "--crop-top",
                "nothing matches this",
                "-o",
                "x.svg",
                "--",
                "echo",
                "a",
            ],
            "matches no row",
        ),
        (
            &[
                "--theme",
                "/nonexistent/t.json",
                "-o",
                "x.svg",
                "--",
                "true",
            ],
            "cannot read theme",
        ),
        (
            &["--backcolor", "red", "-o", "x.svg", "--", "true"],
            "is not a #rrggbb colour",
        ),
        (&["-o", "x.bmp", "--", "true"], "cannot tell the format"),
        (
            &["--video", "-o", "x.png", "--", "true"],
            "--video writes .svg, .gif, .apng or .mp4",
        ),
        (
            &[
                "--video", "--from", "2", "--to", "1", "-o", "x.svg", "--", "true",
            ],
            "--to must be later",
        ),
        (
            &["--fontsize", "0", "-o", "x.svg", "--", "true"],
            "font size 0 is outside",
        ),
    ];
    for (args, expected) in cases {
        let out = shotty(args, None, dir.path());
        let err = stderr(&out);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert_eq!(
            std::fs::read_dir(dir.path()).expect("dir").count(),
            0,
            "{args:?} wrote a file"
        );
    }
    // Usage errors (clap) exit with 2.
    let out = shotty(&["-w", "0", "--", "true"], None, dir.path());
    assert_eq!(out.status.code(), Some(2));
    // Piped output has no timing.
    let out = shotty(&["--video", "-o", "x.svg"], Some(b"text"), dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no timing to animate"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn video_records_the_run_and_writes_it_animated() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script =
        "printf '\\033[1;32mfirst\\033[0m'; sleep 0.6; printf ' second'; sleep 0.3; exit 4";
    let out = shotty(
        &[
            "capture", "--video", "-w", "30", "-h", "3", "--fps", "10", "--sleep", "0.5", "-o",
            "run.svg", "--", "bash", "--norc", "-c", script,
        ],
        None,
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let svg = std::fs::read_to_string(dir.path().join("run.svg")).expect("animation written");
    assert!(svg.contains("@keyframes"), "{svg}");
    // Two screens in the strip: the first word, then both (each row shown by one screen
    // only, so written in place).
    assert_eq!(svg.matches("\n<svg").count(), 2, "{svg}");
    assert_eq!(svg.matches(" id=\"r").count(), 0, "{svg}");
    assert_eq!(svg.matches("%{transform").count(), 3, "{svg}");
    // The row runs on in spaces to the grid's right edge (30 cells).
    assert!(svg.contains(">second                  </"), "{svg}");
    // The output ends about 0.6 s in (the run's last output); with the 0.5 s sleep the
    // animation lasts 1.1 s, give or take the machine's scheduling.
    let millis: u64 = svg
        .split("animation:play ")
        .nth(1)
        .and_then(|rest| rest.split("ms").next())
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no duration in {svg}"));
    assert!((1000..1800).contains(&millis), "{millis} ms");
}

/// `shotty ARGS` in `dir`, killed after 20 s if it has not ended by then (exit code 124).
fn bounded(args: &[&str], dir: &Path) -> Output {
    Command::new("timeout")
        .arg("20")
        .arg(env!("CARGO_BIN_EXE_shotty"))
        .args(args)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("timeout runs")
}

#[test]
fn a_capture_ends_when_the_command_waits_for_a_key() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A pager's situation: output, then a read from the terminal.
    let started = std::time::Instant::now();
    let out = bounded(
        &[
            "-o",
            "x.txt",
            "--",
            "sh",
            "-c",
            "printf 'page one\\n:'; read answer",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert!(
        stderr(&out).contains("waiting for keyboard input"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(dir.path().join("x.txt")).expect("written");
    assert!(text.contains("page one"), "{text}");
    // A full-screen program is captured as it drew its screen, not as it left it.
    if crate::support::needs::program("vim").is_none() {
        return;
    }
    let out = bounded(
        &[
            "-o",
            "vim.txt",
            "--",
            "vim",
            "-u",
            "NONE",
            "-N",
            "notes.txt",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.path().join("vim.txt")).expect("written");
    assert!(text.contains("\"notes.txt\" [New]"), "{text}");
    // A program that sleeps is not waiting for input: it runs to its end.
    let out = bounded(
        &["-o", "s.txt", "--", "sh", "-c", "sleep 1; echo slept"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.path().join("s.txt")).expect("written");
    assert!(text.contains("slept"), "{text}");
}

#[test]
fn until_text_waits_for_the_screen_to_be_drawn_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    // dialog's situation: the text appears first, the rest of the screen a moment later.
    let script = "printf '< OK >'; sleep 0.3; printf ' < Cancel >'; sleep 30";
    let out = bounded(
        &[
            "--until-text",
            "OK",
            "--stable-for",
            "1s",
            "-o",
            "d.txt",
            "--",
            "sh",
            "-c",
            script,
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.path().join("d.txt")).expect("written");
    assert!(text.contains("< OK > < Cancel >"), "{text}");
    let out = bounded(
        &[
            "--until-text",
            "OK",
            "--stable-for",
            "0s",
            "-o",
            "e.txt",
            "--",
            "sh",
            "-c",
            script,
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.path().join("e.txt")).expect("written");
    assert!(
        !text.contains("Cancel"),
        "--stable-for 0s captures at once: {text}"
    );
}

#[test]
fn an_animation_runs_at_24_rows_unless_told_otherwise() {
    let dir = tempfile::tempdir().expect("temp dir");
    let height = |args: &[&str], name: &str| {
        let mut all = vec!["capture", "-w", "20", "-o", name];
        all.extend(args);
        all.extend(["--", "echo", "hi"]);
        let out = shotty(&all, None, dir.path());
        assert!(out.status.success(), "{}", stderr(&out));
        let file = std::fs::File::open(dir.path().join(name)).expect("GIF written");
        let decoder = gif::DecodeOptions::new().read_info(file).expect("a GIF");
        decoder.height()
    };
    // A .gif animates without --video, at the animation's height, not the fitted capture's.
    assert_eq!(height(&[], "a.gif"), height(&["-h", "24"], "b.gif"));
    assert!(height(&[], "a.gif") > height(&["-h", "23"], "c.gif"));
}
