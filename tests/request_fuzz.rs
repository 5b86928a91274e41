//! Request fuzzing: a deterministic generator (fixed seed) sends well over 10,000 requests to
//! every front end at once — the session host's socket, `shotty serve` on a Unix socket and on
//! TCP loopback, and `shotty mcp` on stdio — and checks every reply line: JSON-RPC 2.0, exactly
//! one of `result`/`error`, an integer code and a string message, the request's own id (or
//! `null` when it could not be read), and the error code the envelope calls for.
//!
//! The requests are valid and unknown methods with params of every wrong type, extreme numbers,
//! control and unicode characters, lone surrogate escapes, 10,000-deep nesting, 1 MB strings,
//! truncated and concatenated lines, invalid UTF-8, lines cut off by a hang-up and clients that
//! vanish mid-request. A good share goes to real sessions (`cat` in raw mode, so no byte can
//! kill it) to reach the deep paths. Afterwards every endpoint must still answer, a session
//! must still work end to end, no process the test started may survive, and no process may
//! have printed a panic.
//!
//! Dangerous requests are kept bounded: nothing stops or kills the sessions the test needs,
//! `start`/`spawn` run only `cat` or `true` and only a few times, captures stay inside the
//! test's directory, and waits are short (a long one is sent by a client that then vanishes).
//!
//! A test binary of its own, outside the grouped ones (`tests/frontends/` and the others): at
//! its end it asserts that the test process has no child process left, which any test running
//! beside it in the same process would break with children of its own.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

#[path = "support/procs.rs"]
mod procs;

const SEED: u64 = 0x5107_7e5e_ed00_f00d;
/// Requests (lines, garbage included) per endpoint.
const HOST_REQUESTS: usize = 3000;
const SERVE_UNIX_REQUESTS: usize = 3000;
const SERVE_TCP_REQUESTS: usize = 3000;
const MCP_REQUESTS: usize = 1800;
/// The endpoints' line limit (host, serve and mcp alike).
const MAX_LINE: usize = 1024 * 1024;
/// No single reply may take longer; a hang fails the test instead of hanging CI.
const PATIENCE: Duration = Duration::from_secs(15);
/// Waits the fuzzer lets through on a connection it keeps reading (longer ones are sent by a
/// client that hangs up right after).
const SHORT_WAIT_MS: u64 = 150;
/// `start`/`spawn` requests that may really start a program.
const MAX_STARTS: usize = 8;

/// The raw-mode `cat` every session runs: no byte typed into it can stop it.
const CAT: &str = "stty raw -echo; echo ready; exec cat";

// ----- randomness -------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// Markers replaced in the serialized text by what a `Value` cannot hold.
const M_SURROGATE: &str = "\u{e000}surrogate\u{e001}";
const M_BIGINT: &str = "\u{e000}bigint\u{e001}";
const M_HUGE_EXP: &str = "\u{e000}exp\u{e001}";
const M_DEEP: &str = "\u{e000}deep\u{e001}";

/// Replaces the markers: a lone surrogate escape inside a string, and numbers or nesting in
/// place of the (quoted) marker strings.
fn finish(text: String) -> Vec<u8> {
    if !text.contains('\u{e000}') {
        return text.into_bytes();
    }
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    text.replace(&format!("\"{M_BIGINT}\""), "18446744073709551616")
        .replace(&format!("\"{M_HUGE_EXP}\""), "1e400")
        .replace(&format!("\"{M_DEEP}\""), &deep)
        .replace(M_SURROGATE, "\\ud800")
        .replace(M_BIGINT, "")
        .replace(M_HUGE_EXP, "")
        .replace(M_DEEP, "")
        .into_bytes()
}

const WEIRD: &[&str] = &[
    "",
    " ",
    "a",
    "hello",
    "\0",
    "a\0b",
    "\u{1b}",
    "\u{1b}[31mred\u{1b}[0m",
    "\u{1b}]0;title\u{7}",
    "\u{1b}P",
    "\u{1b}[?1049h",
    "\u{1b}(0",
    "\u{fffe}",
    "\u{ffff}",
    "\u{feff}",
    "😀",
    "👍🏽",
    "🇺🇸",
    "\u{202e}RTL\u{202c}",
    "שלום עולם",
    "مرحبا",
    "e\u{301}\u{302}\u{303}\u{304}",
    "\u{301}",
    "\u{200d}",
    "日本語",
    "ＡＢ",
    "\r\n",
    "\r",
    "\n",
    "\t",
    "\u{7f}",
    "\u{85}",
    "\u{2028}",
    "\u{3}",
    "\u{4}",
    "\u{1a}",
    "%s%n%x",
    "../../../../etc/passwd",
    "/dev/null",
    "s_",
    "s_0123456789abcdef0123456789abcdef",
    "S_0123456789ABCDEF0123456789ABCDEF",
    "s_0123456789abcdef0123456789abcdeg",
    "null",
    "true",
    "{}",
    "[]",
    "\\",
    "\"",
    "'",
    M_SURROGATE,
    "Enter",
    "Ctrl+",
    "Ctrl+C",
    "Alt+",
    "+",
    "++",
    "Plus",
    "F99",
    "1b5b41",
    "zz",
    "0x1b",
    "-1",
    "1e308",
    "İ",
    "ß",
    "ﬀ",
];

fn weird_string(rng: &mut Rng) -> String {
    match rng.below(20) {
        0..=11 => rng.pick(WEIRD).to_string(),
        12..=15 => (0..2 + rng.below(3))
            .map(|_| *rng.pick(WEIRD))
            .collect::<String>(),
        16..=17 => (0..1 + rng.below(12))
            .filter_map(|_| {
                char::from_u32(match rng.below(4) {
                    0 => rng.below(0x20) as u32,
                    1 => rng.below(0x80) as u32,
                    2 => rng.below(0x3000) as u32,
                    _ => rng.below(0x11_0000) as u32,
                })
            })
            .collect(),
        18 => "x".repeat(1000 + rng.below(20_000)),
        _ => format!("{}{}", rng.pick(WEIRD), rng.next()),
    }
}

fn weird_number(rng: &mut Rng) -> Value {
    match rng.below(22) {
        0 => json!(0),
        1 => json!(1),
        2 => json!(-1),
        3 => json!(2.5),
        4 => json!(-2.5),
        5 => json!(1e308),
        6 => json!(-1e308),
        7 => json!(65535),
        8 => json!(65536),
        9 => json!(4_294_967_296u64),
        10 => json!(u64::MAX),
        11 => json!(i64::MIN),
        12 => json!(M_BIGINT),
        13 => json!(M_HUGE_EXP),
        14 => json!(0.0),
        15 => json!(1e-308),
        16 => json!(500),
        17 => json!(501),
        18 => json!(-0.0),
        _ => json!(rng.below(100)),
    }
}

fn any_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 2 { 6 } else { 9 }) {
        0 | 1 => Value::String(weird_string(rng)),
        2 | 3 => weird_number(rng),
        4 => Value::Bool(rng.chance(50)),
        5 => Value::Null,
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| any_value(rng, depth + 1))
                .collect(),
        ),
        7 => Value::Object(
            (0..rng.below(4))
                .map(|_| (weird_string(rng), any_value(rng, depth + 1)))
                .collect(),
        ),
        _ => json!(M_DEEP),
    }
}

// ----- what the endpoints take ------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proto {
    Host,
    Serve,
    Mcp,
}

#[derive(Clone, Copy)]
enum Kind {
    SessionId,
    Text,
    Key,
    Hex,
    Size,
    Millis,
    Count,
    Bool,
    Regex,
    Until,
    Command,
    HostEnv,
    McpEnv,
    Steps,
    Action,
    McpAction,
    Ids,
    Path,
    Seconds,
    Ports,
    Cwd,
}

use Kind::*;

