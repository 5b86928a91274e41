//! `shotty serve` end to end: the real binary, real programs in real PTYs, real Unix and TCP
//! sockets. Every read on a socket or pipe has a timeout and every wait for a process has a
//! deadline, so a broken server fails a test instead of hanging it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::procs;

/// Longest time any single reply or state change may take.
const PATIENCE: Duration = Duration::from_secs(20);

fn shotty() -> Command {
    Command::new(env!("CARGO_BIN_EXE_shotty"))
}

fn signal(pid: u32, sig: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(pid as i32).expect("pid");
    let _ = rustix::process::kill_process(pid, sig);
}

/// `/proc/PID/stat` fields after the command name: state, ppid, pgrp …
fn stat(pid: u32) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// Live members of process group `pgid`.
fn group_members(pgid: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(f) = stat(pid)
            && f[0] != "Z"
            && f[2] == pgid.to_string()
        {
            members.push(pid);
        }
    }
    members
}

fn threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Polls `cond` until it holds or `PATIENCE` passes.
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A running `shotty serve`.
struct Server {
    child: Child,
    dir: tempfile::TempDir,
    socket: Option<PathBuf>,
    port: Option<u16>,
    /// The two startup lines.
    banner: Vec<String>,
}

impl Server {
    /// Serves `cmd` on a Unix socket in a fresh directory.
    fn unix(cmd: &str, extra: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let socket = dir.path().join("pty.sock");
        let mut args = vec!["--cmd", cmd, "--socket", socket.to_str().unwrap()];
        args.extend_from_slice(extra);
        let path = socket.clone();
        Server::spawn(dir, &args, Some(path), None)
    }

    /// Serves `cmd` on TCP port `port` of 127.0.0.1.
    fn tcp(cmd: &str, port: u16) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let port_arg = port.to_string();
        Server::spawn(dir, &["--cmd", cmd, "--port", &port_arg], None, Some(port))
    }

    fn spawn(
        dir: tempfile::TempDir,
        args: &[&str],
        socket: Option<PathBuf>,
        port: Option<u16>,
    ) -> Server {
        Server::spawn_with_env(dir, args, socket, port, &[])
    }

    fn spawn_with_env(
        dir: tempfile::TempDir,
        args: &[&str],
        socket: Option<PathBuf>,
        port: Option<u16>,
        env: &[(&str, &str)],
    ) -> Server {
        let mut child = shotty()
            .arg("serve")
            .args(args)
            .envs(env.iter().copied())
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("shotty serve runs");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut banner = Vec::new();
        for _ in 0..2 {
            match rx.recv_timeout(PATIENCE) {
                Ok(line) => banner.push(line),
                Err(_) => {
                    let _ = child.kill();
                    let mut err = String::new();
                    if let Some(mut e) = child.stderr.take() {
                        let _ = e.read_to_string(&mut err);
                    }
                    panic!("no startup lines from shotty serve {args:?}: {banner:?} {err}");
                }
            }
        }
        Server {
            child,
            dir,
            socket,
            port,
            banner,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn connect(&self) -> Client {
        match (&self.socket, self.port) {
            (Some(path), _) => Client::unix(path),
            (None, Some(port)) => Client::tcp(port),
            _ => unreachable!(),
        }
    }

    /// Waits for the server process to exit.
    fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "shotty serve did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            signal(self.pid(), rustix::process::Signal::TERM);
            let deadline = Instant::now() + Duration::from_secs(10);
            while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

trait Socket: Read + Write + Send {}
impl<T: Read + Write + Send> Socket for T {}

/// One connection to the endpoint.
struct Client {
    writer: Box<dyn Socket>,
    reader: BufReader<Box<dyn Socket>>,
    next_id: u64,
}

impl Client {
    fn unix(path: &Path) -> Client {
        let s = UnixStream::connect(path).expect("connect to the socket");
        s.set_read_timeout(Some(PATIENCE)).unwrap();
        let r = s.try_clone().unwrap();
        Client::new(Box::new(s), Box::new(r))
    }

    fn tcp(port: u16) -> Client {
        let s = TcpStream::connect(("127.0.0.1", port)).expect("connect to the port");
        s.set_read_timeout(Some(PATIENCE)).unwrap();
        let r = s.try_clone().unwrap();
        Client::new(Box::new(s), Box::new(r))
    }

    fn new(writer: Box<dyn Socket>, reader: Box<dyn Socket>) -> Client {
        Client {
            writer,
            reader: BufReader::new(reader),
            next_id: 1000,
        }
    }

    fn send(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).expect("send");
        self.writer.write_all(b"\n").expect("send");
    }

    /// The next response line, as text.
    fn recv_text(&mut self) -> String {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).expect("a reply in time");
        assert!(n > 0, "the connection closed instead of replying");
        assert!(line.ends_with('\n'), "{line:?}");
        line.pop();
        line
    }

    fn recv(&mut self) -> Value {
        let line = self.recv_text();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends a raw line and returns the reply.
    fn raw(&mut self, line: &str) -> Value {
        self.send(line);
        self.recv()
    }

    /// Calls `method`; returns the whole response.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let reply = self.raw(
            &json!({"jsonrpc": "2.0", "method": method, "params": params, "id": id}).to_string(),
        );
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        reply
    }

    /// Calls `method` and returns its result, failing on an error.
    fn ok(&mut self, method: &str, params: Value) -> Value {
        let reply = self.call(method, params);
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// Calls `method`, expects error `code`, returns the error object.
    fn err(&mut self, method: &str, params: Value, code: i64) -> Value {
        let reply = self.call(method, params.clone());
        assert_eq!(reply["error"]["code"], code, "{method} {params}: {reply}");
        assert!(reply.get("result").is_none(), "{reply}");
        reply["error"].clone()
    }

    /// Waits for `text` on the screen.
    fn wait_for(&mut self, text: &str) -> Value {
        let r = self.ok("pty/wait", json!({"match": text, "timeout": 15000}));
        assert_eq!(r["matched"], true, "waiting for {text:?}: {r}");
        r
    }

    /// The connection is closed by the server, perhaps after answering a pending request
    /// (a wait that the session's end finished).
    fn assert_closed_after_pending(&mut self) {
        let mut line = String::new();
        if let Ok(n) = self.reader.read_line(&mut line)
            && n > 0
        {
            let reply: Value = serde_json::from_str(&line).expect("a JSON reply");
            assert_eq!(reply["result"]["matched"], false, "{reply}");
        }
        self.assert_closed();
    }

    /// The connection is closed by the server (EOF, or reset).
    fn assert_closed(&mut self) {
        let mut rest = String::new();
        match self.reader.read_line(&mut rest) {
            Ok(0) => {}
            Ok(_) => panic!("unexpected data after close: {rest:?}"),
            Err(e) => assert!(
                matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
                ),
                "{e}"
            ),
        }
    }
}

