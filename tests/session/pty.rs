//! The PTY layer against real programs. Every wait is bounded: runs carry a timeout, event
//! loops a deadline.

use std::time::{Duration, Instant};

use shotty::pty::{ColorEnvFlags, PtyCommand, PtyError, PtyEvent, PtyProcess};
use shotty::session::run::{RunEnd, RunOutcome, StopWhen, run_to_completion};
use shotty::term::{ColorValue, Terminal};

use crate::procs;

/// A generous safety net so that a broken implementation fails instead of hanging.
const SAFETY: Duration = Duration::from_secs(20);

fn sh(script: &str) -> PtyCommand {
    let mut cmd = PtyCommand::new("sh");
    cmd.arg("-c").arg(script).size(80, 24);
    cmd
}

fn bash(script: &str) -> PtyCommand {
    let mut cmd = PtyCommand::new("bash");
    cmd.arg("--norc").arg("-c").arg(script).size(80, 24);
    cmd
}

fn stop_after(timeout: Duration) -> StopWhen {
    StopWhen {
        timeout: Some(timeout),
        ..StopWhen::default()
    }
}

/// Runs `cmd` in a terminal of its size with the safety timeout.
fn run(cmd: &PtyCommand) -> (RunOutcome, Terminal) {
    let mut term = Terminal::new(cmd.width().into(), cmd.height().into());
    let outcome = run_to_completion(cmd, &mut term, &stop_after(SAFETY)).expect("run");
    assert_eq!(outcome.stopped_by, RunEnd::Exited, "{}", term.text());
    (outcome, term)
}

/// Asserts that nothing of session `id` that existed when it was ended is left. Processes are
/// compared by start time too, so a pid reused by another test's process meanwhile (pid_max
/// is small here) neither passes nor fails the check wrongly.
fn assert_gone(id: u32) {
    procs::assert_gone(id, procs::ticks_now());
}

