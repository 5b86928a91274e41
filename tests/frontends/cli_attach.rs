//! `shotty session attach` end to end, in a real terminal: an "outer" session runs the
//! attach command (then `stty -a`, to show the terminal's modes once it is done) against the
//! same host as the "target" session it attaches to. What the outer screen shows is what an
//! attached person sees; keys sent to the outer session are what they type.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli_session::{Env, shell};
use crate::procs;

/// Starts an outer session (100×30) running `shotty session attach ARGS…`, then `stty -a`
/// and `DETACHED-<its exit code>`; it stays, so its terminal's modes can be looked at.
fn attach(env: &Env, args: &[&str]) -> String {
    attach_with(env, &[], args)
}

/// [`attach`] with more of the attach process's environment (`KEY=VALUE`).
fn attach_with(env: &Env, vars: &[&str], args: &[&str]) -> String {
    let script = r#""$0" session attach "$@"; s=$?; stty -a; echo DETACHED-$s; exec sleep 600"#;
    let runtime = format!("SHOTTY_RUNTIME_DIR={}", env.runtime.display());
    let state = format!("SHOTTY_STATE_DIR={}", env.state.display());
    let home = format!("HOME={}", env.home.display());
    let mut all = vec![
        "--width", "100", "--height", "30", "--env", &runtime, "--env", &state, "--env", &home,
    ];
    for var in vars {
        all.extend(["--env", var]);
    }
    all.extend(["--", "sh", "-c", script, env!("CARGO_BIN_EXE_shotty")]);
    all.extend_from_slice(args);
    env.start(&all)
}

