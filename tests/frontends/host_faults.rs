//! The host's faults end to end: a host killed outright (SIGKILL) during each kind of request,
//! a state directory that cannot be written, clients that vanish mid-request. Whatever
//! happens, no program is left running, no file is left half written, and every client is
//! told the truth: its request's result, or `host_unavailable`, never another host's answer
//! to a question about sessions it never ran.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli_session::{Env, exclusive, listed_entry, threads_and_fds};
use crate::procs;

/// A marker only this test's programs carry on their command line (`sleep TOKEN`), so that
/// whatever was started, reported or not, can be found.
fn token() -> String {
    format!(
        "3000.{}{}",
        std::process::id(),
        procs::ticks_now() % 1_000_000
    )
}

/// The live processes whose command line has `token` as an argument.
fn carrying(token: &str) -> Vec<procs::Proc> {
    procs::all()
        .into_iter()
        .filter(|p| p.is_live())
        .filter(|p| {
            std::fs::read(format!("/proc/{}/cmdline", p.pid))
                .is_ok_and(|c| c.split(|&b| b == 0).any(|arg| arg == token.as_bytes()))
        })
        .collect()
}

/// Asserts that no process carries `token`, looking again for up to 5 s (killed processes
/// leave /proc asynchronously).
fn assert_none_carry(token: &str, context: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !carrying(token).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(carrying(token), Vec::new(), "processes left: {context}");
}

fn sigkill(pid: u32) {
    Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("kill runs");
}

/// A client command running in the background, with its stdout captured.
struct Pending(Child);

impl Pending {
    fn spawn(env: &Env, args: &[&str]) -> Pending {
        let child = env
            .command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("shotty runs");
        Pending(child)
    }

