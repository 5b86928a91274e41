//! `shotty session` end to end: the real binary, a real host process, real programs. Each test
//! has its own runtime, state, home and temporary directories, so its host is its own.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::procs;

pub(crate) struct Env {
    _dir: tempfile::TempDir,
    pub(crate) runtime: PathBuf,
    pub(crate) state: PathBuf,
    host_idle_ms: u64,
    /// `None`: SHOTTY_STATE_DIR is left unset, so the host picks its state directory.
    explicit_state: bool,
    /// HOME for the host and its programs.
    pub(crate) home: PathBuf,
    /// TMPDIR and XDG_RUNTIME_DIR for the host and its programs.
    tmp: PathBuf,
    extra_env: Vec<(String, String)>,
}

impl Env {
    pub(crate) fn new() -> Env {
        Env::with_host_idle(3000)
    }

    /// An environment whose host exits after `ms` without sessions or requests.
    pub(crate) fn with_host_idle(ms: u64) -> Env {
        let dir = tempfile::tempdir().expect("temp dir");
        let runtime = dir.path().join("run");
        let state = dir.path().join("state");
        let home = dir.path().join("home");
        let tmp = dir.path().join("tmp");
        for private in [&home, &tmp] {
            std::fs::create_dir(private).expect("private dir made");
            std::fs::set_permissions(private, std::fs::Permissions::from_mode(0o700))
                .expect("private dir mode");
        }
        Env {
            runtime,
            state,
            host_idle_ms: ms,
            explicit_state: true,
            home,
            tmp,
            extra_env: Vec::new(),
            _dir: dir,
        }
    }

    /// An environment with its own runtime directory and no SHOTTY_STATE_DIR, for a HOME
    /// that other environments may share.
    pub(crate) fn sharing_home(home: &Path) -> Env {
        let mut env = Env::new();
        env.explicit_state = false;
        env.home = home.to_path_buf();
        env
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut cmd = self.shotty(&["session"]);
        cmd.args(args);
        cmd
    }

    /// `shotty ARGS` with this environment's host, HOME and temporary directories.
    pub(crate) fn shotty(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_shotty"));
        cmd.args(args)
            .env("SHOTTY_RUNTIME_DIR", &self.runtime)
            .env("SHOTTY_HOST_IDLE_MS", self.host_idle_ms.to_string())
            .env("HOME", &self.home)
            .env("TMPDIR", &self.tmp)
            .env("XDG_RUNTIME_DIR", &self.tmp);
        if self.explicit_state {
            cmd.env("SHOTTY_STATE_DIR", &self.state);
        } else {
            cmd.env_remove("SHOTTY_STATE_DIR")
                .env_remove("XDG_STATE_HOME");
        }
        cmd.envs(self.extra_env.iter().map(|(k, v)| (k, v)));
        cmd
    }

    pub(crate) fn run(&self, args: &[&str]) -> (Value, i32) {
        let out: Output = self.command(args).output().expect("shotty runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let doc: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not one JSON document ({e}): {stdout:?}"));
        assert_eq!(doc["schemaVersion"], 1, "{doc}");
        (doc, out.status.code().unwrap_or(-1))
    }

    pub(crate) fn ok(&self, args: &[&str]) -> Value {
        let (doc, code) = self.run(args);
        assert_eq!(
            (doc["status"].as_str(), code),
            (Some("ok"), 0),
            "{args:?}: {doc}"
        );
        doc
    }

    pub(crate) fn error(&self, args: &[&str], expected: &str) -> Value {
        let (doc, code) = self.run(args);
        assert_eq!(doc["status"], "error", "{args:?}: {doc}");
        assert_eq!(doc["error"]["code"], expected, "{args:?}: {doc}");
        assert_ne!(code, 0, "{args:?}");
        doc
    }

    pub(crate) fn start(&self, args: &[&str]) -> String {
        let mut all = vec!["start"];
        all.extend_from_slice(args);
        let doc = self.ok(&all);
        let id = doc["sessionId"].as_str().expect("sessionId").to_owned();
        assert!(id.starts_with("s_") && id.len() == 34, "{id}");
        id
    }

    /// The pid of the environment's host (which must be running), from `ping`.
    pub(crate) fn host_pid(&self) -> u32 {
        let pid =
            self.raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")["result"]["pid"]
                .as_u64()
                .expect("host pid");
        u32::try_from(pid).expect("a pid")
    }

    pub(crate) fn socket(&self) -> PathBuf {
        self.runtime.join("host.sock")
    }

    /// A connection for several raw requests.
    pub(crate) fn connection(&self) -> RawConnection {
        let stream = UnixStream::connect(self.socket()).expect("host socket");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        RawConnection {
            reader: BufReader::new(stream.try_clone().expect("clone")),
            stream,
        }
    }

    /// One raw request on the host socket.
    pub(crate) fn raw(&self, line: &[u8]) -> Value {
        let mut s = UnixStream::connect(self.socket()).expect("host socket");
        s.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        s.write_all(line).expect("request written");
        let mut reply = String::new();
        BufReader::new(s).read_line(&mut reply).expect("reply");
        serde_json::from_str(&reply).expect("JSON reply")
    }
}

pub(crate) struct RawConnection {
    stream: UnixStream,
    reader: BufReader<UnixStream>,
}

impl RawConnection {
    /// Calls `method` and returns its result (the call must succeed).
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let mut line = serde_json::to_vec(&request).expect("JSON");
        line.push(b'\n');
        self.stream.write_all(&line).expect("request written");
        let mut reply = String::new();
        self.reader.read_line(&mut reply).expect("reply");
        let reply: Value = serde_json::from_str(&reply).expect("JSON reply");
        assert!(reply["result"].is_object(), "{method}: {reply}");
        reply["result"].clone()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = self.command(&["stop", "--all", "--yes"]).output();
    }
}

pub(crate) fn shell(env: &Env) -> String {
    let id = env.start(&[
        "--width",
        "60",
        "--height",
        "12",
        "--env",
        "PS1=$ ",
        "--",
        "bash",
        "--norc",
        "--noprofile",
        "-i",
    ]);
    env.ok(&["wait", &id, "--regex", r"(?m)^\$ ?$", "--timeout", "10s"]);
    id
}

/// An agent's round trip on bash through the CLI: start, send, wait for the output line,
/// read, history, resize, list, capture and inspect (private 0600 file in a 0700 directory,
/// the output in its text), stop.
#[test]
fn an_agent_workflow_on_bash() {
    let env = Env::new();
    let id = shell(&env);
    let sent = env.ok(&[
        "send",
        &id,
        "--text",
        "echo one-$((40+2))",
        "--keys",
        "Enter",
    ]);
    assert_eq!(sent["written"], 19);
    let waited = env.ok(&["wait", &id, "--text", "one-42", "--timeout", "10s"]);
    assert_eq!(waited["result"], "matched");
    // The output line itself (the typed command reads `one-$((40+2))`).
    assert!(
        waited["screen"]["text"]
            .as_str()
            .unwrap()
            .lines()
            .any(|l| l == "one-42"),
        "{waited}"
    );

    let read = env.ok(&["read", &id]);
    let screen = &read["screen"];
    assert_eq!(
        (screen["width"].as_u64(), screen["height"].as_u64()),
        (Some(60), Some(12))
    );
    assert_eq!(screen["scope"], "viewport");
    assert!(read["version"].as_u64().unwrap() > 0);
    let structured = env.ok(&["read", &id, "--structured", "--top", "2"]);
    assert_eq!(structured["screen"]["structured"]["schemaVersion"], 1);
    assert_eq!(
        structured["screen"]["text"]
            .as_str()
            .unwrap()
            .lines()
            .count(),
        2
    );

    env.ok(&["resize", &id, "--width", "80", "--height", "20"]);
    env.ok(&["send", &id, "--text", "stty size\r"]);
    env.ok(&["wait", &id, "--text", "20 80", "--timeout", "10s"]);

    let history = env.ok(&["history", &id, "--grep", "ONE-", "-i"]);
    let lines = history["lines"].as_array().unwrap();
    assert!(lines.iter().any(|l| l["text"] == "one-42"), "{history}");
    assert!(lines.iter().all(|l| l["index"].is_u64()));

    let listed = env.ok(&["list"]);
    let entry = &listed["sessions"][0];
    assert_eq!(entry["sessionId"], id.as_str());
    assert_eq!(entry["state"], "running");
    assert_eq!(
        entry["command"],
        json!(["bash", "--norc", "--noprofile", "-i"])
    );

    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let captured = env.ok(&["capture", &id, "-o", png.to_str().unwrap(), "-d", "macos"]);
    assert_eq!(captured["artifact"]["format"], "png");
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));

    let inspected = env.ok(&["inspect", &id]);
    let path = PathBuf::from(inspected["path"].as_str().unwrap());
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let parent = path.parent().unwrap();
    assert_eq!(
        std::fs::metadata(parent).unwrap().permissions().mode() & 0o777,
        0o700
    );
    // The row's text runs on in spaces to the grid's right edge.
    assert!(std::fs::read_to_string(&path).unwrap().contains(">one-42 "));

    // Kept with the session's own files, and deleted with them.
    assert!(
        path.starts_with(env.state.join("inspect").join(&id)),
        "{path:?}"
    );

    let stopped = env.ok(&["stop", &id]);
    assert_eq!(stopped["stopped"], json!([id]));
    // stop deletes at once, the inspect image too.
    env.error(&["read", &id], "session_not_found");
    assert!(!path.exists(), "{path:?} outlived its session");
}

/// Kills the environment's host outright (SIGKILL) and waits until it is dead: a command
/// sent while it is still dying would meet a host that died handling it, which is
/// `host_unavailable`, not a new host. Returns its pid.
fn kill_host(env: &Env) -> u32 {
    let host = procs::Seen::now(env.host_pid());
    Command::new("kill")
        .args(["-9", &host.pid.to_string()])
        .status()
        .expect("kill");
    let pid = host.pid;
    procs::assert_all_gone(&[host]);
    pid
}

#[test]
fn ended_sessions_are_retained_and_survive_a_host_kill() {
    let env = Env::new();
    let id = env.start(&["--", "sh", "-c", "echo finished-output; exit 3"]);
    let waited = env.ok(&["wait", &id, "--exit", "--timeout", "10s"]);
    assert_eq!(waited["state"], "exited");
    let all = env.ok(&["list", "--all"]);
    let entry = &all["sessions"][0];
    assert_eq!(
        (entry["state"].as_str(), entry["outcome"].as_str()),
        (Some("exited"), Some("failed"))
    );
    assert_eq!(entry["exitCode"], 3);
    assert!(entry["expiresAt"].is_string());
    assert!(env.ok(&["list"])["sessions"].as_array().unwrap().is_empty());
    env.error(&["send", &id, "--text", "x"], "session_exited");

    // Kill the host outright; the next command starts a new one that still knows the session.
    let pid = kill_host(&env);
    let read = env.ok(&["read", &id]);
    assert!(
        read["screen"]["text"]
            .as_str()
            .unwrap()
            .contains("finished-output")
    );
    assert_eq!(read["exitCode"], 3);
    assert_ne!(pid, env.host_pid());
    let history = env.ok(&["history", &id]);
    assert_eq!(history["lines"][0]["text"], "finished-output");
}

#[test]
fn session_timeout_stops_it() {
    let env = Env::new();
    let dir = tempfile::tempdir().expect("dir");
    let pidfile = dir.path().join("pid");
    let script = format!(
        "setsid sleep 301 & echo $! > {}; sleep 30",
        pidfile.display()
    );
    let id = env.start(&["--timeout", "300ms", "--", "sh", "-c", &script]);
    let started = Instant::now();
    let detached = wait_for_pid(&pidfile);
    env.ok(&["wait", &id, "--exit", "--timeout", "10s"]);
    assert!(started.elapsed() < Duration::from_secs(6));
    // The timeout ends the whole tree, also what left the session.
    procs::assert_all_gone(&[detached]);
    let entry = env.ok(&["list", "--all"])["sessions"][0].clone();
    assert_eq!(
        (entry["state"].as_str(), entry["stopReason"].as_str()),
        (Some("stopped"), Some("timeout"))
    );
    assert_eq!(entry["outcome"], "stopped");
}

#[test]
fn errors_have_stable_codes() {
    let env = Env::new();
    let id = shell(&env);
    env.error(
        &["read", "s_0123456789abcdef0123456789abcdef"],
        "session_not_found",
    );
    env.error(&["read", "nonsense"], "session_not_found");
    // A stop that could not stop them all keeps its result, says so and exits 1.
    let (stopped, code) = env.run(&["stop", "s_0123456789abcdef0123456789abcdef"]);
    assert_eq!(
        (
            stopped["status"].as_str(),
            code,
            stopped["failed"][0]["code"].as_str()
        ),
        (Some("error"), 1, Some("session_not_found")),
        "{stopped}"
    );
    env.error(&["send", &id, "--keys", "Ctrl+Nope"], "unsupported_key");
    env.error(&["send", &id, "--raw-hex", "zz"], "invalid_request");
    env.error(
        &["wait", &id, "--regex", "(", "--timeout", "1s"],
        "invalid_condition",
    );
    env.error(&["wait", &id, "--text", "a", "--exit"], "invalid_condition");
    // Environment a program could not be given as asked (the CLI's --env refuses these
    // itself; MCP and the packages pass them through).
    for (key, value) in [
        ("A=B", "c"),
        ("", "x"),
        ("NUL\u{0}", "x"),
        ("OK", "a\u{0}b"),
    ] {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "start",
            "params": {"command": ["true"], "env": [[key, value]]}});
        let reply = env.raw(format!("{request}\n").as_bytes());
        assert_eq!(
            reply["error"]["data"]["code"], "invalid_request",
            "{key:?}: {reply}"
        );
    }
    let timed_out = env.error(
        &["wait", &id, "--text", "never-shown", "--timeout", "200ms"],
        "wait_timeout",
    );
    assert_eq!(
        (
            timed_out["result"].as_str(),
            timed_out["timedOut"].as_bool()
        ),
        (Some("timeout"), Some(true))
    );
    assert!(timed_out["screen"]["text"].is_string());
    env.error(&["frobnicate"], "invalid_request");
    env.error(&["read"], "invalid_request");
    env.error(&["start", "--width", "0", "--", "true"], "invalid_request");
    env.error(
        &["start", "--", "no-such-program-xyz"],
        "session_not_started",
    );
    env.error(&["stop", "--all"], "invalid_request");
}

