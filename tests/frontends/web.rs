//! `shotty web` through the binary: every refusal of its guard, the page's API on a real
//! host, screen changes pushed to a listening page (their latency measured), and `/mcp`
//! driven by the official Python MCP SDK's Streamable HTTP client.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cli_session::Env;
use crate::needs;

/// A running `shotty web` on a free loopback port, ended when dropped.
struct Web {
    child: Child,
    /// `127.0.0.1:PORT`.
    addr: String,
    token: String,
}

impl Web {
    fn start(env: &Env) -> Web {
        let web = Web::run(env.shotty(&["web", "--listen", "127.0.0.1:0"]));
        assert_eq!(web.token.len(), 64, "a fresh token of 32 random bytes");
        web
    }

    /// Runs `command` (a `shotty web`) and reads the URL it prints.
    fn run(mut command: std::process::Command) -> Web {
        // stderr stays the test's: a server that fails says why there.
        let mut child = command
            .stdout(Stdio::piped())
            .spawn()
            .expect("shotty web starts");
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut first)
            .expect("the URL line");
        let rest = first.trim().strip_prefix("http://").expect("a URL");
        let (addr, token) = rest.split_once("/?token=").expect("the token in the URL");
        Web {
            child,
            addr: addr.to_owned(),
            token: token.to_owned(),
        }
    }

    /// One request with `Connection: close`; the status, the headers (lowercase names) and
    /// the body.
    fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        stream.write_all(head.as_bytes()).expect("request head");
        // A server that refuses early may close before a large body is all written.
        let _ = stream.write_all(body);
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        Reply::parse(&raw)
    }

    fn bearer(&self) -> String {
        format!("Bearer {}", self.token)
    }

    fn get(&self, path: &str) -> Reply {
        let auth = self.bearer();
        self.request("GET", path, &[("Authorization", &auth)], b"")
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn parse(raw: &[u8]) -> Reply {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(raw)));
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .expect("a status");
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(": "))
            .map(|(k, v)| (k.to_ascii_lowercase(), v.to_owned()))
            .collect();
        let mut body = raw[split + 4..].to_vec();
        let chunked = Reply::header_in(&headers, "transfer-encoding") == Some("chunked");
        if chunked {
            body = dechunk(&body);
        }
        Reply {
            status,
            headers,
            body,
        }
    }

    fn header_in<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn header(&self, name: &str) -> Option<&str> {
        Reply::header_in(&self.headers, name)
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&self.body)))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = body.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&body[..end]).trim(), 16).unwrap_or(0);
        if size == 0 || body.len() < end + 2 + size {
            return out;
        }
        out.extend_from_slice(&body[end + 2..end + 2 + size]);
        body = &body[(end + 4 + size).min(body.len())..];
    }
}

