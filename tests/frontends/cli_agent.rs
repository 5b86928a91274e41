//! Agent input through `shotty session` (SPEC §11): mouse steps against a raw-mode program
//! that shows the bytes it reads (expected bytes written out from xterm's ctlseqs, "Mouse
//! Tracking"), htop clicked through its function bar, and pauses inside a send.

use crate::cli_session::Env;
use crate::needs;

const INPUT_ECHO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/inputecho.py");

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A session running `inputecho.py`.
struct InputEcho<'a> {
    env: &'a Env,
    id: String,
    /// Reads the program has made.
    reads: u32,
}

impl<'a> InputEcho<'a> {
    fn start(env: &'a Env, width: u16) -> InputEcho<'a> {
        let width = width.to_string();
        let id = env.start(&[
            "--width", &width, "--height", "24", "--", "python3", INPUT_ECHO,
        ]);
        env.ok(&["wait", &id, "--text", "ready", "--timeout", "15s"]);
        InputEcho { env, id, reads: 0 }
    }

    /// Turns off every mouse mode, then on `modes` (`"1000,1006"`).
    fn modes(&mut self, modes: &str) {
        self.reads += 1;
        let command = format!("!m{modes}");
        self.env.ok(&["send", &self.id, "--text", &command]);
        let shown = format!("{} MODES {modes}", self.reads);
        self.env
            .ok(&["wait", &self.id, "--text", &shown, "--timeout", "10s"]);
    }

    /// Pushes kitty keyboard `flags` and checks the terminal's answer to the query after it.
    fn kitty(&mut self, flags: u8) {
        self.reads += 1;
        let command = format!("!k{flags}");
        self.env.ok(&["send", &self.id, "--text", &command]);
        // The answer to `CSI ? u` is the program's next read.
        self.reads += 1;
        let answer = format!(
            "{} HEX:{}",
            self.reads,
            hex(format!("\x1b[?{flags}u").as_bytes())
        );
        self.env
            .ok(&["wait", &self.id, "--text", &answer, "--timeout", "10s"]);
    }

    /// Sends `args` and returns the hex of what the program read.
    #[track_caller]
    fn send(&mut self, args: &[&str]) -> String {
        let mut all = vec!["send", self.id.as_str()];
        all.extend_from_slice(args);
        self.env.ok(&all);
        self.reads += 1;
        let prefix = format!("{} HEX:", self.reads);
        let doc = self
            .env
            .ok(&["wait", &self.id, "--text", &prefix, "--timeout", "10s"]);
        let text = doc["screen"]["text"].as_str().expect("screen text");
        let line = text
            .lines()
            .find(|l| l.starts_with(&prefix))
            .expect("the line");
        line[prefix.len()..].trim().to_owned()
    }
}

#[test]
fn mouse_steps_are_encoded_for_each_tracking_mode_and_encoding() {
    let env = Env::new();
    let mut echo = InputEcho::start(&env, 300);

    // Tracking off: refused, and the program reads nothing.
    let doc = env.error(&["send", &echo.id, "--click", "2,4"], "invalid_operation");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("mouse tracking"),
        "{doc}"
    );

    // A left click at row 2, column 4: 1-based 5;3, each value + 32 in the older encodings;
    // the release is button 3 there, the button itself with `m` in SGR.
    echo.modes("1000");
    assert_eq!(echo.send(&["--click", "2,4"]), hex(b"\x1b[M %#\x1b[M#%#"));
    echo.modes("1000,1005");
    assert_eq!(echo.send(&["--click", "2,4"]), hex(b"\x1b[M %#\x1b[M#%#"));
    echo.modes("1000,1006");
    assert_eq!(
        echo.send(&["--click", "2,4"]),
        hex(b"\x1b[<0;5;3M\x1b[<0;5;3m")
    );
    echo.modes("1000,1015");
    assert_eq!(
        echo.send(&["--click", "2,4"]),
        hex(b"\x1b[32;5;3M\x1b[35;5;3M")
    );
    // X10 mode: presses only, no modifiers.
    echo.modes("9");
    assert_eq!(
        echo.send(&["--mods", "ctrl", "--click", "2,4"]),
        hex(b"\x1b[M %#")
    );