#[test]
fn sends_from_many_clients_arrive_whole() {
    let env = Env::new();
    let id = env.start(&[
        "--width",
        "40",
        "--height",
        "50",
        "--",
        "sh",
        "-c",
        "stty -echo; cat",
    ]);
    std::thread::sleep(Duration::from_millis(200));
    let handles: Vec<_> = (0..20)
        .map(|n| {
            let cmd = env.command(&[
                "send",
                &id,
                "--text",
                &format!("line-{n:02}-"),
                "--text",
                "end",
                "--keys",
                "Enter",
            ]);
            std::thread::spawn(move || {
                let mut cmd = cmd;
                cmd.output().expect("send runs").status.success()
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().expect("thread"), "a send failed");
    }
    let text = env.ok(&[
        "wait",
        &id,
        "--regex",
        r"(?s)(line-\d\d-end.*){20}",
        "--timeout",
        "10s",
    ])["screen"]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    for n in 0..20 {
        assert!(
            text.contains(&format!("line-{n:02}-end")),
            "{n} missing or torn:\n{text}"
        );
    }
}

/// The mode bits of `path` (not following a symlink).
fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// Every entry of `dir` with its mode in octal, by name.
fn modes_in(dir: &Path) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, format!("{:o}", mode(&e.path())))
        })
        .collect();
    found.sort();
    found
}

/// Runtime and state directories that exist world-writable before the first command are
/// made 0700 — the client tightens the runtime directory, the host its state directory —
/// and the host then serves; the files it makes there (socket, lock, a retained session's
/// record) are 0600. A loosened runtime directory is tightened again by the next command.
#[test]
fn loose_private_dirs_are_tightened_and_their_files_are_0600() {
    let env = Env::new();
    for dir in [&env.runtime, &env.state] {
        std::fs::create_dir(dir).expect("dir made");
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).expect("loose");
    }
    env.ok(&["list"]);
    let modes = format!("{:o} {:o}", mode(&env.runtime), mode(&env.state));
    assert_eq!(modes, "700 700", "runtime and state directory");
    let id = env.start(&["--", "sh", "-c", "echo bye"]);
    env.ok(&["wait", &id, "--exit", "--timeout", "10s"]);
    assert_eq!(
        modes_in(&env.runtime),
        [
            ("host.lock".into(), "600".into()),
            ("host.sock".into(), "600".into())
        ]
    );
    assert_eq!(
        modes_in(&env.state),
        [
            (format!("{id}.cast"), "600".into()),
            (format!("{id}.json"), "600".into())
        ]
    );

    std::fs::set_permissions(&env.runtime, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.ok(&["list"]);
    assert_eq!(mode(&env.runtime), 0o700);
}

/// A runtime directory that is not this user's own directory is refused with
/// `permission_denied` before anything is started: one owned by another user (and left as
/// it is), and a symlink to a private directory.
#[test]
fn a_foreign_or_symlinked_runtime_dir_is_permission_denied() {
    let env = Env::new();
    std::fs::create_dir(&env.runtime).expect("dir made");
    std::fs::set_permissions(&env.runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    let nobody = 65534;
    std::os::unix::fs::chown(&env.runtime, Some(nobody), Some(nobody)).expect("chown");
    let doc = env.error(&["list"], "permission_denied");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("/run belongs to uid 65534, not to this user"),
        "{doc}"
    );
    let meta = std::fs::metadata(&env.runtime).unwrap();
    assert_eq!((meta.uid(), mode(&env.runtime)), (nobody, 0o700));
    assert_eq!(modes_in(&env.runtime), Vec::new());

    std::fs::remove_dir(&env.runtime).unwrap();
    let target = env.tmp.join("elsewhere");
    std::fs::create_dir(&target).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(&target, &env.runtime).unwrap();
    env.error(&["list"], "permission_denied");
    assert_eq!(modes_in(&target), Vec::new());
}

#[test]
fn the_host_socket_is_private_and_rejects_bad_input() {
    let env = Env::new();
    env.ok(&["list"]);
    assert_eq!(mode(&env.runtime), 0o700);
    assert_eq!(mode(&env.socket()), 0o600);
    assert_eq!(mode(&env.state), 0o700);

    // Blank lines get no reply (the documented rule): the first reply is the ping's.
    let pong = env.raw(b"\n  \t\r\n\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n");
    assert_eq!(pong["id"], 7, "{pong}");
    assert!(pong["result"]["pid"].is_u64(), "{pong}");

    // JSON-RPC 2.0's codes, with the stable code in data.code.
    let bad = env.raw(b"{not json\n");
    assert_eq!(bad["id"], Value::Null);
    assert_eq!(bad["error"]["code"], -32700, "{bad}");
    assert_eq!(bad["error"]["data"]["code"], "invalid_request");
    for invalid in [
        &b"[1,2]\n"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":3}\n",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"list\"}\n",
        b"{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"list\"}\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"list\",\"params\":[]}\n",
    ] {
        let reply = env.raw(invalid);
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
        assert_eq!(reply["error"]["data"]["code"], "invalid_request");
    }
    let unknown = env.raw(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"explode\",\"params\":{}}\n");
    assert_eq!(unknown["id"], 7);
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    assert_eq!(unknown["error"]["data"]["code"], "invalid_request");
    let extra =
        env.raw(b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"list\",\"params\":{\"bogus\":1}}\n");
    assert_eq!(extra["error"]["code"], -32602, "{extra}");
    assert_eq!(extra["error"]["data"]["code"], "invalid_request");

    // A request line over 1 MiB gets a clean error, answered with the id its head names,
    // and the connection stays usable.
    let mut s = UnixStream::connect(env.socket()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut huge = br#"{"jsonrpc":"2.0","id":"big-1","method":"send","params":{"text":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', 1024 * 1024));
    huge.extend(b"\"}}\n");
    s.write_all(&huge).unwrap();
    s.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"list\",\"params\":{}}\n")
        .unwrap();
    let mut reader = BufReader::new(s);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let first: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(first["id"], "big-1", "{first}");
    assert!(
        first["error"]["message"]
            .as_str()
            .unwrap()
            .contains("longer than"),
        "{first}"
    );
    line.clear();
    reader.read_line(&mut line).unwrap();
    let second: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(second["id"], 9);
    assert!(second["result"]["sessions"].is_array());
}