const HOST_METHODS: &[(&str, &[(&str, Kind)])] = &[
    (
        "start",
        &[
            ("command", Command),
            ("width", Size),
            ("height", Size),
            ("cwd", Cwd),
            ("env", HostEnv),
            ("title", Text),
            ("group", Text),
            ("timeoutMs", Millis),
            ("retainMs", Millis),
            ("scrollback", Count),
            ("ports", Ports),
            ("noColorenv", Bool),
            ("noDeleteEnvs", Bool),
        ],
    ),
    ("list", &[("all", Bool), ("group", Text), ("state", Text)]),
    (
        "read",
        &[
            ("sessionId", SessionId),
            ("structured", Bool),
            ("top", Count),
            ("bottom", Count),
            ("start", Count),
            ("end", Count),
        ],
    ),
    ("snapshot", &[("sessionId", SessionId)]),
    ("send", &[("sessionId", SessionId), ("steps", Steps)]),
    (
        "resize",
        &[("sessionId", SessionId), ("width", Size), ("height", Size)],
    ),
    (
        "history",
        &[
            ("sessionId", SessionId),
            ("from", Count),
            ("limit", Count),
            ("grep", Regex),
            ("ignoreCase", Bool),
            ("tail", Count),
        ],
    ),
    (
        "wait",
        &[
            ("sessionId", SessionId),
            ("text", Text),
            ("regex", Regex),
            ("until", Until),
            ("stableForMs", Millis),
            ("timeoutMs", Millis),
            ("idleMs", Millis),
            ("exit", Bool),
        ],
    ),
    (
        "stop",
        &[("sessionIds", Ids), ("all", Bool), ("group", Text)],
    ),
    ("ping", &[]),
];

const SERVE_METHODS: &[(&str, &[(&str, Kind)])] = &[
    (
        "pty/read",
        &[
            ("top", Count),
            ("bottom", Count),
            ("start", Count),
            ("end", Count),
        ],
    ),
    ("pty/write", &[("action", Action)]),
    ("pty/wait", &[("match", Text), ("timeout", Millis)]),
    ("pty/status", &[]),
    ("pty/resize", &[("cols", Size), ("rows", Size)]),
    ("pty/kill", &[]),
];

const MCP_TOOLS: &[(&str, &[(&str, Kind)])] = &[
    (
        "spawn",
        &[
            ("command", Command),
            ("cwd", Cwd),
            ("cols", Size),
            ("rows", Size),
            ("env", McpEnv),
            ("title", Text),
            ("group", Text),
            ("timeout", Seconds),
        ],
    ),
    (
        "read",
        &[
            ("sessionId", SessionId),
            ("structured", Bool),
            ("top", Count),
            ("bottom", Count),
            ("start", Count),
            ("end", Count),
        ],
    ),
    ("write", &[("sessionId", SessionId), ("action", McpAction)]),
    (
        "wait",
        &[
            ("sessionId", SessionId),
            ("match", Text),
            ("regex", Regex),
            ("idle", Millis),
            ("exit", Bool),
            ("until", Until),
            ("stableFor", Millis),
            ("timeout", Millis),
        ],
    ),
    (
        "resize",
        &[("sessionId", SessionId), ("cols", Size), ("rows", Size)],
    ),
    ("status", &[("sessionId", SessionId)]),
    ("kill", &[("sessionId", SessionId)]),
    ("list", &[("all", Bool), ("group", Text), ("state", Text)]),
    (
        "history",
        &[
            ("sessionId", SessionId),
            ("from", Count),
            ("limit", Count),
            ("grep", Regex),
            ("ignoreCase", Bool),
            ("tail", Count),
        ],
    ),
    ("capture", &[("sessionId", SessionId), ("path", Path)]),
    ("inspect", &[("sessionId", SessionId)]),
];

const KEYS: &[&str] = &[
    "Enter",
    "Tab",
    "Escape",
    "Backspace",
    "Delete",
    "Up",
    "ArrowUp",
    "PageDown",
    "Home",
    "F1",
    "F12",
    "F13",
    "KP0",
    "KP9",
    "Space",
    "Plus",
    "Ctrl+C",
    "Ctrl+D",
    "Ctrl+Z",
    "Ctrl+\\",
    "Ctrl+S",
    "Alt+F4",
    "Shift+Tab",
    "Meta+Alt+Ctrl+Shift+x",
    "Ctrl+Alt+Delete",
    "a",
    "é",
    "😀",
    "Ctrl+😀",
    "ctrl+c",
    "Ctrl+Ctrl+c",
    "Ctrl++",
    "Ctrl+ ",
    "Enter Enter",
];

const HEX_BYTES: &[u8] = b"abcXYZ019 \r\t-=_\x00\x1b\x03\xff";

const REGEXES: &[&str] = &[
    ".*",
    "(a|b)*c",
    "[",
    "(",
    "(?i)READY",
    "\\d{1000}",
    "a{1000}{1000}",
    "\\p{Greek}+",
    "^$",
    "(?m)^ready$",
    "\\",
    "[[:alpha:]]",
    "(?P<x>a)(?P<x>b)",
    "x{4294967296}",
    "😀+",
];

/// What the generator knows of the world.
struct World {
    dir: PathBuf,
    /// Sessions the fuzzer must not stop.
    protected: Vec<String>,
    /// Sessions the fuzzer started (it may stop them).
    started: Mutex<Vec<String>>,
    starts: AtomicUsize,
}

/// Set when a storm thread fails, so the others stop rather than run on for nothing.
static FAILED: AtomicBool = AtomicBool::new(false);

struct FailFast;

struct Report(&'static str, Instant);

impl Drop for Report {
    fn drop(&mut self) {
        eprintln!("{} storm took {:?}", self.0, self.1.elapsed());
    }
}

impl Drop for FailFast {
    fn drop(&mut self) {
        if std::thread::panicking() {
            FAILED.store(true, Ordering::SeqCst);
        }
    }
}

/// What the storm found, keyed by finding, with the shortest request that showed it.
static FINDINGS: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());

fn finding(key: String, request: &[u8]) {
    let shown = show(request);
    let mut findings = FINDINGS.lock().unwrap_or_else(|e| e.into_inner());
    match findings.get(&key) {
        Some(old) if old.len() <= shown.len() => {}
        _ => {
            findings.insert(key, shown);
        }
    }
}

impl World {
    fn session_id(&self, rng: &mut Rng) -> Value {
        match rng.below(20) {
            0..=10 => json!(rng.pick(&self.protected)),
            11 | 12 => {
                let started = self.started.lock().unwrap();
                if started.is_empty() {
                    json!(self.protected[0])
                } else {
                    json!(rng.pick(&started))
                }
            }
            13 => json!(format!("s_{:032x}", rng.next())),
            _ => Value::String(weird_string(rng)),
        }
    }
}

fn show(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.len() > 400 {
        let cut = (0..=400).rev().find(|&i| text.is_char_boundary(i)).unwrap();
        format!("{}… ({} bytes)", &text[..cut], bytes.len())
    } else {
        text.into_owned()
    }
}

