//! Wait conditions on real programs: present, absent, gone, stable-for, regex, idle, exit,
//! timeout, session end and cancellation. Every wait is bounded.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use shotty::pty::ColorEnvFlags;
use shotty::session::wait::{Target, Until, WaitCondition, WaitResult, wait};
use shotty::session::{Session, SessionSpec, StopReason};

fn start(script: &str) -> Arc<Session> {
    let spec = SessionSpec {
        command: vec!["sh".into(), "-c".into(), script.into()],
        width: 40,
        height: 10,
        cwd: None,
        base_env: None,
        env: Vec::new(),
        color_env: ColorEnvFlags::default(),
        scrollback: 100,
        timeout: None,
        record_limit: shotty::session::instance::DEFAULT_RECORD_LIMIT,
    };
    Session::start("s_wait".into(), spec).expect("session starts")
}

fn cond(target: Target) -> WaitCondition {
    WaitCondition {
        target,
        until: Until::Present,
        stable_for: None,
        timeout: Some(Duration::from_secs(10)),
        fresh: false,
    }
}

fn run(session: &Session, c: &WaitCondition) -> (WaitResult, Duration) {
    let o = wait(session, c, &AtomicBool::new(false));
    (o.result, o.waited)
}

fn text(t: &str) -> Target {
    Target::Text(t.into())
}

#[test]
fn text_present_matches_when_it_appears() {
    let s = start("sleep 0.2; echo ready; sleep 5");
    let (result, waited) = run(&s, &cond(text("ready")));
    assert_eq!(result, WaitResult::Matched);
    assert!(waited >= Duration::from_millis(150), "{waited:?}");
    s.stop(StopReason::User, Duration::from_secs(1)).unwrap();
}

#[test]
fn absent_needs_the_text_to_have_been_seen_first() {
    let s = start("echo Working; sleep 0.3; printf '\\033[2J\\033[HDone'; sleep 5");
    let c = WaitCondition {
        until: Until::Absent,
        ..cond(text("Working"))
    };
    let (result, waited) = run(&s, &c);
    assert_eq!(result, WaitResult::Matched);
    assert!(waited >= Duration::from_millis(250), "{waited:?}");

    let s2 = start("echo other; sleep 5");
    let c = WaitCondition {
        until: Until::Absent,
        timeout: Some(Duration::from_millis(300)),
        ..cond(text("never shown"))
    };
    assert_eq!(run(&s2, &c).0, WaitResult::Timeout);
    s.stop(StopReason::User, Duration::from_secs(1)).unwrap();
    s2.stop(StopReason::User, Duration::from_secs(1)).unwrap();
}

#[test]
fn gone_is_met_by_text_never_seen_once_the_input_was_answered() {
    let s = start("echo ready; read x; sleep 0.2; printf '\\033[2J\\033[Hdone'; exec sleep 5");
    assert_eq!(run(&s, &cond(text("ready"))).0, WaitResult::Matched);
    let gone = |t: &str, timeout_ms: u64| WaitCondition {
        until: Until::Gone,
        timeout: Some(Duration::from_millis(timeout_ms)),
        ..cond(text(t))
    };
    // Never on the screen: met at once, where `absent` would wait to see it first.
    let (result, waited) = run(&s, &gone("Loading", 5000));
    assert_eq!(result, WaitResult::Matched);
    assert!(waited < Duration::from_secs(2), "{waited:?}");
    // On the screen: met once the program has cleared it, 0.2 s after the line it read.
    s.write(b"\n").expect("the line is written");
    let (result, waited) = run(&s, &gone("ready", 5000));
    assert_eq!(result, WaitResult::Matched);
    assert!(waited >= Duration::from_millis(150), "{waited:?}");
    assert!(s.lock().term.contains_text("done"));
    // Staying: times out.
    assert_eq!(run(&s, &gone("done", 300)).0, WaitResult::Timeout);
    s.stop(StopReason::User, Duration::from_secs(1)).unwrap();
}