/// Feeds events into `term` (answering its queries) until `needle` is on screen.
fn pump_until(process: &PtyProcess, term: &mut Terminal, needle: &str) -> bool {
    let deadline = Instant::now() + SAFETY;
    while !term.text().contains(needle) {
        let left = deadline.saturating_duration_since(Instant::now());
        match process.events().recv_timeout(left) {
            Ok(PtyEvent::Output(bytes)) => {
                term.advance(&bytes);
                process.input().try_write(term.take_replies()).unwrap();
            }
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    true
}

#[test]
fn colour_output_lands_in_the_terminal() {
    // No shell: printf is run directly.
    let mut cmd = PtyCommand::new("printf");
    cmd.arg("\x1b[31mred\x1b[0m plain\\n").size(40, 5);
    let (outcome, term) = run(&cmd);
    assert_eq!(outcome.exit_code, Some(0));
    assert_eq!(outcome.signal, None);
    assert!(term.text().starts_with("red plain"), "{:?}", term.text());
    let snap = term.snapshot();
    let red = &snap.styles[snap.rows[0].cells[0].s as usize];
    assert_eq!(red.fg, Some(ColorValue::Index(1)));
    let plain = &snap.styles[snap.rows[0].cells[4].s as usize];
    assert_eq!(plain.fg, None);
}

#[test]
fn exit_code_is_reported() {
    let start = Instant::now();
    let (outcome, _) = run(&sh("exit 3"));
    assert_eq!(outcome.exit_code, Some(3));
    assert_eq!(outcome.signal, None);
    // End-of-file arrives with the exit; no post-exit drain delay.
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn missing_program_is_a_clean_error() {
    let start = Instant::now();
    let err = PtyProcess::spawn(&PtyCommand::new("nosuchcmd")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot run `nosuchcmd`: No such file or directory"
    );
    assert!(matches!(
        err,
        PtyError::CannotRun {
            kind: std::io::ErrorKind::NotFound,
            ..
        }
    ));
    assert!(start.elapsed() < Duration::from_secs(1));

    let mut term = Terminal::new(80, 24);
    let err = run_to_completion(
        &PtyCommand::new("./no/such/prog"),
        &mut term,
        &StopWhen::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot run `./no/such/prog`: No such file or directory"
    );
}

#[test]
fn non_executable_program_and_bad_cwd_are_clean_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("script");
    std::fs::write(&file, "#!/bin/sh\necho hi\n").unwrap();
    let err = PtyProcess::spawn(&PtyCommand::new(&file)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot run `{}`: Permission denied", file.display())
    );

    let mut cmd = PtyCommand::new("true");
    cmd.cwd(dir.path().join("missing"));
    let err = PtyProcess::spawn(&cmd).unwrap_err();
    assert!(
        err.to_string().starts_with("cannot use working directory"),
        "{err}"
    );
}

#[test]
fn cwd_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = PtyCommand::new("pwd");
    cmd.cwd(dir.path()).size(200, 5);
    let (_, term) = run(&cmd);
    let canonical = dir.path().canonicalize().unwrap();
    assert_eq!(
        term.text().lines().next().unwrap(),
        canonical.to_str().unwrap()
    );
}

#[test]
fn timeout_leaves_no_process_behind() {
    let cmd = sh("sleep 300 & sleep 300");
    let mut term = Terminal::new(80, 24);
    let stop = StopWhen {
        timeout: Some(Duration::from_millis(300)),
        until_text: None,
        grace: Duration::from_secs(3),
        ..StopWhen::default()
    };
    let start = Instant::now();
    let outcome = run_to_completion(&cmd, &mut term, &stop).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(outcome.stopped_by, RunEnd::Timeout);
    assert!(elapsed >= Duration::from_millis(300));
    // SIGHUP ends both sleeps at once; the grace is not used up.
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    assert_eq!(outcome.exit_code, None);
    assert_eq!(outcome.signal.as_deref(), Some("SIGHUP"));
    assert_gone(outcome.pid);
}

#[test]
fn program_ignoring_term_is_killed_after_the_grace() {
    let cmd = sh("trap '' TERM HUP; echo armed; sleep 300");
    let mut term = Terminal::new(80, 24);
    let grace = Duration::from_millis(400);
    let stop = StopWhen {
        timeout: Some(SAFETY),
        until_text: Some("armed".into()),
        grace,
        ..StopWhen::default()
    };
    let start = Instant::now();
    let outcome = run_to_completion(&cmd, &mut term, &stop).unwrap();
    assert_eq!(outcome.stopped_by, RunEnd::UntilText);
    assert!(start.elapsed() >= grace);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(outcome.signal.as_deref(), Some("SIGKILL"));
    assert_gone(outcome.pid);
}

#[test]
fn until_text_stops_early() {
    let cmd = sh("echo starting; sleep 0.2; echo ready now; sleep 300");
    let mut term = Terminal::new(80, 24);
    let stop = StopWhen {
        timeout: Some(SAFETY),
        until_text: Some("ready".into()),
        grace: Duration::from_secs(3),
        ..StopWhen::default()
    };
    let start = Instant::now();
    let outcome = run_to_completion(&cmd, &mut term, &stop).unwrap();
    assert_eq!(outcome.stopped_by, RunEnd::UntilText);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(
        term.text().contains("starting\nready now"),
        "{}",
        term.text()
    );
    assert_gone(outcome.pid);
}

#[test]
fn colour_env_is_visible_to_the_child() {
    let script = "echo \"$TERM $COLORTERM $FORCE_COLOR ${CI-unset} ${TF_BUILD-unset}\"";
    // CI and TF_BUILD stand in for values inherited from the caller's environment.
    let mut cmd = sh(script);
    cmd.env("TERM", "dumb")
        .env("CI", "1")
        .env("TF_BUILD", "True");
    cmd.color_env();
    let (_, term) = run(&cmd);
    assert_eq!(
        term.text().lines().next().unwrap(),
        "xterm-256color truecolor 3 unset unset"
    );

    // The user's own --env comes after and wins.
    let mut cmd = sh(script);
    cmd.env("CI", "1").color_env().env("FORCE_COLOR", "0");
    let (_, term) = run(&cmd);
    assert_eq!(
        term.text().lines().next().unwrap(),
        "xterm-256color truecolor 0 unset unset"
    );

    let mut cmd = sh(script);
    cmd.env("TERM", "dumb")
        .env_remove("COLORTERM")
        .env_remove("FORCE_COLOR")
        .env("CI", "1")
        .color_env_with(ColorEnvFlags {
            no_colorenv: true,
            no_delete_envs: false,
        });
    let (_, term) = run(&cmd);
    assert_eq!(term.text().lines().next().unwrap(), "dumb   unset unset");

    let mut cmd = sh(script);
    cmd.env("CI", "1")
        .env("TF_BUILD", "True")
        .color_env_with(ColorEnvFlags {
            no_colorenv: false,
            no_delete_envs: true,
        });
    let (_, term) = run(&cmd);
    assert_eq!(
        term.text().lines().next().unwrap(),
        "xterm-256color truecolor 3 1 True"
    );
}

/// A cursor position query (`CSI 6 n`) is answered to the program with exactly where the
/// cursor is: row 1, column 3, after `ab`, the reply ending there.
#[test]
fn cursor_position_query_is_answered() {
    // Raw mode so the reply is readable without a newline.
    let cmd = bash(
        "stty -icanon -echo min 1 time 0; printf 'ab\\033[6n'; \
         IFS= read -r -t 5 -d R reply; printf '\\ngot:%s\\n' \"${reply#?}\"",
    );
    let (outcome, term) = run(&cmd);
    assert_eq!(outcome.exit_code, Some(0));
    // The whole reply, row 1 column 3: a prefix match would take `[1;30` or `[1;3;…` too.
    let text = term.text();
    assert_eq!(
        text.trim_end().lines().collect::<Vec<_>>(),
        ["ab", "got:[1;3"],
        "{text}"
    );
}

/// A resize reaches the child: `stty size` prints exactly the new size, and SIGWINCH arrives.
#[test]
fn resize_reaches_the_child() {
    let cmd =
        bash("trap 'echo winch' WINCH; stty size; read -r line; stty size; echo \"line=$line\"");
    let process = PtyProcess::spawn(&cmd).unwrap();
    let mut term = Terminal::new(80, 24);
    assert!(pump_until(&process, &mut term, "24 80"), "{}", term.text());
    assert!(term.text().lines().any(|l| l == "24 80"), "{}", term.text());

    process.resize(120, 40).unwrap();
    term.resize(120, 40);
    assert_eq!(process.size(), (120, 40));
    process.write(b"hello\r").unwrap();
    assert!(
        pump_until(&process, &mut term, "line=hello"),
        "{}",
        term.text()
    );
    // bash defers the trap until `read` returns, so "winch" may come after the line.
    let text = term.text();
    // Whole lines: `140 120` must not pass for the new size.
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.contains(&"40 120") && lines.contains(&"winch"),
        "{text}"
    );
    let status = process.wait_timeout(SAFETY).expect("exited");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn five_megabyte_burst_is_drained_completely() {
    const N: usize = 5_000_000;
    let cmd = sh(&format!("head -c {N} /dev/zero | tr '\\0' x; printf END"));
    let process = PtyProcess::spawn(&cmd).unwrap();
    // A consumer that starts late: the reader must block, not drop or buffer without bound.
    std::thread::sleep(Duration::from_millis(300));
    let deadline = Instant::now() + SAFETY;
    let (mut total, mut tail, mut eof, mut status) = (0usize, Vec::new(), false, None);
    while !(eof && status.is_some()) {
        let left = deadline.saturating_duration_since(Instant::now());
        match process
            .events()
            .recv_timeout(left)
            .expect("event before deadline")
        {
            PtyEvent::Output(bytes) => {
                assert!(bytes.len() <= shotty::pty::READ_CHUNK);
                total += bytes.len();
                tail.extend_from_slice(&bytes);
                let keep = tail.len().saturating_sub(8);
                tail.drain(..keep);
            }
            PtyEvent::Eof => eof = true,
            PtyEvent::Exited(s) => status = Some(s),
        }
    }
    assert_eq!(total, N + 3);
    assert!(tail.ends_with(b"xxxxxEND"), "{tail:?}");
    assert_eq!(status.unwrap().code(), Some(0));
}

#[test]
fn burst_through_the_terminal_ends_with_the_marker() {
    let cmd = sh("head -c 5000000 /dev/zero | tr '\\0' x; printf '\\nEND'");
    let (outcome, term) = run(&cmd);
    assert_eq!(outcome.exit_code, Some(0));
    assert!(term.text().ends_with("\nEND"), "{}", term.text());
}

#[test]
fn straggler_holding_the_terminal_does_not_stall_the_run() {
    // The background sleep ignores SIGHUP and keeps the slave open, so no EOF comes (the
    // pause lets it ignore the hang-up before the program exits).
    let cmd = sh("(trap '' HUP; exec sleep 300) & sleep 0.2; echo done");
    let start = Instant::now();
    let (outcome, term) = run(&cmd);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(outcome.exit_code, Some(0));
    assert!(term.text().starts_with("done"));
    assert_gone(outcome.pid);
}

#[test]
fn dropping_the_process_kills_its_group() {
    let process = PtyProcess::spawn(&sh("sleep 300 & sleep 300")).unwrap();
    let pid = process.pid();
    assert!(process.try_wait().is_none());
    drop(process);
    assert_gone(pid);
}

#[test]
fn terminate_on_a_cooperative_program_is_quick() {
    let process = PtyProcess::spawn(&sh("sleep 300")).unwrap();
    let start = Instant::now();
    let status = process.terminate(Duration::from_secs(3)).unwrap().status;
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(status.signal_name().as_deref(), Some("SIGHUP"));
    assert!(!status.success());
    assert_gone(process.pid());
}

/// `foreground_activity` tells a program blocked reading the terminal, one asleep and one
/// busy apart, and keeps telling it: once the state is reached, every one of ten samples over
/// a second shows it, so a state that is seen once and then flickers fails.
#[test]
fn the_foreground_process_activity_is_told_apart() {
    use shotty::pty::Activity;
    // Polls until `expected` is seen (the program needs a moment to reach that state), then
    // samples it ten times; the samples (empty if it never showed).
    let settles_at = |cmd: &PtyCommand, expected: Activity| {
        let process = PtyProcess::spawn(cmd).expect("spawn");
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut seen = process.foreground_activity();
        while seen != Some(expected) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            seen = process.foreground_activity();
        }
        let samples: Vec<Option<Activity>> = if seen == Some(expected) {
            (0..10)
                .map(|_| {
                    std::thread::sleep(Duration::from_millis(100));
                    process.foreground_activity()
                })
                .collect()
        } else {
            Vec::new()
        };
        process.terminate(Duration::from_secs(1)).expect("stopped");
        samples
    };
    let mut cat = PtyCommand::new("cat");
    cat.size(80, 24);
    assert_eq!(
        settles_at(&cat, Activity::AwaitingInput),
        [Some(Activity::AwaitingInput); 10],
        "cat blocked reading the terminal"
    );
    let mut sleep = PtyCommand::new("sleep");
    sleep.arg("30").size(80, 24);
    assert_eq!(
        settles_at(&sleep, Activity::Sleeping),
        [Some(Activity::Sleeping); 10]
    );
    assert_eq!(
        settles_at(&sh("while :; do :; done"), Activity::Running),
        [Some(Activity::Running); 10]
    );
}