fn value_of(kind: Kind, rng: &mut Rng, world: &World) -> Value {
    // A quarter of all values are of a wrong type or shape.
    if rng.chance(25) {
        return any_value(rng, 0);
    }
    match kind {
        SessionId => world.session_id(rng),
        Text => Value::String(weird_string(rng)),
        Key => {
            if rng.chance(80) {
                json!(rng.pick(KEYS))
            } else {
                Value::String(weird_string(rng))
            }
        }
        Hex => match rng.below(6) {
            0..=2 => json!(
                (0..1 + rng.below(6))
                    .map(|_| format!("{:02x}", HEX_BYTES[rng.below(HEX_BYTES.len())]))
                    .collect::<String>()
            ),
            3 => json!("1b 5b 41"),
            4 => json!("abc"),
            _ => Value::String(weird_string(rng)),
        },
        Size => match rng.below(4) {
            0 | 1 => json!(1 + rng.below(200)),
            _ => weird_number(rng),
        },
        Millis => match rng.below(8) {
            0..=3 => json!(rng.below(20)),
            4 => json!(rng.below(SHORT_WAIT_MS as usize)),
            _ => weird_number(rng),
        },
        Count => match rng.below(3) {
            0 | 1 => json!(rng.below(40)),
            _ => weird_number(rng),
        },
        Bool => json!(rng.chance(50)),
        Regex => {
            if rng.chance(70) {
                json!(rng.pick(REGEXES))
            } else {
                Value::String(weird_string(rng))
            }
        }
        Until => match rng.below(3) {
            0 => json!("present"),
            1 => json!("absent"),
            _ => Value::String(weird_string(rng)),
        },
        Command => match rng.below(6) {
            0 | 1 => json!(["cat"]),
            2 => json!(["true"]),
            3 => json!([]),
            4 => json!([weird_string(rng)]),
            _ => json!(["cat", weird_string(rng)]),
        },
        HostEnv => Value::Array(
            (0..rng.below(3))
                .map(|_| json!([weird_string(rng), weird_string(rng)]))
                .collect(),
        ),
        McpEnv => Value::Object(
            (0..rng.below(3))
                .map(|_| (weird_string(rng), json!(weird_string(rng))))
                .collect(),
        ),
        Steps => Value::Array(
            (0..rng.below(4))
                .map(|_| {
                    let (name, kind) = *rng.pick(&[
                        ("text", Text),
                        ("paste", Text),
                        ("keys", Key),
                        ("rawHex", Hex),
                    ]);
                    let mut step = Map::new();
                    step.insert(name.into(), value_of(kind, rng, world));
                    if rng.chance(5) {
                        step.insert("text".into(), json!("both"));
                    }
                    Value::Object(step)
                })
                .collect(),
        ),
        Action | McpAction => {
            let fields: &[(&str, Kind)] = if matches!(kind, Action) {
                &[("text", Text), ("key", Key)]
            } else {
                &[
                    ("text", Text),
                    ("key", Key),
                    ("paste", Text),
                    ("rawHex", Hex),
                ]
            };
            let one = |rng: &mut Rng| {
                let (name, kind) = *rng.pick(fields);
                let mut action = Map::new();
                action.insert(name.into(), value_of(kind, rng, world));
                if rng.chance(5) {
                    action.insert("key".into(), json!("Enter"));
                }
                Value::Object(action)
            };
            if rng.chance(50) {
                one(rng)
            } else {
                Value::Array((0..rng.below(4)).map(|_| one(rng)).collect())
            }
        }
        Ids => Value::Array((0..rng.below(3)).map(|_| world.session_id(rng)).collect()),
        Path => {
            let ext = rng.pick(&[".txt", ".json", ".svg", ".png", ".bmp", "", ".TXT"]);
            let name: String = weird_string(rng)
                .chars()
                .map(|c| if c == '/' { '_' } else { c })
                .take(100)
                .collect();
            json!(format!("{}/cap-{name}{ext}", world.dir.display()))
        }
        Seconds => match rng.below(4) {
            0 => json!(0.5 + rng.below(20) as f64),
            _ => weird_number(rng),
        },
        Ports => Value::Array((0..rng.below(3)).map(|_| weird_number(rng)).collect()),
        Cwd => match rng.below(4) {
            0 => json!(world.dir.display().to_string()),
            1 => json!("/"),
            _ => Value::String(weird_string(rng)),
        },
    }
}

/// Params for one of `methods` (or for an unknown one).
fn params_for(fields: &[(&str, Kind)], rng: &mut Rng, world: &World) -> Value {
    let mut params = Map::new();
    for (name, kind) in fields {
        // The session id is nearly always there, so requests get past it to the deep paths.
        let keep = if matches!(kind, SessionId) { 90 } else { 45 };
        if rng.chance(keep) {
            params.insert((*name).to_owned(), value_of(*kind, rng, world));
        }
    }
    if rng.chance(8) {
        params.insert(weird_string(rng), any_value(rng, 0));
    }
    Value::Object(params)
}

fn weird_id(rng: &mut Rng, n: u64, unique: bool) -> Option<Value> {
    Some(match rng.below(40) {
        0 => return None,
        1 => Value::Null,
        2 => json!(true),
        3 => json!([n]),
        4 => json!({ "n": n }),
        5 => json!(format!("{}-{n}", weird_string(rng))),
        6 => json!(-(n as i64)),
        7 => json!(n as f64 + 0.5),
        8 => json!(1e308),
        9 => json!(M_BIGINT),
        10 => json!(M_HUGE_EXP),
        11 => json!(u64::MAX - n),
        // MCP clients keep their ids unique while requests are in flight.
        12 if !unique => json!(""),
        _ => json!(n),
    })
}

/// One request as a JSON value (markers still in it).
fn request(proto: Proto, rng: &mut Rng, world: &World, n: u64) -> Value {
    let methods = match proto {
        Proto::Host => HOST_METHODS,
        Proto::Serve => SERVE_METHODS,
        Proto::Mcp => MCP_TOOLS,
    };
    let (method, params) = if rng.chance(8) {
        let name = match rng.below(4) {
            0 => weird_string(rng),
            1 => format!("{} ", rng.pick(methods).0),
            2 => rng.pick(methods).0.to_uppercase(),
            _ => rng
                .pick(&["rpc.discover", "pty/", "/", "list\0", "tools/call"])
                .to_string(),
        };
        (Value::String(name), params_for(&[], rng, world))
    } else {
        let (name, fields) = *rng.pick(methods);
        (json!(name), params_for(fields, rng, world))
    };
    let (method, params) = match proto {
        Proto::Mcp => {
            if rng.chance(10) {
                let other = *rng.pick(&[
                    "tools/list",
                    "ping",
                    "initialize",
                    "resources/list",
                    "prompts/list",
                    "logging/setLevel",
                    "completion/complete",
                    "notifications/cancelled",
                ]);
                (json!(other), params_for(&[], rng, world))
            } else {
                let mut call = Map::new();
                call.insert("name".into(), method);
                if rng.chance(95) {
                    call.insert(
                        "arguments".into(),
                        if rng.chance(95) {
                            params
                        } else {
                            any_value(rng, 0)
                        },
                    );
                }
                (json!("tools/call"), Value::Object(call))
            }
        }
        _ => (method, params),
    };
    let mut req = Map::new();
    match rng.below(50) {
        0 => {}
        1 => {
            req.insert("jsonrpc".into(), json!("1.0"));
        }
        2 => {
            req.insert("jsonrpc".into(), json!(2.0));
        }
        _ => {
            req.insert("jsonrpc".into(), json!("2.0"));
        }
    }
    if let Some(id) = weird_id(rng, n, proto == Proto::Mcp) {
        req.insert("id".into(), id);
    }
    match rng.below(40) {
        0 => {}
        1 => {
            req.insert("method".into(), any_value(rng, 0));
        }
        _ => {
            req.insert("method".into(), method);
        }
    }
    match rng.below(30) {
        0 => {}
        1 | 2 => {
            req.insert("params".into(), any_value(rng, 0));
        }
        _ => {
            req.insert("params".into(), params);
        }
    }
    Value::Object(req)
}

// ----- what the test allows -----------------------------------------------------------------

/// Whether a line may be sent at all (the server parses it the same way).
fn allowed(proto: Proto, line: &[u8], world: &World) -> bool {
    let Ok(Value::Object(req)) = serde_json::from_slice::<Value>(line) else {
        return true;
    };
    let method = req.get("method").and_then(Value::as_str).unwrap_or("");
    let empty = Map::new();
    let params = match req.get("params") {
        None => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return true,
    };
    let protected = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(|id| world.protected.iter().any(|p| p == id))
    };
    let harmless_command = |v: Option<&Value>| match v {
        Some(Value::Array(words)) if words.iter().all(Value::is_string) => {
            let ok = words == &[json!("cat")] || words == &[json!("true")];
            // Counted when allowed: it may really start.
            ok && world.starts.fetch_add(1, Ordering::SeqCst) < MAX_STARTS
        }
        _ => true,
    };
    match (proto, method) {
        (Proto::Host, "stop") => {
            params.get("all") != Some(&json!(true))
                && !params
                    .get("sessionIds")
                    .and_then(Value::as_array)
                    .is_some_and(|ids| ids.iter().any(|id| protected(Some(id))))
        }
        (Proto::Host, "start") => harmless_command(params.get("command")),
        (Proto::Serve, "pty/kill") => !params.is_empty(),
        (Proto::Serve, "pty/wait") if OVER_TCP.get() => match params.get("timeout") {
            None | Some(Value::Null) => false,
            Some(t) => t.as_u64().is_none_or(|t| t <= TCP_ABANDONED_WAIT_MS),
        },
        (Proto::Mcp, "tools/call") => {
            let args = params.get("arguments").and_then(Value::as_object);
            let arg = |k: &str| args.and_then(|a| a.get(k));
            match params.get("name").and_then(Value::as_str) {
                Some("kill") => !protected(arg("sessionId")),
                Some("spawn") => harmless_command(arg("command")),
                // A wrong type is refused before any waiting.
                Some("wait") => {
                    args.is_none()
                        || arg("timeout")
                            .is_some_and(|t| t.as_u64().is_none_or(|t| t <= SHORT_WAIT_MS))
                }
                Some("capture") => arg("path")
                    .and_then(Value::as_str)
                    .is_none_or(|p| p.starts_with(world.dir.to_str().unwrap())),
                _ => true,
            }
        }
        _ => true,
    }
}