/// bash without startup files and with the seed's prompt `root@host:~$ `.
const BASH: &str = "env PS1='root@host:~$ ' bash --norc --noprofile -i";

// ----- the seed's examples ----------------------------------------------------------------

#[test]
fn replays_the_seed_examples() {
    let mut server = Server::unix(BASH, &[]);
    assert!(
        server.banner[0].starts_with("[shotty] session started, command: "),
        "{:?}",
        server.banner
    );
    let socket = server.socket.clone().unwrap();
    assert_eq!(
        server.banner[1],
        format!("[shotty] address: unix:{}", socket.display())
    );
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "socket mode {mode:o}");

    let mut c = server.connect();
    c.wait_for("root@host:~$");

    // pty/status (the pid varies).
    c.send(r#"{"jsonrpc":"2.0","method":"pty/status","params":{},"id":1}"#);
    let status = c.recv_text();
    let pid = serde_json::from_str::<Value>(&status).unwrap()["result"]["pid"]
        .as_u64()
        .expect("pid");
    assert_eq!(
        status,
        format!(
            r#"{{"jsonrpc":"2.0","result":{{"running":true,"exitCode":null,"pid":{pid}}},"id":1}}"#
        )
    );
    let bash = procs::Seen::now(pid as u32);
    assert!(server.banner[0].ends_with(&format!("(pid {pid})")));

    // pty/read: byte for byte the seed's reply.
    c.send(r#"{"jsonrpc":"2.0","method":"pty/read","params":{},"id":2}"#);
    assert_eq!(
        c.recv_text(),
        r#"{"jsonrpc":"2.0","result":{"screen":"root@host:~$\n","cursor":{"row":1,"col":14},"size":{"cols":100,"rows":30}},"id":2}"#
    );

    // pty/write: text, a key, an array. `written` counts the bytes actually written (the
    // seed's sample numbers 11 and 5 do not add up; SPEC §5 says UTF-8 bytes).
    c.send(r#"{"jsonrpc":"2.0","method":"pty/write","params":{"action":{"text":"echo hello"}},"id":6}"#);
    assert_eq!(
        c.recv_text(),
        r#"{"jsonrpc":"2.0","result":{"written":10},"id":6}"#
    );
    c.send(r#"{"jsonrpc":"2.0","method":"pty/write","params":{"action":{"key":"Enter"}},"id":7}"#);
    assert_eq!(
        c.recv_text(),
        r#"{"jsonrpc":"2.0","result":{"written":1},"id":7}"#
    );
    c.wait_for("hello\nroot@host:~$");
    c.send(r#"{"jsonrpc":"2.0","method":"pty/write","params":{"action":[{"text":"ls"},{"key":"Enter"}]},"id":8}"#);
    assert_eq!(
        c.recv_text(),
        r#"{"jsonrpc":"2.0","result":{"written":3},"id":8}"#
    );
    // (Typing while a command runs goes through the kernel's line editing, not readline's:
    // wait for the prompt first.)
    c.wait_for("pty.sock\nroot@host:~$");
    c.send(r#"{"jsonrpc":"2.0","method":"pty/write","params":{"action":{"text":"héllo ✓"}},"id":"utf8"}"#);
    assert_eq!(
        c.recv_text(),
        r#"{"jsonrpc":"2.0","result":{"written":10},"id":"utf8"}"#
    );
    c.wait_for("root@host:~$ héllo ✓");
    c.ok("pty/write", json!({"action": {"key": "Ctrl+U"}}));

    // Line selections on a known screen.
    c.ok("pty/write", json!({"action": [{"key": "Ctrl+L"}, {"text": "printf 'r%s\\n' 1 2 3 4 5 6"}, {"key": "Enter"}]}));
    c.wait_for("r6\nroot@host:~$");
    let screen = |c: &mut Client, params: Value| -> String {
        c.ok("pty/read", params)["screen"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let prompt = "root@host:~$";
    let command = "root@host:~$ printf 'r%s\\n' 1 2 3 4 5 6";
    assert_eq!(
        screen(&mut c, json!({})),
        format!("{command}\nr1\nr2\nr3\nr4\nr5\nr6\n{prompt}\n")
    );
    c.send(r#"{"jsonrpc":"2.0","method":"pty/read","params":{"top":3},"id":3}"#);
    let top = c.recv();
    assert_eq!(top["id"], 3);
    assert_eq!(top["result"]["screen"], format!("{command}\nr1\nr2\n"));
    assert_eq!(top["result"]["cursor"], json!({"row": 8, "col": 14}));
    assert_eq!(top["result"]["size"], json!({"cols": 100, "rows": 30}));
    c.send(r#"{"jsonrpc":"2.0","method":"pty/read","params":{"bottom":3},"id":4}"#);
    let bottom = c.recv();
    assert_eq!(bottom["id"], 4);
    assert_eq!(bottom["result"]["screen"], "", "the last rows are blank");
    assert_eq!(
        screen(&mut c, json!({"bottom": 25})),
        format!("r5\nr6\n{prompt}\n")
    );
    c.send(r#"{"jsonrpc":"2.0","method":"pty/read","params":{"start":2,"end":5},"id":5}"#);
    let range = c.recv();
    assert_eq!(range["id"], 5);
    assert_eq!(range["result"]["screen"], "r1\nr2\nr3\nr4\n");
    assert_eq!(
        screen(&mut c, json!({"start": 0, "end": 1})),
        format!("{command}\n")
    );
    assert_eq!(
        screen(&mut c, json!({"start": 8, "end": 999})),
        format!("{prompt}\n")
    );
    assert_eq!(screen(&mut c, json!({"start": 40, "end": 50})), "");
    assert_eq!(
        screen(&mut c, json!({"top": 999})),
        screen(&mut c, json!({}))
    );

    // pty/wait for something already there.
    c.send(
        r#"{"jsonrpc":"2.0","method":"pty/wait","params":{"match":"r4","timeout":6000},"id":9}"#,
    );
    let waited = c.recv();
    assert_eq!(waited["id"], 9);
    assert_eq!(waited["result"]["matched"], true);
    assert!(waited["result"]["waitedMs"].as_u64().unwrap() < 1000);

    // pty/resize.
    c.send(r#"{"jsonrpc":"2.0","method":"pty/resize","params":{"cols":120,"rows":40},"id":11}"#);
    assert_eq!(c.recv_text(), r#"{"jsonrpc":"2.0","result":{},"id":11}"#);
    assert_eq!(
        c.ok("pty/read", json!({}))["size"],
        json!({"cols": 120, "rows": 40})
    );
    c.ok(
        "pty/write",
        json!({"action": [{"text": "stty size"}, {"key": "Enter"}]}),
    );
    c.wait_for("40 120");

    // The two error examples.
    c.send(r#"{"jsonrpc":"2.0","method":"pty/unknown","params":{},"id":13}"#);
    assert_eq!(
        c.recv_text(),
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found: pty/unknown"},"id":13}"#
    );
    c.send(r#"{"jsonrpc":"2.0","method":"pty/write","params":{"action":{"text":"x","key":"Enter"}},"id":14}"#);
    let both = c.recv();
    assert_eq!(both["id"], 14);
    assert_eq!(both["error"]["code"], -32602);
    let message = both["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("text") && message.contains("key"),
        "{message}"
    );

    // pty/kill.
    let mut other = server.connect();
    c.send(r#"{"jsonrpc":"2.0","method":"pty/kill","params":{},"id":12}"#);
    assert_eq!(c.recv_text(), r#"{"jsonrpc":"2.0","result":{},"id":12}"#);
    c.assert_closed();
    other.assert_closed();
    assert!(!socket.exists(), "the socket file is removed");
    assert_eq!(server.wait_exit().code(), Some(0));
    eventually("bash to be gone", || !bash.is_alive());
    assert!(UnixStream::connect(&socket).is_err());
}

#[test]
fn replays_the_seed_wait_examples() {
    // Prints `hello` once a line arrives, echo off, so the screen stays exactly as the seed's.
    let server = Server::unix(
        "sh -c 'stty -echo; read line; echo hello; exec sleep 60'",
        &[],
    );
    let mut c = server.connect();

    c.send(r#"{"jsonrpc":"2.0","method":"pty/wait","params":{"match":"absent","timeout":100},"id":10}"#);
    let timed_out = c.recv();
    assert_eq!(timed_out["id"], 10);
    let r = &timed_out["result"];
    assert_eq!(r["matched"], false);
    assert_eq!(r["screen"], "");
    assert_eq!(r["cursor"], json!({"row": 1, "col": 1}));
    assert_eq!(r["size"], json!({"cols": 100, "rows": 30}));
    let waited = r["waitedMs"].as_u64().unwrap();
    assert!((100..2000).contains(&waited), "waitedMs {waited}");

    // The wait is pending while another client makes the program print.
    c.send(
        r#"{"jsonrpc":"2.0","method":"pty/wait","params":{"match":"hello","timeout":6000},"id":9}"#,
    );
    std::thread::sleep(Duration::from_millis(200));
    server
        .connect()
        .ok("pty/write", json!({"action": {"key": "Enter"}}));
    let line = c.recv_text();
    let reply: Value = serde_json::from_str(&line).unwrap();
    let ms = reply["result"]["waitedMs"].as_u64().expect("waitedMs");
    assert!(ms >= 150, "waitedMs {ms}");
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","result":{{"matched":true,"screen":"hello\n","cursor":{{"row":2,"col":1}},"size":{{"cols":100,"rows":30}},"waitedMs":{ms}}},"id":9}}"#
        )
    );

    // Without `match` the wait just lasts its timeout.
    let start = Instant::now();
    let r = c.ok("pty/wait", json!({"timeout": 300}));
    assert_eq!(r["matched"], false);
    assert_eq!(r["screen"], "hello\n");
    assert!(r["waitedMs"].as_u64().unwrap() >= 300, "{r}");
    assert!(start.elapsed() >= Duration::from_millis(300));
}

// ----- errors --------------------------------------------------------------------------------

#[test]
fn bad_requests_get_the_seed_error_codes_and_the_connection_stays_usable() {
    let server = Server::unix("cat", &[]);
    let mut c = server.connect();
    let error = |reply: &Value, code: i64, id: Value| {
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["error"]["code"], code, "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        assert_eq!(reply["id"], id, "{reply}");
        assert!(reply.get("result").is_none());
    };

    // -32700: not JSON; the id cannot be read.
    error(&c.raw("{not json"), -32700, Value::Null);
    error(
        &c.raw(r#"{"jsonrpc":"2.0","method":"pty/status","id":1"#),
        -32700,
        Value::Null,
    );
    error(&c.raw("\u{1}\u{2}"), -32700, Value::Null);

    // -32600: invalid requests.
    error(
        &c.raw(r#"{"jsonrpc":"2.0","method":"pty/status"}"#),
        -32600,
        Value::Null,
    );
    error(
        &c.raw(r#"{"jsonrpc":"2.0","method":"pty/status","id":null}"#),
        -32600,
        Value::Null,
    );
    error(
        &c.raw(r#"{"jsonrpc":"2.0","method":"pty/status","id":[1]}"#),
        -32600,
        Value::Null,
    );
    error(
        &c.raw(r#"{"method":"pty/status","params":{},"id":2}"#),
        -32600,
        json!(2),
    );
    error(
        &c.raw(r#"{"jsonrpc":"1.0","method":"pty/status","id":3}"#),
        -32600,
        json!(3),
    );
    error(
        &c.raw(r#"{"jsonrpc":"2.0","params":{},"id":4}"#),
        -32600,
        json!(4),
    );
    error(
        &c.raw(r#"{"jsonrpc":"2.0","method":"pty/read","params":[1],"id":5}"#),
        -32600,
        json!(5),
    );
    error(
        &c.raw(r#"{"jsonrpc":"2.0","method":"pty/read","params":"x","id":"s"}"#),
        -32600,
        json!("s"),
    );
    error(
        &c.raw(r#"[{"jsonrpc":"2.0","method":"pty/status","id":6}]"#),
        -32600,
        Value::Null,
    );
    error(&c.raw("42"), -32600, Value::Null);
    let op = c.raw(r#"{"op":"read","id":7}"#);
    error(&op, -32600, json!(7));
    assert!(
        op["error"]["message"].as_str().unwrap().contains("{op}"),
        "{op}"
    );

    // -32601.
    let unknown = c.err("pty/unknown", json!({}), -32601);
    assert_eq!(unknown["message"], "Method not found: pty/unknown");
    c.err("read", json!({}), -32601);

    // -32602: invalid params.
    c.err(
        "pty/write",
        json!({"action": {"text": "x", "key": "Enter"}}),
        -32602,
    );
    c.err("pty/write", json!({"action": {}}), -32602);
    c.err("pty/write", json!({"action": []}), -32602);
    c.err("pty/write", json!({}), -32602);
    c.err("pty/write", json!({"action": "ls"}), -32602);
    c.err("pty/write", json!({"action": [{"text": "ok"}, {}]}), -32602);
    c.err("pty/write", json!({"action": {"text": 5}}), -32602);
    c.err("pty/write", json!({"action": {"paste": "x"}}), -32602);
    let key = c.err(
        "pty/write",
        json!({"action": {"key": "Hyperspace"}}),
        -32602,
    );
    assert!(
        key["message"].as_str().unwrap().contains("Hyperspace"),
        "{key}"
    );
    assert_eq!(key["data"]["code"], "unsupported_key");
    // One bad key in an array sends nothing.
    c.err(
        "pty/write",
        json!({"action": [{"text": "SENT"}, {"key": "Nope"}]}),
        -32602,
    );
    let r = c.ok("pty/wait", json!({"match": "SENT", "timeout": 300}));
    assert_eq!(r["matched"], false, "{r}");
    c.err("pty/read", json!({"top": 1, "bottom": 1}), -32602);
    c.err("pty/read", json!({"top": 1, "start": 1, "end": 2}), -32602);
    c.err("pty/read", json!({"start": 2}), -32602);
    c.err("pty/read", json!({"end": 2}), -32602);
    c.err("pty/read", json!({"start": 3, "end": 2}), -32602);
    c.err("pty/read", json!({"top": -1}), -32602);
    c.err("pty/read", json!({"top": "3"}), -32602);
    c.err("pty/read", json!({"rows": 3}), -32602);
    c.err("pty/wait", json!({"match": 3}), -32602);
    c.err("pty/wait", json!({"match": "x", "timeout": -5}), -32602);
    c.err("pty/wait", json!({"match": ""}), -32602);
    c.err("pty/wait", json!({"text": "x"}), -32602);
    c.err("pty/resize", json!({"cols": 0, "rows": 10}), -32602);
    c.err("pty/resize", json!({"cols": 80, "rows": 501}), -32602);
    c.err("pty/resize", json!({"cols": 80}), -32602);
    c.err("pty/resize", json!({"cols": 70000, "rows": 10}), -32602);
    c.err("pty/status", json!({"verbose": true}), -32602);
    c.err("pty/kill", json!({"signal": "KILL"}), -32602);

    // A line over 1 MiB is refused with id null, and the stream carries on.
    let long = format!(
        r#"{{"jsonrpc":"2.0","method":"pty/write","params":{{"action":{{"text":"{}"}}}},"id":8}}"#,
        "x".repeat(1_100_000)
    );
    error(&c.raw(&long), -32600, Value::Null);
    let junk = "y".repeat(3 << 20);
    error(&c.raw(&junk), -32600, Value::Null);
    // Just under the limit is fine.
    let big = "z".repeat(1_000_000);
    let written = c.ok("pty/write", json!({"action": {"text": big}}));
    assert_eq!(written["written"], 1_000_000);

    // Blank lines are ignored; string ids are echoed; the connection still works.
    c.send("");
    c.send("   ");
    let reply = c.raw(r#"{"jsonrpc":"2.0","method":"pty/status","params":{},"id":"after-errors"}"#);
    assert_eq!(reply["id"], "after-errors");
    assert_eq!(reply["result"]["running"], true);
}

#[test]
fn an_ended_program_reports_its_exit_code_and_refuses_input() {
    let mut server = Server::unix("sh -c 'echo bye; exit 3'", &[]);
    let mut c = server.connect();
    eventually("the program to exit", || {
        c.ok("pty/status", json!({}))["running"] == false
    });
    let status = c.ok("pty/status", json!({}));
    assert_eq!(status["exitCode"], 3, "{status}");
    assert_eq!(c.ok("pty/read", json!({}))["screen"], "bye\n");
    let write = c.err("pty/write", json!({"action": {"text": "x"}}), -32000);
    assert_eq!(write["data"]["code"], "session_exited");
    c.err("pty/resize", json!({"cols": 80, "rows": 24}), -32000);
    // A wait on an ended program returns at once.
    let r = c.ok("pty/wait", json!({"match": "never", "timeout": 10000}));
    assert_eq!(r["matched"], false);
    assert!(r["waitedMs"].as_u64().unwrap() < 5000);
    assert_eq!(c.ok("pty/wait", json!({"match": "bye"}))["matched"], true);
    // The endpoint lives on until killed.
    assert_eq!(c.ok("pty/kill", json!({})), json!({}));
    assert_eq!(server.wait_exit().code(), Some(0));
}

// ----- many clients, disconnects ------------------------------------------------------------

#[test]
fn many_clients_at_once_and_a_wait_holds_only_its_connection() {
    let server = Server::unix(
        "sh -c 'stty -echo; exec cat'",
        &["--cols", "80", "--rows", "60"],
    );
    let socket = server.socket.clone().unwrap();

    // A long wait on one connection does not hold up anybody else.
    let mut waiter = server.connect();
    waiter.send(r#"{"jsonrpc":"2.0","method":"pty/wait","params":{"match":"all-done","timeout":15000},"id":"w"}"#);

    let clients: Vec<_> = (0..8)
        .map(|i| {
            let socket = socket.clone();
            std::thread::spawn(move || {
                let mut c = Client::unix(&socket);
                for j in 0..5 {
                    let start = Instant::now();
                    let w = c.ok(
                        "pty/write",
                        json!({"action": [{"text": format!("c{i}m{j}")}, {"key": "Enter"}]}),
                    );
                    assert_eq!(w["written"], 5);
                    assert_eq!(c.ok("pty/status", json!({}))["running"], true);
                    let r = c.ok("pty/read", json!({}));
                    assert_eq!(r["size"], json!({"cols": 80, "rows": 60}));
                    assert!(start.elapsed() < Duration::from_secs(5));
                }
            })
        })
        .collect();
    for c in clients {
        c.join().expect("client thread");
    }
    let mut c = server.connect();
    for i in 0..8 {
        for j in 0..5 {
            c.wait_for(&format!("c{i}m{j}"));
        }
    }
    c.ok(
        "pty/write",
        json!({"action": [{"text": "all-done"}, {"key": "Enter"}]}),
    );
    let r = waiter.recv();
    assert_eq!(r["id"], "w");
    assert_eq!(r["result"]["matched"], true, "{r}");

    // Pipelined requests on one connection are answered in order.
    c.send(r#"{"jsonrpc":"2.0","method":"pty/status","id":1}"#);
    c.send(r#"{"jsonrpc":"2.0","method":"pty/wait","params":{"timeout":50},"id":2}"#);
    c.send(r#"{"jsonrpc":"2.0","method":"pty/read","id":3}"#);
    for id in 1..=3 {
        assert_eq!(c.recv()["id"], id);
    }
}

#[test]
fn disconnects_never_stop_the_session_and_an_abandoned_wait_is_dropped() {
    let server = Server::unix(BASH, &[]);
    let mut first = server.connect();
    first.wait_for("root@host:~$");
    first.ok(
        "pty/write",
        json!({"action": [{"text": "echo marker-one"}, {"key": "Enter"}]}),
    );
    first.wait_for("marker-one\nroot@host:~$");
    let screen = first.ok("pty/read", json!({}));
    drop(first);

    // A new connection sees the same screen.
    let mut second = server.connect();
    assert_eq!(second.ok("pty/read", json!({})), screen);
    drop(second);

    // A client that goes away in the middle of a long wait: the session carries on and the
    // server lets go of the wait (its threads go away).
    let mut samples = Vec::new();
    eventually("the thread count to settle", || {
        samples.push(threads(server.pid()));
        std::thread::sleep(Duration::from_millis(50));
        samples.len() >= 4
            && samples[samples.len() - 4..]
                .windows(2)
                .all(|w| w[0] == w[1])
    });
    let idle = *samples.last().unwrap();

    let mut waiter = server.connect();
    waiter.send(r#"{"jsonrpc":"2.0","method":"pty/wait","params":{"match":"never","timeout":600000},"id":1}"#);
    eventually("the wait to start", || threads(server.pid()) >= idle + 2);
    drop(waiter);
    eventually("the abandoned wait to end", || {
        threads(server.pid()) == idle
    });

    // Half-closing (shutting down only the sending side) is not hanging up: the reply comes.
    let socket = server.socket.clone().unwrap();
    let stream = UnixStream::connect(&socket).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    (&stream)
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"pty/wait\",\"params\":{\"timeout\":300},\"id\":\"half\"}\n")
        .unwrap();
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let mut reply = String::new();
    BufReader::new(&stream).read_line(&mut reply).unwrap();
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply["id"], "half");
    assert!(
        reply["result"]["waitedMs"].as_u64().unwrap() >= 300,
        "{reply}"
    );

    let mut third = server.connect();
    assert_eq!(third.ok("pty/status", json!({}))["running"], true);
    third.ok(
        "pty/write",
        json!({"action": [{"text": "echo marker-two"}, {"key": "Enter"}]}),
    );
    third.wait_for("marker-two\nroot@host:~$");
    assert!(
        third.ok("pty/read", json!({}))["screen"]
            .as_str()
            .unwrap()
            .contains("marker-one")
    );
}

// ----- the terminal --------------------------------------------------------------------------

#[test]
fn terminal_replies_keys_and_quoting() {
    // The program asks for the cursor position; the terminal's reply reaches it.
    let server = Server::unix(
        r#"bash --norc --noprofile -c 'printf "\033[5;7H\033[6n"; IFS= read -rs -d R reply; printf "\033[1;1Hcpr=%s;  spaced  \n" "${reply#*[}"; exec cat -v'"#,
        &[],
    );
    let mut c = server.connect();
    let r = c.wait_for("cpr=5;7;  spaced");
    assert!(
        r["screen"]
            .as_str()
            .unwrap()
            .starts_with("cpr=5;7;  spaced\n"),
        "{r}"
    );

    // Keys are encoded as a terminal would (cat -v shows them).
    c.ok("pty/write", json!({"action": [{"key": "Ctrl+A"}, {"key": "ArrowUp"}, {"key": "Alt+x"}, {"key": "F5"}, {"key": "Enter"}]}));
    c.wait_for("^A^[[A^[x^[[15~");
}

#[test]
fn the_session_is_recorded_marked_and_exported() {
    let server = Server::unix("bash --norc --noprofile", &[]);
    let mut c = server.connect();
    c.ok(
        "pty/write",
        json!({"action": [{"text": "echo one-$((2+3))"}, {"key": "Enter"}]}),
    );
    c.wait_for("one-5");
    let marked = c.ok("pty/mark", json!({"label": "after one"}));
    assert_eq!(marked["label"], "after one");
    assert!(marked["atMs"].as_u64().is_some(), "{marked}");
    let dir = tempfile::tempdir().expect("temp dir");
    let cast = dir.path().join("run.cast");
    let exported = c.ok("pty/export", json!({"path": cast}));
    assert_eq!(exported["format"], "cast", "{exported}");
    assert_eq!(exported["truncated"], false, "{exported}");
    let text = std::fs::read_to_string(&cast).expect("recording written");
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(events[0]["version"], 2);
    assert!(
        events.iter().any(|e| e[1] == "m" && e[2] == "after one"),
        "{text}"
    );
    assert!(
        events
            .iter()
            .any(|e| e[1] == "i" && e[2].as_str().unwrap_or("").starts_with("echo one-$((2+3))")),
        "{text}"
    );
    assert!(
        events
            .iter()
            .any(|e| e[1] == "o" && e[2].as_str().unwrap_or("").contains("one-5"))
    );
    let svg = dir.path().join("run.svg");
    let animated = c.ok("pty/export", json!({"path": svg, "showKeys": true}));
    assert_eq!(animated["format"], "svg", "{animated}");
    assert!(
        std::fs::read_to_string(&svg)
            .expect("animation")
            .contains("one-5")
    );
    c.err("pty/export", json!({"path": "relative.cast"}), -32602);
    c.err(
        "pty/export",
        json!({"path": dir.path().join("x.bmp")}),
        -32602,
    );
    c.err("pty/mark", json!({"label": "x".repeat(1025)}), -32602);
    c.err("pty/mark", json!({"colour": "red"}), -32602);
}

// ----- TCP ------------------------------------------------------------------------------------

fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The local addresses listening on `port` (from /proc/net/tcp and tcp6).
fn listeners(port: u16) -> Vec<String> {
    let mut found = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state)) = (f.get(1), f.get(3)) else {
                continue;
            };
            if *state == "0A" && local.ends_with(&format!(":{port:04X}")) {
                found.push(local.to_string());
            }
        }
    }
    found
}

#[test]
fn tcp_listens_on_loopback_only() {
    let port = free_port();
    let mut server = Server::tcp(BASH, port);
    assert_eq!(
        server.banner[1],
        format!("[shotty] address: tcp:127.0.0.1:{port}")
    );
    assert_eq!(listeners(port), [format!("0100007F:{port:04X}")]);
    let mut c = server.connect();
    c.wait_for("root@host:~$");
    c.ok(
        "pty/write",
        json!({"action": [{"text": "echo over tcp"}, {"key": "Enter"}]}),
    );
    c.wait_for("over tcp\nroot@host:~$");
    let mut other = server.connect();
    assert_eq!(other.ok("pty/status", json!({}))["running"], true);
    // Errors behave the same over TCP.
    assert_eq!(c.raw("{oops")["error"]["code"], -32700);
    assert_eq!(c.ok("pty/kill", json!({})), json!({}));
    c.assert_closed();
    other.assert_closed();
    assert_eq!(server.wait_exit().code(), Some(0));
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

/// Over TCP a client's close looks like a half-close until something is sent to it. Waits left
/// behind by more clients than the endpoint serves at once (256), each gone in the middle of a
/// day-long `pty/wait`, must still let go of their connections at once, so new clients are
/// served; a client that only shut down its sending side still gets its wait's reply, and
/// nothing but the reply (the endpoint's probes never reach it).
#[test]
fn tcp_waits_of_closed_clients_free_their_connections_and_half_closed_ones_are_answered() {
    let port = free_port();
    let _server = Server::tcp("sh -c 'stty -echo; exec cat'", port);
    let wait = |id: &str, timeout: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"pty/wait","params":{{"match":"NEVER","timeout":{timeout}}},"id":{id}}}"#
        ) + "\n"
    };
    for i in 0..260 {
        let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to the port");
        s.write_all(wait(&i.to_string(), 86_400_000).as_bytes())
            .expect("send");
    }
    let served = || {
        let Ok(s) = TcpStream::connect(("127.0.0.1", port)) else {
            return false;
        };
        s.set_read_timeout(Some(PATIENCE)).unwrap();
        let mut line = String::new();
        (&s).write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"pty/status\",\"id\":1}\n")
            .is_ok()
            && BufReader::new(&s).read_line(&mut line).is_ok()
            && line.contains("\"running\":true")
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !served() {
        assert!(
            Instant::now() < deadline,
            "the waits of clients that left still hold the connections"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Shut down for sending only: probed at once and each second after, answered all the same.
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect to the port");
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    (&s).write_all(wait("\"half\"", 2500).as_bytes()).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    let mut got = String::new();
    (&s).read_to_string(&mut got)
        .expect("the reply, then the end");
    assert!(got.starts_with('{') && got.ends_with("}\n"), "{got:?}");
    let reply: Value = serde_json::from_str(&got).expect("one JSON line");
    assert_eq!(reply["id"], "half", "{reply}");
    assert_eq!(reply["result"]["matched"], false, "{reply}");
    assert!(
        reply["result"]["waitedMs"].as_u64().unwrap() >= 2500,
        "{reply}"
    );
}

/// A connection must send each request line whole within the request deadline (the first from
/// connecting, each later one from its first byte), or it is told so and closed: 256
/// connections that stall lock the endpoint only until then. One that waits between requests
/// keeps its connection.
#[test]
fn a_request_must_come_whole_in_time_or_the_connection_is_closed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let socket = dir.path().join("pty.sock");
    let args = [
        "--cmd",
        "sh -c 'exec cat'",
        "--socket",
        socket.to_str().unwrap(),
    ];
    let server = Server::spawn_with_env(
        dir,
        &args,
        Some(socket.clone()),
        None,
        &[("SHOTTY_SERVE_REQUEST_MS", "3000")],
    );
    let started = Instant::now();
    let status = b"{\"jsonrpc\":\"2.0\",\"method\":\"pty/status\",\"id\":1}\n";
    let open = || UnixStream::connect(&socket).expect("connect to the socket");
    let mut between = server.connect();
    between.ok("pty/status", json!({}));
    let silent = open();
    let halfway = open();
    (&halfway).write_all(b"{\"jsonrpc\":").unwrap();
    // A whole request and the start of the next in one write: the second is due at once.
    let pipelined = open();
    let mut both = status.to_vec();
    both.extend_from_slice(b"{\"jsonrpc\":");
    (&pipelined).write_all(&both).unwrap();
    pipelined.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut line = String::new();
    BufReader::new(&pipelined).read_line(&mut line).unwrap();
    assert!(line.contains("\"running\":true"), "{line}");
    // The other slots, each stalled half-way through a request: the endpoint is full.
    let stalled: Vec<UnixStream> = (0..252)
        .map(|_| {
            let s = open();
            (&s).write_all(b"{\"jsonrpc\":").unwrap();
            s
        })
        .collect();
    let refused =
        Client::unix(&socket).raw(std::str::from_utf8(&status[..status.len() - 1]).unwrap());
    assert_eq!(
        refused["error"]["message"], "too many connections",
        "{refused}"
    );
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "the deadline must not have passed yet: {:?}",
        started.elapsed()
    );

    std::thread::sleep(Duration::from_millis(3500).saturating_sub(started.elapsed()));
    // Told why, then closed.
    let told_and_closed = |s: &UnixStream| {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut got = String::new();
        (&*s).read_to_string(&mut got).is_ok()
            && got.contains("-32600")
            && got.contains("no whole request line within 3 s")
    };
    assert!(told_and_closed(&silent), "a connection that never asked");
    assert!(told_and_closed(&halfway), "a request that stopped half-way");
    assert!(
        told_and_closed(&pipelined),
        "a request that stopped half-way after a whole one"
    );
    assert!(stalled.iter().all(told_and_closed));
    assert_eq!(between.ok("pty/status", json!({}))["running"], true);
    assert_eq!(
        server.connect().ok("pty/status", json!({}))["running"],
        true
    );
}

// ----- the command line -----------------------------------------------------------------------

/// Runs `shotty serve ARGS` expecting a usage error: non-zero exit, one line on stderr,
/// nothing on stdout.
fn usage_error(args: &[&str]) -> String {
    let mut child = shotty()
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("shotty runs");
    let deadline = Instant::now() + PATIENCE;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("{args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(out.stdout.is_empty(), "{args:?}: {:?}", out.stdout);
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr:?}");
    assert!(stderr.starts_with("shotty serve: error: "), "{stderr:?}");
    stderr
}

#[test]
fn usage_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("s.sock");
    let sock = sock.to_str().unwrap();
    let both = usage_error(&["--cmd", "true", "--socket", sock, "--port", "5174"]);
    assert!(
        both.contains("--socket") && both.contains("--port"),
        "{both}"
    );
    let neither = usage_error(&["--cmd", "true"]);
    assert!(
        neither.contains("--socket") && neither.contains("--port"),
        "{neither}"
    );
    assert!(usage_error(&["--cmd", "true", "--port", "0"]).contains('0'));
    assert!(usage_error(&["--cmd", "true", "--port", "70000"]).contains("70000"));
    assert!(usage_error(&["--cmd", "true", "--port", "http"]).contains("http"));
    assert!(usage_error(&["--socket", sock]).contains("--cmd"));
    assert!(usage_error(&["--cmd", "echo 'open", "--socket", sock]).contains("quote"));
    usage_error(&["--cmd", "  ", "--socket", sock]);
    usage_error(&["--cmd", "true", "--socket", sock, "--cols", "0"]);
    usage_error(&["--cmd", "true", "--socket", sock, "--rows", "501"]);
    usage_error(&["--cmd", "true", "--socket", sock, "--bogus"]);
    assert!(!Path::new(sock).exists());

    // Not a socket: refused, left alone.
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "keep me").unwrap();
    let refused = usage_error(&["--cmd", "true", "--socket", file.to_str().unwrap()]);
    assert!(refused.contains("not a socket"), "{refused}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");

    // A program that cannot run, a missing working directory.
    usage_error(&["--cmd", "/nonexistent/program", "--socket", sock]);
    assert!(!Path::new(sock).exists());
    usage_error(&[
        "--cmd",
        "true",
        "--socket",
        sock,
        "--cwd",
        "/nonexistent/dir",
    ]);

    // A port in use.
    let taken = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    usage_error(&["--cmd", "true", "--port", &port]);
}

#[test]
fn sockets_in_use_are_refused_and_stale_ones_replaced() {
    let server = Server::unix("cat", &[]);
    let socket = server.socket.clone().unwrap();
    let busy = usage_error(&["--cmd", "cat", "--socket", socket.to_str().unwrap()]);
    assert!(busy.contains("in use"), "{busy}");
    server.connect().ok("pty/status", json!({}));

    // A socket file nobody listens on is replaced.
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join("stale.sock");
    drop(UnixListener::bind(&stale).unwrap());
    assert!(stale.exists());
    let mut other = Server::spawn(
        tempfile::tempdir().unwrap(),
        &["--cmd", "cat", "--socket", stale.to_str().unwrap()],
        Some(stale.clone()),
        None,
    );
    other.connect().ok("pty/kill", json!({}));
    assert_eq!(other.wait_exit().code(), Some(0));
    assert!(!stale.exists());
}

#[test]
fn cwd_and_size_options() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::unix(
        "sh -c 'pwd; stty size; exec sleep 60'",
        &[
            "--cwd",
            dir.path().to_str().unwrap(),
            "--cols",
            "50",
            "--rows",
            "7",
        ],
    );
    let mut c = server.connect();
    let canonical = dir.path().canonicalize().unwrap();
    c.wait_for("7 50");
    let screen = c.ok("pty/read", json!({}))["screen"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        screen.starts_with(&format!("{}\n", dir.path().display()))
            || screen.starts_with(&format!("{}\n", canonical.display())),
        "{screen}"
    );
    assert_eq!(
        c.ok("pty/read", json!({}))["size"],
        json!({"cols": 50, "rows": 7})
    );
}

#[test]
fn relative_socket_paths_are_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Server::spawn(dir, &["--cmd", "cat", "--socket", "rel.sock"], None, None);
    let expected = child.dir.path().canonicalize().unwrap().join("rel.sock");
    let address = child.banner[1]
        .strip_prefix("[shotty] address: unix:")
        .unwrap()
        .to_owned();
    assert_eq!(
        Path::new(&address).canonicalize().unwrap(),
        expected,
        "{address}"
    );
    child.socket = Some(PathBuf::from(address));
    child.connect().ok("pty/kill", json!({}));
    assert_eq!(child.wait_exit().code(), Some(0));
    assert!(!expected.exists());
}

// ----- the panic boundary ----------------------------------------------------------------------

#[test]
fn a_panic_inside_one_request_costs_nobody_anything() {
    let dir = tempfile::tempdir().expect("temp dir");
    let socket = dir.path().join("pty.sock");
    let args = ["--cmd", BASH, "--socket", socket.to_str().unwrap()];
    let mut server = Server::spawn_with_env(
        dir,
        &args,
        Some(socket.clone()),
        None,
        &[("SHOTTY_TEST_PANIC_METHOD", "pty/read")],
    );
    let mut c = server.connect();
    let mut other = server.connect();
    c.wait_for("root@host:~$");
    let e = c.err("pty/read", json!({}), -32603);
    assert_eq!(e["data"]["code"], "session_error", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("internal error in pty/read"), "{e}");
    // The same connection, another one and the session all carry on.
    c.ok(
        "pty/write",
        json!({"action": [{"text": "echo still here"}, {"key": "Enter"}]}),
    );
    c.wait_for("still here\nroot@host:~$");
    assert_eq!(other.ok("pty/status", json!({}))["running"], true);
    other.err("pty/read", json!({"top": 1}), -32603);
    other.wait_for("still here");
    let mut third = server.connect();
    assert_eq!(third.ok("pty/status", json!({}))["running"], true);
    assert_eq!(c.ok("pty/kill", json!({})), json!({}));
    assert_eq!(server.wait_exit().code(), Some(0));
    assert!(!socket.exists());
}

// ----- signals --------------------------------------------------------------------------------

fn signal_cleans_up(sig: rustix::process::Signal) {
    // A program with a background grandchild: the whole process group must go.
    let mut server = Server::unix("sh -c 'sleep 300 & echo started; wait'", &[]);
    let socket = server.socket.clone().unwrap();
    let mut c = server.connect();
    c.wait_for("started");
    let pid = c.ok("pty/status", json!({}))["pid"].as_u64().unwrap() as u32;
    eventually("the background sleep", || group_members(pid).len() >= 2);
    let mut waiting = server.connect();
    waiting.send(r#"{"jsonrpc":"2.0","method":"pty/wait","params":{"match":"never","timeout":60000},"id":1}"#);
    std::thread::sleep(Duration::from_millis(100));

    signal(server.pid(), sig);
    assert_eq!(server.wait_exit().code(), Some(0));
    assert!(!socket.exists(), "the socket file is removed");
    // Killed processes leave /proc asynchronously.
    let ended = procs::ticks_now();
    eventually("the process group to be gone", || {
        procs::survivors(pid, ended).is_empty()
    });
    c.assert_closed();
    waiting.assert_closed_after_pending();
}

#[test]
fn sigterm_cleans_up() {
    signal_cleans_up(rustix::process::Signal::TERM);
}

#[test]
fn sigint_cleans_up() {
    signal_cleans_up(rustix::process::Signal::INT);
}

#[test]
fn keys_follow_the_modes_the_program_set() {
    // The program itself switches to application cursor keys and keypad; `pty/write` must
    // encode with the terminal's modes, not the defaults.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/keyecho.py");
    let server = Server::unix(&format!("python3 {script} app"), &[]);
    let mut c = server.connect();
    c.wait_for("ready");
    c.ok("pty/write", json!({"action": {"key": "ArrowUp"}}));
    c.wait_for("[1b4f41]");
    c.ok("pty/write", json!({"action": {"key": "KP7"}}));
    c.wait_for("[1b4f77]");
    // In the default modes the same keys are CSI A and the digit.
    let server = Server::unix(&format!("python3 {script}"), &[]);
    let mut c = server.connect();
    c.wait_for("ready");
    c.ok(
        "pty/write",
        json!({"action": [{"key": "ArrowUp"}, {"key": "KP7"}]}),
    );
    c.wait_for("[1b5b4137]");
}

#[test]
fn mouse_actions_are_encoded_for_the_programs_mode() {
    // `pty/write` takes the host protocol's mouse steps; the program reads SGR reports.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/inputecho.py");
    let server = Server::unix(&format!("python3 {script}"), &[]);
    let mut c = server.connect();
    c.wait_for("ready");
    let click = json!({"action": {"mouse": {"action": "click", "row": 2, "col": 4}}});
    // No tracking yet: refused with the session's code, nothing written.
    let err = c.call("pty/write", click.clone());
    assert_eq!(err["error"]["data"]["code"], "invalid_operation", "{err}");
    c.ok("pty/write", json!({"action": {"text": "!m1000,1006"}}));
    c.wait_for("MODES 1000,1006");
    c.ok(
        "pty/write",
        json!({"action": [
            {"mouse": {"action": "click", "row": 2, "col": 4, "button": "right"}},
            {"delay": 200},
            {"mouse": {"action": "scroll", "direction": "down", "count": 2}},
        ]}),
    );
    // The click, then (the program's third read: the pause split the write; each read
    // clears its screen, so only the last shows) two wheel notches where it was.
    c.wait_for("3 HEX:1b5b3c36353b353b334d1b5b3c36353b353b334d");
    for bad in [
        json!({"action": {"mouse": {"action": "tap", "row": 0, "col": 0}}}),
        json!({"action": {"mouse": {"action": "click", "row": 0}}}),
        json!({"action": {"delay": "soon"}}),
        json!({"action": {"text": "a", "mouse": {}}}),
    ] {
        let err = c.call("pty/write", bad.clone());
        assert_eq!(err["error"]["code"], -32602, "{bad}: {err}");
    }
}

/// `shotty serve` raises its soft limit on open files (as the session host does), so its 256
/// connections, three or four descriptors each, fit where the usual soft limit is 1024.
#[test]
fn serve_raises_its_open_file_limit() {
    let hard = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .maximum
        .unwrap_or(u64::MAX);
    if hard < 4096 {
        // Nothing to raise to (said, not failed: the machine's hard limit is the cause).
        eprintln!("serve_raises_its_open_file_limit: the hard limit is {hard}");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let socket = dir.path().join("pty.sock");
    let script = format!(
        "ulimit -Sn 1024; exec '{}' serve --cmd 'sleep 30' --socket '{}'",
        env!("CARGO_BIN_EXE_shotty"),
        socket.display()
    );
    let mut child = Command::new("sh")
        .args(["-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("sh runs");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !socket.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", child.id())).expect("limits");
    let _ = child.kill();
    let _ = child.wait();
    let soft: u64 = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse().ok())
        .expect("the soft limit");
    assert!(soft >= 4096, "shotty serve kept a soft limit of {soft}");
}