#[test]
fn every_request_needs_the_token_and_the_servers_own_names() {
    let env = Env::new();
    let web = Web::start(&env);
    let token = web.token.clone();
    // No token, a wrong one, a token that is not a bearer.
    for (path, headers) in [
        ("/", vec![]),
        ("/?token=0123", vec![]),
        ("/api/sessions", vec![("Authorization", token.clone())]),
        (
            "/api/sessions",
            vec![("Cookie", "shotty_web=nope".to_owned())],
        ),
        ("/app.js", vec![]),
    ] {
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let reply = web.request("GET", path, &headers, b"");
        assert_eq!(reply.status, 401, "{path} {headers:?}: {}", reply.text());
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
    }
    // The URL's token becomes a cookie, and the address loses it.
    let signed_in = web.request("GET", &format!("/?token={token}"), &[], b"");
    assert_eq!(signed_in.status, 303);
    assert_eq!(signed_in.header("location"), Some("/"));
    let cookie = signed_in.header("set-cookie").expect("a cookie").to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().expect("name=value");
    let page = web.request("GET", "/", &[("Cookie", pair)], b"");
    assert_eq!(page.status, 200);
    let csp = page.header("content-security-policy").expect("a CSP");
    assert!(
        csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    // Nothing the page loads comes from elsewhere.
    for asset in ["/", "/app.js", "/app.css"] {
        let text = web.request("GET", asset, &[("Cookie", pair)], b"").text();
        assert!(
            !text.contains("http://") && !text.contains("https://"),
            "{asset}"
        );
    }
    // DNS rebinding: the right token, but a name that is not the server's.
    let auth = web.bearer();
    let port = web.addr.rsplit(':').next().expect("port");
    let foreign_host = format!("rebound.example:{port}");
    for headers in [
        vec![("Host", foreign_host.as_str())],
        vec![("Origin", "http://rebound.example")],
        vec![("Origin", "null")],
    ] {
        let mut all = headers.clone();
        all.push(("Authorization", &auth));
        let reply = web.request("GET", "/api/sessions", &all, b"");
        assert_eq!(reply.status, 403, "{headers:?}: {}", reply.text());
    }
    let own_origin = format!("http://localhost:{port}");
    let localhost = format!("localhost:{port}");
    let reply = web.request(
        "GET",
        "/api/sessions",
        &[
            ("Authorization", &auth),
            ("Origin", &own_origin),
            ("Host", &localhost),
        ],
        b"",
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    // No state changes by GET; only JSON; bounded bodies.
    let id = env.start(&["--", "cat"]);
    let send = format!("/api/sessions/{id}/send");
    assert_eq!(web.get(&send).status, 405);
    let form = web.request(
        "POST",
        &send,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        b"steps=x",
    );
    assert_eq!(form.status, 415);
    let huge = format!("{{\"steps\":[{{\"text\":\"{}\"}}]}}", "x".repeat(2 << 20));
    let too_big = web.request(
        "POST",
        &send,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        huge.as_bytes(),
    );
    assert_eq!(too_big.status, 413, "{}", too_big.text());
    let bad = web.request(
        "POST",
        &send,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        b"{\"steps\": 1, \"extra\": true}",
    );
    assert_eq!(bad.status, 400);
    // MCP needs the bearer too.
    let mcp = web.request(
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
    );
    assert_eq!(mcp.status, 401);
    // The host kept serving through all of it.
    env.ok(&["send", &id, "--text", "still here"]);
    env.ok(&["wait", &id, "--text", "still here", "--timeout", "10s"]);
}

/// The MCP transport's sessions are bounded: past the limit an `initialize` is refused with
/// 503 while the sessions open keep working, and ending one makes room; a message longer than
/// the limit is refused as too large (413), not failed as a server error.
#[test]
fn mcp_sessions_and_messages_are_bounded() {
    let env = Env::new();
    let web = Web::start(&env);
    let auth = web.bearer();
    let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                   "clientInfo": {"name": "bounds", "version": "1"}}})
    .to_string();
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let open = || web.request("POST", "/mcp", &headers, initialize.as_bytes());
    let mut first_id = None;
    for n in 0..256 {
        let reply = open();
        assert_eq!(reply.status, 200, "session {n}: {}", reply.text());
        first_id.get_or_insert_with(|| {
            reply
                .header("mcp-session-id")
                .expect("a session id")
                .to_owned()
        });
    }
    let refused = open();
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert!(
        refused.text().contains("MCP sessions are open"),
        "{}",
        refused.text()
    );
    let first_id = first_id.expect("a session");
    let mut with_id = headers.to_vec();
    with_id.push(("Mcp-Session-Id", first_id.as_str()));
    let ended = web.request("DELETE", "/mcp", &with_id, b"");
    assert!(ended.status < 300, "{}: {}", ended.status, ended.text());
    assert_eq!(open().status, 200, "room again after a DELETE");

    let huge = vec![b' '; 2 << 20];
    let too_large = web.request("POST", "/mcp", &headers, &huge);
    assert_eq!(too_large.status, 413, "{}", too_large.text());
}