#[test]
fn output_written_before_a_program_waits_for_input_is_never_missed() {
    use shotty::pty::Activity;
    // A PTY hands output over to the master asynchronously: when the program is seen waiting
    // for input, its output may not have been read yet (here in 2–5 of 60 rounds).
    // `output_pending` must see it all the same.
    for round in 0..200 {
        let process = PtyProcess::spawn(&sh("printf hello; read x")).expect("spawn");
        let deadline = Instant::now() + Duration::from_secs(5);
        while process.foreground_activity() != Some(Activity::AwaitingInput) {
            assert!(
                Instant::now() < deadline,
                "round {round}: never seen waiting"
            );
            std::hint::spin_loop();
        }
        assert!(process.output_pending(0), "round {round}: output missed");
        process.terminate(Duration::from_secs(1)).expect("stopped");
    }
}

#[test]
fn the_child_starts_clean_in_its_own_session_and_terminal() {
    // A descriptor this process leaves open across exec (no close-on-exec flag) must not
    // reach the child; neither may the ignored SIGPIPE of a Rust program.
    let leaked = rustix::io::dup(std::io::stderr()).expect("dup");
    let (_, fds) = run(&sh("ls /proc/$$/fd; :"));
    let mut status = PtyCommand::new("grep");
    status
        .args(["-E", "^Sig(Ign|Blk)", "/proc/self/status"])
        .size(80, 24);
    let (_, status) = run(&status);
    drop(leaked);
    let fds = fds.text();
    assert_eq!(
        fds.split_whitespace().collect::<Vec<_>>(),
        ["0", "1", "2"],
        "{fds}"
    );
    let status = status.text();
    let mask = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
            .unwrap_or_else(|| panic!("{name} missing: {status}"))
    };
    // Signals 32 and 33 are glibc's own: every `posix_spawn` leaves them ignored, and libc
    // installs its handlers in the child.
    assert_eq!(mask("SigIgn:") & 0x7fff_ffff, 0, "{status}");
    assert_eq!(mask("SigBlk:"), 0, "{status}");

    let (_, session) = run(&sh("echo $$ $(ps -o sid= -p $$); tty"));
    let session = session.text();
    let ids: Vec<&str> = session.split_whitespace().collect();
    assert_eq!(
        ids.first(),
        ids.get(1),
        "the child leads its session: {session}"
    );
    assert!(
        ids.get(2).is_some_and(|t| t.starts_with("/dev/pts/")),
        "{session}"
    );
}