/// Another user is refused: the client run as `nobody` fails with exactly
/// `permission_denied` (the runtime directory is not theirs), and `nobody` reaching the
/// socket through a hard link gets the connection closed without an answer.
#[test]
fn another_user_is_refused() {
    let env = Env::new();
    env.ok(&["list"]);
    // `nobody` sees the runtime directory (its parent opened to 0755, so that the outcome
    // does not depend on the umask) and refuses it as another user's, before any connection;
    // behind the 0700 directory the host would refuse them anyway.
    std::fs::set_permissions(env._dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let owner = std::fs::metadata(&env.runtime).unwrap().uid();
    let out = Command::new("setpriv")
        .args([
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            env!("CARGO_BIN_EXE_shotty"),
            "session",
            "list",
        ])
        .env("SHOTTY_RUNTIME_DIR", &env.runtime)
        .env("SHOTTY_STATE_DIR", &env.state)
        .output()
        .expect("setpriv runs");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON error document");
    assert_eq!(doc["status"], "error", "{doc}");
    assert_eq!(doc["error"]["code"], "permission_denied", "{doc}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/run belongs to uid {owner}, not to this user")),
        "{doc}"
    );
    assert_ne!(out.status.code(), Some(0));

    // The host's own check: the socket made reachable (a hard link in an open directory,
    // the inode opened up to 0666), `nobody` connects and asks — and gets no answer.
    let open_dir = tempfile::tempdir().expect("temp dir");
    std::fs::set_permissions(open_dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let link = open_dir.path().join("host.sock");
    std::fs::hard_link(env.socket(), &link).expect("hard link to the socket");
    std::fs::set_permissions(&link, std::fs::Permissions::from_mode(0o666)).unwrap();
    // The host closes such a connection at once: the send or the receive may fail, or the
    // receive sees the end; any of these is a refusal, an answer is not.
    let probe = "import socket, sys\n\
                 s = socket.socket(socket.AF_UNIX)\n\
                 s.connect(sys.argv[1])\n\
                 s.settimeout(5)\n\
                 try:\n    s.sendall(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\\n')\n    reply = s.recv(200)\n\
                 except (BrokenPipeError, ConnectionResetError):\n    reply = b''\n\
                 print('refused' if reply == b'' else 'answered: %r' % reply)\n";
    let out = Command::new("setpriv")
        .args([
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            // The system interpreter: one under the invoking user's home is out of reach.
            "/usr/bin/python3",
            "-c",
            probe,
        ])
        .arg(&link)
        .output()
        .expect("setpriv runs");
    std::fs::set_permissions(env.socket(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let answer = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        answer.trim(),
        "refused",
        "connected: {}; stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // The user's own clients are unaffected.
    env.ok(&["list"]);
}

#[test]
fn ctrl_c_cancels_a_wait() {
    let env = Env::new();
    let id = env.start(&["--", "sleep", "30"]);
    let child = env
        .command(&["wait", &id, "--text", "never"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("wait runs");
    std::thread::sleep(Duration::from_millis(500));
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    let out = child.wait_with_output().expect("wait ends");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["error"]["code"], "cancelled", "{doc}");
    assert_eq!(out.status.code(), Some(1));
    // The session is untouched.
    assert_eq!(env.ok(&["list"])["sessions"][0]["state"], "running");
}

/// A `wait --exit` pending when the session is stopped answers that the program ended, and
/// why (a stop removes the session at once, and the wait still tells of it); a text wait
/// answers `session_exited`, not that there is no such session.
#[test]
fn waits_pending_at_a_stop_tell_how_the_program_ended() {
    let env = Env::new();
    let id = env.start(&["--", "sleep", "30"]);
    let waiting = |args: &[&str]| {
        env.command(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("wait runs")
    };
    let exit = waiting(&["wait", &id, "--exit", "--timeout", "20s"]);
    let text = waiting(&["wait", &id, "--text", "never", "--timeout", "20s"]);
    std::thread::sleep(Duration::from_millis(500));
    env.ok(&["stop", &id]);
    let out = exit.wait_with_output().expect("wait ends");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(out.status.code(), Some(0), "{doc}");
    assert_eq!(doc["result"], "matched", "{doc}");
    assert_eq!(doc["stopReason"], "user", "{doc}");
    // `stop` hangs up first, as a closed terminal would.
    assert_eq!(doc["signal"], "SIGHUP", "{doc}");
    let out = text.wait_with_output().expect("wait ends");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(out.status.code(), Some(1), "{doc}");
    assert_eq!(doc["error"]["code"], "session_exited", "{doc}");
    assert_eq!(doc["stopReason"], "user", "{doc}");
}

/// Input for a program that does not read is bounded: past the 1 MiB a session holds for it,
/// a send fails at once (`invalid_operation`, nothing of it written) instead of holding the
/// host, and another client's read is answered meanwhile.
#[test]
fn input_a_program_does_not_read_is_bounded() {
    let env = Env::new();
    let id = env.start(&["--", "sh", "-c", "stty raw -echo; echo ready; sleep 300"]);
    env.ok(&["wait", &id, "--text", "ready", "--timeout", "10s"]);
    let send = |text: &str| {
        let request = json!({
            "jsonrpc": "2.0", "id": 1, "method": "send",
            "params": {"sessionId": id, "steps": [{"text": text}]},
        });
        let mut line = serde_json::to_vec(&request).expect("JSON");
        line.push(b'\n');
        env.raw(&line)
    };
    let chunk = "x".repeat(600 << 10);
    let first = send(&chunk);
    assert_eq!(first["result"]["written"], 600 << 10, "{}", first["error"]);
    let started = std::time::Instant::now();
    let refused = send(&chunk);
    let took = started.elapsed();
    assert_eq!(
        refused["error"]["data"]["code"], "invalid_operation",
        "{}",
        refused["error"]
    );
    let message = refused["error"]["message"].as_str().expect("a message");
    assert!(message.contains("not reading its input"), "{message}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    // The host answers others, and a small send still fits beside what waits.
    assert_eq!(env.ok(&["read", &id])["state"], "running");
    env.ok(&["send", &id, "--text", "y"]);
    env.ok(&["stop", &id]);
}

/// Connections are bounded: past the host's 1,024 at once a new one is told
/// `host_unavailable` at once and closed, while those open keep being served; ten thousand
/// attempts leave the host's descriptors bounded; a connection that sends no whole request
/// before its deadline is closed, and then new clients are served again.
#[test]
fn connections_are_bounded_and_idle_ones_closed() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    // This test holds more connections than the usual 1,024 descriptors.
    let mut limit = getrlimit(Resource::Nofile);
    limit.current = limit.maximum.map(|max| max.min(4096));
    let _ = setrlimit(Resource::Nofile, limit);

    let mut env = Env::new();
    env.extra_env
        .push(("SHOTTY_HOST_REQUEST_MS".into(), "4000".into()));
    env.ok(&["list"]);
    let pid = env.connection().call("ping", json!({}))["pid"]
        .as_u64()
        .expect("the host's pid");
    // The ping's connection closes as this one opens; give the host a moment to count it out.
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let connect = || UnixStream::connect(env.socket()).expect("host socket");
    // Whether the host refused `s` (asked once its answer has had time to come): its one
    // line says so; a served connection has nothing to say yet.
    let refused = |s: &UnixStream| {
        s.set_nonblocking(true).expect("non-blocking");
        let mut line = String::new();
        let got = BufReader::new(s).read_line(&mut line);
        s.set_nonblocking(false).expect("blocking");
        match got {
            Ok(0) => panic!("a connection was closed without a word"),
            Ok(_) => {
                let reply: Value = serde_json::from_str(&line).expect("JSON");
                assert_eq!(
                    reply["error"]["data"]["code"], "host_unavailable",
                    "{reply}"
                );
                true
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
            Err(e) => panic!("{e}"),
        }
    };
    let held: Vec<UnixStream> = (0..1100).map(|_| connect()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let turned_away = held.iter().filter(|s| refused(s)).count();
    assert_eq!(turned_away, 1100 - 1024);
    // A new client is turned away at once; one of the open connections is still served.
    let (doc, code) = env.run(&["list"]);
    assert_ne!(code, 0, "{doc}");
    assert_eq!(doc["error"]["code"], "host_unavailable", "{doc}");
    let served = held
        .iter()
        .find(|s| !refused(s))
        .expect("a served connection");
    let mut writer = served.try_clone().expect("clone");
    writer
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
        .expect("a request");
    let mut line = String::new();
    BufReader::new(served)
        .read_line(&mut line)
        .expect("a reply");
    assert!(line.contains("\"pid\""), "{line}");
    // Ten thousand more attempts cost the host nothing it keeps.
    for _ in 0..10_000 {
        let s = connect();
        s.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        let mut line = String::new();
        BufReader::new(&s)
            .read_line(&mut line)
            .expect("the refusal");
        assert!(line.contains("host_unavailable"), "{line}");
    }
    let descriptors = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("the host's descriptors")
        .count();
    // Two a served connection (its reading and its writing side), none a refused one.
    assert!(descriptors < 2 * 1024 + 64, "{descriptors} descriptors");
    assert!(
        started.elapsed() < Duration::from_millis(3500),
        "the deadline must not have passed yet: {:?}",
        started.elapsed()
    );
    // Past their deadline the idle connections are closed, and a new client is served.
    std::thread::sleep(Duration::from_millis(4500).saturating_sub(started.elapsed()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while env.run(&["list"]).1 != 0 {
        assert!(
            Instant::now() < deadline,
            "the host never took new clients again"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let closed = held
        .iter()
        .filter(|s| {
            s.set_read_timeout(Some(Duration::from_secs(1)))
                .expect("timeout");
            let mut buf = [0u8; 1];
            matches!(std::io::Read::read(&mut &**s, &mut buf), Ok(0))
        })
        .count();
    assert!(
        closed >= 1023,
        "{closed} of the idle connections were closed"
    );
}

/// The request deadline: a connection that asks nothing, or stops half-way through a line, is
/// closed once it passes; one that waits between requests keeps its connection.
#[test]
fn a_request_must_come_whole_in_time() {
    let mut env = Env::new();
    env.extra_env
        .push(("SHOTTY_HOST_REQUEST_MS".into(), "1000".into()));
    env.ok(&["list"]);
    let ping = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    let open = || {
        let s = UnixStream::connect(env.socket()).expect("host socket");
        s.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        s
    };
    let asks = |s: &UnixStream| {
        let mut w = s.try_clone().expect("clone");
        w.write_all(ping).expect("a request");
        let mut line = String::new();
        BufReader::new(s).read_line(&mut line).expect("a reply");
        assert!(line.contains("\"pid\""), "{line}");
    };
    let closed = |s: &UnixStream| {
        let mut buf = [0u8; 1];
        matches!(std::io::Read::read(&mut &*s, &mut buf), Ok(0))
    };
    let between = open();
    asks(&between);
    let silent = open();
    let halfway = open();
    (&halfway).write_all(&ping[..10]).expect("half a request");
    // A whole request and the start of the next in one write: the second is due at once.
    let pipelined = open();
    asks(&pipelined);
    let mut both = ping.to_vec();
    both.extend_from_slice(&ping[..10]);
    (&pipelined).write_all(&both).expect("a request and a half");
    let mut line = String::new();
    BufReader::new(&pipelined)
        .read_line(&mut line)
        .expect("the whole one's reply");
    std::thread::sleep(Duration::from_millis(1500));
    assert!(closed(&silent), "a connection that never asked");
    assert!(closed(&halfway), "a request that stopped half-way");
    assert!(
        closed(&pipelined),
        "a request that stopped half-way after a whole one"
    );
    asks(&between);
}

/// A client that sends requests but never reads the replies loses its connection once a
/// reply has waited the request deadline to be written, rather than holding it for ever.
#[test]
fn a_client_that_never_reads_its_replies_is_let_go() {
    let mut env = Env::new();
    env.extra_env
        .push(("SHOTTY_HOST_REQUEST_MS".into(), "1000".into()));
    // A session keeps the host from ending as idle, which would close the connection too.
    let _busy = env.start(&["--", "sleep", "300"]);
    let greedy = UnixStream::connect(env.socket()).expect("host socket");
    let mut sender = greedy.try_clone().expect("clone");
    // Requests until the host, its replies unread, stops reading them and the socket's
    // buffers fill: the sending stops only when the host closes the connection.
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let list = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list\",\"params\":{}}\n";
        let sent = (0..1_000_000)
            .take_while(|_| sender.write_all(list).is_ok())
            .count();
        let _ = done.send(sent);
    });
    let sent = finished.recv_timeout(Duration::from_secs(20));
    assert!(
        sent.is_ok_and(|n| n < 1_000_000),
        "the host still takes requests from a client that reads no replies: {sent:?}"
    );
    drop(greedy);
    env.ok(&["list"]);
}

/// Sends to a program that reads no input wait for room off the executor: many clients doing
/// that at once do not hold up another client's `resize` (each such send waits 100 ms).
#[test]
fn sends_to_a_program_that_reads_nothing_hold_up_no_one() {
    let env = Env::new();
    // Raw mode: the terminal keeps what it is sent (a line-editing one drops a long line's
    // excess), so the unread input piles up.
    let deaf = env.start(&[
        "--",
        "sh",
        "-c",
        "stty raw -echo; echo ready; exec sleep 300",
    ]);
    env.ok(&["wait", &deaf, "--text", "ready", "--timeout", "10s"]);
    let other = env.start(&["--", "sleep", "300"]);
    // Fill the deaf program's input: the terminal's buffer, then the session's 1 MiB.
    let chunk = "x".repeat(64 * 1024);
    let mut conn = env.connection();
    for _ in 0..32 {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "send",
            "params": {"sessionId": deaf, "steps": [{"text": chunk}]}});
        conn.stream
            .write_all(format!("{request}\n").as_bytes())
            .expect("request");
        let mut reply = String::new();
        conn.reader.read_line(&mut reply).expect("reply");
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flooders: Vec<_> = (0..20)
        .map(|_| {
            let mut conn = env.connection();
            let (stop, deaf) = (std::sync::Arc::clone(&stop), deaf.clone());
            std::thread::spawn(move || {
                let request = json!({"jsonrpc": "2.0", "id": 1, "method": "send",
                    "params": {"sessionId": deaf, "steps": [{"text": "y".repeat(1024)}]}});
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = conn.stream.write_all(format!("{request}\n").as_bytes());
                    let mut reply = String::new();
                    if conn.reader.read_line(&mut reply).is_err() {
                        return;
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut slowest = Duration::ZERO;
    for width in 50..55 {
        let started = Instant::now();
        conn.call(
            "resize",
            json!({"sessionId": other, "width": width, "height": 10}),
        );
        slowest = slowest.max(started.elapsed());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for flooder in flooders {
        let _ = flooder.join();
    }
    assert!(
        slowest < Duration::from_millis(500),
        "a resize waited {slowest:?} behind sends to a program that reads nothing"
    );
}

#[test]
fn vim_less_and_python_are_drivable() {
    if ["vim", "less", "python3"]
        .iter()
        .any(|program| crate::needs::program(program).is_none())
    {
        return;
    }
    let env = Env::new();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.md");

    let vim = env.start(&["--", "vim", "-u", "NONE", "-N", file.to_str().unwrap()]);
    env.ok(&["wait", &vim, "--text", "notes.md", "--timeout", "10s"]);
    let read = env.ok(&["read", &vim]);
    assert_eq!(read["screen"]["isAlternateScreen"], true);
    env.ok(&[
        "send", &vim, "--keys", "i", "--text", "# Plan", "--keys", "Escape", "--text", ":wq",
        "--keys", "Enter",
    ]);
    let done = env.ok(&["wait", &vim, "--exit", "--timeout", "10s"]);
    assert_eq!(done["state"], "exited");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "# Plan\n");

    let lines: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    let text = dir.path().join("lines.txt");
    std::fs::write(&text, lines).unwrap();
    let less = env.start(&["--height", "10", "--", "less", text.to_str().unwrap()]);
    env.ok(&["wait", &less, "--text", "line 9", "--timeout", "10s"]);
    env.ok(&["send", &less, "--text", "/line 150", "--keys", "Enter"]);
    let found = env.ok(&["wait", &less, "--text", "line 152", "--timeout", "10s"]);
    assert!(
        !found["screen"]["text"]
            .as_str()
            .unwrap()
            .contains("line 9\n")
    );
    env.ok(&["send", &less, "--keys", "q"]);
    env.ok(&["wait", &less, "--exit", "--timeout", "10s"]);

    let py = env.start(&["--", "python3", "-q"]);
    env.ok(&["wait", &py, "--text", ">>>", "--timeout", "10s"]);
    env.ok(&["send", &py, "--text", "sum(range(101))", "--keys", "Enter"]);
    env.ok(&["wait", &py, "--text", "5050", "--timeout", "10s"]);
    // Multi-line input through bracketed paste.
    env.ok(&[
        "send",
        &py,
        "--paste",
        "def sq(x):\n    return x * x\n",
        "--keys",
        "Enter",
    ]);
    env.ok(&["send", &py, "--text", "sq(12)", "--keys", "Enter"]);
    env.ok(&["wait", &py, "--text", "144", "--timeout", "10s"]);
    env.ok(&["send", &py, "--keys", "Ctrl+D"]);
    let ended = env.ok(&["wait", &py, "--exit", "--timeout", "10s"]);
    assert_eq!(ended["state"], "exited");
}

#[test]
fn a_stale_socket_is_replaced_and_a_vanished_client_is_harmless() {
    let env = Env::new();
    std::fs::create_dir_all(&env.runtime).unwrap();
    std::fs::set_permissions(&env.runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    // A socket file nobody listens on, as a SIGKILLed host leaves behind.
    drop(std::os::unix::net::UnixListener::bind(env.socket()).unwrap());
    std::fs::set_permissions(env.socket(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let id = env.start(&["--", "sleep", "30"]);

    // A client that sends half a request and disappears, and one that vanishes mid-wait.
    {
        let mut s = UnixStream::connect(env.socket()).unwrap();
        s.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"meth")
            .unwrap();
    }
    {
        let mut s = UnixStream::connect(env.socket()).unwrap();
        let req = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"wait\",\"params\":{{\"sessionId\":\"{id}\",\"text\":\"never\"}}}}\n"
        );
        s.write_all(req.as_bytes()).unwrap();
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(env.ok(&["list"])["sessions"][0]["sessionId"], id.as_str());
}

#[test]
fn host_shutdown_stops_sessions_and_keeps_them() {
    let env = Env::new();
    let dir = tempfile::tempdir().expect("dir");
    let pidfile = dir.path().join("pid");
    let script = format!(
        "setsid sleep 301 & echo $! > {}; echo alive; sleep 300",
        pidfile.display()
    );
    let id = env.start(&["--", "sh", "-c", &script]);
    env.ok(&["wait", &id, "--text", "alive", "--timeout", "10s"]);
    let detached = wait_for_pid(&pidfile);
    let pid = env.raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")["result"]["pid"]
        .as_i64()
        .expect("host pid");
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    let deadline = Instant::now() + Duration::from_secs(10);
    while Path::new(&format!("/proc/{pid}")).exists()
        && std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
    {
        assert!(Instant::now() < deadline, "host did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
    procs::assert_all_gone(&[detached]);
    let entry = env.ok(&["list", "--all"])["sessions"][0].clone();
    assert_eq!(entry["sessionId"], id.as_str());
    assert_eq!(
        (entry["state"].as_str(), entry["stopReason"].as_str()),
        (Some("stopped"), Some("shutdown"))
    );
    assert!(
        env.ok(&["read", &id])["screen"]["text"]
            .as_str()
            .unwrap()
            .contains("alive")
    );
}

#[test]
fn a_read_right_after_send_shows_the_reaction() {
    let _exclusive = exclusive();
    // Without a pause between the two requests, the read has to wait for the echo and for the
    // command's output; bash is asleep at its prompt once both are there.
    let env = Env::new();
    let id = shell(&env);
    let mut conn = env.connection();
    for i in 0..40 {
        conn.call(
            "send",
            json!({ "sessionId": id, "steps": [{ "text": format!("echo out-$((6*{i}))\r") }] }),
        );
        let screen = conn.call("read", json!({ "sessionId": id }))["screen"]["text"]
            .as_str()
            .expect("text")
            .to_owned();
        // The command's output; the prompt after it is a later write of its own.
        let expected = format!("\nout-{}\n", 6 * i);
        assert!(screen.contains(&expected), "round {i}: {screen:?}");
    }
    // The same through the CLI, with cat's kernel echo and cat's own copy.
    let cat = env.start(&["--", "cat"]);
    for i in 0..10 {
        env.ok(&["send", &cat, "--text", &format!("line-{i}\r")]);
        let screen = env.ok(&["read", &cat])["screen"]["text"]
            .as_str()
            .expect("text")
            .to_owned();
        let expected = format!("line-{i}\nline-{i}\n");
        assert!(screen.contains(&expected), "round {i}: {screen:?}");
    }
    reads_after_a_command_that_ran_show_its_output_under_load();
}

#[test]
fn no_request_is_lost_or_repeated_while_the_host_exits_idle() {
    // The host exits 100 ms after its last request when no session runs; commands arrive
    // around that moment. Each must get exactly one answer from exactly one host, so every
    // start creates exactly one (retained) session.
    let env = Env::with_host_idle(100);
    let mut started = Vec::new();
    for i in 0..40u64 {
        std::thread::sleep(Duration::from_millis(60 + (i * 37) % 120));
        if i % 2 == 0 {
            started.push(env.start(&["--", "true"]));
        } else {
            env.ok(&["list"]);
        }
    }
    let mut listed: Vec<String> = env.ok(&["list", "--all"])["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["sessionId"].as_str().expect("id").to_owned())
        .collect();
    listed.sort();
    started.sort();
    assert_eq!(listed, started);
}

#[test]
fn start_warns_about_ports_in_use() {
    let env = Env::new();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = taken.local_addr().expect("address").port().to_string();
    let doc = env.ok(&["start", "--port", &port, "--", "sleep", "30"]);
    assert_eq!(
        doc["warnings"],
        json!([format!("port {port} is already in use")]),
        "{doc}"
    );
    drop(taken);
    let doc = env.ok(&["start", "--port", &port, "--", "sleep", "30"]);
    assert_eq!(doc["warnings"], json!([]), "{doc}");
}

#[test]
fn a_client_gives_its_own_environment_and_restart_keeps_it() {
    // Language clients (python/, the npm package) pass their process's environment, so a
    // program sees the test's PATH and variables whichever process started the host.
    let env = Env::new();
    env.ok(&["list"]);
    let mut conn = env.connection();
    let script = "echo \"[${ONLY_CLIENT:-none}:${HOME:-nohome}:$TERM:${CI:-noci}:${COLUMNS:-nocols}]\"; exec sleep 30";
    let started = conn.call(
        "start",
        json!({
            "command": ["sh", "-c", script],
            "width": 60, "height": 4,
            "baseEnv": [
                ["PATH", "/usr/bin:/bin"], ["ONLY_CLIENT", "yes"], ["CI", "true"],
                ["SECRET_BASE", "s3cr3t-base-value"], ["COLUMNS", "80"],
            ],
        }),
    );
    let id = started["sessionId"].as_str().expect("id").to_owned();
    // The colour environment still applies on top: TERM set, CI removed; and the size is
    // the terminal's, not an inherited COLUMNS.
    let expected = "[yes:nohome:xterm-256color:noci:nocols]";
    env.ok(&["wait", &id, "--text", expected, "--timeout", "10s"]);
    let restarted = env.ok(&["restart", &id]);
    let new_id = restarted["sessionId"].as_str().expect("id");
    env.ok(&["wait", new_id, "--text", expected, "--timeout", "10s"]);
    // Never on disk: neither the marks of running sessions nor the record of the one
    // restarted carry it.
    let files = std::fs::read_dir(&env.state).expect("state dir");
    let mut seen = 0;
    for file in files.flatten() {
        let text = std::fs::read_to_string(file.path()).unwrap_or_default();
        seen += usize::from(text.contains("ONLY_CLIENT"));
        assert!(
            !text.contains("s3cr3t-base-value"),
            "{}: {text}",
            file.path().display()
        );
    }
    assert!(seen >= 2, "the marks and the record were read");
}

#[test]
fn golden_compares_a_screen_cell_by_cell_for_other_languages() {
    let env = Env::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let golden = dir.path().join("goldens/prompt.svg");
    let id = env.start(&[
        "--width",
        "30",
        "--height",
        "3",
        "--",
        "sh",
        "-c",
        "printf 'name? '; exec cat",
    ]);
    env.ok(&["wait", &id, "--text", "name?", "--timeout", "10s"]);
    let mut conn = env.connection();
    let mut check = |path: &Path, extra: Value| {
        let mut params = json!({ "sessionId": id, "path": path, "timeoutMs": 300 });
        params
            .as_object_mut()
            .expect("object")
            .extend(extra.as_object().expect("object").clone());
        conn.call("golden", params)
    };
    assert_eq!(check(&golden, json!({}))["verdict"], "new");
    assert!(golden.exists());
    assert_eq!(check(&golden, json!({}))["verdict"], "matched");
    env.ok(&["send", &id, "--text", "bob"]);
    let failed = check(&golden, json!({}));
    assert_eq!(failed["verdict"], "failed", "{failed}");
    let message = failed["message"].as_str().expect("message");
    assert!(
        message.contains("col 6: expected \" \", actual \"b\""),
        "{message}"
    );
    let actual = dir.path().join("goldens/prompt.actual.svg");
    let marked = dir.path().join("goldens/prompt.diff.svg");
    assert_eq!(failed["actual"], json!(actual));
    assert_eq!(failed["diff"], json!(marked));
    assert!(actual.exists() && marked.exists());
    assert_eq!(
        check(&golden, json!({"update": true}))["verdict"],
        "updated"
    );
    assert!(
        !actual.exists() && !marked.exists(),
        "stale pictures removed"
    );
    // CI: a golden nobody reviewed passes nothing.
    let unreviewed = dir.path().join("goldens/new.svg");
    let missing = check(&unreviewed, json!({"missingFails": true}));
    assert_eq!(missing["verdict"], "failed", "{missing}");
    assert!(!unreviewed.exists() && dir.path().join("goldens/new.actual.svg").exists());
    // A program that has ended is compared by its last screen.
    let ended = env.start(&["--width", "20", "--height", "2", "--", "echo", "done"]);
    env.ok(&["wait", &ended, "--exit", "--timeout", "10s"]);
    let last = dir.path().join("ended.json");
    for verdict in ["new", "matched"] {
        let reply = conn.call("golden", json!({ "sessionId": ended, "path": last }));
        assert_eq!(reply["verdict"], verdict, "{reply}");
    }
    let relative = json!({"jsonrpc": "2.0", "id": 1, "method": "golden",
        "params": {"sessionId": ended, "path": "x.svg"}});
    let reply = env.raw(format!("{relative}\n").as_bytes());
    assert_eq!(reply["error"]["data"]["code"], "invalid_request", "{reply}");
}

/// The process whose pid a session's script wrote to `path`, once it is there.
fn wait_for_pid(path: &Path) -> procs::Seen {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return procs::Seen::now(pid);
        }
        assert!(Instant::now() < deadline, "no pid in {}", path.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The ids `list` (with `args`) reports.
fn listed_ids(env: &Env, args: &[&str]) -> Vec<String> {
    env.ok(args)["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["sessionId"].as_str().expect("id").to_owned())
        .collect()
}

/// Held by the tests that load the machine (dozens of sessions, CPU hogs) and by the one that
/// measures how fresh reads are, so that they never run beside each other.
pub(crate) fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The session's screen text.
pub(crate) fn screen(env: &Env, id: &str) -> String {
    env.ok(&["read", id])["screen"]["text"]
        .as_str()
        .expect("text")
        .to_owned()
}

#[test]
fn a_bad_raw_hex_is_refused_and_the_host_keeps_serving() {
    let env = Env::new();
    let id = env.start(&["--", "cat"]);
    for bad in ["aéb", "é1", "１２", "0x41", "4"] {
        env.error(&["send", &id, "--raw-hex", bad], "invalid_request");
    }
    // The same through the socket, then a working send and read.
    let reply = env.raw(
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"send\",\"params\":{{\"sessionId\":\"{id}\",\"steps\":[{{\"rawHex\":\"aé\"}}]}}}}\n"
        )
        .as_bytes(),
    );
    assert_eq!(reply["error"]["data"]["code"], "invalid_request", "{reply}");
    env.ok(&["send", &id, "--raw-hex", "6f 6b 0d"]);
    env.ok(&["wait", &id, "--text", "ok\nok", "--timeout", "5s"]);
}

#[test]
fn a_panic_inside_one_request_costs_nobody_anything() {
    let mut env = Env::new();
    env.extra_env
        .push(("SHOTTY_TEST_PANIC_METHOD".into(), "history".into()));
    let id = env.start(&["--", "cat"]);
    let other = env.start(&["--", "cat"]);
    let failed = env.error(&["history", &id], "session_error");
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("internal error in history"),
        "{failed}"
    );
    // The same host still serves both sessions.
    let pid =
        env.raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")["result"]["pid"].clone();
    for session in [&id, &other] {
        env.ok(&["send", session, "--text", "still here\r"]);
        env.ok(&[
            "wait",
            session,
            "--text",
            "still here\nstill here",
            "--timeout",
            "5s",
        ]);
    }
    env.error(&["history", &other], "session_error");
    assert_eq!(env.ok(&["list"])["sessions"].as_array().unwrap().len(), 2);
    let again =
        env.raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")["result"]["pid"].clone();
    assert_eq!(pid, again, "the host was replaced");
}

#[test]
fn hosts_with_their_own_runtime_dirs_keep_their_own_sessions() {
    let home = tempfile::tempdir().expect("home");
    let a = Env::sharing_home(home.path());
    let b = Env::sharing_home(home.path());
    let id = a.start(&["--", "sh", "-c", "echo kept"]);
    a.ok(&["wait", &id, "--exit", "--timeout", "10s"]);
    assert_eq!(
        a.ok(&["list", "--all"])["sessions"][0]["sessionId"],
        id.as_str()
    );
    // The state lives under A's runtime directory, not in the shared HOME.
    assert!(a.runtime.join("state").join(format!("{id}.json")).exists());
    assert!(
        b.ok(&["list", "--all"])["sessions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    b.error(&["read", &id], "session_not_found");
    b.ok(&["stop", "--all", "--yes"]);
    assert_eq!(
        a.ok(&["list", "--all"])["sessions"][0]["sessionId"],
        id.as_str()
    );
    assert!(screen(&a, &id).contains("kept"));
}

#[test]
fn stop_leaves_nothing_of_the_session_on_disk() {
    let env = Env::new();
    let id = env.start(&["--", "sh", "-c", "echo typed-secret; sleep 300"]);
    env.ok(&["wait", &id, "--text", "typed-secret", "--timeout", "10s"]);
    env.ok(&["stop", &id]);
    let leftovers = || -> Vec<PathBuf> {
        std::fs::read_dir(&env.state)
            .expect("state dir")
            .flatten()
            .map(|e| e.path())
            .collect()
    };
    assert_eq!(leftovers(), Vec::<PathBuf>::new());
    // Nor a moment later, when the session's watcher has seen it end.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(leftovers(), Vec::<PathBuf>::new());
    env.error(&["read", &id], "session_not_found");
    // An ended, retained session is deleted by stop too.
    let ended = env.start(&["--", "sh", "-c", "echo gone"]);
    env.ok(&["wait", &ended, "--exit", "--timeout", "10s"]);
    // Its record and its recording.
    assert_eq!(leftovers().len(), 2);
    env.ok(&["stop", &ended]);
    assert_eq!(leftovers(), Vec::<PathBuf>::new());
}

#[test]
fn stop_ends_the_whole_process_tree() {
    let env = Env::new();
    let dir = tempfile::tempdir().expect("dir");
    let pids = dir.path().join("pids");
    let p = pids.display();
    // A setsid child, a nohup child, a TERM-ignoring child and a double-forked daemon whose
    // parent chain ends at the intermediate process that exits.
    let script = format!(
        "setsid sleep 301 & echo $! >> {p}; \
         nohup sleep 302 >/dev/null 2>&1 & echo $! >> {p}; \
         sh -c 'trap \"\" TERM HUP; exec sleep 303' & echo $! >> {p}; \
         setsid sh -c 'sleep 304 & echo $! >> {p}' & \
         while [ $(wc -l < {p}) -lt 4 ]; do sleep 0.01; done; echo ready; sleep 300"
    );
    let id = env.start(&["--", "sh", "-c", &script]);
    env.ok(&["wait", &id, "--text", "ready", "--timeout", "10s"]);
    let leader = env.ok(&["list"])["sessions"][0]["processId"]
        .as_u64()
        .unwrap() as u32;
    let mut seen = vec![procs::Seen::now(leader)];
    let listed: Vec<u32> = std::fs::read_to_string(&pids)
        .expect("pids")
        .lines()
        .map(|l| l.trim().parse().expect("pid"))
        .collect();
    assert_eq!(listed.len(), 4, "{listed:?}");
    seen.extend(listed.iter().map(|&pid| procs::Seen::now(pid)));
    let started = Instant::now();
    let stopped = env.ok(&["stop", &id]);
    assert!(started.elapsed() < Duration::from_secs(8));
    procs::assert_all_gone(&seen);
    let report = &stopped["processes"][0];
    assert_eq!(report["sessionId"], id.as_str(), "{stopped}");
    let ended: Vec<u64> = report["processIds"]
        .as_array()
        .expect("processIds")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    for pid in listed.iter().chain([&leader]) {
        assert!(
            ended.contains(&u64::from(*pid)),
            "{pid} not reported: {stopped}"
        );
    }
    // The TERM-ignoring one outlived the grace period.
    assert!(
        report["killed"]
            .as_array()
            .expect("killed")
            .contains(&json!(listed[2])),
        "{stopped}"
    );
}

#[test]
fn retention_runs_out_while_the_host_runs() {
    let env = Env::new();
    let id = env.start(&["--retain", "1s", "--", "sh", "-c", "echo short-lived"]);
    env.ok(&["wait", &id, "--exit", "--timeout", "10s"]);
    assert!(screen(&env, &id).contains("short-lived"));
    let record = env.state.join(format!("{id}.json"));
    assert!(record.exists());
    // The host removes it on its own once the time is up, without being asked.
    let deadline = Instant::now() + Duration::from_secs(10);
    while record.exists() {
        assert!(
            Instant::now() < deadline,
            "the record outlived its retention"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    env.error(&["read", &id], "session_expired");
    assert_eq!(listed_ids(&env, &["list", "--all"]), Vec::<String>::new());
}

#[test]
fn a_signal_ending_a_session_is_reported() {
    let env = Env::new();
    let id = env.start(&["--", "sh", "-c", "kill -KILL $$"]);
    env.ok(&["wait", &id, "--exit", "--timeout", "10s"]);
    let entry = env.ok(&["list", "--all"])["sessions"][0].clone();
    assert_eq!(entry["signal"], "SIGKILL", "{entry}");
    assert_eq!(entry["outcome"], "failed");
    assert_eq!(entry["outputLines"], 0, "{entry}");
    let read = env.ok(&["read", &id]);
    assert_eq!(read["signal"], "SIGKILL", "{read}");
    assert_eq!(read["exitCode"], Value::Null);
    // A running session has no signal, and counts the lines it wrote.
    let running = env.start(&["--", "sh", "-c", "echo one; echo two; sleep 300"]);
    env.ok(&["wait", &running, "--text", "two", "--timeout", "10s"]);
    let listed = env.ok(&["list"])["sessions"][0].clone();
    assert_eq!(listed["signal"], Value::Null);
    assert_eq!(listed["outputLines"], 2, "{listed}");
    // Lines that scrolled out of the history count too: the lines written, not those kept.
    let long = env.start(&[
        "--scrollback",
        "100",
        "--",
        "sh",
        "-c",
        "seq 1 1000; sleep 300",
    ]);
    env.ok(&["wait", &long, "--text", "1000", "--timeout", "10s"]);
    assert_eq!(listed_entry(&env, &long)["outputLines"], 1000);
    env.ok(&["stop", &long]);
    let ended = env.start(&["--scrollback", "100", "--", "seq", "1", "1000"]);
    env.ok(&["wait", &ended, "--exit", "--timeout", "10s"]);
    assert_eq!(listed_entry(&env, &ended)["outputLines"], 1000);
}

/// The entry of `list --all` for session `id`.
pub(crate) fn listed_entry(env: &Env, id: &str) -> Value {
    env.ok(&["list", "--all"])["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|s| s["sessionId"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} is not listed"))
}

#[test]
fn a_host_whose_executor_fails_exits_and_the_next_one_finds_its_sessions() {
    let mut env = Env::new();
    env.extra_env
        .push(("SHOTTY_TEST_PANIC_METHOD".into(), "executor".into()));
    let id = env.start(&["--", "sh", "-c", "echo before-the-failure; sleep 300"]);
    env.ok(&[
        "wait",
        &id,
        "--text",
        "before-the-failure",
        "--timeout",
        "10s",
    ]);
    // The host's pid, found without a ping (the ping is what fails).
    let pid = {
        let listed = env.connection().call("list", json!({}));
        assert_eq!(listed["sessions"][0]["sessionId"], id.as_str());
        let runtime = format!("SHOTTY_RUNTIME_DIR={}", env.runtime.display());
        procs::all()
            .into_iter()
            .find(|p| {
                std::fs::read_to_string(format!("/proc/{}/cmdline", p.pid))
                    .is_ok_and(|c| c.ends_with("session\0host\0"))
                    && std::fs::read(format!("/proc/{}/environ", p.pid))
                        .is_ok_and(|e| e.split(|&b| b == 0).any(|v| v == runtime.as_bytes()))
            })
            .expect("the host process")
            .pid
    };
    let host = procs::Seen::now(pid);
    // The failing request gets no answer: its connection closes.
    let mut s = UnixStream::connect(env.socket()).expect("socket");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .unwrap();
    let mut reply = String::new();
    let _ = BufReader::new(s).read_line(&mut reply);
    assert_eq!(reply, "", "a failed executor answered");
    // The host does not linger; the next command starts a new one that knows the session,
    // stopped by the shutdown and retained.
    procs::assert_all_gone(&[host]);
    env.extra_env.clear();
    let entry = env.ok(&["list", "--all"])["sessions"][0].clone();
    assert_eq!(entry["sessionId"], id.as_str(), "{entry}");
    assert_eq!(entry["stopReason"], "shutdown", "{entry}");
    assert!(screen(&env, &id).contains("before-the-failure"));
}

/// Part of [`a_read_right_after_send_shows_the_reaction`] (run after it, not beside it: the
/// load it makes would disturb the other rounds).
fn reads_after_a_command_that_ran_show_its_output_under_load() {
    // `clear` is a program of its own: bash forks it, it runs and exits, bash prints its
    // prompt and waits for input again — all possibly before the output has reached the host
    // (the kernel hands PTY output over asynchronously, later still on a busy machine). A read
    // must not take that quiet moment for the end of the reaction.
    let env = Env::new();
    let id = env.start(&[
        "--width", "60", "--height", "12", "--", "bash", "--norc", "-i",
    ]);
    env.ok(&["wait", &id, "--regex", r"(?m)[$#] ?$", "--timeout", "10s"]);
    let hogs: Vec<std::process::Child> = (0..1)
        .map(|_| {
            Command::new("nice")
                .args(["-n", "19", "sh", "-c", "while :; do :; done"])
                .spawn()
                .expect("hog")
        })
        .collect();
    let mut conn = env.connection();
    let mut stale = Vec::new();
    for round in 0..50 {
        conn.call(
            "send",
            json!({ "sessionId": id, "steps": [{ "text": "clear\r" }] }),
        );
        let text = conn.call("read", json!({ "sessionId": id }))["screen"]["text"]
            .as_str()
            .expect("text")
            .to_owned();
        if text.contains("clear") {
            stale.push((round, text));
        }
    }
    for mut hog in hogs {
        let _ = hog.kill();
        let _ = hog.wait();
    }
    // A PTY write reaches the host through the kernel's work queue; under this load that can
    // take milliseconds after the program has gone back to waiting for input, and nothing a
    // process can read tells it is on its way. The host waits for it whenever the foreground
    // process changed or worked since the output it has (measured: 0 to 1 stale reads in 50
    // here, 1 to 3 before); one is tolerated, so this cannot flap, and more fail.
    assert!(stale.len() <= 1, "reads before clear's output: {stale:?}");
}

/// Starts `n` sessions of `sh -c SCRIPT` over one raw connection; their ids and leaders.
fn start_many(env: &Env, n: usize, script: &str) -> Vec<(String, procs::Seen)> {
    env.ok(&["list"]);
    let mut conn = env.connection();
    (0..n)
        .map(|_| {
            let started = conn.call(
                "start",
                json!({ "command": ["sh", "-c", script], "width": 40, "height": 5 }),
            );
            let id = started["sessionId"].as_str().expect("id").to_owned();
            let pid = started["processId"].as_u64().expect("pid") as u32;
            (id, procs::Seen::now(pid))
        })
        .collect()
}

/// Waits until every session's screen shows `text`.
fn wait_all(env: &Env, sessions: &[(String, procs::Seen)], text: &str) {
    for (id, _) in sessions {
        env.ok(&["wait", id, "--text", text, "--timeout", "20s"]);
    }
}

const IGNORES_TERM: &str = "trap '' TERM HUP; echo ignoring; exec sleep 300";

#[test]
fn stopping_many_stubborn_sessions_shares_one_grace_and_blocks_nobody() {
    let _exclusive = exclusive();
    let env = Env::new();
    let sessions = start_many(&env, 50, IGNORES_TERM);
    wait_all(&env, &sessions, "ignoring");
    let started = Instant::now();
    let stopper = {
        let cmd = env.command(&["stop", "--all", "--yes"]);
        std::thread::spawn(move || {
            let mut cmd = cmd;
            let out = cmd.output().expect("stop runs");
            (out, Instant::now())
        })
    };
    // Another client is served while the stop waits out its grace period.
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    let listed = env.ok(&["list"]);
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "list took {:?}",
        asked.elapsed()
    );
    let states: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["state"].as_str())
        .collect();
    assert!(states.iter().all(|&s| s == "stopping"), "{states:?}");
    let (out, done) = stopper.join().expect("stopper");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["status"], "ok", "{doc}");
    assert_eq!(doc["stopped"].as_array().unwrap().len(), 50);
    assert!(
        done - started < Duration::from_secs(6),
        "took {:?}",
        done - started
    );
    let leaders: Vec<procs::Seen> = sessions.into_iter().map(|(_, s)| s).collect();
    procs::assert_all_gone(&leaders);
    assert_eq!(listed_ids(&env, &["list", "--all"]), Vec::<String>::new());
}

#[test]
fn host_shutdown_ends_every_stubborn_session() {
    let _exclusive = exclusive();
    let env = Env::new();
    let sessions = start_many(&env, 20, IGNORES_TERM);
    wait_all(&env, &sessions, "ignoring");
    let pid = env.raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")["result"]["pid"]
        .as_u64()
        .expect("host pid") as u32;
    let host = procs::Seen::now(pid);
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    let mut all: Vec<procs::Seen> = sessions.iter().map(|(_, s)| s.clone()).collect();
    all.push(host);
    procs::assert_all_gone(&all);
    // Their records were kept: the next host lists them as stopped by the shutdown.
    let listed = env.ok(&["list", "--all"]);
    let reasons: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["stopReason"].as_str())
        .collect();
    assert_eq!(reasons, vec!["shutdown"; 20], "{listed}");
}

#[test]
fn host_shutdown_in_a_stream_of_starts_leaves_no_process() {
    let _exclusive = exclusive();
    let env = Env::new();
    env.ok(&["list"]);
    // Every program of this test runs `sleep` with this argument: whatever the host started,
    // reported or not, can be found by it.
    let token = format!("300.{}{}", std::process::id(), procs::ticks_now() % 100_000);
    let script = format!("trap '' TERM HUP; exec sleep {token}");
    let host = env.connection().call("ping", json!({}))["pid"]
        .as_u64()
        .expect("host pid") as u32;
    let host = procs::Seen::now(host);
    let starters: Vec<_> = (0..4)
        .map(|_| {
            let socket = env.socket();
            let script = script.clone();
            std::thread::spawn(move || {
                let Ok(mut s) = UnixStream::connect(&socket) else {
                    return 0;
                };
                let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
                let mut reader = BufReader::new(s.try_clone().expect("clone"));
                let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "start",
                    "params": { "command": ["sh", "-c", script], "width": 20, "height": 2 } });
                let mut line = serde_json::to_vec(&request).expect("json");
                line.push(b'\n');
                let mut started = 0;
                // Until the host refuses or goes away.
                loop {
                    let mut reply = String::new();
                    if s.write_all(&line).is_err()
                        || !matches!(reader.read_line(&mut reply), Ok(n) if n > 0)
                    {
                        return started;
                    }
                    if !reply.contains("\"result\"") {
                        return started;
                    }
                    started += 1;
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(150));
    Command::new("kill")
        .args(["-TERM", &host.pid.to_string()])
        .status()
        .expect("kill");
    let started: usize = starters
        .into_iter()
        .map(|t| t.join().expect("starter"))
        .sum();
    assert!(started > 0, "no start was answered before the shutdown");
    procs::assert_all_gone(&[host]);
    let left = || {
        procs::all()
            .into_iter()
            .filter(|p| {
                std::fs::read(format!("/proc/{}/cmdline", p.pid))
                    .is_ok_and(|c| c.split(|&b| b == 0).any(|arg| arg == token.as_bytes()))
            })
            .map(|p| p.pid)
            .collect::<Vec<_>>()
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while !left().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        left(),
        Vec::<u32>::new(),
        "programs outlived the host ({started} starts answered)"
    );
}

#[test]
fn waits_see_trailing_spaces_and_anchor_lines() {
    let env = Env::new();
    // python3's prompt is ">>> ", the space a blank cell at the end of its row.
    let python = env.start(&["--", "python3", "-q"]);
    env.ok(&["wait", &python, "--text", ">>> ", "--timeout", "10s"]);
    // A needle with a space before a line break is found at the row's full width too.
    let lines = env.start(&["--", "sh", "-c", "printf 'one \\ntwo\\n'; exec sleep 30"]);
    env.ok(&["wait", &lines, "--text", "one \ntwo", "--timeout", "10s"]);
    // `^` anchors a line, not only the start of the screen.
    let marks = env.start(&[
        "--",
        "sh",
        "-c",
        "echo first; echo '[0] ready'; exec sleep 30",
    ]);
    env.ok(&[
        "wait",
        &marks,
        "--regex",
        "^\\[0\\] ready$",
        "--timeout",
        "10s",
    ]);
    env.ok(&["stop", &python, &lines, &marks]);
}

#[test]
fn text_that_starts_with_a_dash_is_text() {
    let env = Env::new();
    let cat = env.start(&["--", "cat"]);
    env.ok(&["send", &cat, "--text", "- item", "--text", "\r"]);
    env.ok(&[
        "send", &cat, "--text", "-v", "--paste", "-x", "--keys", "Enter",
    ]);
    env.ok(&["wait", &cat, "--text", "-v-x", "--timeout", "10s"]);
    env.ok(&["wait", &cat, "--text", "- item", "--timeout", "10s"]);
    env.ok(&["history", &cat, "--grep", "-v"]);
    env.ok(&["stop", &cat]);
}

#[test]
fn keys_follow_the_modes_the_program_set() {
    // The program switches to application cursor keys and keypad itself; the host must encode
    // `--keys` with the terminal's modes, not the defaults.
    let env = Env::new();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/keyecho.py");
    let app = env.start(&["--", "python3", script, "app"]);
    env.ok(&["wait", &app, "--text", "ready", "--timeout", "10s"]);
    env.ok(&["send", &app, "--keys", "Up"]);
    env.ok(&["wait", &app, "--text", "[1b4f41]", "--timeout", "10s"]);
    env.ok(&["send", &app, "--keys", "KP7"]);
    env.ok(&["wait", &app, "--text", "[1b4f77]", "--timeout", "10s"]);
    let normal = env.start(&["--", "python3", script]);
    env.ok(&["wait", &normal, "--text", "ready", "--timeout", "10s"]);
    env.ok(&["send", &normal, "--keys", "Up", "--keys", "KP7"]);
    env.ok(&["wait", &normal, "--text", "[1b5b4137]", "--timeout", "10s"]);
    env.ok(&["stop", &app, &normal]);
}

/// Threads and open files of a process.
pub(crate) fn threads_and_fds(pid: u32) -> (usize, usize) {
    let count = |dir: String| std::fs::read_dir(dir).map_or(0, |d| d.count());
    (
        count(format!("/proc/{pid}/task")),
        count(format!("/proc/{pid}/fd")),
    )
}

#[test]
fn starting_and_stopping_sessions_leaks_nothing() {
    let _exclusive = exclusive();
    let env = Env::new();
    env.ok(&["list"]);
    let mut conn = env.connection();
    let host = conn.call("ping", json!({}))["pid"].as_u64().expect("pid") as u32;
    // One round first, so that whatever the host sets up once is there before counting.
    let warm = conn.call("start", json!({ "command": ["cat"] }));
    conn.call("stop", json!({ "sessionIds": [warm["sessionId"]] }));
    std::thread::sleep(Duration::from_millis(200));
    let before = threads_and_fds(host);
    let mut leaders = Vec::new();
    for _ in 0..200 {
        let started = conn.call(
            "start",
            json!({ "command": ["cat"], "width": 20, "height": 2 }),
        );
        leaders.push(procs::Seen::now(
            started["processId"].as_u64().unwrap() as u32
        ));
        let stopped = conn.call("stop", json!({ "sessionIds": [started["sessionId"]] }));
        assert_eq!(stopped["stopped"].as_array().unwrap().len(), 1, "{stopped}");
    }
    procs::assert_all_gone(&leaders);
    // Threads of ended sessions exit shortly after their stop replied.
    let deadline = Instant::now() + Duration::from_secs(5);
    while threads_and_fds(host) != before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        threads_and_fds(host),
        before,
        "threads and fds before and after"
    );
}

/// The process id `list` reports for session `id`.
fn process_of(env: &Env, id: &str) -> u32 {
    let listed = env.ok(&["list", "--all"]);
    let entry = listed["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|s| s["sessionId"] == id)
        .unwrap_or_else(|| panic!("{id} not listed: {listed}"));
    let pid = entry["processId"].as_u64().expect("processId");
    u32::try_from(pid).expect("a pid")
}

/// Sorted, for comparing sets of ids.
fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}

/// `--group`: `list` names each session's group and `list --group` shows only that group;
/// `stop --group` ends exactly that group's sessions and their programs, the others run on.
#[test]
fn stop_group_ends_that_group_and_no_other() {
    let env = Env::new();
    let alpha: Vec<String> = (0..2)
        .map(|_| env.start(&["--group", "alpha", "--", "sleep", "300"]))
        .collect();
    let beta = env.start(&["--group", "beta", "--", "sleep", "300"]);
    let loose = env.start(&["--", "sleep", "300"]);
    assert_eq!(
        sorted(listed_ids(&env, &["list", "--group", "alpha"])),
        sorted(alpha.clone())
    );
    for entry in env.ok(&["list"])["sessions"].as_array().expect("sessions") {
        let id = entry["sessionId"].as_str().expect("id");
        let group = if alpha.iter().any(|a| a == id) {
            json!("alpha")
        } else if id == beta {
            json!("beta")
        } else {
            Value::Null
        };
        assert_eq!(entry["group"], group, "{entry}");
    }
    let alpha_processes: Vec<procs::Seen> = alpha
        .iter()
        .map(|id| procs::Seen::now(process_of(&env, id)))
        .collect();
    let others = [
        procs::Seen::now(process_of(&env, &beta)),
        procs::Seen::now(process_of(&env, &loose)),
    ];

    let stopped = env.ok(&["stop", "--group", "alpha"]);
    assert_eq!(stopped["failed"], json!([]), "{stopped}");
    let ids: Vec<String> = stopped["stopped"]
        .as_array()
        .expect("stopped")
        .iter()
        .map(|v| v.as_str().expect("id").to_owned())
        .collect();
    assert_eq!(sorted(ids), sorted(alpha.clone()), "{stopped}");
    procs::assert_all_gone(&alpha_processes);
    for id in &alpha {
        env.error(&["read", id], "session_not_found");
    }
    assert_eq!(
        sorted(listed_ids(&env, &["list"])),
        sorted(vec![beta.clone(), loose.clone()])
    );
    assert!(others.iter().all(procs::Seen::is_alive), "{others:?}");
    // A group nobody has stops nothing.
    let none = env.ok(&["stop", "--group", "gamma"]);
    assert_eq!(none["stopped"], json!([]), "{none}");
    assert_eq!(listed_ids(&env, &["list"]).len(), 2);
}

/// `--title` names the session in `list` and in the window bar of a capture; `--cwd`, given
/// absolute or relative to the caller's directory, is the program's working directory and
/// is what `list` reports.
#[test]
fn title_and_cwd_are_the_sessions_own() {
    let env = Env::new();
    let caller = tempfile::tempdir().expect("caller's dir");
    let work = caller.path().join("work");
    std::fs::create_dir(&work).expect("work dir");
    let work = work.canonicalize().expect("canonical path");
    let work_text = work.to_str().expect("UTF-8 path");
    let id = env.start(&[
        "--title",
        "Build & test",
        "--cwd",
        work_text,
        "--",
        "sh",
        "-c",
        "pwd; sleep 300",
    ]);
    env.ok(&["wait", &id, "--text", work_text, "--timeout", "10s"]);
    let listed = env.ok(&["list"]);
    let entry = &listed["sessions"][0];
    assert_eq!(entry["title"], "Build & test", "{listed}");
    assert_eq!(entry["cwd"], work_text, "{listed}");

    let shot = caller.path().join("shot.svg");
    env.ok(&[
        "capture",
        &id,
        "-d",
        "macos",
        "-o",
        shot.to_str().expect("UTF-8"),
    ]);
    let svg = std::fs::read_to_string(&shot).expect("capture written");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    assert!(
        doc.descendants()
            .any(|n| n.is_text() && n.text() == Some("Build & test")),
        "the title in the window bar: {svg}"
    );

    // Relative to the directory `start` runs in.
    let out = env
        .command(&["start", "--cwd", "work", "--", "sh", "-c", "pwd; sleep 300"])
        .current_dir(caller.path())
        .output()
        .expect("shotty runs");
    let started: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let relative = started["sessionId"].as_str().expect("sessionId");
    env.ok(&["wait", relative, "--text", work_text, "--timeout", "10s"]);
}

/// `--scrollback N` keeps the last N lines that scrolled off: `read` counts N, `history`
/// starts N lines above the screen and reports the older ones as dropped.
#[test]
fn the_scrollback_limit_is_honoured() {
    let env = Env::new();
    let id = env.start(&[
        "--height",
        "5",
        "--scrollback",
        "100",
        "--",
        "sh",
        "-c",
        "seq 1 400; echo end-of-output; sleep 300",
    ]);
    env.ok(&["wait", &id, "--text", "end-of-output", "--timeout", "10s"]);
    // The screen holds 398, 399, 400, end-of-output and the cursor's empty row: lines 1–397
    // scrolled off, and the last 100 of them (298–397) are kept.
    let read = env.ok(&["read", &id]);
    assert_eq!(read["screen"]["scrollbackRows"], 100, "{read}");
    let history = env.ok(&["history", &id, "--limit", "1000"]);
    let texts: Vec<&str> = history["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["text"].as_str().expect("text"))
        .collect();
    let expected: Vec<String> = (298..=400)
        .map(|n| n.to_string())
        .chain(["end-of-output".to_owned()])
        .collect();
    assert_eq!(texts, expected, "{history}");
    assert_eq!(history["dropped"], 297, "{history}");
}

/// `history --tail N` gives the last N lines — after `--grep` has picked lines — with their
/// global indices.
#[test]
fn history_tail_gives_the_last_lines() {
    let env = Env::new();
    let id = env.start(&["--", "sh", "-c", "seq 1 30; echo done; sleep 300"]);
    env.ok(&["wait", &id, "--text", "done", "--timeout", "10s"]);
    let lines = |args: &[&str]| -> Vec<(u64, String)> {
        let mut all = vec!["history", &id];
        all.extend_from_slice(args);
        env.ok(&all)["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .map(|l| {
                (
                    l["index"].as_u64().expect("index"),
                    l["text"].as_str().expect("text").to_owned(),
                )
            })
            .collect()
    };
    let everything = lines(&[]);
    assert_eq!(everything.len(), 31, "{everything:?}");
    let tail = lines(&["--tail", "3"]);
    assert_eq!(tail, everything[28..], "{tail:?}");
    let texts: Vec<&str> = tail.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts, ["29", "30", "done"]);
    let grepped = lines(&["--grep", "^1", "--tail", "2"]);
    let texts: Vec<&str> = grepped.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts, ["18", "19"], "{grepped:?}");
    assert_eq!(lines(&["--tail", "100"]), everything);
}

/// `read --bottom N` gives the last N rows and `--start A --end B` rows A to B (0-based, both
/// included, clamped to the screen); mixing the selectors is refused.
#[test]
fn read_selects_rows() {
    let env = Env::new();
    let id = env.start(&[
        "--height",
        "5",
        "--",
        "sh",
        "-c",
        "printf 'r0\\nr1\\nr2\\nr3\\nr4'; sleep 300",
    ]);
    env.ok(&["wait", &id, "--text", "r4", "--timeout", "10s"]);
    let rows = |args: &[&str]| screen_text(&env, &id, args);
    assert_eq!(rows(&[]), "r0\nr1\nr2\nr3\nr4");
    assert_eq!(rows(&["--bottom", "2"]), "r3\nr4");
    assert_eq!(rows(&["--top", "2"]), "r0\nr1");
    assert_eq!(rows(&["--start", "1", "--end", "3"]), "r1\nr2\nr3");
    assert_eq!(rows(&["--start", "2", "--end", "2"]), "r2");
    assert_eq!(rows(&["--start", "3", "--end", "99"]), "r3\nr4");
    for bad in [
        &["--start", "1"][..],
        &["--start", "3", "--end", "1"],
        &["--bottom", "1", "--top", "1"],
        &["--bottom", "1", "--start", "0", "--end", "1"],
    ] {
        let mut all = vec!["read", &id];
        all.extend_from_slice(bad);
        env.error(&all, "invalid_request");
    }
}

/// `read ID ARGS…`'s `screen.text`.
fn screen_text(env: &Env, id: &str, args: &[&str]) -> String {
    let mut all = vec!["read", id];
    all.extend_from_slice(args);
    env.ok(&all)["screen"]["text"]
        .as_str()
        .expect("text")
        .to_owned()
}

/// `read --trim` leaves out the blank rows at the end, and only those; without it every row
/// is a line, as console2svg prints it.
#[test]
fn read_trim_leaves_out_blank_rows_at_the_end() {
    let env = Env::new();
    let id = env.start(&[
        "--height",
        "6",
        "--",
        "sh",
        "-c",
        "printf 'a\\n\\nb'; sleep 300",
    ]);
    env.ok(&["wait", &id, "--text", "b", "--timeout", "10s"]);
    let text = |args: &[&str]| screen_text(&env, &id, args);
    assert_eq!(text(&[]), "a\n\nb\n\n\n");
    assert_eq!(text(&["--trim"]), "a\n\nb");
    assert_eq!(text(&["--trim", "--top", "2"]), "a");
    assert_eq!(text(&["--trim", "--bottom", "2"]), "");
    env.ok(&["stop", &id]);
}

/// `wait --until absent` matches once the text has been on the screen and is gone — not for
/// text that never appeared, and not while the text stays; `--until gone` matches text that
/// never appeared.
#[test]
fn wait_until_absent_needs_the_text_seen_then_gone() {
    let env = Env::new();
    // "busy" comes and goes every 0.2 s, so the wait sees it and then sees it gone whenever
    // it starts.
    let blinking = env.start(&[
        "--",
        "sh",
        "-c",
        "while :; do printf '\\rbusy'; sleep 0.2; printf '\\r    '; sleep 0.2; done",
    ]);
    let gone = env.ok(&[
        "wait",
        &blinking,
        "--text",
        "busy",
        "--until",
        "absent",
        "--timeout",
        "20s",
    ]);
    assert_eq!(
        (gone["result"].as_str(), gone["until"].as_str()),
        (Some("matched"), Some("absent")),
        "{gone}"
    );
    assert!(
        !gone["screen"]["text"]
            .as_str()
            .expect("text")
            .contains("busy"),
        "{gone}"
    );

    let steady = env.start(&["--", "sh", "-c", "echo steady; sleep 300"]);
    env.ok(&["wait", &steady, "--text", "steady", "--timeout", "10s"]);
    for text in ["steady", "never-shown"] {
        let (doc, code) = env.run(&[
            "wait",
            &steady,
            "--text",
            text,
            "--until",
            "absent",
            "--timeout",
            "500ms",
        ]);
        assert_eq!(
            (doc["result"].as_str(), doc["error"]["code"].as_str(), code),
            (Some("timeout"), Some("wait_timeout"), 1),
            "{text}: {doc}"
        );
    }
    // `gone` asks only that the text be off the settled screen.
    let never = env.ok(&[
        "wait",
        &steady,
        "--text",
        "never-shown",
        "--until",
        "gone",
        "--timeout",
        "5s",
    ]);
    assert_eq!(
        (never["result"].as_str(), never["until"].as_str()),
        (Some("matched"), Some("gone")),
        "{never}"
    );
    env.error(
        &["wait", &steady, "--text", "x", "--until", "later"],
        "invalid_condition",
    );
}

/// `start --owner-pid PID` ties a session to a process: it lives while that process does, and
/// within about a second of its end is stopped as `stop` stops one (its program ended, the
/// session gone from `list --all`). A process that is not there is refused.
#[test]
fn a_session_ends_with_its_owner_process() {
    let env = Env::new();
    let mut owner = std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .expect("sleep starts");
    let owner_pid = owner.id().to_string();
    let id = env.start(&[
        "--owner-pid",
        &owner_pid,
        "--",
        "sh",
        "-c",
        "echo up; exec sleep 300",
    ]);
    env.ok(&["wait", &id, "--text", "up", "--timeout", "10s"]);
    let listed = |all: &Value| {
        all["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .find(|s| s["sessionId"] == id.as_str())
            .cloned()
    };
    let program = listed(&env.ok(&["list"])).expect("listed")["processId"]
        .as_u64()
        .expect("pid");
    let program = procs::Seen::now(u32::try_from(program).expect("a pid"));
    // Past two housekeeping rounds with the owner alive: still running.
    std::thread::sleep(Duration::from_millis(2200));
    assert!(program.is_alive());
    assert_eq!(
        listed(&env.ok(&["list"])).expect("listed")["state"],
        "running"
    );

    owner.kill().expect("the owner is killed");
    owner.wait().expect("the owner is reaped");
    procs::assert_all_gone(std::slice::from_ref(&program));
    let deadline = Instant::now() + Duration::from_secs(5);
    while listed(&env.ok(&["list", "--all"])).is_some() {
        assert!(Instant::now() < deadline, "the session is still listed");
        std::thread::sleep(Duration::from_millis(50));
    }
    let refused = env.error(
        &["start", "--owner-pid", &owner_pid, "--", "true"],
        "invalid_request",
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no such process")),
        "{refused}"
    );
}

/// `wait --idle DUR` matches once the screen has not changed for DUR, and never while a
/// counter keeps changing it.
#[test]
fn wait_idle_needs_a_quiet_screen() {
    let env = Env::new();
    let counter = env.start(&[
        "--",
        "sh",
        "-c",
        "i=0; while :; do i=$((i+1)); printf '\\r%s' $i; sleep 0.05; done",
    ]);
    env.ok(&["wait", &counter, "--regex", "[0-9]", "--timeout", "10s"]);
    let (busy, code) = env.run(&["wait", &counter, "--idle", "1500ms", "--timeout", "3s"]);
    assert_eq!(
        (
            busy["result"].as_str(),
            busy["error"]["code"].as_str(),
            code
        ),
        (Some("timeout"), Some("wait_timeout"), 1),
        "{busy}"
    );

    let quiet = env.start(&["--", "sh", "-c", "echo settled; sleep 300"]);
    let idle = env.ok(&["wait", &quiet, "--idle", "300ms", "--timeout", "20s"]);
    assert_eq!(idle["result"], "matched", "{idle}");
    assert!(
        idle["screen"]["text"]
            .as_str()
            .expect("text")
            .contains("settled"),
        "{idle}"
    );
}

/// `wait --stable-for DUR` matches only once the condition has held for DUR without a break:
/// text that flickers does not count until it stays, and text that is there does not match
/// before DUR is up.
#[test]
fn wait_stable_for_needs_the_condition_held() {
    let env = Env::new();
    // "ready" flickers for about 3 s, then stays with "final" beside it.
    let id = env.start(&[
        "--",
        "sh",
        "-c",
        "i=0; while [ $i -lt 15 ]; do i=$((i+1)); printf '\\rready'; sleep 0.1; \
         printf '\\r     '; sleep 0.1; done; printf '\\rready final'; sleep 300",
    ]);
    env.ok(&["wait", &id, "--text", "ready", "--timeout", "10s"]);
    let held = env.ok(&[
        "wait",
        &id,
        "--text",
        "ready",
        "--stable-for",
        "1s",
        "--timeout",
        "30s",
    ]);
    assert!(
        held["screen"]["text"]
            .as_str()
            .expect("text")
            .contains("ready final"),
        "matched while it still flickered: {held}"
    );
    // Present, but not for long enough within the timeout.
    let (early, code) = env.run(&[
        "wait",
        &id,
        "--text",
        "final",
        "--stable-for",
        "5s",
        "--timeout",
        "500ms",
    ]);
    assert_eq!(
        (
            early["result"].as_str(),
            early["error"]["code"].as_str(),
            code
        ),
        (Some("timeout"), Some("wait_timeout"), 1),
        "{early}"
    );
}

/// `send --raw-hex` writes exactly the bytes the digits name — escape, control and UTF-8
/// bytes alike, in either case, spaces allowed — in order with the other steps, and
/// `written` counts them.
#[test]
fn raw_hex_sends_exactly_those_bytes() {
    let env = Env::new();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/keyecho.py");
    let id = env.start(&["--", "python3", script]);
    env.ok(&["wait", &id, "--text", "ready", "--timeout", "10s"]);
    let sent = env.ok(&[
        "send",
        &id,
        "--raw-hex",
        "1B5B41",
        "--text",
        "x",
        "--raw-hex",
        "03 e4 BD a0",
    ]);
    assert_eq!(sent["written"], 8, "{sent}");
    env.ok(&[
        "wait",
        &id,
        "--text",
        "[1b5b417803e4bda0]",
        "--timeout",
        "10s",
    ]);
}

/// `session capture -o FILE.svg` writes the session's screen as an SVG: well-formed XML whose
/// text holds the screen's lines (markup characters included), whose metadata is the screen
/// `read` shows; it works on an ended, retained session too.
#[test]
fn session_capture_writes_an_svg_of_the_screen() {
    let env = Env::new();
    let dir = tempfile::tempdir().expect("dir");
    let id = env.start(&[
        "--width",
        "40",
        "--height",
        "4",
        "--",
        "sh",
        "-c",
        "printf '\\033[1;32mcaptured-line\\033[0m\\nsecond & <line>\\n'; sleep 300",
    ]);
    env.ok(&["wait", &id, "--text", "<line>", "--timeout", "10s"]);
    let text_of = |svg: &str| -> String {
        let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
        doc.descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| {
                n.descendants()
                    .filter_map(|d| d.is_text().then(|| d.text()).flatten())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let path = dir.path().join("screen.svg");
    let captured = env.ok(&["capture", &id, "-o", path.to_str().expect("UTF-8")]);
    assert_eq!(captured["artifact"]["format"], "svg", "{captured}");
    assert_eq!(
        captured["artifact"]["path"],
        path.to_str().expect("UTF-8"),
        "{captured}"
    );
    let svg = std::fs::read_to_string(&path).expect("capture written");
    let drawn = text_of(&svg);
    assert!(
        drawn.contains("captured-line") && drawn.contains("second & <line>"),
        "{drawn:?}"
    );
    let snapshot = shotty::diff::load_snapshot(svg.as_bytes()).expect("metadata");
    assert_eq!((snapshot.width, snapshot.height), (40, 4));
    assert_eq!(snapshot.text().trim_end(), screen(&env, &id).trim_end());

    let ended = env.start(&["--", "sh", "-c", "echo ended-output"]);
    env.ok(&["wait", &ended, "--exit", "--timeout", "10s"]);
    let after = dir.path().join("ended.svg");
    env.ok(&["capture", &ended, "-o", after.to_str().expect("UTF-8")]);
    let svg = std::fs::read_to_string(&after).expect("capture written");
    assert!(text_of(&svg).contains("ended-output"), "{svg}");
}

/// `session capture` and `session inspect` take the appearance defaults of the config file
/// (the user's, or `-C PATH`), the command line's flags win, and a bad file is a clear
/// `invalid_request` naming it.
#[test]
fn session_capture_takes_the_config_file_appearance() {
    let env = Env::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let id = env.start(&["--", "sh", "-c", "echo configured; exec sleep 30"]);
    env.ok(&["wait", &id, "--text", "configured", "--timeout", "10s"]);
    let capture = |name: &str, extra: &[&str]| -> String {
        let path = dir.path().join(name);
        let path = path.to_str().expect("UTF-8");
        let mut args = vec!["capture", id.as_str(), "-o", path];
        args.extend_from_slice(extra);
        env.ok(&args);
        std::fs::read_to_string(path).expect("capture written")
    };
    let dracula = "fill=\"#282a36\"";
    let xterm = "fill=\"#000000\"";
    assert!(!capture("none.svg", &[]).contains(dracula));

    let config_dir = env.home.join(".config/shotty");
    std::fs::create_dir_all(&config_dir).expect("config dir");
    std::fs::write(config_dir.join("config.toml"), "theme = \"dracula\"\n").expect("config");
    assert!(capture("user.svg", &[]).contains(dracula));
    let flag_wins = capture("flag.svg", &["--theme", "xterm"]);
    assert!(flag_wins.contains(xterm) && !flag_wins.contains(dracula));

    let explicit = dir.path().join("other.toml");
    std::fs::write(&explicit, "theme = \"xterm\"\n").expect("config");
    let explicit = explicit.to_str().expect("UTF-8");
    let chosen = capture("explicit.svg", &["-C", explicit]);
    assert!(chosen.contains(xterm) && !chosen.contains(dracula));

    let inspected = env.ok(&["inspect", &id]);
    let path = inspected["path"].as_str().expect("inspect path");
    assert!(
        std::fs::read_to_string(path)
            .expect("inspect file")
            .contains(dracula)
    );

    std::fs::write(config_dir.join("config.toml"), "colour = \"red\"\n").expect("config");
    let doc = env.error(&["capture", &id, "-o", "/dev/null"], "invalid_request");
    let message = doc["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("config.toml") && message.contains("colour"),
        "{doc}"
    );
}

/// `session mark` and `session export`: the recording of a bash session, written by the host
/// as asciicast v2 with its input, markers and resizes (playback by asciinema is checked in
/// tests/session/recording.rs); `-o -` writes it to stdout and the report to stderr.
#[test]
fn a_session_is_recorded_marked_and_exported_as_asciicast() {
    let env = Env::new();
    let id = shell(&env);
    env.ok(&[
        "send",
        &id,
        "--text",
        "printf '\\e[1;31mred\\e[0m\\n'; echo r-$((6*7))",
        "--keys",
        "Enter",
    ]);
    env.ok(&["wait", &id, "--regex", r"(?m)^r-42$", "--timeout", "10s"]);
    let mark = env.ok(&["mark", &id, "--label", "printed"]);
    assert_eq!(mark["label"], "printed");
    env.ok(&["resize", &id, "--width", "50", "--height", "10"]);
    env.ok(&[
        "send",
        &id,
        "--text",
        "echo after-$((1+1))",
        "--keys",
        "Enter",
    ]);
    env.ok(&[
        "wait",
        &id,
        "--regex",
        r"(?m)^after-2\n\$ ?$",
        "--timeout",
        "10s",
    ]);

    let cast = env.home.join("run.cast");
    let exported = env.ok(&["export", &id, "-o", cast.to_str().expect("UTF-8 path")]);
    assert_eq!(exported["truncated"], false);
    assert_eq!(exported["path"], cast.to_str().expect("path"));
    // What was typed is in it: the file is the user's alone.
    assert_eq!(
        std::fs::metadata(&cast)
            .expect("cast written")
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    let text = std::fs::read_to_string(&cast).expect("cast written");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    assert_eq!(lines[0]["version"], 2);
    assert_eq!(
        (lines[0]["width"].as_u64(), lines[0]["height"].as_u64()),
        (Some(60), Some(12))
    );
    assert!(
        lines[0]["timestamp"]
            .as_u64()
            .is_some_and(|t| t > 1_600_000_000)
    );
    let of = |code: &str| -> Vec<&Value> { lines[1..].iter().filter(|e| e[1] == code).collect() };
    assert_eq!(of("m").len(), 1);
    assert_eq!(of("m")[0][2], "printed");
    assert_eq!(
        of("r").iter().map(|e| e[2].clone()).collect::<Vec<_>>(),
        vec![json!("50x10")]
    );
    assert!(
        of("i")
            .iter()
            .any(|e| e[2].as_str().is_some_and(|s| s.starts_with("printf")))
    );
    // Times never go back, and the marker sits between the two commands' input.
    let times: Vec<f64> = lines[1..]
        .iter()
        .map(|e| e[0].as_f64().expect("time"))
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    let mark_at = of("m")[0][0].as_f64().expect("time");
    assert!(of("i")[0][0].as_f64().expect("time") < mark_at);
    assert!(of("i")[1][0].as_f64().expect("time") > mark_at);

    // To stdout: the same recording, byte for byte, and the report on stderr.
    let out = env
        .command(&["export", &id, "-o", "-"])
        .output()
        .expect("shotty runs");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), text);
    let report: Value = serde_json::from_slice(&out.stderr).expect("the report on stderr");
    assert_eq!(report["path"], "-");

    // A relative path is the caller's, not the host's.
    let relative = env
        .command(&["export", &id, "-o", "rel.cast"])
        .current_dir(&env.tmp)
        .output()
        .expect("runs");
    assert!(
        relative.status.success(),
        "{}",
        String::from_utf8_lossy(&relative.stdout)
    );
    assert!(env.tmp.join("rel.cast").is_file());

    // Animated: the extension picks the format, appearance and timing options apply (slowed
    // down 50 times, a run of milliseconds shows as several frames).
    let svg = env.tmp.join("run.svg");
    let animated = env.ok(&[
        "export",
        &id,
        "-o",
        svg.to_str().expect("UTF-8 path"),
        "--speed",
        "0.02",
        "-d",
        "macos",
    ]);
    assert_eq!(animated["format"], "svg");
    let svg = std::fs::read_to_string(&svg).expect("animation written");
    assert!(
        svg.contains("@keyframes play") && svg.contains("<circle"),
        "{svg}"
    );
    let bad = env
        .command(&["export", &id, "-o", "x.bmp"])
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cannot tell the format"));

    env.error(
        &["mark", "s_00000000000000000000000000000000"],
        "session_not_found",
    );
    let long = "x".repeat(2000);
    env.error(&["mark", &id, "--label", &long], "invalid_request");
    env.error(
        &["start", "--record-limit", "12 parsecs", "--", "true"],
        "invalid_request",
    );
    env.error(
        &["start", "--record-limit", "1K", "--", "true"],
        "invalid_request",
    );
    env.ok(&["stop", &id]);
}

/// An ended session keeps its recording with its record: exportable after the program exits
/// and after the host is killed and restarted, a private file in the state directory, gone
/// with `stop`.
#[test]
fn an_ended_sessions_recording_is_retained_on_disk() {
    let env = Env::new();
    let id = env.start(&[
        "--",
        "sh",
        "-c",
        "printf 'first \\033[32mgreen\\033[0m\\n'; sleep 0.2; echo last-$((2+3)); exit 3",
    ]);
    env.ok(&["wait", &id, "--exit", "--timeout", "10s"]);
    let exported = |name: &str| -> (Value, String) {
        let path = env.home.join(name);
        let reply = env.ok(&["export", &id, "-o", path.to_str().expect("UTF-8 path")]);
        (reply, std::fs::read_to_string(&path).expect("cast written"))
    };
    let (reply, before) = exported("ended.cast");
    assert_eq!(reply["truncated"], false);
    assert!(
        before.contains("green") && before.contains("last-5"),
        "{before}"
    );
    let cast_file = env.state.join(format!("{id}.cast"));
    assert_eq!(mode(&cast_file), 0o600);

    kill_host(&env);
    let (reply, after) = exported("after-restart.cast");
    assert_eq!(
        after, before,
        "the recording read back from disk is the one written"
    );
    assert_eq!(reply["events"], json!(before.lines().count() - 1));

    env.ok(&["stop", &id]);
    assert!(!cast_file.exists(), "stop leaves the recording behind");
    assert!(
        modes_in(&env.state).is_empty(),
        "{:?}",
        modes_in(&env.state)
    );
}

/// SPEC §10: `session export ID -o run.yaml` writes the steps that drove a session as a
/// scenario, and `scenario run` replays it to the session's final screen.
#[test]
fn a_session_exported_as_a_scenario_replays_to_the_same_screen() {
    if crate::needs::program("vim").is_none() {
        return;
    }
    let env = Env::new();
    let work = env.home.join("work");
    std::fs::create_dir(&work).expect("work dir");
    let work_arg = work.to_str().expect("UTF-8");
    let id = env.start(&[
        "--cwd",
        work_arg,
        "--width",
        "60",
        "--height",
        "10",
        "--",
        "vim",
        "-u",
        "NONE",
        "-i",
        "NONE",
        "-N",
        "-n",
        "notes.txt",
    ]);
    env.ok(&["wait", &id, "--text", "~", "--timeout", "10s"]);
    // `:echo` shows when vim is back in normal mode (waiting for `-- INSERT --` to go
    // away would need it seen first, and vim may be quicker than a second CLI call).
    env.ok(&[
        "send",
        &id,
        "--text",
        "ihello",
        "--keys",
        "Escape",
        "--text",
        ":echo 'normal'",
        "--keys",
        "Enter",
    ]);
    env.ok(&["wait", &id, "--text", "normal", "--timeout", "10s"]);
    // A send no wait follows, a read (not a step of the journal), a failing wait (not one
    // either), a resize and a marker.
    env.ok(&["send", &id, "--text", "oworld"]);
    env.ok(&["read", &id]);
    env.error(
        &["wait", &id, "--text", "never", "--timeout", "100ms"],
        "wait_timeout",
    );
    env.ok(&["resize", &id, "--width", "70", "--height", "12"]);
    // vim redraws for the new size when it gets to it: a message echoed before that would be
    // wiped by the redraw, so the wait is for its mode line on the new last row (row 11).
    env.ok(&[
        "wait",
        &id,
        "--regex",
        r"\A(?:.*\n){11}-- INSERT --",
        "--timeout",
        "10s",
    ]);
    env.ok(&["mark", &id, "--label", "resized"]);
    env.ok(&[
        "send",
        &id,
        "--keys",
        "Escape",
        "--text",
        ":echo 'again'",
        "--keys",
        "Enter",
    ]);
    env.ok(&["wait", &id, "--text", "again", "--timeout", "10s"]);
    let golden = env.home.join("final.json");
    env.ok(&["capture", &id, "-o", golden.to_str().expect("UTF-8")]);
    let scenario = env.home.join("replay.scenario.yaml");
    let exported = env.ok(&["export", &id, "-o", scenario.to_str().expect("UTF-8")]);
    assert_eq!(exported["format"], "scenario", "{exported}");
    assert_eq!(
        exported["steps"], 9,
        "wait send wait send resize wait mark send wait: {exported}"
    );
    let yaml = std::fs::read_to_string(&scenario).expect("the scenario");
    assert!(yaml.contains("\"executable\":\"vim\""), "{yaml}");
    assert!(
        yaml.contains("# added: let the program react"),
        "a settle after `oworld`: {yaml}"
    );
    assert!(
        !yaml.contains("never"),
        "a failed wait is not a step: {yaml}"
    );
    env.ok(&["stop", &id]);

    // The replay, checked against the session's own final screen before the program is
    // stopped, as the session was once exported.
    let (steps, ending) = yaml.trim_end().rsplit_once('\n').expect("lines");
    assert!(
        ending.contains("\"stop\""),
        "the running session ends by a stop: {yaml}"
    );
    let replay = format!(
        "{steps}\n    - {{type: snapshot, args: {{golden: {}}}}}\n{ending}\n",
        golden.display()
    );
    std::fs::write(&scenario, replay).expect("scenario written");
    let summary = replay_passes(&env, &scenario);
    assert_eq!(
        step_kinds(&summary),
        [
            "launch", "wait", "send", "wait", "send", "wait", "resize", "wait", "mark", "send",
            "wait", "snapshot", "stop", "exit"
        ]
    );
}

/// Runs an exported scenario and checks that it passed; returns its summary.
fn replay_passes(env: &Env, scenario: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .args(["scenario", "run", scenario.to_str().expect("UTF-8")])
        .current_dir(&env.home)
        .env("HOME", &env.home)
        .env("TMPDIR", &env.tmp)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .env_remove("CI")
        .output()
        .expect("shotty runs");
    let summary: Value = serde_json::from_slice(&out.stdout).expect("summary");
    let yaml = std::fs::read_to_string(scenario).unwrap_or_default();
    assert_eq!(out.status.code(), Some(0), "{summary:#}\n{yaml}");
    summary
}

/// The type of every step of a scenario run's summary.
fn step_kinds(summary: &Value) -> Vec<&str> {
    summary["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["type"].as_str().unwrap_or(""))
        .collect()
}

/// Sessions ending every way a program ends — `exit` in a shell (waited for, and not),
/// vim's `:wq`, Ctrl+D, still running — export scenarios that replay: the input that ended a
/// program is followed by a wait for its exit, not for its screen (which fails on an ended
/// program); one still running is stopped by the replay instead of failing its exit rule.
#[test]
fn exports_replay_however_the_session_ended() {
    let env = Env::new();
    let work = env.home.join("work");
    std::fs::create_dir(&work).expect("work dir");
    let work_arg = work.to_str().expect("UTF-8");
    let export = |id: &str, name: &str| {
        let path = env.home.join(format!("{name}.scenario.yaml"));
        env.ok(&["export", id, "-o", path.to_str().expect("UTF-8")]);
        let yaml = std::fs::read_to_string(&path).expect("the scenario");
        (path, yaml)
    };
    let ended = |id: &str| {
        let deadline = Instant::now() + Duration::from_secs(10);
        while listed_entry(&env, id)["state"] != "exited" {
            assert!(Instant::now() < deadline, "{id} did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let sh = |waits: bool| {
        let id = env.start(&["--cwd", work_arg, "--env", "PS1=$ ", "--", "sh"]);
        env.ok(&["wait", &id, "--text", "$", "--timeout", "10s"]);
        env.ok(&["send", &id, "--text", "echo bye; exit", "--keys", "Enter"]);
        if waits {
            env.ok(&["wait", &id, "--exit", "--timeout", "10s"]);
        } else {
            ended(&id);
        }
        id
    };

    let (path, yaml) = export(&sh(true), "exit-waited");
    assert!(
        !yaml.contains("idle"),
        "no wait for the screen after `exit`: {yaml}"
    );
    // The agent's own wait for the exit, or (when it matched after the session's record was
    // kept) one added in its place: one either way.
    let exit_waits = yaml.lines().filter(|l| l.contains("\"exit\"")).count();
    assert_eq!(exit_waits, 1, "{yaml}");
    let summary = replay_passes(&env, &path);
    assert_eq!(summary["exitCode"], 0);
    assert_eq!(
        step_kinds(&summary),
        ["launch", "wait", "send", "wait", "exit"]
    );

    let (path, yaml) = export(&sh(false), "exit");
    assert!(yaml.contains("# added: the program ended here"), "{yaml}");
    assert_eq!(
        step_kinds(&replay_passes(&env, &path)),
        ["launch", "wait", "send", "wait", "exit"]
    );

    let id = env.start(&["--cwd", work_arg, "--", "cat"]);
    env.ok(&["send", &id, "--text", "typed", "--keys", "Enter"]);
    env.ok(&["wait", &id, "--regex", "typed\ntyped", "--timeout", "10s"]);
    env.ok(&["send", &id, "--keys", "Ctrl+D"]);
    ended(&id);
    let (path, _) = export(&id, "ctrl-d");
    assert_eq!(
        step_kinds(&replay_passes(&env, &path)),
        ["launch", "send", "wait", "send", "wait", "exit"]
    );

    let id = env.start(&["--cwd", work_arg, "--", "cat"]);
    env.ok(&["send", &id, "--text", "still here", "--keys", "Enter"]);
    let (path, yaml) = export(&id, "running");
    assert!(yaml.contains("still running when exported"), "{yaml}");
    let summary = replay_passes(&env, &path);
    assert_eq!(
        step_kinds(&summary),
        ["launch", "send", "wait", "stop", "exit"]
    );
    assert_eq!(summary["exitCode"], Value::Null, "stopped");
    env.ok(&["stop", &id]);

    if crate::needs::program("vim").is_none() {
        return;
    }
    let vim = ["vim", "-u", "NONE", "-i", "NONE", "-N", "-n", "notes.txt"];
    let id = env.start(&[&["--cwd", work_arg, "--"][..], &vim].concat());
    env.ok(&["wait", &id, "--text", "~", "--timeout", "10s"]);
    env.ok(&[
        "send", &id, "--text", "isaved", "--keys", "Escape", "--text", ":wq", "--keys", "Enter",
    ]);
    ended(&id);
    let (path, _) = export(&id, "vim");
    std::fs::remove_file(work.join("notes.txt")).expect("vim wrote notes.txt");
    replay_passes(&env, &path);
    let notes = std::fs::read_to_string(work.join("notes.txt")).expect("the replay wrote it");
    assert_eq!(notes, "saved\n");
}

/// `session export -o x.tape`: a session that ran `sh` in a directory, driven by text, keys
/// and a paste and waited on, becomes a VHS tape that `shotty tape` runs to the same screen
/// (the program typed into VHS's shell in that directory).
#[test]
fn a_session_exported_as_a_tape_runs_as_one() {
    let env = Env::new();
    let work = env.home.join("work dir");
    std::fs::create_dir(&work).expect("work dir");
    std::fs::write(work.join("marker.txt"), "in the work dir\n").expect("marker");
    let id = env.start(&[
        "--cwd",
        work.to_str().expect("UTF-8"),
        "--env",
        "PS1=$ ",
        "--",
        "sh",
    ]);
    env.ok(&["wait", &id, "--text", "$", "--timeout", "10s"]);
    let typed = "cat marker.txt; echo \"it's \\`done\\`\"";
    env.ok(&["send", &id, "--text", typed, "--keys", "Enter"]);
    env.ok(&["wait", &id, "--text", "it's `done`", "--timeout", "10s"]);
    env.ok(&[
        "send",
        &id,
        "--paste",
        "echo pasted/words",
        "--keys",
        "Enter",
    ]);
    env.ok(&["wait", &id, "--regex", "^pasted/words", "--timeout", "10s"]);
    let tape = env.home.join("replay.tape");
    env.ok(&["export", &id, "-o", tape.to_str().expect("UTF-8")]);
    env.ok(&["stop", &id]);
    let text = std::fs::read_to_string(&tape).expect("the tape");
    for expected in ["Set Shell bash", "exec sh", "Copy ", "Paste", "Wait+Screen"] {
        assert!(text.contains(expected), "{expected:?} in\n{text}");
    }
    // Only the text output: the picture's size and look are the tape tests' business.
    let text: String = text
        .lines()
        .filter(|l| !l.ends_with(".gif\""))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&tape, &text).expect("the tape");
    let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .args(["tape", "replay.tape"])
        .current_dir(&env.home)
        .env("HOME", &env.home)
        .env("TMPDIR", &env.tmp)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .expect("shotty runs");
    assert!(
        out.status.success(),
        "{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let screens = std::fs::read_to_string(env.home.join("replay.ascii")).expect("the text output");
    let last = screens
        .split(&"─".repeat(80))
        .filter(|s| !s.trim().is_empty())
        .last()
        .expect("a screen");
    for expected in ["in the work dir", "it's `done`", "pasted/words"] {
        assert!(
            last.contains(expected),
            "{expected:?} in\n{last}\nfrom\n{text}"
        );
    }
}