#[test]
fn a_network_listen_needs_a_private_token_file() {
    let env = Env::new();
    let out = env
        .shotty(&["web", "--listen", "0.0.0.0:0"])
        .output()
        .expect("shotty web runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("needs --token-file"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("token");
    std::fs::write(&file, format!("{}\n", "k".repeat(40))).expect("token written");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("mode");
    let out = env
        .shotty(&["web", "--listen", "127.0.0.1:0", "--token-file"])
        .arg(&file)
        .output()
        .expect("shotty web runs");
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("chmod 600"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("mode");
    let mut command = env.shotty(&["web", "--listen", "127.0.0.1:0", "--token-file"]);
    command.arg(&file);
    assert_eq!(Web::run(command).token, "k".repeat(40));
}

#[test]
fn the_pages_api_lists_draws_types_and_scrubs() {
    let env = Env::new();
    let web = Web::start(&env);
    let id = env.start(&[
        "--width",
        "30",
        "--height",
        "4",
        "--",
        "sh",
        "-c",
        "echo first; exec cat",
    ]);
    env.ok(&["wait", &id, "--text", "first", "--timeout", "10s"]);
    let listed = web.get("/api/sessions").json();
    assert_eq!(listed["sessions"][0]["sessionId"], json!(id), "{listed}");
    let auth = web.bearer();
    let sent = web.request(
        "POST",
        &format!("/api/sessions/{id}/send"),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        br#"{"steps": [{"text": "from the page"}, {"keys": "Enter"}]}"#,
    );
    assert_eq!(sent.status, 200, "{}", sent.text());
    env.ok(&["wait", &id, "--text", "from the page", "--timeout", "10s"]);
    let svg = web.get(&format!("/api/sessions/{id}/screen.svg"));
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    assert!(svg.text().contains("from the page"), "{}", svg.text());
    // The recording: its length, and the screen at its start (before anything was typed).
    let length = web.get(&format!("/api/sessions/{id}/recording")).json();
    assert!(
        length["seconds"].as_f64().expect("seconds") > 0.0,
        "{length}"
    );
    let start = web
        .get(&format!("/api/sessions/{id}/recording.svg?at=0"))
        .text();
    assert!(!start.contains("from the page"), "{start}");
    let end = web
        .get(&format!("/api/sessions/{id}/recording.svg?at=3600"))
        .text();
    assert!(end.contains("from the page"), "{end}");
    let unknown = web.get("/api/sessions/nope/screen.svg");
    assert_eq!(unknown.status, 404, "{}", unknown.text());
}

/// Reads server-sent events from `/api/events` on a thread, each with when it arrived.
fn listen(web: &Web) -> std::sync::mpsc::Receiver<(Instant, Value)> {
    let mut stream = TcpStream::connect(&web.addr).expect("connect");
    let head = format!(
        "GET /api/events HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\r\n",
        web.addr, web.token
    );
    stream.write_all(head.as_bytes()).expect("request");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            // Chunked: the data lines come whole inside chunks.
            if let Some(data) = line.strip_prefix("data: ") {
                let event: Value = serde_json::from_str(data).expect("JSON event");
                if tx.send((Instant::now(), event)).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

#[test]
fn screen_changes_reach_an_open_page_within_100_ms() {
    let env = Env::new();
    let web = Web::start(&env);
    let id = env.start(&["--width", "40", "--height", "5", "--", "cat"]);
    let events = listen(&web);
    let mut connection = env.connection();
    let mut send = |text: String| {
        connection.call(
            "send",
            json!({ "sessionId": id, "steps": [{"text": text}] }),
        );
        Instant::now()
    };
    let screen_event = |event: &Value| event["type"] == "screen" && event["sessionId"] == json!(id);
    // The session's watcher starts with the lister's first round: until then a change
    // reaches no page.
    let deadline = Instant::now() + Duration::from_secs(10);
    'warm: loop {
        assert!(Instant::now() < deadline, "no screen event in 10 s");
        send(".".to_owned());
        while let Ok((_, event)) = events.recv_timeout(Duration::from_millis(300)) {
            if screen_event(&event) {
                break 'warm;
            }
        }
    }
    // Events of the warm-up still on their way are not answers to what follows.
    while events.recv_timeout(Duration::from_millis(200)).is_ok() {}
    let mut latencies = Vec::new();
    for n in 0..50 {
        let sent = send(format!("{n} "));
        loop {
            let (at, event) = events
                .recv_timeout(Duration::from_secs(5))
                .expect("an event");
            if screen_event(&event) {
                latencies.push(at - sent);
                break;
            }
        }
    }
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    eprintln!(
        "screen change → page: median {median:?}, max {:?}",
        latencies.last()
    );
    assert!(median < Duration::from_millis(100), "median {median:?}");
}

#[test]
fn the_official_mcp_sdk_drives_sessions_over_http() {
    let Some(python) = needs::python("mcp.client.streamable_http") else {
        return;
    };
    let env = Env::new();
    let web = Web::start(&env);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_http_client.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(format!("http://{}/mcp", web.addr))
        .arg(&web.token)
        .output()
        .expect("python runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success() && stdout.trim() == "ok",
        "tests/mcp_http_client.py failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    // The session it started was the host's: `session list` saw it come and go.
    let listed = env.ok(&["list", "--all"]);
    assert!(
        listed["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .all(|s| s["name"] != "over-http"),
        "killed over MCP: {listed}"
    );
}

/// Polls `expression` in the page until it is `true`, for up to 10 s.
fn page_until(page: &mut crate::devtools::Page<'_>, expression: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while page.evaluate(expression) != json!(true) {
        assert!(
            Instant::now() < deadline,
            "never true in the page: {expression}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What the page's screen image shows: the SVG it was loaded from, fetched again by the page.
const SHOWN_SVG: &str = "(async () => { const img = document.getElementById('screen-img'); \
     return img.complete && img.naturalWidth > 0 ? (await (await fetch(img.src)).text()) : ''; })()";

#[test]
fn chromium_watches_a_session_types_into_it_and_scrubs_its_recording() {
    let Some(chromium) = needs::program("chromium") else {
        return;
    };
    let env = Env::new();
    let web = Web::start(&env);
    let id = env.start(&[
        "--width",
        "40",
        "--height",
        "5",
        "--",
        "sh",
        "-c",
        "printf 'ready> '; exec cat",
    ]);
    env.ok(&["wait", &id, "--text", "ready>", "--timeout", "10s"]);
    let mut browser = crate::devtools::Browser::launch(&chromium, &[]);
    let url = format!("http://{}/?token={}", web.addr, web.token);
    let mut page = browser.open(&url, 1200, 700);
    // Signed in by the cookie, the token gone from the address.
    assert_eq!(page.evaluate("location.search"), json!(""));
    page_until(
        &mut page,
        "document.querySelectorAll('#sessions tbody tr').length === 1",
    );
    page_until(
        &mut page,
        &format!("{SHOWN_SVG}.then(svg => svg.includes('ready>'))"),
    );
    // A change made elsewhere appears by itself.
    env.ok(&["send", &id, "--text", "sent-by-cli"]);
    page_until(
        &mut page,
        &format!("{SHOWN_SVG}.then(svg => svg.includes('sent-by-cli'))"),
    );
    // Typing into the screen reaches the program.
    page.evaluate("document.getElementById('screen').focus(), true");
    for key in [" ", "t", "y", "p", "e", "d", "Enter"] {
        page.press(key);
    }
    env.ok(&[
        "wait",
        &id,
        "--text",
        "sent-by-cli typed",
        "--timeout",
        "10s",
    ]);
    page_until(
        &mut page,
        &format!("{SHOWN_SVG}.then(svg => svg.includes('sent-by-cli typed'))"),
    );
    // Scrubbing to the start shows the screen before anything was sent.
    page_until(
        &mut page,
        "Number(document.getElementById('scrubber').max) > 0",
    );
    page.evaluate(
        "(() => { const s = document.getElementById('scrubber'); s.value = '0'; \
         s.dispatchEvent(new Event('input')); return true; })()",
    );
    page_until(
        &mut page,
        "document.getElementById('screen-img').src.includes('recording.svg?at=0')",
    );
    page_until(
        &mut page,
        &format!("{SHOWN_SVG}.then(svg => svg.includes('<svg') && !svg.includes('sent-by-cli'))"),
    );
    // And back to live.
    page.evaluate("document.getElementById('live-button').click(), true");
    page_until(
        &mut page,
        &format!("{SHOWN_SVG}.then(svg => svg.includes('sent-by-cli typed'))"),
    );
    // A shell's finished commands: the last one and its exit code in the list, all of them
    // once it is selected.
    let shell = env.start(&[
        "--name",
        "shell",
        "--shell-integration",
        "--wait-ready",
        "10s",
        "--width",
        "60",
        "--height",
        "8",
        "--",
        "bash",
        "--norc",
        "--noprofile",
    ]);
    for command in ["echo from the shell", "false"] {
        env.ok(&["send", &shell, "--text", command, "--keys", "Enter"]);
        env.ok(&["wait", &shell, "--command", "--timeout", "10s"]);
    }
    let last = format!("document.querySelector('[data-last-command=\"{shell}\"]')");
    page_until(&mut page, &format!("{last} !== null"));
    // The page reads commands when the list changes; a new screen of the shell changes it.
    page_until(
        &mut page,
        &format!(
            "(() => {{ const c = {last}; if (!c.textContent) {{ loadLastCommand('{shell}'); }} \
             return c.textContent === 'false → 1' && c.className === 'exit-bad'; }})()"
        ),
    );
    page.evaluate(&format!(
        "document.querySelector('tr[data-id=\"{shell}\"]').click(), true"
    ));
    page_until(
        &mut page,
        "[...document.querySelectorAll('#commands tbody tr')].map(r => r.cells[1].textContent + '=' + r.cells[2].textContent).join(',') === 'echo from the shell=0,false=1'",
    );
    page_until(
        &mut page,
        &format!("{SHOWN_SVG}.then(svg => svg.includes('from the shell'))"),
    );
    // The README's picture of the page (docs/generate-images.sh).
    if let Some(path) = std::env::var_os("SHOTTY_WEB_SCREENSHOT") {
        std::fs::write(path, page.screenshot(1200, 700)).expect("screenshot written");
    }
}

#[test]
fn scenario_failure_reports_are_listed_and_opened_and_nothing_else_of_their_directory() {
    let env = Env::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = dir.path().join("broken.scenario.yaml");
    std::fs::write(
        &scenario,
        "$version: 1\nscenario:\n  launch: {executable: sh, args: [-c, \"echo hi\"]}\n  \
         verify: [{type: assert, args: {text: never shown}}]\n",
    )
    .expect("scenario written");
    let ran = env
        .shotty(&["scenario", "run"])
        .arg(&scenario)
        .current_dir(dir.path())
        .output()
        .expect("shotty scenario runs");
    assert_eq!(ran.status.code(), Some(1));
    let mut command = env.shotty(&["web", "--listen", "127.0.0.1:0"]);
    command.current_dir(dir.path());
    let web = Web::run(command);
    let listed = web.get("/api/reports").json();
    assert_eq!(listed["reports"][0]["name"], "broken", "{listed}");
    assert_eq!(
        listed["reports"][0]["documents"],
        json!(["failure.md", "trace.html"])
    );
    let md = web.get("/reports/broken/failure.md");
    assert_eq!(md.status, 200);
    assert!(md.text().contains("never shown"), "{}", md.text());
    let trace = web.get("/reports/broken/trace.html");
    assert_eq!(
        trace.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let csp = trace.header("content-security-policy").expect("a CSP");
    assert!(
        csp.starts_with("default-src 'none'") && !csp.contains("connect-src"),
        "{csp}"
    );
    for path in [
        "/reports/broken/recording.cast",
        "/reports/../broken.scenario.yaml",
        "/reports/%2e%2e/failure.md",
        "/reports/nope/failure.md",
    ] {
        assert_eq!(web.get(path).status, 404, "{path}");
    }
}