thread_local! {
    /// This storm thread talks TCP, where a vanished client cannot be told from one that
    /// only shut down its sending side, so its abandoned wait runs to its timeout
    /// (documented, src/session/hangup.rs): such waits are kept short.
    static OVER_TCP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The longest wait a vanishing TCP client may leave behind.
const TCP_ABANDONED_WAIT_MS: u64 = 1500;

/// A wait that could run long: sent only by a client that hangs up right after.
fn long_wait(proto: Proto, line: &[u8]) -> bool {
    let Ok(Value::Object(req)) = serde_json::from_slice::<Value>(line) else {
        return false;
    };
    let (method, field) = match proto {
        Proto::Host => ("wait", "timeoutMs"),
        Proto::Serve => ("pty/wait", "timeout"),
        Proto::Mcp => return false,
    };
    if req.get("method").and_then(Value::as_str) != Some(method) {
        return false;
    }
    match req.get("params") {
        None => true,
        Some(Value::Object(p)) => match p.get(field) {
            None | Some(Value::Null) => true,
            Some(t) => t.as_u64().is_some_and(|t| t > SHORT_WAIT_MS),
        },
        Some(_) => false,
    }
}

// ----- cases --------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Send, read every reply, keep the connection.
    Normal,
    /// Send (the last line perhaps without its newline), shut down the sending side, read
    /// the replies and then the end of the connection.
    HalfClose,
    /// Send on a connection of its own and hang up without reading.
    Vanish,
}

struct Case {
    bytes: Vec<u8>,
    mode: Mode,
}

/// The next case: one request or several, mangled in one of many ways.
fn case(proto: Proto, rng: &mut Rng, world: &World, n: &mut u64) -> Case {
    let mut one = |rng: &mut Rng| -> Vec<u8> {
        loop {
            *n += 1;
            let text = serde_json::to_string(&request(proto, rng, world, *n)).unwrap();
            let line = finish(text);
            if allowed(proto, &line, world) {
                return line;
            }
        }
    };
    let mut mode = Mode::Normal;
    let mut bytes = match rng.below(100) {
        0..=67 => one(rng),
        68..=72 => {
            // Several requests in one write, one per line.
            let mut b = Vec::new();
            for _ in 0..2 + rng.below(4) {
                b.extend(one(rng));
                b.push(b'\n');
            }
            b.pop();
            b
        }
        73..=75 => {
            // Several on one line.
            let mut b = one(rng);
            for _ in 0..1 + rng.below(2) {
                if rng.chance(50) {
                    b.push(b' ');
                }
                b.extend(one(rng));
            }
            b
        }
        76..=79 => {
            let mut b = one(rng);
            b.truncate(rng.below(b.len().max(1)));
            b
        }
        80..=82 => {
            // Invalid UTF-8, inside a string or anywhere.
            let mut b = one(rng);
            let bad: &[u8] = rng.pick::<&[u8]>(&[
                &b"\xff"[..],
                b"\xc0\x80",
                b"\xed\xa0\x80",
                b"\xf4\x90\x80\x80",
                b"\xe2\x82",
                b"\x80",
            ]);
            let at = match b.iter().position(|&c| c == b'"') {
                Some(q) if rng.chance(60) => q + 1,
                _ => rng.below(b.len() + 1),
            };
            b.splice(at..at, bad.iter().copied());
            b
        }
        83..=85 => {
            // Raw control characters where JSON wants escapes.
            let mut b = one(rng);
            let c = *rng.pick(&[0u8, 0x1b, 0x07, b'\r', 0x7f, 0x0b]);
            let at = match b.iter().rposition(|&c| c == b'"') {
                Some(q) if rng.chance(70) => q,
                _ => rng.below(b.len() + 1),
            };
            b.insert(at, c);
            b
        }
        86..=87 => {
            let mut b = rng
                .pick(&[&b""[..], b"   ", b"\t", b"\r", b"\xef\xbb\xbf", b"\x00"])
                .to_vec();
            if rng.chance(60) {
                b.extend(one(rng));
                if rng.chance(50) {
                    b.push(b'\r');
                }
            }
            b
        }
        88 => {
            // Deep nesting, as the whole line or as params.
            *n += 1;
            let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
            if rng.chance(50) {
                deep.into_bytes()
            } else {
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{n},\"method\":\"x\",\"params\":{{\"a\":{deep}}}}}")
                    .into_bytes()
            }
        }
        89 => {
            // A 1 MB string: just under the limit, or over it.
            *n += 1;
            let size = if rng.chance(50) {
                MAX_LINE - 200
            } else {
                MAX_LINE + 10
            };
            let big = "é".repeat(size / 2);
            let method = match proto {
                Proto::Host => "read",
                Proto::Serve => "pty/read",
                Proto::Mcp => "tools/call",
            };
            let params = match (proto, rng.below(3)) {
                (Proto::Mcp, _) => json!({"name": "read", "arguments": {"sessionId": big}}),
                (_, 0) => json!({ "sessionId": big }),
                (_, 1) => json!({ big.clone(): 1 }),
                _ => json!({ "top": big }),
            };
            let req = json!({"jsonrpc": "2.0", "id": *n, "method": method, "params": params});
            let mut b = serde_json::to_vec(&req).unwrap();
            b.truncate(size);
            if rng.chance(30) {
                b = serde_json::to_vec(&req).unwrap();
            }
            b
        }
        90..=94 if proto != Proto::Mcp => {
            // A client that shut down its sending side still reads its replies, so a long
            // wait from it is sent by a vanishing client instead.
            let mut b = one(rng);
            mode = if long_wait(proto, &b) {
                Mode::Vanish
            } else {
                Mode::HalfClose
            };
            if rng.chance(30) {
                b.truncate(rng.below(b.len().max(1)));
            }
            return Case { bytes: b, mode };
        }
        95..=99 if proto != Proto::Mcp => {
            mode = Mode::Vanish;
            let mut b = one(rng);
            match rng.below(3) {
                0 => b.truncate(rng.below(b.len().max(1))),
                1 => b.push(b'\n'),
                _ => b.clear(),
            }
            return Case { bytes: b, mode };
        }
        _ => one(rng),
    };
    // A long wait is only sent by a client that hangs up after it.
    if bytes.split(|&b| b == b'\n').any(|l| long_wait(proto, l)) {
        mode = Mode::Vanish;
    }
    bytes.push(b'\n');
    Case { bytes, mode }
}

// ----- checking replies -----------------------------------------------------------------------

/// What a line must be answered with.
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    /// Nothing (a blank line, an MCP notification).
    Nothing,
    /// An error with this code and id.
    Error(Value, i64),
    /// A result or a method's error, for this id.
    Reply(Value),
}

