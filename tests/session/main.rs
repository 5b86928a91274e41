//! Programs in PTYs, in process: the PTY layer, the key table against a real program, the
//! session core and its wait conditions.
//!
//! Run one part with a filter, e.g. `cargo test --test session pty::`.

#[path = "../support/asciinema.rs"]
mod asciinema;
#[path = "../support/needs.rs"]
mod needs;
#[path = "../support/procs.rs"]
mod procs;

mod instance;
mod keys_hex;
mod pty;
mod recording;
mod testing;
mod wait;
