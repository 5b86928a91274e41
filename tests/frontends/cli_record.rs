//! `shotty record` end to end, in a real terminal: tmux (its own server and socket directory
//! per test) runs a shell in an 80×24 pane, the shell runs `shotty record`, and the test types
//! into the pane, resizes it and signals shotty the way a user and their desktop would. The
//! cast written is checked against what happened (and played by asciinema), and the pane's
//! terminal modes against what they were before the recording.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::asciinema::asciinema_cat;
use crate::procs;

/// How long a test waits for the pane or a file before it fails.
const PATIENCE: Duration = Duration::from_secs(15);

/// The prompt of the shell being recorded, set through a variable so that the command line
/// that starts it does not show it.
const INNER_PROMPT: &str = "inner> ";

/// A tmux server of its own with one 80×24 window running `bash`, in a temporary directory
/// that is also the shell's working directory, HOME and the tmux socket's directory.
struct Tmux {
    dir: tempfile::TempDir,
    socket: String,
}

impl Tmux {
    /// `None` when tmux is missing (the test is then skipped, outside CI).
    fn new() -> Option<Tmux> {
        crate::needs::program("tmux")?;
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = tempfile::tempdir().expect("temp dir");
        let socket = format!(
            "record-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        );
        let tmux = Tmux { dir, socket };
        let out = tmux
            .command()
            .args(["new-session", "-d", "-x", "80", "-y", "24"])
            .args(["bash", "--norc", "--noprofile"])
            .output()
            .expect("tmux runs");
        assert!(out.status.success(), "tmux new-session: {}", stderr(&out));
        tmux.wait_for_pane("the outer shell's prompt", |pane| pane.contains("outer$"));
        Some(tmux)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A tmux client of this server. The environment is the server's too when it starts it,
    /// and so the shells'.
    fn command(&self) -> Command {
        let dir = self.dir.path();
        let mut cmd = Command::new("tmux");
        cmd.args(["-L", &self.socket, "-f", "/dev/null"])
            .current_dir(dir)
            .env("TMUX_TMPDIR", dir)
            .env_remove("TMUX")
            .env("HOME", dir)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("XDG_RUNTIME_DIR", dir)
            .env("TMPDIR", dir)
            .env("PS1", "outer$ ")
            .env("INNER_PS1", INNER_PROMPT)
            .env("SHOTTY", env!("CARGO_BIN_EXE_shotty"));
        cmd
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = self.command().args(args).output().expect("tmux runs");
        assert!(out.status.success(), "tmux {args:?}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types `text` literally, then Enter.
    fn type_line(&self, text: &str) {
        self.tmux(&["send-keys", "-l", text]);
        self.tmux(&["send-keys", "Enter"]);
    }

    fn pane(&self) -> String {
        self.tmux(&["capture-pane", "-p"])
    }

    fn wait_for_pane(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let pane = self.pane();
            if ready(&pane) {
                return pane;
            }
            assert!(Instant::now() < deadline, "no {what} on the pane:\n{pane}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The pane's lines that are exactly `line`, counted.
    fn lines_equal(&self, line: &str) -> usize {
        self.pane().lines().filter(|l| l.trim_end() == line).count()
    }

    /// Waits for the file `name` (written whole: the shell renames it into place).
    fn wait_for_file(&self, name: &str) -> String {
        let path = self.path(name);
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Ok(text) = std::fs::read_to_string(&path) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "no {name}; the pane:\n{}",
                self.pane()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts `shotty record -o out.cast -- bash` from the outer shell, which saves its
    /// terminal modes before and after, shotty's pid (`shotty.pid`) and exit code (`exit.txt`).
    fn start_recording(&self) {
        self.type_line(
            "stty -a > before.txt; sh -c 'echo $$ > shotty.pid; exec \"$SHOTTY\" record -o \
             out.cast -- env PS1=\"$INNER_PS1\" bash --norc --noprofile'; echo $? > exit.tmp; \
             mv exit.tmp exit.txt; stty -a > after.tmp; mv after.tmp after.txt",
        );
        self.wait_for_pane("prompt of the recorded shell", |pane| {
            // capture-pane drops the trailing space.
            pane.contains(INNER_PROMPT.trim_end())
        });
    }

    /// The exit code of `shotty record`, once it has ended and the outer shell has saved its
    /// terminal modes again.
    fn recording_exit_code(&self) -> i32 {
        let code = self.wait_for_file("exit.txt");
        self.wait_for_file("after.txt");
        code.trim()
            .parse()
            .unwrap_or_else(|_| panic!("exit code {code:?}"))
    }

    /// Asserts that the pane's terminal modes after the recording are those before it
    /// (everything `stty -a` shows but the size, which the test may have changed).
    fn assert_modes_restored(&self) {
        let modes = |name: &str| -> Vec<String> {
            let text = std::fs::read_to_string(self.path(name)).expect("stty -a saved");
            text.lines().skip(1).map(str::to_owned).collect()
        };
        let (before, after) = (modes("before.txt"), modes("after.txt"));
        let words: Vec<&str> = after.iter().flat_map(|l| l.split_whitespace()).collect();
        for mode in ["icanon", "echo", "isig", "opost", "icrnl"] {
            assert!(
                words.contains(&mode),
                "{mode} is off after the recording: {after:#?}"
            );
        }
        assert_eq!(after, before, "the terminal modes changed");
    }

    fn cast(&self) -> Cast {
        Cast::read(&self.path("out.cast"))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self
            .command()
            .arg("kill-server")
            .stderr(Stdio::null())
            .status();
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A cast file: its header and events.
struct Cast {
    path: PathBuf,
    header: Value,
    events: Vec<(f64, String, String)>,
}

impl Cast {
    fn read(path: &Path) -> Cast {
        let text = std::fs::read_to_string(path).expect("the cast was written");
        let mut lines = text.lines();
        let header: Value =
            serde_json::from_str(lines.next().expect("a header")).expect("a JSON header");
        let events = lines
            .map(|line| {
                let event: (f64, String, String) = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("event line {line:?}: {e}"));
                event
            })
            .collect();
        Cast {
            path: path.to_path_buf(),
            header,
            events,
        }
    }

    /// The data of every event of `code`, concatenated.
    fn stream(&self, code: &str) -> String {
        self.events
            .iter()
            .filter(|(_, c, _)| c == code)
            .map(|(_, _, data)| data.as_str())
            .collect()
    }
}

#[test]
fn record_passes_keys_and_resizes_through_and_restores_the_terminal() {
    let Some(tmux) = Tmux::new() else {
        return;
    };
    tmux.start_recording();
    tmux.type_line("echo hi");
    tmux.wait_for_pane("echo's output", |pane| pane.lines().any(|l| l == "hi"));

    tmux.tmux(&["resize-window", "-x", "100", "-y", "30"]);
    // SIGWINCH reaches shotty, which resizes the program's terminal; the program then sees
    // the new size (retried, as the signal is asynchronous).
    let deadline = Instant::now() + PATIENCE;
    while tmux.lines_equal("30 100") == 0 {
        assert!(Instant::now() < deadline, "no new size:\n{}", tmux.pane());
        tmux.type_line("stty size");
        std::thread::sleep(Duration::from_millis(300));
    }

    // Ctrl+C is the program's: it interrupts the sleep, and the shell lives on.
    tmux.type_line("sleep 100");
    std::thread::sleep(Duration::from_millis(300));
    tmux.tmux(&["send-keys", "C-c"]);
    tmux.type_line("echo still-$((6 * 7))");
    tmux.wait_for_pane("the shell after Ctrl+C", |pane| {
        pane.lines().any(|l| l == "still-42")
    });
    tmux.type_line("exit 3");

    assert_eq!(tmux.recording_exit_code(), 3, "the program's exit code");
    tmux.assert_modes_restored();

    let cast = tmux.cast();
    assert_eq!(cast.header["version"], 2);
    assert_eq!(
        (&cast.header["width"], &cast.header["height"]),
        (&80.into(), &24.into())
    );
    assert!(cast.header["timestamp"].is_u64(), "{}", cast.header);
    let input = cast.stream("i");
    for typed in [
        "echo hi\r",
        "stty size\r",
        "sleep 100\r",
        "\u{3}",
        "exit 3\r",
    ] {
        assert!(
            input.contains(typed),
            "{typed:?} not in the input: {input:?}"
        );
    }
    let resizes: Vec<&str> = cast
        .events
        .iter()
        .filter(|(_, c, _)| c == "r")
        .map(|(_, _, d)| d.as_str())
        .collect();
    assert_eq!(resizes, ["100x30"]);
    let output = cast.stream("o");
    for shown in ["\rhi\r\n", "30 100\r\n", "still-42\r\n"] {
        assert!(
            output.contains(shown),
            "{shown:?} not in the output: {output:?}"
        );
    }
    let times: Vec<f64> = cast.events.iter().map(|e| e.0).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    // The reference player gives back exactly the output recorded.
    if let Some(played) = asciinema_cat(&cast.path) {
        assert_eq!(String::from_utf8_lossy(&played), output);
    }
}

#[test]
fn sigterm_ends_the_program_and_the_recording_and_restores_the_terminal() {
    let Some(tmux) = Tmux::new() else {
        return;
    };
    tmux.start_recording();
    tmux.type_line("echo $$ > inner.tmp; mv inner.tmp inner.pid; echo before-term");
    let inner: u32 = tmux
        .wait_for_file("inner.pid")
        .trim()
        .parse()
        .expect("the shell's pid");
    let inner = procs::Seen::now(inner);
    tmux.wait_for_pane("echo's output", |pane| {
        pane.lines().any(|l| l == "before-term")
    });
    let shotty = tmux.wait_for_file("shotty.pid");
    let status = Command::new("kill")
        .args(["-TERM", shotty.trim()])
        .status()
        .expect("kill runs");
    assert!(status.success());

    // The shell dies of the SIGHUP it is sent first, and shotty exits as it did.
    assert_eq!(tmux.recording_exit_code(), 128 + 1);
    procs::assert_all_gone(&[inner]);
    tmux.assert_modes_restored();
    let cast = tmux.cast();
    assert_eq!(
        (&cast.header["width"], &cast.header["height"]),
        (&80.into(), &24.into())
    );
    assert!(cast.stream("o").contains("before-term\r\n"));
    tmux.wait_for_pane("shotty's note", |pane| {
        pane.contains("shotty: recording ended by SIGTERM")
    });
}

#[test]
fn record_without_a_terminal_refuses() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .args(["record", "-o", "out.cast", "--", "true"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("shotty runs");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stdin is not a terminal"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("out.cast").exists());
}

#[test]
fn record_with_stdout_not_a_terminal_refuses() {
    let Some(tmux) = Tmux::new() else {
        return;
    };
    tmux.type_line(
        "\"$SHOTTY\" record -o piped.cast -- true 2> err.txt | cat; echo ${PIPESTATUS[0]} > \
         exit.tmp; mv exit.tmp exit.txt",
    );
    assert_eq!(tmux.wait_for_file("exit.txt").trim(), "2");
    let err = std::fs::read_to_string(tmux.path("err.txt")).expect("stderr saved");
    assert!(err.contains("stdout is not a terminal"), "{err}");
    assert!(!tmux.path("piped.cast").exists());
}

/// A recording written as a GIF: the run animated, one frame per screen, looping.
#[test]
fn a_recording_is_written_as_a_gif() {
    let Some(tmux) = Tmux::new() else {
        return;
    };
    tmux.type_line(
        "\"$SHOTTY\" record --fps 10 -o out.gif -- sh -c 'echo drawn; sleep 0.4; echo more' \
         2> err.txt; echo $? > exit.tmp; mv exit.tmp exit.txt",
    );
    let code = tmux.wait_for_file("exit.txt");
    let err = std::fs::read_to_string(tmux.path("err.txt")).expect("stderr saved");
    assert_eq!(code.trim(), "0", "{err}");
    let file = std::fs::File::open(tmux.path("out.gif")).expect("the GIF");
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(file).expect("a GIF");
    let mut frames = 0;
    while decoder.read_next_frame().expect("a frame").is_some() {
        frames += 1;
    }
    // The blank start, "drawn", "more" (the shell's exit changes nothing more).
    assert!((2..=4).contains(&frames), "{frames} frames");
    assert_eq!(decoder.repeat(), gif::Repeat::Infinite);
}