/// The reply a line calls for, and whether the connection ends after it (the host's `wait`).
fn expect(proto: Proto, line: &[u8]) -> (Expect, bool) {
    if line.len() > MAX_LINE {
        // Answered with the id the line's head names (its rule, and its own tests, are
        // `rpc::id_in_head`'s), the same in every endpoint.
        let head = &line[..shotty::lines::KEPT_OF_LONG_LINE];
        return (Expect::Error(shotty::rpc::id_in_head(head), -32600), false);
    }
    // RFC 8259 lets a parser skip a byte order mark; the MCP server does.
    let line = match proto {
        Proto::Mcp => line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line),
        _ => line,
    };
    if line.trim_ascii().is_empty() {
        return (Expect::Nothing, false);
    }
    let obj = match serde_json::from_slice::<Value>(line) {
        Err(_) => return (Expect::Error(Value::Null, -32700), false),
        Ok(Value::Object(obj)) => obj,
        Ok(_) => return (Expect::Error(Value::Null, -32600), false),
    };
    let method = obj.get("method").and_then(Value::as_str);
    let envelope = obj.get("jsonrpc") == Some(&json!("2.0"))
        && method.is_some()
        && obj.get("params").is_none_or(Value::is_object);
    let id = match obj.get("id") {
        Some(id) if id.is_string() || id.is_number() => id.clone(),
        // An MCP notification gets no reply, unless it is not a valid one.
        None if proto == Proto::Mcp && envelope => return (Expect::Nothing, false),
        _ => return (Expect::Error(Value::Null, -32600), false),
    };
    // MCP ids are strings or (64-bit signed) integers.
    if !envelope || (proto == Proto::Mcp && id.is_number() && !id.is_i64()) {
        return (Expect::Error(id, -32600), false);
    }
    let method = method.unwrap_or_default();
    let known = match proto {
        Proto::Host => HOST_METHODS.iter().any(|(m, _)| *m == method),
        Proto::Serve => SERVE_METHODS.iter().any(|(m, _)| *m == method),
        Proto::Mcp => true,
    };
    if !known {
        return (Expect::Error(id, -32601), false);
    }
    (Expect::Reply(id), proto == Proto::Host && method == "wait")
}

/// Checks one reply line and returns it parsed; `what` names the endpoint in messages.
fn check_reply(proto: Proto, what: &str, line: &[u8], request: &[u8], expect: &Expect) -> Value {
    let ctx = || format!("{what}: request {}\nreply {}", show(request), show(line));
    assert!(line.ends_with(b"\n"), "reply without a newline: {}", ctx());
    let reply: Value = serde_json::from_slice(line)
        .unwrap_or_else(|e| panic!("reply is not JSON ({e}): {}", ctx()));
    let obj = reply
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {}", ctx()));
    assert_eq!(obj.get("jsonrpc"), Some(&json!("2.0")), "{}", ctx());
    assert!(
        obj.keys()
            .all(|k| ["jsonrpc", "id", "result", "error"].contains(&k.as_str())),
        "stray members: {}",
        ctx()
    );
    assert!(
        obj.contains_key("result") != obj.contains_key("error"),
        "not exactly one of result and error: {}",
        ctx()
    );
    let id = obj.get("id").unwrap_or_else(|| panic!("no id: {}", ctx()));
    if let Some(e) = obj.get("error") {
        assert!(e["code"].is_i64(), "error.code not an integer: {}", ctx());
        assert!(e["message"].is_string(), "error.message: {}", ctx());
        if let Some(data) = e.get("data") {
            assert!(
                data.get("code").is_none_or(Value::is_string),
                "data.code: {}",
                ctx()
            );
        }
    }
    let code = obj.get("error").and_then(|e| e["code"].as_i64());
    match expect {
        Expect::Nothing => panic!("a reply to a line that needs none: {}", ctx()),
        Expect::Error(want_id, want_code) => {
            assert_eq!(id, want_id, "id: {}", ctx());
            assert_eq!(code, Some(*want_code), "code: {}", ctx());
        }
        Expect::Reply(want_id) => {
            assert_eq!(id, want_id, "id: {}", ctx());
            if let Some(code) = code {
                // The envelope was fine and the method known: only the method's own errors.
                let allowed: &[i64] = match proto {
                    Proto::Mcp => &[-32602, -32601, -32603, -32000, -32002],
                    _ => &[-32602, -32603, -32000],
                };
                assert!(allowed.contains(&code), "error code {code}: {}", ctx());
                if code == -32603 {
                    let message = obj["error"]["message"].as_str().unwrap_or("");
                    let short: String = message.chars().take(70).collect();
                    finding(format!("{what}: {code} {short}"), request);
                }
            }
        }
    }
    reply
}

// ----- the line endpoints (host, serve) -------------------------------------------------------

#[derive(Clone)]
enum Addr {
    Unix(PathBuf),
    Tcp(u16),
}

enum Conn {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Conn {
    fn open(addr: &Addr) -> Conn {
        let conn = match addr {
            Addr::Unix(p) => Conn::Unix(UnixStream::connect(p).expect("connect")),
            Addr::Tcp(port) => {
                let s = TcpStream::connect(("127.0.0.1", *port)).expect("connect");
                s.set_nodelay(true).unwrap();
                Conn::Tcp(s)
            }
        };
        match &conn {
            Conn::Unix(s) => {
                s.set_read_timeout(Some(PATIENCE)).unwrap();
                s.set_write_timeout(Some(PATIENCE)).unwrap();
            }
            Conn::Tcp(s) => {
                s.set_read_timeout(Some(PATIENCE)).unwrap();
                s.set_write_timeout(Some(PATIENCE)).unwrap();
            }
        }
        conn
    }

    fn try_clone(&self) -> Conn {
        match self {
            Conn::Unix(s) => Conn::Unix(s.try_clone().unwrap()),
            Conn::Tcp(s) => Conn::Tcp(s.try_clone().unwrap()),
        }
    }

