//! The front ends end to end, through the real binary: `shotty record` (in tmux), `shotty session` (the per-user host and
//! its CLI), `shotty serve` and `shotty mcp` (driven by the official Python MCP SDK).
//!
//! Run one part with a filter, e.g. `cargo test --test frontends serve::`.

#[path = "../support/asciinema.rs"]
mod asciinema;
// The page of `shotty web` in Chromium; the renderer's tests use the rest of it.
#[allow(dead_code)]
#[path = "../support/devtools.rs"]
mod devtools;
#[path = "../support/needs.rs"]
mod needs;
#[path = "../support/procs.rs"]
mod procs;

mod cli_agent;
mod cli_attach;
mod cli_help;
mod cli_record;
mod cli_scenario;
mod cli_scenario_schema;
mod cli_session;
mod cli_tape;
mod cli_test;
mod host_faults;
mod mcp;
mod package;
mod serve;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod start_up;
mod web;