/// The exit comes after the output: a program that writes and exits at once has its last
/// words reported before its exit. The PTY hands output to the master asynchronously, so the
/// reaper used to report the exit first now and then (before the fix, in one of the first
/// five rounds every time), and a consumer stopping at the exit lost the output (seen in CI:
/// a key test's final `BYE`). The end of output may come before the exit or after it.
#[test]
fn the_exit_is_reported_after_the_output_written_before_it() {
    for round in 0..200 {
        let process = PtyProcess::spawn(&sh("printf BYE; exit 3")).expect("spawn");
        let mut seen = Vec::new();
        let status = loop {
            match process.events().recv_timeout(Duration::from_secs(5)) {
                Ok(PtyEvent::Output(bytes)) => seen.extend_from_slice(&bytes),
                Ok(PtyEvent::Eof) => {}
                Ok(PtyEvent::Exited(status)) => break status,
                Err(e) => panic!("round {round}: {e:?} before the exit"),
            }
        };
        assert_eq!(status.code(), Some(3), "round {round}");
        assert!(
            String::from_utf8_lossy(&seen).contains("BYE"),
            "round {round}: the exit came before the output {:?}",
            String::from_utf8_lossy(&seen)
        );
        process.terminate(Duration::from_secs(1)).expect("stopped");
    }
}