    fn shutdown_write(&self) {
        let _ = match self {
            Conn::Unix(s) => s.shutdown(Shutdown::Write),
            Conn::Tcp(s) => s.shutdown(Shutdown::Write),
        };
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Conn::Unix(s) => s.read(buf),
            Conn::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Conn::Unix(s) => s.write(buf),
            Conn::Tcp(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct LineClient {
    what: &'static str,
    proto: Proto,
    addr: Addr,
    conn: Option<(Conn, BufReader<Conn>)>,
    next_id: u64,
}

impl LineClient {
    fn new(what: &'static str, proto: Proto, addr: Addr) -> LineClient {
        LineClient {
            what,
            proto,
            addr,
            conn: None,
            next_id: 1 << 40,
        }
    }

    fn conn(&mut self) -> &mut (Conn, BufReader<Conn>) {
        if self.conn.is_none() {
            let c = Conn::open(&self.addr);
            let r = BufReader::new(c.try_clone());
            self.conn = Some((c, r));
        }
        self.conn.as_mut().unwrap()
    }

    /// A plain request; returns its reply after checking it.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
                .to_string();
        let case = Case {
            bytes: format!("{line}\n").into_bytes(),
            mode: Mode::Normal,
        };
        self.run(&case).pop().expect("a reply")
    }

    /// Runs one case; returns the replies read.
    fn run(&mut self, case: &Case) -> Vec<Value> {
        let (what, proto) = (self.what, self.proto);
        if case.mode == Mode::Vanish {
            let mut c = Conn::open(&self.addr);
            let _ = c.write_all(&case.bytes);
            return Vec::new();
        }
        let mut lines: Vec<&[u8]> = case.bytes.split(|&b| b == b'\n').collect();
        // The part after the last newline is only a line once the sending side is shut.
        let tail = lines.pop().unwrap_or_default();
        if case.mode == Mode::HalfClose && !tail.is_empty() {
            lines.push(tail);
        }
        let (conn, reader) = self.conn();
        conn.write_all(&case.bytes)
            .unwrap_or_else(|e| panic!("{what}: cannot send {}: {e}", show(&case.bytes)));
        if case.mode == Mode::HalfClose {
            conn.shutdown_write();
        }
        let mut replies = Vec::new();
        let mut closed = case.mode == Mode::HalfClose;
        for line in lines {
            let (expect, closes) = expect(proto, line);
            if expect == Expect::Nothing {
                continue;
            }
            let mut reply = Vec::new();
            reader
                .read_until(b'\n', &mut reply)
                .unwrap_or_else(|e| panic!("{what}: no reply in time ({e}) to {}", show(line)));
            assert!(
                !reply.is_empty(),
                "{what}: connection closed instead of replying to {}",
                show(line)
            );
            replies.push(check_reply(proto, what, &reply, line, &expect));
            if closes {
                closed = true;
                break;
            }
        }
        if closed {
            let mut rest = Vec::new();
            match reader.read_to_end(&mut rest) {
                Ok(_) => assert!(
                    rest.is_empty(),
                    "{what}: stray output {} after {}",
                    show(&rest),
                    show(&case.bytes)
                ),
                Err(e) => assert!(
                    e.kind() == std::io::ErrorKind::ConnectionReset,
                    "{what}: the connection did not end after {}: {e}",
                    show(&case.bytes)
                ),
            }
            self.conn = None;
        }
        replies
    }
}

/// Sends `count` lines to a line endpoint; returns how many it sent.
fn storm_lines(client: &mut LineClient, count: usize, seed: u64, world: &World) -> usize {
    let _fail_fast = FailFast;
    let mut rng = Rng(seed);
    let mut n = 0;
    let mut sent = 0;
    let begun = Instant::now();
    let _report = Report(client.what, begun);
    while sent < count {
        assert!(
            !FAILED.load(Ordering::SeqCst),
            "another storm thread failed"
        );
        let case = case(client.proto, &mut rng, world, &mut n);
        sent += case
            .bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.trim_ascii().is_empty())
            .count()
            .max(1);
        let replies = client.run(&case);
        for reply in replies {
            if let Some(id) = reply["result"]["sessionId"].as_str()
                && reply["result"]["processId"].is_number()
                && !world.protected.iter().any(|p| p == id)
            {
                let mut started = world.started.lock().unwrap();
                if !started.iter().any(|s| s == id) {
                    started.push(id.to_owned());
                }
            }
        }
    }
    sent
}

// ----- MCP ----------------------------------------------------------------------------------

struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Vec<u8>>,
    /// Replies owed, by id: the requests that asked (ids are not always unique).
    owed: HashMap<String, Vec<Vec<u8>>>,
    /// Replies owed with id null (to lines whose id cannot be read), and those received.
    owed_null: usize,
    got_null: usize,
    next: u64,
    /// Whether `session_error` results count as findings (not where a test causes them).
    record: bool,
}

impl Mcp {
    fn start(env: &[(&str, &Path)], cwd: &Path, stderr: &Path, extra: &[(&str, &str)]) -> Mcp {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_shotty"));
        cmd.arg("mcp")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(stderr).unwrap());
        for (k, v) in env {
            cmd.env(k, v);
        }
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.env("SHOTTY_HOST_IDLE_MS", "1500");
        let mut child = cmd.spawn().expect("shotty mcp runs");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines: rx,
            owed: HashMap::new(),
            owed_null: 0,
            got_null: 0,
            next: 0,
            record: false,
        };
        let init = mcp.call(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "request-fuzz", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "shotty", "{init}");
        mcp.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        mcp
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("mcp stdin");
        stdin.flush().unwrap();
    }

    /// Sends a case and notes the replies it is owed.
    fn send_case(&mut self, bytes: &[u8]) {
        for line in bytes.split(|&b| b == b'\n') {
            match expect(Proto::Mcp, line).0 {
                Expect::Nothing => {}
                Expect::Error(Value::Null, _) => self.owed_null += 1,
                Expect::Error(id, _) | Expect::Reply(id) => {
                    self.owed
                        .entry(id.to_string())
                        .or_default()
                        .push(line.to_vec());
                }
            }
        }
        self.send(bytes);
    }

    /// Checks one reply line against what is owed.
    fn check(&mut self, line: &[u8]) -> Value {
        let reply: Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("mcp: reply is not JSON ({e}): {}", show(line)));
        let reply = match reply.get("id") {
            Some(id) if !id.is_null() => {
                let key = id.to_string();
                let owed = self
                    .owed
                    .get_mut(&key)
                    .unwrap_or_else(|| panic!("mcp: a reply nobody asked for: {}", show(line)));
                // Of several requests with this id, the one this reply fits.
                let code = reply["error"]["code"].as_i64();
                let fits = |req: &Vec<u8>| match expect(Proto::Mcp, req).0 {
                    Expect::Error(_, c) => Some(c) == code,
                    _ => true,
                };
                let at = owed.iter().position(fits).unwrap_or(0);
                let request = owed.remove(at);
                if owed.is_empty() {
                    self.owed.remove(&key);
                }
                let expect = match expect(Proto::Mcp, &request).0 {
                    e @ Expect::Error(..) => e,
                    _ => Expect::Reply(id.clone()),
                };
                check_reply(Proto::Mcp, "mcp", line, &request, &expect)
            }
            _ => {
                // Which unreadable line an id-less error answers cannot be told, so only its
                // shape and code are checked.
                self.got_null += 1;
                assert!(
                    self.got_null <= self.owed_null,
                    "mcp: an id-less reply nobody asked for: {}",
                    show(line)
                );
                let code = reply["error"]["code"].as_i64().unwrap_or(0);
                let code = if code == -32700 { -32700 } else { -32600 };
                check_reply(
                    Proto::Mcp,
                    "mcp",
                    line,
                    b"(an unreadable line)",
                    &Expect::Error(Value::Null, code),
                )
            }
        };
        if let Some(result) = reply.get("result")
            && result.get("content").is_some()
        {
            assert!(result["content"].is_array(), "mcp: {reply}");
            assert!(
                result.get("isError").is_none_or(Value::is_boolean),
                "mcp: {reply}"
            );
            if result["isError"] == true
                && let Some(s) = result.get("structuredContent")
            {
                assert!(s["error"]["code"].is_string(), "mcp: {reply}");
                if self.record && s["error"]["code"] == "session_error" {
                    let message = s["error"]["message"].as_str().unwrap_or("");
                    let short: String = message.chars().take(70).collect();
                    finding(format!("mcp: session_error {short}"), line);
                }
            }
        }
        reply
    }

    /// Takes and checks the next reply; `None` after `PATIENCE` without one.
    fn take(&mut self) -> Option<Value> {
        let line = self.lines.recv_timeout(PATIENCE).ok()?;
        Some(self.check(&line))
    }

    /// Checks the replies that have already come.
    fn drain(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            self.check(&line);
        }
    }

    /// A plain request; waits for its reply (checking any others that come first).
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = format!("plain-{}", self.next);
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_case(format!("{line}\n").as_bytes());
        loop {
            let reply = self
                .take()
                .unwrap_or_else(|| panic!("mcp: no reply to {line}"));
            if reply["id"] == id.as_str() {
                return reply;
            }
        }
    }

    fn tool(&mut self, name: &str, arguments: Value) -> Value {
        let reply = self.call("tools/call", json!({"name": name, "arguments": arguments}));
        reply["result"].clone()
    }

    /// Reads until every owed reply has come.
    fn settle(&mut self) {
        while !self.owed.is_empty() || self.got_null < self.owed_null {
            if self.take().is_none() {
                let owed: Vec<String> = self
                    .owed
                    .values()
                    .map(|reqs| show(&reqs[0]))
                    .take(5)
                    .collect();
                panic!(
                    "mcp: replies never came: {} with ids ({owed:?}), {} without",
                    self.owed.len(),
                    self.owed_null - self.got_null
                );
            }
        }
    }

    /// Closes stdin; returns how long the server took to exit.
    fn close(&mut self) -> Duration {
        let started = Instant::now();
        drop(self.stdin.take());
        let deadline = started + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "shotty mcp: {status}");
                return started.elapsed();
            }
            assert!(
                Instant::now() < deadline,
                "shotty mcp did not exit after its stdin closed"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn storm_mcp(mcp: &mut Mcp, count: usize, seed: u64, world: &World) -> usize {
    let _fail_fast = FailFast;
    let mut rng = Rng(seed);
    let mut n = 0;
    let mut sent = 0;
    let mut cases = 0;
    while sent < count {
        assert!(
            !FAILED.load(Ordering::SeqCst),
            "another storm thread failed"
        );
        let case = case(Proto::Mcp, &mut rng, world, &mut n);
        sent += case
            .bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.trim_ascii().is_empty())
            .count()
            .max(1);
        mcp.send_case(&case.bytes);
        mcp.drain();
        cases += 1;
        // Now and then everything owed must have come, so a lost reply shows up near its
        // request (tool calls run concurrently, their replies in any order).
        if cases % 32 == 0 {
            mcp.settle();
        }
    }
    mcp.settle();
    sent
}