/// Waits (10 s at most) until a line of `id`'s screen starts with `text`: an output line, not
/// the command line that printed it.
fn line(env: &Env, id: &str, text: &str) {
    let pattern = format!("(?m)^{}", regex_escape(text));
    env.ok(&["wait", id, "--regex", &pattern, "--timeout", "10s"]);
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

fn screen(env: &Env, id: &str) -> String {
    let doc = env.ok(&["read", id]);
    doc["screen"]["text"]
        .as_str()
        .expect("screen text")
        .to_owned()
}

/// Runs `command` in the target's shell (sent to the target directly, as an agent would).
fn run(env: &Env, id: &str, command: &str) {
    env.ok(&["send", id, "--text", command, "--keys", "Enter"]);
}

/// After attach returned: the document it printed, once it has checked that the terminal
/// was left in its own modes (canonical, echoing) — both read from the outer session's
/// output, where no line is wrapped.
fn detached(env: &Env, outer: &str) -> Value {
    env.ok(&["wait", outer, "--text", "DETACHED-0", "--timeout", "10s"]);
    let output = env.ok(&["output", outer]);
    let text = output["text"].as_str().expect("output text");
    let (_, after) = text
        .split_once("\n{\"")
        .unwrap_or_else(|| panic!("no document in the output:\n{text}"));
    let (json, stty) = after.split_once('\n').expect("stty after the document");
    let doc: Value = serde_json::from_str(&format!("{{\"{json}"))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {json:?}\n{text}"));
    assert_eq!(doc["schemaVersion"], 1, "{doc}");
    assert_eq!(doc["status"], "ok", "{doc}");
    assert_restored(stty);
    doc
}

/// `stty -a` says the terminal is in its own modes again: canonical, echoing, signals on.
fn assert_restored(stty: &str) {
    let words: Vec<&str> = stty.split_whitespace().collect();
    for mode in ["icanon", "echo", "isig", "opost"] {
        assert!(
            words.contains(&mode) && !words.contains(&format!("-{mode}").as_str()),
            "{mode} not restored:\n{stty}"
        );
    }
}

/// The screen shows the session as it was, then its output live; typing reaches the
/// program, the session keeps its size, the detach key leaves the terminal as it was, and
/// attaching again works.
#[test]
fn attach_draws_streams_types_and_detaches() {
    let env = Env::new();
    let target = shell(&env);
    run(&env, &target, "echo before-$((6*7))");
    line(&env, &target, "before-42");

    let outer = attach(&env, &[&target]);
    // Printed before the attach: only the snapshot can have drawn it.
    line(&env, &outer, "before-42");

    env.ok(&[
        "send",
        &outer,
        "--text",
        "echo typed-through-$((40+2))",
        "--keys",
        "Enter",
    ]);
    line(&env, &target, "typed-through-42");
    line(&env, &outer, "typed-through-42");

    run(&env, &target, "echo agent-$((2*50))");
    line(&env, &outer, "agent-100");

    let read = env.ok(&["read", &target]);
    assert_eq!(
        (&read["screen"]["width"], &read["screen"]["height"]),
        (&Value::from(60), &Value::from(12)),
        "the session kept its size"
    );

    env.ok(&["send", &outer, "--keys", "Ctrl+]"]);
    let doc = detached(&env, &outer);
    assert_eq!(doc["detached"], true, "{doc}");
    assert_eq!(doc["state"], "running", "{doc}");
    assert_eq!(doc["sessionId"], target.as_str(), "{doc}");

    // The session goes on; attaching again draws its latest screen.
    run(&env, &target, "echo after-$((3*3))");
    line(&env, &target, "after-9");
    let again = attach(&env, &[&target]);
    line(&env, &again, "after-9");
    env.ok(&[
        "send",
        &again,
        "--text",
        "echo again-$((5+5))",
        "--keys",
        "Enter",
    ]);
    line(&env, &target, "again-10");
    env.ok(&["send", &again, "--keys", "Ctrl+]"]);
    assert_eq!(detached(&env, &again)["detached"], true);
}

/// `--read-only`: what is typed is dropped (a bell says so, once), the output still shows
/// live, and the detach key still detaches.
#[test]
fn read_only_attach_watches_without_typing() {
    let env = Env::new();
    let target = shell(&env);
    run(&env, &target, "echo ready-$((1+1))");
    let outer = attach(&env, &[&target, "--read-only"]);
    line(&env, &outer, "ready-2");
    let before = screen(&env, &target);

    env.ok(&["send", &outer, "--text", "echo typed-$((1+2))"]);
    env.ok(&["wait", &outer, "--bell", "--timeout", "5s"]);
    env.ok(&["send", &outer, "--keys", "Enter"]);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(screen(&env, &target), before, "typing reached the program");

    run(&env, &target, "echo live-$((3+4))");
    line(&env, &outer, "live-7");
    assert!(!screen(&env, &target).contains("typed"));

    env.ok(&["send", &outer, "--keys", "Ctrl+]"]);
    assert_eq!(detached(&env, &outer)["detached"], true);
}

/// Two terminals attached at once both show the output and both type into the program.
#[test]
fn two_attached_terminals_coexist() {
    let env = Env::new();
    let target = shell(&env);
    run(&env, &target, "echo ready-$((2+2))");
    let a = attach(&env, &[&target]);
    let b = attach(&env, &[&target]);
    line(&env, &a, "ready-4");
    line(&env, &b, "ready-4");

    run(&env, &target, "echo both-$((10*10))");
    line(&env, &a, "both-100");
    line(&env, &b, "both-100");

    env.ok(&[
        "send",
        &a,
        "--text",
        "echo from-a-$((1+2))",
        "--keys",
        "Enter",
    ]);
    line(&env, &target, "from-a-3");
    line(&env, &b, "from-a-3");
    env.ok(&[
        "send",
        &b,
        "--text",
        "echo from-b-$((2+2))",
        "--keys",
        "Enter",
    ]);
    line(&env, &target, "from-b-4");
    line(&env, &a, "from-b-4");

    for outer in [&a, &b] {
        env.ok(&["send", outer, "--keys", "Ctrl+]"]);
        assert_eq!(detached(&env, outer)["detached"], true);
    }
}

/// The program's end ends the attach: `detached: false`, the final state, the terminal put
/// back; attaching to the ended session is refused.
#[test]
fn the_programs_end_ends_attach() {
    let env = Env::new();
    let target = shell(&env);
    run(&env, &target, "echo ready-$((3+3))");
    let outer = attach(&env, &[&target]);
    line(&env, &outer, "ready-6");
    env.ok(&["send", &outer, "--text", "exit", "--keys", "Enter"]);
    env.ok(&["wait", &target, "--exit", "--timeout", "10s"]);
    let doc = detached(&env, &outer);
    assert_eq!(doc["detached"], false, "{doc}");
    assert_eq!(doc["state"], "exited", "{doc}");

    // An ended session is no session to attach to.
    let late = attach(&env, &[&target]);
    env.ok(&["wait", &late, "--text", "DETACHED-1", "--timeout", "10s"]);
    let output = env.ok(&["output", &late]);
    assert!(
        output["text"]
            .as_str()
            .is_some_and(|t| t.contains(r#""code":"session_exited""#)),
        "{output}"
    );
}

/// `stop` (which deletes the session) ends the attach as the program's end does.
#[test]
fn stopping_the_session_ends_attach() {
    let env = Env::new();
    let target = shell(&env);
    run(&env, &target, "echo ready-$((9+9))");
    let outer = attach(&env, &[&target]);
    line(&env, &outer, "ready-18");
    env.ok(&["stop", &target]);
    let doc = detached(&env, &outer);
    assert_eq!(doc["detached"], false, "{doc}");
    assert_eq!(doc["state"], "stopped", "{doc}");
}

/// SIGTERM ends the attach as the detach key does: the terminal is put back, the session
/// goes on.
#[test]
fn sigterm_detaches_cleanly() {
    let env = Env::new();
    let target = shell(&env);
    run(&env, &target, "echo ready-$((4+4))");
    let outer = attach(&env, &[&target]);
    line(&env, &outer, "ready-8");
    let list = env.ok(&["list"]);
    let sh = list["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|s| s["sessionId"] == outer.as_str())
        .and_then(|s| s["processId"].as_u64())
        .expect("the outer shell's pid") as u32;
    let attach_pid = procs::all()
        .into_iter()
        .find(|p| p.ppid == sh && p.is_live())
        .expect("the attach process")
        .pid;
    let status = std::process::Command::new("kill")
        .args(["-TERM", &attach_pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    assert_eq!(detached(&env, &outer)["detached"], true);
    run(&env, &target, "echo still-$((5*5))");
    line(&env, &target, "still-25");
}

/// A panic inside attach puts the terminal back too, before its message is printed: the
/// message is on the screen the user is left with, not on the session's alternate screen.
#[test]
fn a_panic_leaves_the_terminal_as_it_was() {
    let env = Env::new();
    let target = alternate_screen(&env);
    let vars = ["SHOTTY_TEST_PANIC_METHOD=attach", "RUST_BACKTRACE=0"];
    let outer = attach_with(&env, &vars, &[&target]);
    env.ok(&["wait", &outer, "--text", "ALT-SCREEN", "--timeout", "10s"]);
    env.ok(&["send", &outer, "--text", "x"]);
    env.ok(&["wait", &outer, "--text", "DETACHED-101", "--timeout", "10s"]);
    let after = screen(&env, &outer);
    assert!(after.contains("asked for a panic"), "{after}");
    assert!(!after.contains("ALT-SCREEN"), "{after}");
    let output = env.ok(&["output", &outer]);
    let text = output["text"].as_str().expect("output text");
    let (_, stty) = text.split_once("speed ").expect("stty -a ran");
    assert_restored(stty);
}

/// `--resize` gives the session the attached terminal's size, and follows its resizes;
/// another detach key detaches.
#[test]
fn resize_follows_the_attached_terminal() {
    let env = Env::new();
    let target = shell(&env);
    run(&env, &target, "echo ready-$((5+5))");
    let outer = attach(&env, &[&target, "--resize", "--detach-key", "Ctrl+X"]);
    line(&env, &outer, "ready-10");
    let size_becomes = |width: u64, height: u64| {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let read = env.ok(&["read", &target]);
            let size = (
                read["screen"]["width"].as_u64(),
                read["screen"]["height"].as_u64(),
            );
            if size == (Some(width), Some(height)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "size {size:?}, not {width}x{height}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    size_becomes(100, 30);
    env.ok(&["resize", &outer, "--width", "90", "--height", "25"]);
    size_becomes(90, 25);
    // Drawn again at the new size, and still live.
    run(&env, &target, "echo resized-$((6+6))");
    line(&env, &outer, "resized-12");
    env.ok(&["send", &outer, "--keys", "Ctrl+X"]);
    assert_eq!(detached(&env, &outer)["detached"], true);
}

/// A program that switches to the alternate screen, tracks the mouse, hides the cursor and
/// asks for key events (kitty flags 3), then waits.
fn alternate_screen(env: &Env) -> String {
    let target = env.start(&[
        "--width",
        "60",
        "--height",
        "12",
        "--",
        "sh",
        "-c",
        r#"printf '\033[?1049h\033[?1000h\033[?1006h\033[?25l\033[=3uALT-SCREEN'; exec sleep 600"#,
    ]);
    env.ok(&["wait", &target, "--text", "ALT-SCREEN", "--timeout", "10s"]);
    target
}

/// The session's modes become the attached terminal's — alternate screen, mouse tracking,
/// a hidden cursor, kitty keyboard flags — and are switched off again on detaching. The
/// detach key is recognized as the kitty keyboard protocol encodes it too.
#[test]
fn detaching_switches_the_sessions_modes_off() {
    let env = Env::new();
    let target = alternate_screen(&env);
    let outer = attach(&env, &[&target]);
    env.ok(&["wait", &outer, "--text", "ALT-SCREEN", "--timeout", "10s"]);
    let screen = |id: &str| env.ok(&["read", id])["screen"].clone();
    let attached = screen(&outer);
    assert_eq!(
        (&attached["isAlternateScreen"], &attached["cursorVisible"]),
        (&Value::from(true), &Value::from(false)),
        "{attached}"
    );
    // The outer terminal tracks the mouse and reports key events (kitty flag 2) now.
    env.ok(&["send", &outer, "--click", "1,1", "--key-release", "a"]);

    // Sent as CSI 93;5u: the outer terminal has the kitty flags on.
    env.ok(&["send", &outer, "--keys", "Ctrl+]"]);
    assert_eq!(detached(&env, &outer)["detached"], true);
    let after = screen(&outer);
    assert_eq!(
        (&after["isAlternateScreen"], &after["cursorVisible"]),
        (&Value::from(false), &Value::from(true)),
        "{after}"
    );
    env.error(&["send", &outer, "--click", "1,1"], "invalid_operation");
    env.error(&["send", &outer, "--key-release", "a"], "invalid_operation");
}

/// `output` with `screen`: a keyframe, and the offset after which the output continues it
/// exactly (a terminal fed both shows the session's screen); for an ended session its final
/// screen.
#[test]
fn output_screen_is_a_keyframe_the_stream_continues() {
    let env = Env::new();
    let target = shell(&env);
    run(&env, &target, "printf '\\033[1;31mred-%s\\n' $((2+2))");
    line(&env, &target, "red-4");
    let output = |params: serde_json::Value| {
        let mut params = params;
        params["sessionId"] = target.clone().into();
        let request = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "output", "params": params,
        });
        let reply = env.raw(format!("{request}\n").as_bytes());
        assert!(reply["result"].is_object(), "{reply}");
        reply["result"].clone()
    };
    let first = output(serde_json::json!({ "screen": true }));
    let end = first["end"].as_u64().expect("end");
    assert_eq!(first["start"], end, "{first}");
    assert_eq!(first["text"], "", "{first}");
    assert_eq!(first["dropped"], false, "{first}");
    assert_eq!(
        output(serde_json::json!({}))["end"],
        end,
        "the stream's end"
    );
    let keyframe = first["keyframe"].as_str().expect("keyframe").to_owned();
    assert!(keyframe.contains("red-4"), "{keyframe:?}");

    // Still red: the keyframe restored the pen the program left.
    run(&env, &target, "echo after-$((3*3))");
    line(&env, &target, "after-9");
    let rest = output(serde_json::json!({ "since": end, "ansi": true }));
    let mut term = shotty::term::Terminal::new(60, 12);
    term.advance(keyframe.as_bytes());
    term.advance(rest["text"].as_str().expect("text").as_bytes());
    let live = env.ok(&["read", &target, "--structured"]);
    assert_eq!(term.text(), live["screen"]["text"].as_str().expect("text"));
    assert_eq!(
        serde_json::to_value(term.snapshot()).expect("JSON"),
        live["screen"]["structured"],
        "styles and cursor too"
    );

    run(&env, &target, "exit");
    env.ok(&["wait", &target, "--exit", "--timeout", "10s"]);
    let last = output(serde_json::json!({ "screen": true }));
    assert_eq!(last["state"], "exited", "{last}");
    assert_eq!(last["start"], last["end"], "{last}");
    assert_eq!(last["end"], output(serde_json::json!({}))["end"], "{last}");
    assert!(
        last["keyframe"]
            .as_str()
            .is_some_and(|k| k.contains("after-9")),
        "{last}"
    );
}

/// A keyframe asked for while a long string (here a title of 6000 characters) is being
/// sent waits for its end: the output after the keyframe does not begin inside it, where a
/// terminal would show its rest as text.
#[test]
fn a_keyframe_waits_for_a_long_string_to_end() {
    let env = Env::new();
    let script = r#"sleep 0.2; printf '\033]2;'; head -c 5000 /dev/zero | tr '\0' x; sleep 0.4; head -c 1000 /dev/zero | tr '\0' y; printf '\007DONE'; exec sleep 600"#;
    let target = env.start(&["--width", "40", "--height", "5", "--", "sh", "-c", script]);
    let output = |params: Value| {
        let mut params = params;
        params["sessionId"] = target.clone().into();
        let request = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "output", "params": params,
        });
        let reply = env.raw(format!("{request}\n").as_bytes());
        assert!(reply["result"].is_object(), "{reply}");
        reply["result"].clone()
    };
    // Into the pause, inside the title.
    let deadline = Instant::now() + Duration::from_secs(10);
    while output(serde_json::json!({}))["end"].as_u64() < Some(5004) {
        assert!(Instant::now() < deadline, "no output");
        std::thread::sleep(Duration::from_millis(5));
    }
    let first = output(serde_json::json!({ "screen": true }));
    let end = first["end"].as_u64().expect("end");
    assert!(end >= 6005, "taken inside the title, at {end}");
    env.ok(&["wait", &target, "--text", "DONE", "--timeout", "10s"]);
    let rest = output(serde_json::json!({ "since": end, "ansi": true }));
    let mut term = shotty::term::Terminal::new(40, 5);
    term.advance(first["keyframe"].as_str().expect("keyframe").as_bytes());
    term.advance(rest["text"].as_str().expect("text").as_bytes());
    assert_eq!(term.text(), screen(&env, &target));
}

/// Without a terminal there is nothing to attach: a JSON error, exit 1.
#[test]
fn attach_needs_a_terminal() {
    let env = Env::new();
    let target = shell(&env);
    let doc = env.error(&["attach", &target], "invalid_request");
    let message = doc["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("attach needs a terminal"), "{doc}");
}

/// A program that asks its terminal for the cursor position gets one answer — the host's
/// emulator's — while attached: the attached terminal (here the outer session's emulator,
/// which answers queries too) is not shown the query.
#[test]
fn queries_are_answered_once_while_attached() {
    let env = Env::new();
    let script = r#"
import os, select, tty
tty.setraw(0)
os.write(1, b"ready\r\n")
while True:
    data = os.read(0, 1024)
    if data == b"q":
        os.write(1, b"\x1b[6n")
        got = b""
        while select.select([0], [], [], 0.7)[0]:
            got += os.read(0, 1024)
        os.write(1, b"GOT:" + got.hex().encode() + b"\r\n")
"#;
    let target = env.start(&[
        "--width", "60", "--height", "10", "--", "python3", "-c", script,
    ]);
    env.ok(&["wait", &target, "--text", "ready", "--timeout", "15s"]);
    let outer = attach(&env, &[&target]);
    line(&env, &outer, "ready");
    env.ok(&["send", &target, "--text", "q"]);
    line(&env, &target, "GOT:");
    let shown = screen(&env, &target);
    let got = shown.lines().find(|l| l.starts_with("GOT:")).unwrap();
    // One cursor position report: ESC [ row ; col R.
    assert_eq!(got.matches("1b5b").count(), 1, "{got}");
    assert!(got.ends_with("52"), "{got}");
    env.ok(&["send", &outer, "--keys", "Ctrl+]"]);
    detached(&env, &outer);
}
