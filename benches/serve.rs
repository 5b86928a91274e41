//! `shotty serve` latency: a timing harness (not criterion — each sample involves a real
//! program in a real PTY, so we report the distribution of individual round trips).
//!
//! The server runs in-process through the library (`shotty::serve::Server`) on a Unix socket;
//! clients talk to it over real connections exactly as external ones would.
//!
//! * `write+read`: one `pty/write` (`{"text":"x"}`) and one `pty/read` of a full 100×30
//!   screen, back to back on one connection; also each on its own. Target: median ≤ 1 ms.
//! * `wait reaction`: a `pty/wait` is pending on one connection; another connection makes bash
//!   print a marker together with `$EPOCHREALTIME` taken just before the write; the time from
//!   that timestamp to the wait's reply arriving at the client. Target: median ≤ 10 ms.
//!
//! `cargo bench --bench serve` (optionally `-- N` for N write+read samples).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use shotty::serve::{Endpoint, ServeOptions, Server};

struct Client {
    stream: UnixStream,
    reader: BufReader<UnixStream>,
    id: u64,
}

impl Client {
    fn connect(path: &std::path::Path) -> Client {
        let stream = UnixStream::connect(path).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Client {
            stream,
            reader,
            id: 0,
        }
    }

    fn send(&mut self, method: &str, params: Value) {
        self.id += 1;
        let mut line = serde_json::to_vec(
            &json!({"jsonrpc": "2.0", "method": method, "params": params, "id": self.id}),
        )
        .unwrap();
        line.push(b'\n');
        self.stream.write_all(&line).unwrap();
    }

    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("reply");
        let v: Value = serde_json::from_str(&line).expect("JSON");
        assert!(v.get("error").is_none(), "{v}");
        v["result"].clone()
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params);
        self.recv()
    }
}

struct Stats {
    samples: Vec<Duration>,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            samples: Vec::new(),
        }
    }

    fn pct(&self, p: f64) -> f64 {
        let mut s = self.samples.clone();
        s.sort();
        let i = ((s.len() - 1) as f64 * p).round() as usize;
        s[i].as_secs_f64() * 1000.0
    }

    fn report(&self, name: &str) {
        println!(
            "{name:<46} n={:<5} median {:>7.3} ms   p90 {:>7.3} ms   p99 {:>7.3} ms   max {:>7.3} ms",
            self.samples.len(),
            self.pct(0.5),
            self.pct(0.9),
            self.pct(0.99),
            self.pct(1.0),
        );
    }
}

fn serve(command: &str) -> (Server, tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("bench.sock");
    let options = ServeOptions::new(vec!["bash".into(), "-c".into(), command.into()]);
    let server = Server::bind(&Endpoint::Unix(socket.clone()), &options).expect("bind");
    (server, dir, socket)
}

fn write_read(samples: usize) {
    // A full screen (29 rows of 100 characters) and a program that swallows input silently.
    let (server, _dir, socket) = serve(
        "stty -echo; for i in $(seq 29); do printf '%0100d\\n' $i; done; exec cat >/dev/null",
    );
    let handle = server.handle();
    let runner = std::thread::spawn(move || server.run());
    let mut c = Client::connect(&socket);
    c.call("pty/wait", json!({"match": "0029", "timeout": 10000}));
    assert_eq!(
        c.call("pty/read", json!({}))["screen"]
            .as_str()
            .unwrap()
            .len(),
        29 * 101
    );

    let (mut both, mut write, mut read) = (Stats::new(), Stats::new(), Stats::new());
    for i in 0..samples + samples / 10 {
        let t0 = Instant::now();
        c.call("pty/write", json!({"action": {"text": "x"}}));
        let t1 = Instant::now();
        c.call("pty/read", json!({}));
        let t2 = Instant::now();
        if i >= samples / 10 {
            // (the first tenth is warm-up)
            both.samples.push(t2 - t0);
            write.samples.push(t1 - t0);
            read.samples.push(t2 - t1);
        }
    }
    both.report("pty/write + pty/read round trip");
    write.report("  pty/write alone");
    read.report("  pty/read alone (full 100x30 screen)");
    handle.shutdown();
    runner.join().unwrap().unwrap();
}

fn wait_reaction(samples: usize) {
    let (server, _dir, socket) = serve(
        "stty -echo; while read -r n; do printf '\\033[H\\033[2JR%s@%s\\n' \"$n\" \"$EPOCHREALTIME\"; done",
    );
    let handle = server.handle();
    let runner = std::thread::spawn(move || server.run());
    let mut waiter = Client::connect(&socket);
    let mut writer = Client::connect(&socket);

    let (mut reaction, mut total) = (Stats::new(), Stats::new());
    for n in 0..samples + 10 {
        let marker = format!("R{n}@");
        waiter.send("pty/wait", json!({"match": marker, "timeout": 10000}));
        // Let the wait start before the output can arrive.
        std::thread::sleep(Duration::from_millis(2));
        let sent = Instant::now();
        writer.call(
            "pty/write",
            json!({"action": [{"text": n.to_string()}, {"key": "Enter"}]}),
        );
        let reply = waiter.recv();
        let received = SystemTime::now();
        let done = Instant::now();
        assert_eq!(reply["matched"], true, "{reply}");
        let screen = reply["screen"].as_str().unwrap();
        let stamp = screen
            .split(&marker)
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .expect("timestamp");
        let printed: f64 = stamp.replace(',', ".").parse().expect("seconds");
        let now = received.duration_since(UNIX_EPOCH).unwrap().as_secs_f64();
        if n >= 10 {
            reaction
                .samples
                .push(Duration::from_secs_f64((now - printed).max(0.0)));
            total.samples.push(done - sent);
        }
    }
    reaction.report("pty/wait reaction (printed -> reply received)");
    total.report("  write sent -> wait reply (through bash)");
    handle.shutdown();
    runner.join().unwrap().unwrap();
}

fn main() {
    let samples = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(5000);
    println!("shotty serve latency (Unix socket, in-process server, real bash in a PTY)");
    write_read(samples);
    wait_reaction(samples / 10);
}