    /// Its JSON document and exit code, within `timeout`.
    fn finish(mut self, timeout: Duration) -> (Value, i32) {
        let deadline = Instant::now() + timeout;
        while self.0.try_wait().expect("try_wait").is_none() {
            if Instant::now() > deadline {
                let _ = self.0.kill();
                panic!("the client did not finish within {timeout:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let out = self.0.wait_with_output().expect("output");
        let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not one JSON document ({e}): {:?}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        (doc, out.status.code().unwrap_or(-1))
    }
}

/// Asserts that a client was told the host is unavailable.
fn assert_unavailable((doc, code): &(Value, i32), what: &str) {
    assert_eq!(
        (doc["status"].as_str(), doc["error"]["code"].as_str()),
        (Some("error"), Some("host_unavailable")),
        "{what}: {doc}"
    );
    assert_ne!(*code, 0, "{what}");
}

/// Asserts that the state directory holds only whole files: records, recordings (and marks of
/// running sessions, with `marks_allowed`) whose lines parse, and nothing else.
fn assert_state_whole(state: &Path, marks_allowed: bool) {
    for entry in std::fs::read_dir(state).expect("state dir").flatten() {
        let path = entry.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let bytes = std::fs::read(&path).expect("readable");
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => {
                serde_json::from_slice::<Value>(&bytes)
                    .unwrap_or_else(|e| panic!("{name} is not whole JSON: {e}"));
            }
            Some("cast") => assert_json_lines(name, &bytes),
            Some("live") if marks_allowed => assert_json_lines(name, &bytes),
            _ => panic!("unexpected file in the state directory: {name}"),
        }
    }
}

/// Asserts that every line of a file is JSON (a recording, a mark).
fn assert_json_lines(name: &str, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: not UTF-8 ({e})"));
    for line in text.lines() {
        serde_json::from_str::<Value>(line)
            .unwrap_or_else(|e| panic!("{name}: a line is not JSON ({e}): {line}"));
    }
}

#[test]
fn a_killed_hosts_programs_are_ended_and_every_session_reported() {
    let _exclusive = exclusive();
    let env = Env::new();
    let token = token();
    let stubborn = format!("trap '' HUP TERM; exec sleep {token}");
    // Tree shapes, every process ignoring SIGHUP (which a hangup of the terminal sends) and
    // SIGTERM: the leader itself; a leader with a child in its group; an interactive shell's
    // background job (a process group of its own) that is disowned; a child that left the
    // session (setsid) and one that left it by a double fork; a child that cleared its
    // environment (so only its session tells it).
    let shapes: Vec<Vec<String>> = vec![
        vec!["sh".into(), "-c".into(), stubborn.clone()],
        vec![
            "sh".into(),
            "-c".into(),
            format!("trap '' HUP TERM; sleep {token} & echo ready; exec sleep {token}"),
        ],
        vec![
            "sh".into(),
            "-c".into(),
            format!(
                "setsid sh -c \"{stubborn}\" & (setsid sh -c \"{stubborn}\" &); \
                 echo ready; {stubborn}"
            ),
        ],
        vec![
            "sh".into(),
            "-c".into(),
            format!("env -i /bin/sh -c \"{stubborn}\" & echo ready; {stubborn}"),
        ],
    ];
    let mut ids = Vec::new();
    for shape in &shapes {
        let mut args = vec!["--"];
        args.extend(shape.iter().map(String::as_str));
        ids.push(env.start(&args));
    }
    let bash = env.start(&["--", "bash", "--norc", "--noprofile", "-i"]);
    let job = format!("sh -c \"{stubborn}\" & disown; echo job-$((6*7))\r");
    env.ok(&["send", &bash, "--text", &job]);
    env.ok(&["wait", &bash, "--text", "job-42", "--timeout", "10s"]);
    ids.push(bash);
    // Every shape's processes run: 1 + 2 + 3 (leader, setsid child, daemon) + 2 + 1.
    let deadline = Instant::now() + Duration::from_secs(10);
    while carrying(&token).len() < 9 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(carrying(&token).len(), 9, "{:?}", carrying(&token));

    // Clients mid-request when the host dies: a wait, and a stop of everything that is in
    // its grace period (the programs ignore SIGTERM).
    let waiting = Pending::spawn(&env, &["wait", &ids[0], "--text", "never-shown"]);
    let stopping = Pending::spawn(&env, &["stop", "--all", "--yes"]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while env.ok(&["list"])["sessions"][0]["state"] != "stopping" {
        assert!(Instant::now() < deadline, "the stop did not begin");
        std::thread::sleep(Duration::from_millis(20));
    }
    let host = procs::Seen::now(env.host_pid());
    sigkill(host.pid);
    procs::assert_all_gone(&[host]);
    assert_unavailable(&waiting.finish(Duration::from_secs(5)), "wait");
    assert_unavailable(&stopping.finish(Duration::from_secs(5)), "stop --all");

    // The next command starts a host, which ends what the dead one left, and reports it.
    let listed = env.ok(&["list", "--all"]);
    assert_none_carry(&token, "after the next host started");
    for id in &ids {
        let entry = listed_entry(&env, id);
        assert_eq!(
            (entry["state"].as_str(), entry["stopReason"].as_str()),
            (Some("stopped"), Some("host-died")),
            "{entry}"
        );
    }
    assert_eq!(listed["sessions"].as_array().map(Vec::len), Some(ids.len()));
    assert_state_whole(&env.state, false);
    // Their records stay readable.
    let read = env.ok(&["read", &ids[0]]);
    assert_eq!(read["state"], "stopped", "{read}");
}

/// What a client was doing when its host was killed.
#[derive(Clone, Copy, Debug)]
enum Request {
    Start,
    Send,
    Wait,
    Stop,
    StopAll,
    Export,
}

#[test]
fn a_host_killed_during_any_request_leaves_nothing_and_misleads_nobody() {
    let _exclusive = exclusive();
    let requests = [
        Request::Start,
        Request::Send,
        Request::Wait,
        Request::Stop,
        Request::StopAll,
        Request::Export,
    ];
    // From the moment the host is seen working on the request to well inside its work.
    for delay_ms in [0, 15, 150] {
        for request in requests {
            kill_during(request, Duration::from_millis(delay_ms));
        }
    }
}

/// Starts a host with a stubborn session and one with a long recording, makes `request`,
/// SIGKILLs the host `delay` later, and checks what the client was told, what the next host
/// reports, what is left running and what is on disk.
fn kill_during(request: Request, delay: Duration) {
    let context = format!("{request:?} killed after {delay:?}");
    let env = Env::new();
    let token = token();
    let stubborn = format!("trap '' HUP TERM; echo up; exec sleep {token}");
    let stubborn_id = env.start(&["--", "sh", "-c", &stubborn]);
    let long_id = env.start(&[
        "--",
        "sh",
        "-c",
        &format!("seq 1 200000; echo done; exec sleep {token}"),
    ]);
    env.ok(&["wait", &long_id, "--text", "done", "--timeout", "20s"]);
    env.ok(&["wait", &stubborn_id, "--text", "up", "--timeout", "10s"]);
    let out = env.home.join("export.cast");
    let out_text = out.display().to_string();
    let started_cmd = format!("trap '' HUP TERM; exec sleep {token}");
    let args: Vec<&str> = match request {
        Request::Start => vec![
            "start",
            "--wait-ready",
            "5s",
            "--",
            "sh",
            "-c",
            &started_cmd,
        ],
        Request::Send => vec![
            "send",
            &stubborn_id,
            "--text",
            "a",
            "--delay",
            "3s",
            "--text",
            "b",
        ],
        Request::Wait => vec!["wait", &stubborn_id, "--text", "never-shown"],
        Request::Stop => vec!["stop", &stubborn_id],
        Request::StopAll => vec!["stop", "--all", "--yes"],
        Request::Export => vec!["export", &long_id, "-o", &out_text],
    };
    let host = procs::Seen::now(env.host_pid());
    let client = Pending::spawn(&env, &args);
    // Until the host is seen at work on the request (an export is too quick to see).
    let deadline = Instant::now() + Duration::from_secs(10);
    let begun = || match request {
        Request::Start => carrying(&token).len() > 2,
        Request::Send => env.ok(&["read", &stubborn_id])["screen"]["text"]
            .as_str()
            .is_some_and(|t| t.contains('a')),
        Request::Stop | Request::StopAll => listed_entry(&env, &stubborn_id)["state"] == "stopping",
        Request::Wait => {
            std::thread::sleep(Duration::from_millis(200));
            true
        }
        Request::Export => true,
    };
    while !begun() {
        assert!(
            Instant::now() < deadline,
            "{context}: the request did not begin"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(delay);
    sigkill(host.pid);
    procs::assert_all_gone(&[host]);
    let told = client.finish(Duration::from_secs(10));
    let (doc, _) = &told;
    let succeeded = doc["status"] == "ok";
    if !succeeded {
        assert_unavailable(&told, &context);
    }
    // Only an export is quick enough to have been answered before the kill.
    assert!(
        !succeeded || matches!(request, Request::Export),
        "{context}: {doc}"
    );

    let listed = env.ok(&["list", "--all"]);
    assert_none_carry(&token, &context);
    assert_state_whole(&env.state, false);
    let entries = listed["sessions"].as_array().expect("sessions");
    for id in [&stubborn_id, &long_id] {
        let entry = entries
            .iter()
            .find(|e| e["sessionId"] == id.as_str())
            .unwrap_or_else(|| panic!("{context}: {id} is not listed: {listed}"));
        assert_eq!(entry["stopReason"], "host-died", "{context}: {entry}");
    }
    // At most the one session the start was making, and only as ended by the death.
    assert!(entries.len() <= 3, "{context}: {listed}");
    // The export's file is whole or absent; nothing else is beside it.
    let beside: Vec<String> = std::fs::read_dir(&env.home)
        .expect("home")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".local" && n != ".cache" && n != ".config")
        .collect();
    match std::fs::read_to_string(&out) {
        Ok(cast) => {
            assert_json_lines(&context, cast.as_bytes());
            assert_eq!(beside, vec!["export.cast"], "{context}");
        }
        Err(_) => {
            assert!(!succeeded, "{context}: {doc}");
            assert_eq!(beside, Vec::<String>::new(), "{context}");
        }
    }
}

/// A host that dies holding a client's request, before answering (killed, its socket left
/// behind; a killed host's socket takes connections until its last thread is gone): a
/// question that changes no session is asked again of a new host, which answers it; any
/// other request may have been half done and is answered `host_unavailable`, never sent again.
#[test]
fn a_host_dead_before_answering_has_its_questions_asked_again_and_nothing_else() {
    use std::io::BufRead;
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::net::UnixListener;
    for (args, asked_again) in [
        (&["list", "--all"][..], true),
        (&["read", "last"][..], true),
        (&["start", "--", "true"][..], false),
    ] {
        let env = Env::new();
        std::fs::create_dir_all(&env.runtime).expect("runtime dir");
        std::fs::set_permissions(&env.runtime, std::fs::Permissions::from_mode(0o700))
            .expect("runtime dir mode");
        let listener = UnixListener::bind(env.socket()).expect("a host's socket");
        std::fs::set_permissions(env.socket(), std::fs::Permissions::from_mode(0o600))
            .expect("socket mode");
        let client = Pending::spawn(&env, args);
        let (connection, _) = listener.accept().expect("the client connects");
        let mut request = String::new();
        std::io::BufReader::new(&connection)
            .read_line(&mut request)
            .expect("the request");
        assert!(request.ends_with('\n'), "{args:?}: {request:?}");
        // Dead: the connection and the listener closed, the socket file left where it was.
        drop((connection, listener));
        let told = client.finish(Duration::from_secs(10));
        let context = format!("{args:?}");
        if !asked_again {
            assert_unavailable(&told, &context);
            let message = told.0["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("died while handling"),
                "{context}: {message}"
            );
            continue;
        }
        let (doc, code) = &told;
        match args[0] {
            "list" => assert_eq!(
                ((doc["status"].as_str(), *code), &doc["sessions"]),
                ((Some("ok"), 0), &serde_json::json!([])),
                "{context}: {doc}"
            ),
            // The new host has no session: the answer is its own, not the dead host's.
            _ => assert_eq!(
                (doc["error"]["code"].as_str(), *code != 0),
                (Some("session_not_found"), true),
                "{context}: {doc}"
            ),
        }
    }
}

/// A directory made unwritable for as long as this lives: immutable (`chattr +i`) for root,
/// whom modes do not stop; mode 0500 for anyone else.
struct Unwritable<'a> {
    dir: &'a Path,
    chattr: Option<std::path::PathBuf>,
}

impl<'a> Unwritable<'a> {
    /// `None` when the test cannot run here (root without `chattr`).
    fn new(dir: &'a Path) -> Option<Unwritable<'a>> {
        use std::os::unix::fs::PermissionsExt;
        let root = procs::proc(std::process::id()).is_some()
            && std::fs::read_to_string("/proc/self/status")
                .is_ok_and(|s| s.lines().any(|l| l.starts_with("Uid:\t0\t")));
        let chattr = if root {
            let chattr = crate::needs::program("chattr")?;
            let made = Command::new(&chattr).arg("+i").arg(dir).status();
            assert!(
                made.is_ok_and(|s| s.success()),
                "chattr +i {}",
                dir.display()
            );
            Some(chattr)
        } else {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o500)).expect("chmod");
            None
        };
        assert!(
            std::fs::write(dir.join("probe"), b"").is_err(),
            "{} is still writable",
            dir.display()
        );
        Some(Unwritable { dir, chattr })
    }
}

impl Drop for Unwritable<'_> {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        match &self.chattr {
            Some(chattr) => {
                let _ = Command::new(chattr).arg("-i").arg(self.dir).status();
            }
            None => {
                let _ = std::fs::set_permissions(self.dir, std::fs::Permissions::from_mode(0o700));
            }
        }
    }
}

