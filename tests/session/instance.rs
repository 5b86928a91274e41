//! The session core with real programs: output, input, replies, resize, exit, stop.

use std::sync::Arc;
use std::time::{Duration, Instant};

use shotty::pty::ColorEnvFlags;
use shotty::session::{Outcome, Session, SessionSpec, State, StopReason};

use crate::procs;

fn spec(command: &[&str]) -> SessionSpec {
    SessionSpec {
        command: command.iter().map(|s| s.to_string()).collect(),
        width: 80,
        height: 24,
        cwd: None,
        base_env: None,
        env: vec![
            ("PS1".into(), "$ ".into()),
            ("HISTFILE".into(), "/dev/null".into()),
        ],
        color_env: ColorEnvFlags::default(),
        scrollback: 1000,
        timeout: None,
        record_limit: shotty::session::instance::DEFAULT_RECORD_LIMIT,
    }
}

/// Waits (bounded) until `cond` holds for the screen text, and returns the text.
fn wait_text(session: &Session, what: &str, cond: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut live = session.lock();
    loop {
        let text = live.term.text();
        if cond(&text) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; screen:\n{text}"
        );
        live = session.wait_change(live, Some(deadline));
    }
}

fn wait_ended(session: &Session) -> State {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut live = session.lock();
    while !live.state.is_ended() {
        assert!(
            Instant::now() < deadline,
            "session did not end; state {:?}",
            live.state
        );
        live = session.wait_change(live, Some(deadline));
    }
    live.state
}

fn start(command: &[&str]) -> Arc<Session> {
    Session::start(format!("s_test{}", std::process::id()), spec(command)).expect("session starts")
}

/// Typed input reaches bash, whose output line appears on the screen; `exit 0` ends the
/// session as exited with code 0, after which input is refused as `session_exited`.
#[test]
fn bash_echoes_typed_input() {
    let s = start(&["bash", "--norc", "--noprofile", "-i"]);
    wait_text(&s, "the prompt", |t| t.trim_end().ends_with('$'));
    assert_eq!(s.lock().state, State::Running);
    s.write(b"echo hello-$((6*7))\r").expect("input written");
    // A line of its own: `hello-420` or the typed command cannot pass for it.
    let text = wait_text(&s, "the output", |t| t.lines().any(|l| l == "hello-42"));
    assert!(text.contains("$ echo hello-$((6*7))"), "{text}");
    let version = s.lock().version;
    assert!(version > 1);
    s.write(b"exit 0\r").expect("exit typed");
    assert_eq!(wait_ended(&s), State::Exited);
    let live = s.lock();
    assert_eq!(live.exit_code, Some(0));
    assert_eq!(live.outcome, Some(Outcome::Finished));
    drop(live);
    assert_eq!(
        s.write(b"x").unwrap_err().code,
        shotty::session::ErrorCode::SessionExited
    );
}

#[test]
fn a_failing_program_ends_as_failed() {
    let s = start(&["sh", "-c", "echo bye; exit 3"]);
    assert_eq!(wait_ended(&s), State::Exited);
    let live = s.lock();
    assert_eq!(
        (live.exit_code, live.outcome),
        (Some(3), Some(Outcome::Failed))
    );
    assert!(live.term.text().starts_with("bye"));
}

/// A session answers a cursor position query to its program: bash reads back exactly row 1,
/// column 3.
#[test]
fn terminal_replies_reach_the_program() {
    // bash asks for the cursor position and prints the answer it reads back.
    let script = r#"printf 'ab\033[6n'; IFS= read -rs -d R reply; printf '\r\nreply:%s\n' "${reply#??}"; sleep 5"#;
    let s = start(&["bash", "--norc", "--noprofile", "-c", script]);
    // The whole line, so that `1;30` or `1;3;…` cannot pass for row 1, column 3.
    wait_text(&s, "the cursor report", |t| {
        t.lines().any(|l| l == "reply:1;3")
    });
    s.stop(StopReason::User, Duration::from_secs(1))
        .expect("stopped");
}

