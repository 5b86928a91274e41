//! `shotty mcp` driven by the official Python MCP SDK (tests/mcp_client.py): tool listing,
//! spawn/write/wait/read/inspect/capture/kill against the session host, and tool errors.
//!
//! Needs the Python MCP SDK (`tests/install-deps` installs it; without, the test is skipped
//! outside CI).

use std::path::Path;
use std::process::Command;

use crate::needs;

/// The official Python client drives every tool (see tests/mcp_client.py). `inspect` is
/// checked for content: the PNG decodes (CRCs, zlib, filters) with a size that follows the
/// session's columns and rows, and the SVG's snapshot and text are that session's screen;
/// with two sessions of different text and size each shows its own. The server runs with
/// this test's own HOME and TMPDIR.
#[test]
fn python_client_drives_the_mcp_server() {
    let Some(python) = needs::python("mcp.client.stdio") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let runtime = dir.path().join("run");
    let state = dir.path().join("state");
    let work = dir.path().join("work");
    let home = dir.path().join("home");
    let tmp = dir.path().join("tmp");
    for d in [&work, &home, &tmp] {
        std::fs::create_dir(d).expect("test dir");
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let bin = env!("CARGO_BIN_EXE_shotty");
    let out = Command::new(python)
        .arg(&script)
        .arg(bin)
        .arg(&work)
        .arg(&home)
        .env("TMPDIR", &tmp)
        .env("XDG_RUNTIME_DIR", &tmp)
        .env("SHOTTY_RUNTIME_DIR", &runtime)
        .env("SHOTTY_STATE_DIR", &state)
        .env("SHOTTY_HOST_IDLE_MS", "3000")
        .output()
        .expect("python3 runs");
    // Whatever happened, stop what the test started.
    let _ = Command::new(bin)
        .args(["session", "stop", "--all", "--yes"])
        .env("SHOTTY_RUNTIME_DIR", &runtime)
        .env("SHOTTY_STATE_DIR", &state)
        .output();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "tests/mcp_client.py failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
}

/// The README names every tool `shotty mcp` lists, and no other: asked over stdio with plain
/// JSON-RPC (initialize, then tools/list), so it holds without the Python SDK too.
#[test]
fn the_readme_lists_every_tool() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;

    let dir = tempfile::tempdir().expect("temp dir");
    let mut server = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .arg("mcp")
        .env("SHOTTY_RUNTIME_DIR", dir.path().join("run"))
        .env("SHOTTY_STATE_DIR", dir.path().join("state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("shotty mcp starts");
    let mut stdin = server.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(server.stdout.take().expect("stdout"));
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"readme-test","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ];
    for request in requests {
        writeln!(stdin, "{request}").expect("request written");
    }
    let mut listed = None;
    for _ in 0..2 {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("a reply");
        let reply: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        if reply["id"] == 2 {
            listed = Some(reply);
        }
    }
    drop(stdin);
    let _ = server.kill();
    let _ = server.wait();
    let reply = listed.expect("the tools/list reply");
    let mut tools: Vec<String> = reply["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect();
    tools.sort();
    assert!(tools.len() >= 10, "{tools:?}");

    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let section = readme
        .split("\n## MCP server\n")
        .nth(1)
        .and_then(|s| s.split("\nTools:").nth(1))
        .and_then(|s| s.split("\n\n").next())
        .expect("the README's MCP tool paragraph");
    // Every `name` in the paragraph that is a single lowercase word is a tool.
    let mut named: Vec<String> = section
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase()))
        .map(str::to_owned)
        .collect();
    named.sort();
    named.dedup();
    assert_eq!(
        named, tools,
        "the README's tool list (left) and the server's (right)"
    );
}