// ----- the processes ------------------------------------------------------------------------

/// Kills what the test started if it fails half way.
struct Reaper(Vec<Child>);

impl Drop for Reaper {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn descendants(root: u32) -> Vec<procs::Proc> {
    let all = procs::all();
    let mut found: Vec<procs::Proc> = Vec::new();
    let mut frontier = vec![root];
    while let Some(pid) = frontier.pop() {
        for p in all.iter().filter(|p| p.ppid == pid && p.is_live()) {
            frontier.push(p.pid);
            found.push(p.clone());
        }
    }
    found
}

fn serve(dir: &Path, addr: &Addr, stderr: &Path) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shotty"));
    cmd.arg("serve")
        .arg("--cmd")
        .arg(format!("sh -c '{CAT}'"))
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(stderr).unwrap());
    match addr {
        Addr::Unix(p) => cmd.arg("--socket").arg(p),
        Addr::Tcp(port) => cmd.arg("--port").arg(port.to_string()),
    };
    let mut child = cmd.spawn().expect("shotty serve runs");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..2 {
        let mut line = String::new();
        out.read_line(&mut line).expect("serve banner");
        assert!(line.starts_with("[shotty]"), "{line:?}");
    }
    // Kept open (and drained) so that serve never writes into a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    child
}

fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| d.count())
        .unwrap_or(0)
}

fn fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Drives a session end to end through a line endpoint: reset, type, wait, read.
fn serve_end_to_end(c: &mut LineClient) {
    let r = c.call("pty/resize", json!({"cols": 100, "rows": 30}));
    assert_eq!(r["result"], json!({}), "{r}");
    let r = c.call(
        "pty/write",
        json!({"action": [{"text": "\u{18}\u{1b}c"}, {"text": "after the storm 42"}]}),
    );
    assert!(r["result"]["written"].as_u64().unwrap() > 0, "{r}");
    let r = c.call(
        "pty/wait",
        json!({"match": "after the storm 42", "timeout": 10_000}),
    );
    assert_eq!(r["result"]["matched"], true, "{r}");
    let r = c.call("pty/read", json!({}));
    assert!(
        r["result"]["screen"]
            .as_str()
            .unwrap()
            .contains("after the storm 42"),
        "{r}"
    );
    let r = c.call("pty/status", json!({}));
    assert_eq!(r["result"]["running"], true, "{r}");
}

#[test]
fn every_endpoint_survives_a_storm_of_bad_requests() {
    let started_at = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let runtime = dir.join("run");
    let state = dir.join("state");
    let home = dir.join("home");
    let work = dir.join("work");
    for d in [&home, &work] {
        std::fs::create_dir_all(d).unwrap();
    }
    let env: Vec<(&str, &Path)> = vec![
        ("SHOTTY_RUNTIME_DIR", &runtime),
        ("SHOTTY_STATE_DIR", &state),
        ("HOME", &home),
        ("TMPDIR", &work),
    ];

    // The host, as our own child so that its output and its end can be watched.
    let mut reaper = Reaper(vec![start_host(&env, &dir.join("host.err"))]);
    let host_pid = reaper.0[0].id();
    let socket = runtime.join("host.sock");
    wait_for_socket(&socket);
    let unix_socket = dir.join("serve.sock");
    let port = free_port();
    let serve_unix = Addr::Unix(unix_socket.clone());
    let serve_tcp = Addr::Tcp(port);
    reaper
        .0
        .push(serve(&work, &serve_unix, &dir.join("serve-unix.err")));
    reaper
        .0
        .push(serve(&work, &serve_tcp, &dir.join("serve-tcp.err")));
    let serve_pids = [reaper.0[1].id(), reaper.0[2].id()];

    // The sessions the storm must not end.
    let mut world = World {
        dir: dir.clone(),
        protected: Vec::new(),
        started: Mutex::new(Vec::new()),
        starts: AtomicUsize::new(0),
    };
    let mut host_client = LineClient::new("host", Proto::Host, Addr::Unix(socket.clone()));
    for _ in 0..2 {
        let r = host_client.call(
            "start",
            // The least scrollback keeps snapshots (and so the storm) quick.
            json!({"command": ["sh", "-c", CAT], "cwd": work.to_str().unwrap(), "scrollback": 100}),
        );
        world
            .protected
            .push(r["result"]["sessionId"].as_str().unwrap().to_owned());
    }
    for id in world.protected.clone() {
        let mut c = LineClient::new("host", Proto::Host, Addr::Unix(socket.clone()));
        let r = c.call(
            "wait",
            json!({"sessionId": id, "text": "ready", "timeoutMs": 10_000}),
        );
        assert_eq!(r["result"]["matched"], true, "{r}");
    }
    for addr in [&serve_unix, &serve_tcp] {
        let mut c = LineClient::new("serve", Proto::Serve, addr.clone());
        let r = c.call("pty/wait", json!({"match": "ready", "timeout": 10_000}));
        assert_eq!(r["result"]["matched"], true, "{r}");
    }
    let serve_threads: Vec<usize> = serve_pids.iter().map(|&p| threads(p)).collect();
    let serve_fds: Vec<usize> = serve_pids.iter().map(|&p| fds(p)).collect();
    let mut mcp = Mcp::start(&env, &work, &dir.join("mcp.err"), &[]);
    mcp.record = true;

    // The storm, on every endpoint at once.
    let storm_started = Instant::now();
    let world = world;
    let (host_sent, unix_sent, tcp_sent, mcp_sent) = std::thread::scope(|s| {
        let w = &world;
        let sock = socket.clone();
        let h = s.spawn(move || {
            let mut c = LineClient::new("host", Proto::Host, Addr::Unix(sock));
            storm_lines(&mut c, HOST_REQUESTS, SEED, w)
        });
        let a = serve_unix.clone();
        let u = s.spawn(move || {
            let mut c = LineClient::new("serve-unix", Proto::Serve, a);
            storm_lines(&mut c, SERVE_UNIX_REQUESTS, SEED ^ 1, w)
        });
        let a = serve_tcp.clone();
        let t = s.spawn(move || {
            OVER_TCP.set(true);
            let mut c = LineClient::new("serve-tcp", Proto::Serve, a);
            storm_lines(&mut c, SERVE_TCP_REQUESTS, SEED ^ 2, w)
        });
        let m = storm_mcp(&mut mcp, MCP_REQUESTS, SEED ^ 3, w);
        (h.join().unwrap(), u.join().unwrap(), t.join().unwrap(), m)
    });
    let storm_time = storm_started.elapsed();
    let total = host_sent + unix_sent + tcp_sent + mcp_sent;
    eprintln!(
        "requests: host {host_sent}, serve unix {unix_sent}, serve tcp {tcp_sent}, mcp {mcp_sent}; \
         total {total} in {storm_time:?}"
    );
    assert!(total >= 10_000, "{total}");

    // Every endpoint still answers, and the sessions still work end to end.
    let r = host_client.call("ping", json!({}));
    assert_eq!(r["result"]["pid"], host_pid, "the host was replaced: {r}");
    for id in &world.protected {
        let r = host_client.call(
            "resize",
            json!({"sessionId": id, "width": 80, "height": 24}),
        );
        assert!(r.get("result").is_some(), "{r}");
        let r = host_client.call(
            "send",
            json!({"sessionId": id, "steps": [{"rawHex": "181b63"}, {"text": "host still types"}]}),
        );
        assert!(r.get("result").is_some(), "{r}");
        let mut c = LineClient::new("host", Proto::Host, Addr::Unix(socket.clone()));
        let r = c.call(
            "wait",
            json!({"sessionId": id, "text": "host still types", "timeoutMs": 10_000}),
        );
        assert_eq!(r["result"]["matched"], true, "{r}");
        let r = host_client.call("read", json!({"sessionId": id}));
        assert!(
            r["result"]["screen"]["text"]
                .as_str()
                .unwrap()
                .contains("host still types"),
            "{r}"
        );
    }
    for addr in [&serve_unix, &serve_tcp] {
        let mut c = LineClient::new("serve", Proto::Serve, addr.clone());
        serve_end_to_end(&mut c);
    }
    let id = world.protected[0].clone();
    let r = mcp.tool(
        "write",
        json!({"sessionId": id, "action": [{"rawHex": "181b63"}, {"text": "mcp still types"}]}),
    );
    assert_ne!(r["isError"], true, "{r}");
    let r = mcp.tool(
        "wait",
        json!({"sessionId": id, "match": "mcp still types", "timeout": 10_000}),
    );
    assert_ne!(r["isError"], true, "{r}");
    let r = mcp.tool("read", json!({"sessionId": id}));
    assert!(
        r["structuredContent"]["screen"]["text"]
            .as_str()
            .unwrap()
            .contains("mcp still types"),
        "{r}"
    );
    let capture = work.join("after.txt");
    let r = mcp.tool(
        "capture",
        json!({"sessionId": id, "path": capture.to_str().unwrap()}),
    );
    assert_ne!(r["isError"], true, "{r}");
    assert!(
        std::fs::read_to_string(&capture)
            .unwrap()
            .contains("mcp still types")
    );

    // Connections the storm abandoned are gone (their threads and descriptors with them).
    for (i, &pid) in serve_pids.iter().enumerate() {
        let deadline = Instant::now() + Duration::from_secs(5);
        while (threads(pid) > serve_threads[i] || fds(pid) > serve_fds[i])
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            threads(pid) <= serve_threads[i] && fds(pid) <= serve_fds[i],
            "serve {i} (pid {pid}): {} threads and {} fds, {} and {} before the storm",
            threads(pid),
            fds(pid),
            serve_threads[i],
            serve_fds[i]
        );
    }

    // Everything the test started ends, and nothing of it survives.
    let seen: Vec<procs::Seen> = descendants(std::process::id())
        .into_iter()
        .filter_map(|p| {
            procs::proc(p.pid).map(|q| procs::Seen {
                pid: p.pid,
                start_time: q.start_time,
            })
        })
        .collect();
    assert!(seen.len() >= 6, "{seen:?}");
    // A wait left pending when stdin closes must not keep the server.
    let _ = mcp.call(
        "tools/call",
        json!({"name": "ping-not-a-tool", "arguments": {}}),
    );
    mcp.send(
        format!(
            "{}\n{{\"jsonrpc\":\"2.0\",\"id\":\"half",
            json!({"jsonrpc": "2.0", "id": "pending", "method": "tools/call",
                   "params": {"name": "wait", "arguments": {"sessionId": id, "match": "never shown", "timeout": 60_000}}})
        )
        .as_bytes(),
    );
    std::thread::sleep(Duration::from_millis(200));
    let took = mcp.close();
    // rmcp gives tool calls in flight 5 s to deliver their replies after stdin closes.
    assert!(
        took < Duration::from_secs(7),
        "shotty mcp took {took:?} to exit"
    );
    for addr in [&serve_unix, &serve_tcp] {
        let mut c = LineClient::new("serve", Proto::Serve, addr.clone());
        let r = c.call("pty/kill", json!({}));
        assert_eq!(r["result"], json!({}), "{r}");
    }
    let r = host_client.call("stop", json!({"all": true}));
    assert_eq!(r["result"]["failed"], json!([]), "{r}");
    for child in &mut reaper.0 {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(status.success(), "pid {}: {status}", child.id());
                break;
            }
            assert!(Instant::now() < deadline, "pid {} did not exit", child.id());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    procs::assert_all_gone(&seen);
    assert_eq!(descendants(std::process::id()), Vec::new());
    assert!(!socket.exists() && !unix_socket.exists());

    // No process panicked, and no reply was an internal error.
    for name in ["host.err", "serve-unix.err", "serve-tcp.err", "mcp.err"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        if text.contains("panicked") {
            finding(
                format!(
                    "{name}: {}",
                    text.lines().find(|l| l.contains("panicked")).unwrap()
                ),
                b"",
            );
        }
    }
    let findings = FINDINGS.lock().unwrap().clone();
    for (what, request) in &findings {
        eprintln!("FINDING {what}\n    {request}");
    }
    eprintln!("run time {:?}", started_at.elapsed());
    assert!(findings.is_empty(), "{} findings", findings.len());
}