#[test]
fn a_state_dir_that_cannot_be_written_refuses_starts_and_loses_no_session() {
    let env = Env::new();
    let token = token();
    let id = env.start(&["--", "sh", "-c", "read line; echo got-$line; exit 4"]);
    let Some(unwritable) = Unwritable::new(&env.state) else {
        return;
    };
    // A session whose programs a later host could not find if this one died is not started.
    let refused = env.error(
        &["start", "--", "sh", "-c", &format!("exec sleep {token}")],
        "io_error",
    );
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("cannot write"), "{refused}");
    assert_none_carry(&token, "a refused start");

    // A session that ends while its record cannot be written is still all there.
    env.ok(&["send", &id, "--text", "x\r"]);
    let waited = env.ok(&["wait", &id, "--exit", "--timeout", "10s"]);
    assert_eq!(waited["exitCode"], 4, "{waited}");
    let entry = listed_entry(&env, &id);
    assert_eq!(
        (entry["state"].as_str(), entry["exitCode"].as_i64()),
        (Some("exited"), Some(4)),
        "{entry}"
    );
    let screen = |env: &Env| env.ok(&["read", &id])["screen"]["text"].to_string();
    assert!(screen(&env).contains("got-x"));
    assert_state_whole(&env.state, true);

    // Once the directory can be written again the record is kept, without any request.
    drop(unwritable);
    let record = env.state.join(format!("{id}.json"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while !record.exists() {
        assert!(Instant::now() < deadline, "the record was never written");
        std::thread::sleep(Duration::from_millis(50));
    }
    let host = procs::Seen::now(env.host_pid());
    sigkill(host.pid);
    procs::assert_all_gone(&[host]);
    let entry = listed_entry(&env, &id);
    assert_eq!(
        (entry["state"].as_str(), entry["exitCode"].as_i64()),
        (Some("exited"), Some(4)),
        "{entry}"
    );
    assert!(screen(&env).contains("got-x"));
    assert_state_whole(&env.state, false);
}

#[test]
fn clients_killed_mid_request_cost_the_host_nothing() {
    let _exclusive = exclusive();
    let env = Env::new();
    let token = token();
    let quiet = env.start(&["--", "sh", "-c", &format!("echo up; exec sleep {token}")]);
    env.ok(&["wait", &quiet, "--text", "up", "--timeout", "10s"]);
    // One start and stop first, so that whatever the host sets up once is there before
    // counting.
    let warm = env.start(&["--", "true"]);
    env.ok(&["stop", &warm]);
    let host = env.host_pid();
    std::thread::sleep(Duration::from_millis(200));
    let before = threads_and_fds(host);
    let stubborn = env.start(&[
        "--",
        "sh",
        "-c",
        &format!("trap '' HUP TERM; echo up; exec sleep {token}"),
    ]);
    env.ok(&["wait", &stubborn, "--text", "up", "--timeout", "10s"]);
    let clients = [
        Pending::spawn(&env, &["wait", &quiet, "--text", "never-shown"]),
        Pending::spawn(&env, &["output", &quiet, "--follow"]),
        Pending::spawn(
            &env,
            &[
                "send", &quiet, "--text", "a", "--delay", "2s", "--text", "b",
            ],
        ),
        Pending::spawn(&env, &["stop", &stubborn]),
    ];
    let deadline = Instant::now() + Duration::from_secs(10);
    while listed_entry(&env, &stubborn)["state"] != "stopping" {
        assert!(Instant::now() < deadline, "the stop did not begin");
        std::thread::sleep(Duration::from_millis(10));
    }
    for Pending(mut client) in clients {
        let _ = client.kill();
        let _ = client.wait();
    }
    // Everybody else is served at once.
    let asked = Instant::now();
    env.ok(&["read", &quiet]);
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "{:?}",
        asked.elapsed()
    );
    // The stop its vanished client asked for is carried out; the other session runs on.
    let deadline = Instant::now() + Duration::from_secs(10);
    while listed_ids_all(&env).contains(&stubborn) {
        assert!(Instant::now() < deadline, "the stop was not carried out");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(carrying(&token).len(), 1, "{:?}", carrying(&token));
    assert_eq!(listed_entry(&env, &quiet)["state"], "running");
    // What served the vanished clients is given back.
    let deadline = Instant::now() + Duration::from_secs(5);
    while threads_and_fds(host) != before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(threads_and_fds(host), before, "threads and descriptors");
    env.ok(&["stop", "--all", "--yes"]);
    assert_none_carry(&token, "after stop --all");
}

fn listed_ids_all(env: &Env) -> Vec<String> {
    env.ok(&["list", "--all"])["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter_map(|s| s["sessionId"].as_str().map(str::to_owned))
        .collect()
}

/// The host's resident memory in MB.
fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS");
    kb / 1024.0
}

#[test]
fn memory_a_flood_took_is_given_back_after_stop() {
    let _exclusive = exclusive();
    // A host that does not exit idle while it is watched.
    let env = Env::with_host_idle(60_000);
    env.ok(&["list"]);
    let host = env.host_pid();
    std::thread::sleep(Duration::from_millis(300));
    let idle = rss_mb(host);
    // Noise on large screens, and lines into the scrollback, for a few seconds: output,
    // recordings and rows allocated side by side, as floods of real programs do.
    for _ in 0..3 {
        env.ok(&[
            "start",
            "--width",
            "400",
            "--height",
            "300",
            "--",
            "cat",
            "/dev/urandom",
        ]);
    }
    env.ok(&["start", "--", "yes"]);
    std::thread::sleep(Duration::from_secs(4));
    let peak = rss_mb(host);
    assert!(
        peak > idle + 50.0,
        "the flood took only {:.1} MB",
        peak - idle
    );
    env.ok(&["stop", "--all", "--yes"]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while rss_mb(host) > 2.0 * idle && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = rss_mb(host);
    assert!(
        after <= 2.0 * idle,
        "idle {idle:.1} MB, flood {peak:.1} MB, 5 s after stop --all {after:.1} MB"
    );
}