/// A resize changes the grid and reaches the program (`stty size` prints exactly the new
/// size); a zero size is refused as `invalid_request`.
#[test]
fn resize_reaches_the_program_and_the_grid() {
    let s = start(&["bash", "--norc", "--noprofile", "-i"]);
    wait_text(&s, "the prompt", |t| t.trim_end().ends_with('$'));
    s.resize(120, 40).expect("resized");
    {
        let live = s.lock();
        assert_eq!((live.term.width(), live.term.height()), (120, 40));
    }
    s.write(b"stty size\r").expect("typed");
    wait_text(&s, "the new size", |t| t.lines().any(|l| l == "40 120"));
    assert_eq!(
        s.resize(0, 10).unwrap_err().code,
        shotty::session::ErrorCode::InvalidRequest
    );
    s.stop(StopReason::User, Duration::from_secs(1))
        .expect("stopped");
}

#[test]
fn stop_ends_the_whole_process_group() {
    let s = start(&["sh", "-c", "sleep 300 & sleep 300 & echo started; wait"]);
    wait_text(&s, "the start", |t| t.contains("started"));
    let pgid = s.pid();
    let started = Instant::now();
    s.stop(StopReason::User, Duration::from_secs(3))
        .expect("stopped");
    assert!(started.elapsed() < Duration::from_secs(5));
    let live = s.lock();
    assert_eq!(live.state, State::Stopped);
    assert_eq!(live.outcome, Some(Outcome::Stopped));
    assert_eq!(live.stop_reason, Some(StopReason::User));
    drop(live);
    // Nothing of the group that existed when the stop returned is left (by start time, so
    // a reused pid cannot fool the check).
    procs::assert_gone(pgid, procs::ticks_now());
}

/// A program that ignores SIGTERM and SIGHUP, with a child that ignores them too, is
/// stopped after the grace period: the stop waits out the grace, and afterwards the program,
/// its child and everything else of its process group are gone (zombies count as gone, a
/// reused pid does not count as alive).
#[test]
fn a_program_that_ignores_sigterm_is_killed_after_the_grace() {
    let s = start(&[
        "sh",
        "-c",
        "trap '' TERM HUP; (trap '' TERM HUP; exec sleep 301) & \
         echo \"ready $$ $! end\"; while :; do sleep 1; done",
    ]);
    let text = wait_text(&s, "the trap", |t| {
        t.lines()
            .any(|l| l.starts_with("ready ") && l.ends_with(" end"))
    });
    let pids: Vec<u32> = text
        .lines()
        .find_map(|l| l.strip_prefix("ready ")?.strip_suffix(" end"))
        .expect("the pids")
        .split(' ')
        .map(|p| p.parse().expect("a pid"))
        .collect();
    assert_eq!(pids[0], s.pid(), "the program printed its own pid");
    let seen: Vec<procs::Seen> = pids.iter().map(|&p| procs::Seen::now(p)).collect();
    let started = Instant::now();
    s.stop(StopReason::Timeout, Duration::from_millis(500))
        .expect("stopped");
    let took = started.elapsed();
    // SIGTERM did nothing, so the whole grace went by before the stop returned.
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert_eq!(s.lock().stop_reason, Some(StopReason::Timeout));
    procs::assert_all_gone(&seen);
    procs::assert_gone(s.pid(), procs::ticks_now());
}

#[test]
fn a_missing_program_is_session_not_started() {
    let err = Session::start("s_x".into(), spec(&["no-such-program-xyz"]))
        .err()
        .expect("error");
    assert_eq!(err.code, shotty::session::ErrorCode::SessionNotStarted);
    assert!(
        err.message.contains("no-such-program-xyz"),
        "{}",
        err.message
    );
}

/// A program that exits while a background process it started still holds the terminal (and
/// ignores the hang-up) ends the session as a terminal closing its side would: its own output
/// is on the screen, the session ends as exited with the program's status within a moment of
/// the output going quiet, and the straggler is gone.
#[test]
fn a_straggler_holding_the_terminal_does_not_keep_the_session_running() {
    let s = start(&[
        "sh",
        "-c",
        // The pause lets the background process ignore the hang-up before the program exits.
        "(trap '' HUP; exec sleep 300) & sleep 0.2; echo done; exit 3",
    ]);
    let started = Instant::now();
    assert_eq!(wait_ended(&s), State::Exited);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let live = s.lock();
    assert_eq!(live.exit_code, Some(3));
    assert_eq!(live.outcome, Some(Outcome::Failed));
    assert!(live.term.text().starts_with("done"), "{}", live.term.text());
    drop(live);
    procs::assert_gone(s.pid(), procs::ticks_now());
}