/// The session host, as the test's own child.
fn start_host(env: &[(&str, &Path)], stderr: &Path) -> Child {
    let mut host = Command::new(env!("CARGO_BIN_EXE_shotty"));
    host.args(["session", "host"])
        .env("SHOTTY_HOST_IDLE_MS", "1500")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(stderr).unwrap());
    for (k, v) in env {
        host.env(k, v);
    }
    host.spawn().expect("shotty session host runs")
}

fn wait_for_socket(socket: &Path) {
    let deadline = Instant::now() + PATIENCE;
    while UnixStream::connect(socket).is_err() {
        assert!(Instant::now() < deadline, "the host did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_panic_inside_one_mcp_tool_call_costs_nobody_anything() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let (runtime, state, work) = (dir.join("run"), dir.join("state"), dir.join("work"));
    std::fs::create_dir_all(&work).unwrap();
    let env: Vec<(&str, &Path)> = vec![
        ("SHOTTY_RUNTIME_DIR", &runtime),
        ("SHOTTY_STATE_DIR", &state),
        ("HOME", &dir),
        ("TMPDIR", &work),
    ];
    // The host without the hook: the panic is to happen in the MCP server's own code.
    let mut reaper = Reaper(vec![start_host(&env, &dir.join("host.err"))]);
    wait_for_socket(&runtime.join("host.sock"));
    let mut mcp = Mcp::start(
        &env,
        &work,
        &dir.join("mcp.err"),
        &[("SHOTTY_TEST_PANIC_METHOD", "status")],
    );
    let started = mcp.tool("spawn", json!({"command": ["sh", "-c", CAT]}));
    let id = started["structuredContent"]["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("{started}"))
        .to_owned();
    let failed = mcp.tool("status", json!({"sessionId": id}));
    assert_eq!(failed["isError"], true, "{failed}");
    let error = &failed["structuredContent"]["error"];
    assert_eq!(error["code"], "session_error", "{failed}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("internal error in status"),
        "{failed}"
    );
    // The same server drives the session end to end, and fails only that tool again.
    let r = mcp.tool(
        "wait",
        json!({"sessionId": id, "match": "ready", "timeout": 10_000}),
    );
    assert_ne!(r["isError"], true, "{r}");
    let r = mcp.tool(
        "write",
        json!({"sessionId": id, "action": {"text": "typed after"}}),
    );
    assert_ne!(r["isError"], true, "{r}");
    let r = mcp.tool(
        "wait",
        json!({"sessionId": id, "match": "typed after", "timeout": 10_000}),
    );
    assert_ne!(r["isError"], true, "{r}");
    let r = mcp.tool("list", json!({}));
    assert_eq!(
        r["structuredContent"]["sessions"][0]["sessionId"],
        id.as_str(),
        "{r}"
    );
    assert_eq!(
        mcp.tool("status", json!({"sessionId": id}))["isError"],
        true
    );
    let r = mcp.tool("kill", json!({"sessionId": id}));
    assert_ne!(r["isError"], true, "{r}");
    mcp.close();
    let host = &mut reaper.0[0];
    let deadline = Instant::now() + PATIENCE;
    while host.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the host did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
    let err = std::fs::read_to_string(dir.join("host.err")).unwrap_or_default();
    assert!(!err.contains("panicked"), "{err}");
}