/// `Events::recv_or_readable`: a descriptor the consumer watches besides the PTY is reported
/// while the program floods output (a user's key must not wait for `yes` to stop), the
/// program's output and exit still come, and nothing is reported for a quiet descriptor.
#[test]
fn watched_descriptors_are_not_starved_by_a_flood() {
    use std::io::Write;
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;

    use shotty::pty::Wake;

    let (mut key_writer, keys) = UnixStream::pair().expect("socket pair");
    let (_quiet_writer, quiet) = UnixStream::pair().expect("socket pair");
    let process =
        PtyProcess::spawn(&sh("stty -opost; yes flood | head -c 20000000")).expect("spawn");
    let mut events = process.events();
    let watch = [quiet.as_fd(), keys.as_fd()];
    // The flood is under way before the key comes.
    let mut output = 0usize;
    while output < 1 << 20 {
        match events.recv_or_readable(&watch, Some(SAFETY)) {
            Ok(Wake::Event(PtyEvent::Output(bytes))) => output += bytes.len(),
            other => panic!("{other:?} during the flood"),
        }
    }
    key_writer.write_all(b"k").expect("key sent");
    let mut events_before_key = 0;
    loop {
        // A consumer slower than the program (writing to a slow terminal) finds output every
        // time it asks.
        std::thread::sleep(Duration::from_millis(5));
        match events.recv_or_readable(&watch, Some(SAFETY)) {
            Ok(Wake::Readable(ready)) => {
                assert_eq!(ready, [1], "only the key's descriptor is ready");
                break;
            }
            Ok(Wake::Event(PtyEvent::Output(bytes))) => output += bytes.len(),
            other => panic!("{other:?} before the key"),
        }
        events_before_key += 1;
        // Each call reads at most a queue's worth ahead; the key is seen within a few.
        assert!(
            events_before_key < 64,
            "the key was not reported under the flood"
        );
    }
    // The key is read, as a consumer would; the rest of the output and the exit follow.
    let mut byte = [0u8; 1];
    std::io::Read::read_exact(&mut &keys, &mut byte).expect("key read");
    let watch = [quiet.as_fd()];
    let status = loop {
        match events.recv_or_readable(&watch, Some(SAFETY)) {
            Ok(Wake::Event(PtyEvent::Output(bytes))) => output += bytes.len(),
            Ok(Wake::Event(PtyEvent::Eof)) => {}
            Ok(Wake::Event(PtyEvent::Exited(status))) => break status,
            other => panic!("{other:?} after the key"),
        }
    };
    assert!(status.success(), "{status}");
    assert_eq!(output, 20_000_000);
}