#[test]
fn stable_for_restarts_when_the_condition_breaks() {
    // "A" shows for 100 ms, vanishes, then comes back for good.
    let s = start("echo A; sleep 0.1; printf '\\033[2J'; sleep 0.2; echo A; sleep 5");
    let c = WaitCondition {
        stable_for: Some(Duration::from_millis(300)),
        ..cond(text("A"))
    };
    let (result, waited) = run(&s, &c);
    assert_eq!(result, WaitResult::Matched);
    assert!(waited >= Duration::from_millis(550), "{waited:?}");
    s.stop(StopReason::User, Duration::from_secs(1)).unwrap();
}

#[test]
fn regex_and_bad_regex() {
    let s = start("sleep 0.1; echo 'call 555-0123 now'; sleep 5");
    let target = WaitCondition::regex(r"\d{3}-\d{4}").expect("valid regex");
    assert_eq!(run(&s, &cond(target)).0, WaitResult::Matched);
    let err = WaitCondition::regex("(unclosed").unwrap_err();
    assert_eq!(err.code, shotty::session::ErrorCode::InvalidCondition);
    s.stop(StopReason::User, Duration::from_secs(1)).unwrap();
}

#[test]
fn idle_waits_out_a_spinner_but_not_a_blinking_cursor() {
    let spinner = "for i in 1 2 3 4 5 6 7 8; do printf '\\r%s' \"$i\"; sleep 0.08; done; sleep 5";
    let s = start(spinner);
    let (result, waited) = run(&s, &cond(Target::Idle(Duration::from_millis(300))));
    assert_eq!(result, WaitResult::Matched);
    assert!(
        waited >= Duration::from_millis(800),
        "spinner must keep it busy: {waited:?}"
    );

    let blink = "echo steady; while :; do printf '\\033[?25l'; sleep 0.05; printf '\\033[?25h'; sleep 0.05; done";
    let b = start(blink);
    let (result, waited) = run(&b, &cond(Target::Idle(Duration::from_millis(300))));
    assert_eq!(result, WaitResult::Matched);
    assert!(
        waited < Duration::from_secs(2),
        "cursor toggling is not activity: {waited:?}"
    );
    s.stop(StopReason::User, Duration::from_secs(1)).unwrap();
    b.stop(StopReason::User, Duration::from_secs(1)).unwrap();
}

#[test]
fn exit_timeout_and_session_end() {
    let s = start("sleep 0.2");
    assert_eq!(run(&s, &cond(Target::Exit)).0, WaitResult::Matched);

    let s = start("echo bye");
    let c = WaitCondition {
        timeout: None,
        ..cond(text("never"))
    };
    assert_eq!(run(&s, &c).0, WaitResult::SessionEnded);

    let s = start("sleep 5");
    let c = WaitCondition {
        timeout: Some(Duration::from_millis(250)),
        ..cond(text("never"))
    };
    let (result, waited) = run(&s, &c);
    assert_eq!(result, WaitResult::Timeout);
    assert!(
        waited >= Duration::from_millis(240) && waited < Duration::from_secs(2),
        "{waited:?}"
    );
    s.stop(StopReason::User, Duration::from_secs(1)).unwrap();
}

#[test]
fn cancellation_wakes_the_waiter() {
    let s = start("sleep 5");
    let cancel = Arc::new(AtomicBool::new(false));
    let waiter = {
        let s = Arc::clone(&s);
        let cancel = Arc::clone(&cancel);
        std::thread::spawn(move || {
            let c = WaitCondition {
                timeout: None,
                ..cond(text("never"))
            };
            wait(&s, &c, &cancel)
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    cancel.store(true, Ordering::SeqCst);
    s.notify();
    let outcome = waiter.join().expect("waiter");
    assert_eq!(outcome.result, WaitResult::Cancelled);
    assert!(outcome.waited < Duration::from_secs(2));
    s.stop(StopReason::User, Duration::from_secs(1)).unwrap();
}