    // Buttons and modifiers: right is 2, Shift 4, Alt 8, Ctrl 16.
    echo.modes("1000,1006");
    assert_eq!(
        echo.send(&[
            "--button",
            "right",
            "--mods",
            "shift,ctrl",
            "--click",
            "0,0"
        ]),
        hex(b"\x1b[<22;1;1M\x1b[<22;1;1m")
    );
    assert_eq!(
        echo.send(&["--double-click", "1,1"]),
        hex(b"\x1b[<0;2;2M\x1b[<0;2;2m\x1b[<0;2;2M\x1b[<0;2;2m")
    );
    // The wheel: buttons 64 (up) and 65 (down), presses only, where the last step left the
    // pointer or --at.
    assert_eq!(
        echo.send(&["--scroll", "down:3"]),
        hex(&b"\x1b[<65;2;2M".repeat(3))
    );
    assert_eq!(
        echo.send(&["--scroll", "up", "--at", "9,19"]),
        hex(b"\x1b[<64;20;10M")
    );

    // Motion: button-event tracking reports it while a button is held (32 + button), one
    // report per cell entered; normal tracking sends the press and release only.
    echo.modes("1002,1006");
    assert_eq!(
        echo.send(&["--drag", "0,0:0,2"]),
        hex(b"\x1b[<0;1;1M\x1b[<32;2;1M\x1b[<32;3;1M\x1b[<0;3;1m")
    );
    echo.modes("1000,1006");
    assert_eq!(
        echo.send(&["--drag", "0,0:0,2"]),
        hex(b"\x1b[<0;1;1M\x1b[<0;3;1m")
    );
    // Any-event tracking reports a move without a button as 35.
    echo.modes("1003,1006");
    assert_eq!(echo.send(&["--move", "5,5"]), hex(b"\x1b[<35;6;6M"));
    echo.modes("1003");
    assert_eq!(echo.send(&["--move", "5,5"]), hex(b"\x1b[MC&&"));

    // Far columns: the default encoding stops at 223 (refused, not clamped), UTF-8 carries
    // 251 + 32 = U+011B as two bytes, SGR and urxvt write numbers.
    echo.modes("1000");
    env.error(&["send", &echo.id, "--click", "0,250"], "invalid_operation");
    echo.modes("1000,1005");
    assert_eq!(
        echo.send(&["--click", "0,250"]),
        hex(b"\x1b[M \xc4\x9b!\x1b[M#\xc4\x9b!")
    );
    echo.modes("1000,1015");
    assert_eq!(
        echo.send(&["--click", "0,250"]),
        hex(b"\x1b[32;251;1M\x1b[35;251;1M")
    );

    // A text on the screen: its Nth occurrence's first cell. The screen shows "N MODES
    // 1000,1006": "1000" is at column 8, the second "0" of the line at column 10.
    echo.modes("1000,1006");
    let n = echo.reads.to_string();
    let text_col = n.len() + 7;
    assert_eq!(
        echo.send(&["--click-text", "1000"]),
        hex(format!("\x1b[<0;{c};1M\x1b[<0;{c};1m", c = text_col + 1).as_bytes())
    );
    env.error(
        &["send", &echo.id, "--click-text", "no such text"],
        "invalid_operation",
    );

    // Usage errors name the option; nothing is sent.
    for bad in [
        &["--click", "2"][..],
        &["--click", "a,b"],
        &["--click", "24,0"],
        &["--scroll", "sideways"],
        &["--button", "left"],
        &["--nth", "2"],
        &["--mods", "hyper", "--click", "0,0"],
    ] {
        let mut args = vec!["send", echo.id.as_str()];
        args.extend_from_slice(bad);
        env.error(&args, "invalid_request");
    }
}

/// `--keys Escape --delay 50ms --text q` reaches the program as two reads: Escape, then q
/// (without the pause a terminal program reads ESC q as Alt+q).
#[test]
fn a_delay_inside_send_splits_the_write() {
    let env = Env::new();
    let mut echo = InputEcho::start(&env, 80);
    assert_eq!(echo.send(&["--keys", "Escape", "--text", "q"]), "1b71");
    let started = std::time::Instant::now();
    env.ok(&[
        "send", &echo.id, "--keys", "Escape", "--delay", "300ms", "--text", "q",
    ]);
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
    // Two reads: the counter moved by two and the second read was q alone (one read would
    // show `N+1 HEX:1b71`).
    let second = format!("{} HEX:71", echo.reads + 2);
    env.ok(&["wait", &echo.id, "--text", &second, "--timeout", "10s"]);
    env.error(
        &["send", &echo.id, "--delay", "2m", "--text", "q"],
        "invalid_request",
    );
}

