//! `shotty mcp` driven by the official Python MCP SDK (tests/mcp_client.py): tool listing,
//! spawn/write/wait/read/inspect/capture/kill against the session host, and tool errors.
//!
//! Needs python3 with the `mcp` package (`.ci/run` installs it); set SHOTTY_SKIP_MCP=1 to skip.

use std::path::Path;
use std::process::Command;

fn skip() -> bool {
    std::env::var_os("SHOTTY_SKIP_MCP").is_some_and(|v| v == "1")
}

/// Fails with a clear message when python3 or its `mcp` package is missing.
fn require_python_mcp() -> bool {
    if skip() {
        eprintln!("SHOTTY_SKIP_MCP=1: skipping the MCP client test");
        return false;
    }
    let probe = Command::new("python3")
        .args(["-c", "import mcp.client.stdio"])
        .output();
    match probe {
        Err(e) => panic!(
            "python3 is needed for tests/frontends/mcp.rs ({e}); install it, or set SHOTTY_SKIP_MCP=1 to skip"
        ),
        Ok(out) if !out.status.success() => panic!(
            "the Python MCP SDK is missing (pip install mcp, see .ci/run), or set \
             SHOTTY_SKIP_MCP=1 to skip: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Ok(_) => true,
    }
}

/// The official Python client drives every tool (see tests/mcp_client.py). `inspect` is
/// checked for content: the PNG decodes (CRCs, zlib, filters) with a size that follows the
/// session's columns and rows, and the SVG's snapshot and text are that session's screen;
/// with two sessions of different text and size each shows its own. The server runs with
/// this test's own HOME and TMPDIR.
#[test]
fn python_client_drives_the_mcp_server() {
    if !require_python_mcp() {
        return;
    }
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
    let out = Command::new("python3")
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