/// htop driven by the mouse: a click on "Help" in its function bar opens the help screen.
#[test]
fn htop_is_clicked_through_its_function_bar() {
    if needs::program("htop").is_none() {
        return;
    }
    let env = Env::new();
    let id = env.start(&["--width", "100", "--height", "30", "--", "htop"]);
    env.ok(&["wait", &id, "--text", "Help", "--timeout", "15s"]);
    let doc = env.ok(&["send", &id, "--click-text", "Help"]);
    assert!(doc["written"].as_u64().unwrap() > 0, "{doc}");
    env.ok(&[
        "wait",
        &id,
        "--text",
        "Released under the GNU GPL",
        "--timeout",
        "10s",
    ]);
    env.ok(&["stop", &id]);
}

/// `start --shell-integration` for each shell: the user's own start-up file still runs (and
/// is left as it was), `wait --command` reports the command that finished after the last
/// input with its exit code and output, never one still running, and `read` tells whether
/// the shell waits at its prompt.
fn shell_integration(shell: &str, rc_file: &str, rc_text: &str) {
    if needs::program(shell).is_none() {
        return;
    }
    let env = Env::new();
    let rc = env.home.join(rc_file);
    std::fs::create_dir_all(rc.parent().unwrap()).unwrap();
    std::fs::write(&rc, rc_text).unwrap();
    let doc = env.ok(&[
        "start",
        "--shell-integration",
        "--wait-ready",
        "15s",
        "--width",
        "80",
        "--height",
        "24",
        "--",
        shell,
    ]);
    assert_eq!(doc["ready"], true, "{doc}");
    let id = doc["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(env.ok(&["read", &id])["prompt"]["ready"], true);

    // A failing command, its output captured; the variable comes from the user's rc file.
    env.ok(&[
        "send",
        &id,
        "--text",
        "echo \"rc=$SHOTTY_RC\"; false",
        "--keys",
        "Enter",
    ]);
    let done = env.ok(&["wait", &id, "--command", "--timeout", "10s"]);
    let command = &done["command"];
    assert_eq!(command["text"], "echo \"rc=$SHOTTY_RC\"; false", "{done}");
    assert_eq!(command["exitCode"], 1, "{done}");
    assert_eq!(command["output"], "rc=from-the-user", "{done}");

    // A command that takes 2 s: not reported while it runs.
    env.ok(&[
        "send",
        &id,
        "--text",
        "sleep 2; echo slept",
        "--keys",
        "Enter",
    ]);
    let early = env.error(
        &["wait", &id, "--command", "--timeout", "700ms"],
        "wait_timeout",
    );
    assert!(early.get("command").is_none(), "{early}");
    assert_eq!(env.ok(&["read", &id])["prompt"]["ready"], false);
    let done = env.ok(&["wait", &id, "--command", "--timeout", "10s"]);
    assert_eq!(done["command"]["exitCode"], 0, "{done}");
    assert_eq!(done["command"]["output"], "slept", "{done}");
    let took = done["command"]["durationMs"].as_u64().unwrap();
    assert!((1900..6000).contains(&took), "{done}");
    // Asked again with no input since: the same command, at once.
    let again = env.ok(&["wait", &id, "--command", "--timeout", "1s"]);
    assert_eq!(again["command"]["index"], done["command"]["index"]);
    // The command's end (D) comes before the next prompt (A, B), which a shell may take a
    // moment to draw: ready once it is there.
    let ready_by = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while env.ok(&["read", &id])["prompt"]["ready"] != true {
        assert!(
            std::time::Instant::now() < ready_by,
            "the prompt never came back"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    let list = env.ok(&["commands", &id]);
    let codes: Vec<i64> = list["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["exitCode"].as_i64().unwrap())
        .collect();
    assert_eq!(codes, [1, 0], "{list}");
    assert_eq!(
        std::fs::read_to_string(&rc).unwrap(),
        rc_text,
        "the rc file changed"
    );
    env.ok(&["stop", &id]);
}

#[test]
fn bash_with_shell_integration_reports_commands() {
    shell_integration(
        "bash",
        ".bashrc",
        "export SHOTTY_RC=from-the-user\nPS1='bash> '\n",
    );
}

#[test]
fn zsh_with_shell_integration_reports_commands() {
    shell_integration(
        "zsh",
        ".zshrc",
        "export SHOTTY_RC=from-the-user\nPS1='zsh> '\n",
    );
}

#[test]
fn fish_with_shell_integration_reports_commands() {
    shell_integration(
        "fish",
        ".config/fish/config.fish",
        "set -gx SHOTTY_RC from-the-user\nfunction fish_greeting; end\n",
    );
}

#[test]
fn shell_integration_refuses_what_is_no_interactive_shell() {
    let env = Env::new();
    env.error(
        &["start", "--shell-integration", "--", "python3"],
        "invalid_request",
    );
    env.error(
        &["start", "--shell-integration", "--", "bash", "-c", "true"],
        "invalid_request",
    );
}

/// Names, id prefixes and `last` stand for an id; the waits for a title, a bell, a content
/// change and a fresh text; `read --since`; `find` with a style.
#[test]
fn names_waits_reads_and_find() {
    let env = Env::new();
    let doc = env.ok(&[
        "start",
        "--name",
        "box",
        "--env",
        "PS1=$ ",
        "--width",
        "60",
        "--height",
        "12",
        "--",
        "bash",
        "--norc",
        "--noprofile",
        "-i",
    ]);
    assert_eq!(doc["name"], "box", "{doc}");
    let id = doc["sessionId"].as_str().unwrap().to_owned();
    env.ok(&["wait", "box", "--regex", r"(?m)^\$ ?$", "--timeout", "10s"]);
    env.error(&["start", "--name", "box", "--", "true"], "invalid_request");
    env.error(
        &["start", "--name", "last", "--", "true"],
        "invalid_request",
    );
    assert_eq!(env.ok(&["read", "box"])["sessionId"], id.as_str());
    assert_eq!(env.ok(&["read", &id[..8]])["sessionId"], id.as_str());
    assert_eq!(env.ok(&["read", &id[2..9]])["sessionId"], id.as_str());
    assert_eq!(env.ok(&["read", "last"])["sessionId"], id.as_str());
    env.error(&["read", "no-such-name"], "session_not_found");

    // Polling: nothing changed since the version read → no screen; then a change.
    let read = env.ok(&["read", "box"]);
    let version = read["version"].as_u64().unwrap().to_string();
    let hash = read["hash"].as_str().unwrap().to_owned();
    let same = env.ok(&["read", "box", "--since", &version]);
    assert_eq!(
        (same["changed"].as_bool(), same.get("screen")),
        (Some(false), None),
        "{same}"
    );
    assert_eq!(same["hash"], hash.as_str());
    env.error(
        &[
            "wait",
            "box",
            "--changed",
            "--since",
            &version,
            "--timeout",
            "300ms",
        ],
        "wait_timeout",
    );
    env.ok(&["send", "box", "--text", "echo one", "--keys", "Enter"]);
    env.ok(&[
        "wait",
        "box",
        "--changed",
        "--since",
        &version,
        "--timeout",
        "5s",
    ]);
    let after = env.ok(&["read", "box", "--since", &version]);
    assert_eq!(after["changed"], true, "{after}");
    assert_ne!(after["hash"], hash.as_str());

    // Title and bell.
    env.ok(&[
        "send",
        "box",
        "--text",
        r"printf '\e]2;%s\a' title-set",
        "--keys",
        "Enter",
    ]);
    env.ok(&["wait", "box", "--title", "title-set", "--timeout", "5s"]);
    env.ok(&["send", "box", "--keys", "Enter"]);
    env.error(
        &["wait", "box", "--bell", "--timeout", "300ms"],
        "wait_timeout",
    );
    env.ok(&["send", "box", "--text", r"printf '\a'", "--keys", "Enter"]);
    env.ok(&["wait", "box", "--bell", "--timeout", "5s"]);

    // The echoed command line satisfies a plain wait at once, not a fresh one.
    env.ok(&[
        "send",
        "box",
        "--text",
        "sleep 1; echo fresh-marker",
        "--keys",
        "Enter",
    ]);
    let plain = env.ok(&["wait", "box", "--text", "fresh-marker", "--timeout", "5s"]);
    assert!(plain["waitedMs"].as_u64().unwrap() < 700, "{plain}");
    let fresh = env.ok(&[
        "wait",
        "box",
        "--fresh",
        "--text",
        "fresh-marker",
        "--timeout",
        "5s",
    ]);
    assert!(fresh["waitedMs"].as_u64().unwrap() >= 500, "{fresh}");

    // find: the command line and the output; with a style, only the bold one.
    let found = env.ok(&["find", "box", "--text", "fresh-marker"]);
    let matches = found["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 2, "{found}");
    let text = crate::cli_session::screen(&env, "box");
    let rows: Vec<&str> = text.lines().collect();
    for m in matches {
        let (row, col) = (
            m["row"].as_u64().unwrap() as usize,
            m["col"].as_u64().unwrap() as usize,
        );
        assert_eq!(rows[row].find("fresh-marker"), Some(col), "{m} in {text}");
    }
    env.ok(&[
        "send",
        "box",
        "--text",
        r"printf '\e[1mBOLD\e[m BOLD\n'",
        "--keys",
        "Enter",
    ]);
    env.ok(&["wait", "box", "--text", "BOLD BOLD", "--timeout", "5s"]);
    let bold = env.ok(&["find", "box", "--text", "BOLD", "--style", "bold"]);
    let bold = bold["matches"].as_array().unwrap().clone();
    assert_eq!(bold.len(), 1, "{bold:?}");
    assert_eq!(bold[0]["col"], 0);
    env.error(
        &["find", "box", "--text", "BOLD", "--style", "shiny"],
        "invalid_condition",
    );
    let history = env.ok(&["find", "box", "--regex", "^one$", "--history"]);
    assert_eq!(history["matches"].as_array().unwrap().len(), 1, "{history}");
    env.ok(&["stop", "box"]);
}

/// `restart` ends the program and runs the same command again in a new session that takes
/// over the name; the old one is kept, stopped for `restart`.
#[test]
fn restart_runs_the_command_again_under_the_same_name() {
    let env = Env::new();
    let first = env.start(&[
        "--name",
        "svc",
        "--width",
        "50",
        "--height",
        "8",
        "--",
        "sh",
        "-c",
        "echo started-$$; exec sleep 60",
    ]);
    env.ok(&["wait", "svc", "--text", "started-", "--timeout", "10s"]);
    env.ok(&["resize", "svc", "--width", "70", "--height", "9"]);
    let doc = env.ok(&["restart", "svc"]);
    let second = doc["sessionId"].as_str().unwrap().to_owned();
    assert_ne!(second, first);
    assert_eq!(doc["previousSessionId"], first.as_str(), "{doc}");
    assert_eq!(
        (doc["width"].as_u64(), doc["height"].as_u64()),
        (Some(70), Some(9)),
        "{doc}"
    );
    env.ok(&["wait", "svc", "--text", "started-", "--timeout", "10s"]);
    assert_eq!(env.ok(&["read", "svc"])["sessionId"], second.as_str());
    let listed = env.ok(&["list", "--all"]);
    let old = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == first.as_str())
        .expect("the old session is kept")
        .clone();
    assert_eq!(
        (old["state"].as_str(), old["stopReason"].as_str()),
        (Some("stopped"), Some("restart")),
        "{old}"
    );
    env.ok(&["stop", "svc"]);
}

/// `--idle` waits out a spinner (content that keeps changing: rich's status spinner, redrawn
/// every 80 ms for 2 s) and is then met although the cursor keeps blinking (visibility
/// toggles are no content change).
#[test]
fn idle_waits_out_a_spinner_but_not_a_blinking_cursor() {
    let Some(python) = needs::python("rich.progress") else {
        return;
    };
    let env = Env::new();
    let script = r#"
import sys, time
from rich.console import Console
console = Console(force_terminal=True)
with console.status("working"):
    time.sleep(2)
print("done")
sys.stdout.flush()
for _ in range(200):
    for toggle in ("\x1b[?25l", "\x1b[?25h"):
        sys.stdout.write(toggle)
        sys.stdout.flush()
        time.sleep(0.05)
"#;
    let id = env.start(&[
        "--width",
        "60",
        "--height",
        "8",
        "--",
        &python.to_string_lossy(),
        "-c",
        script,
    ]);
    env.ok(&["wait", &id, "--text", "working", "--timeout", "15s"]);
    let idle = env.ok(&["wait", &id, "--idle", "500ms", "--timeout", "15s"]);
    let text = idle["screen"]["text"].as_str().unwrap();
    assert!(text.contains("done") && !text.contains("working"), "{idle}");
    assert!(idle["waitedMs"].as_u64().unwrap() >= 1000, "{idle}");
    env.ok(&["stop", &id]);
}

/// A program that pushes kitty keyboard flags gets its keys in the protocol's encoding
/// (expected bytes from the kitty keyboard protocol's specification); releases and repeats
/// only once it asked for event types.
#[test]
fn keys_follow_the_kitty_flags_the_program_pushed() {
    let env = Env::new();
    let mut echo = InputEcho::start(&env, 80);
    assert_eq!(echo.send(&["--keys", "Escape"]), "1b");
    assert_eq!(echo.send(&["--keys", "Ctrl+a"]), "01");
    env.error(
        &["send", &echo.id, "--key-release", "a"],
        "invalid_operation",
    );
    env.error(&["send", &echo.id, "--keys", "Ctrl+1"], "unsupported_key");

    // Flag 1, disambiguate: Escape and Ctrl+letter become CSI u; plain text stays text.
    echo.kitty(1);
    assert_eq!(echo.send(&["--keys", "Escape"]), hex(b"\x1b[27u"));
    assert_eq!(echo.send(&["--keys", "Ctrl+a"]), hex(b"\x1b[97;5u"));
    assert_eq!(echo.send(&["--keys", "Ctrl+1"]), hex(b"\x1b[49;5u"));
    assert_eq!(echo.send(&["--keys", "a"]), "61");
    env.error(
        &["send", &echo.id, "--key-release", "a"],
        "invalid_operation",
    );

    // Flags 1|2: releases and repeats, with their event type after the modifiers.
    echo.kitty(3);
    assert_eq!(echo.send(&["--key-release", "a"]), hex(b"\x1b[97;1:3u"));
    assert_eq!(echo.send(&["--key-repeat", "Left"]), hex(b"\x1b[1;1:2D"));
    assert_eq!(
        echo.send(&["--keys", "Ctrl+a", "--key-release", "Ctrl+a"]),
        hex(b"\x1b[97;5u\x1b[97;5:3u")
    );
}

/// `output`: the whole stream with offsets (more than the screen holds), plain or with its
/// escapes, from an offset on, bounded by the recording (older output reported dropped), and
/// followed live as JSON lines until the program ends.
#[test]
fn output_is_the_stream_with_offsets() {
    let env = Env::new();
    let id = env.start(&[
        "--width", "40", "--height", "5", "--", "sh", "-c",
        r"i=1; while [ $i -le 300 ]; do printf '\033[32mline %d\033[m\n' $i; i=$((i+1)); done; exec sleep 30",
    ]);
    env.ok(&["wait", &id, "--text", "line 300", "--timeout", "10s"]);
    let all = env.ok(&["output", &id]);
    let text = all["text"].as_str().unwrap();
    let expected: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    assert_eq!(text, expected, "{all}");
    assert_eq!(
        (all["start"].as_u64(), all["dropped"].as_bool()),
        (Some(0), Some(false))
    );
    let end = all["end"].as_u64().unwrap();
    let colored = env.ok(&["output", &id, "--ansi", "--since", &(end - 20).to_string()]);
    assert!(
        colored["text"].as_str().unwrap().contains("\u{1b}[m"),
        "{colored}"
    );
    let none = env.ok(&["output", &id, "--since", &end.to_string()]);
    assert_eq!(
        (none["text"].as_str(), none["start"].as_u64()),
        (Some(""), Some(end))
    );
    env.ok(&["stop", &id]);

    // A recording bound of 64K: the first of 200K of output is gone, and said so.
    let id = env.start(&[
        "--record-limit",
        "64K",
        "--",
        "sh",
        "-c",
        r"i=1; while [ $i -le 20000 ]; do echo row-$i; i=$((i+1)); done; exec sleep 30",
    ]);
    env.ok(&["wait", &id, "--text", "row-20000", "--timeout", "20s"]);
    let tail = env.ok(&["output", &id]);
    assert_eq!(tail["dropped"], true, "{}", tail["start"]);
    assert!(tail["start"].as_u64().unwrap() > 100_000);
    assert!(tail["text"].as_str().unwrap().ends_with("row-20000\n"));
    env.ok(&["stop", &id]);

    // --follow: pieces as they come, then the status document.
    let id = env.start(&[
        "--",
        "sh",
        "-c",
        "echo one; sleep 0.4; echo two; sleep 0.4; echo three",
    ]);
    let out = env.command(&["output", &id, "--follow"]).output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (last, pieces) = lines.split_last().unwrap();
    assert_eq!(last["status"], "ok", "{last}");
    let followed: String = pieces.iter().map(|p| p["text"].as_str().unwrap()).collect();
    assert_eq!(followed, "one\ntwo\nthree\n");
    assert!(pieces.len() >= 2, "{pieces:?}");
}

/// `start --wait-ready` without shell integration returns once the program sleeps reading
/// its terminal with its output written: not while it is still busy starting.
#[test]
fn wait_ready_returns_once_the_program_reads_input() {
    let env = Env::new();
    let started = std::time::Instant::now();
    let doc = env.ok(&[
        "start",
        "--wait-ready",
        "10s",
        "--",
        "python3",
        "-c",
        "import time; time.sleep(1); print('loaded'); input('name? ')",
    ]);
    assert_eq!(doc["ready"], true, "{doc}");
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(900),
        "{doc}"
    );
    let id = doc["sessionId"].as_str().unwrap();
    let text = crate::cli_session::screen(&env, id);
    assert!(text.contains("loaded\nname?"), "{text}");
    // A program that never waits for input is not ready: the reply says so in time.
    let busy = env.ok(&[
        "start",
        "--wait-ready",
        "700ms",
        "--",
        "sh",
        "-c",
        "while :; do :; done",
    ]);
    assert_eq!(busy["ready"], false, "{busy}");
    env.ok(&["stop", "--all", "--yes"]);
}

/// `session capture` and `inspect` take `--mask`/`--mask-auto` like every rendering command:
/// the token is in neither file, while the screen the host holds is untouched.
#[test]
fn session_capture_and_inspect_mask_secrets() {
    let env = Env::new();
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    let id = env.start(&[
        "--width",
        "80",
        "--height",
        "5",
        "--",
        "sh",
        "-c",
        &format!("echo GITHUB_TOKEN={token}; exec sleep 30"),
    ]);
    env.ok(&["wait", &id, "--text", token, "--timeout", "10s"]);
    let dir = tempfile::tempdir().unwrap();
    for name in ["shot.svg", "shot.json", "shot.txt"] {
        let out = dir.path().join(name);
        env.ok(&["capture", &id, "-o", out.to_str().unwrap(), "--mask-auto"]);
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(!written.contains(token), "{name}: {written}");
        // (JSON has one object per cell: the text is not in one piece there.)
        assert!(
            name.ends_with("json") || written.contains("GITHUB_TOKEN="),
            "{name}"
        );
    }
    let inspected = env.ok(&["inspect", &id, "--mask", "ghp_[A-Za-z0-9]+"]);
    let svg = std::fs::read_to_string(inspected["path"].as_str().unwrap()).unwrap();
    assert!(!svg.contains(token) && svg.contains("url(#masked)"));
    assert!(crate::cli_session::screen(&env, &id).contains(token));
    env.error(
        &[
            "export",
            &id,
            "-o",
            dir.path().join("x.cast").to_str().unwrap(),
            "--mask-auto",
        ],
        "invalid_request",
    );
    env.ok(&["stop", &id]);
}
