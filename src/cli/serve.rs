//! `shotty serve`: one session as a JSON-RPC endpoint (`shotty::serve`), plus the startup
//! lines, one-line usage errors and SIGINT/SIGTERM handling.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use clap::{Args, Parser};

use shotty::serve::{Endpoint, ServeOptions, Server, ServerHandle, split_command};

use super::dimension;

/// Run a program in a terminal exposed as a JSON-RPC 2.0 endpoint (see docs/serve.md).
#[derive(Debug, Parser)]
#[command(name = "shotty serve", version, disable_help_flag = true)]
struct ServeCli {
    #[command(flatten)]
    args: ServeArgs,
}

/// `shotty serve` options.
#[derive(Debug, Args)]
#[command(after_long_help = super::examples::SERVE)]
pub struct ServeArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// The command line to run, split into words like a shell would (quotes work) but without
    /// a shell: `--cmd "bash -l"`, `--cmd 'python3 -q'`.
    #[arg(long, value_name = "CMD", allow_hyphen_values = true)]
    cmd: String,
    /// Listen on this Unix socket (mode 0600, removed at the end).
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Listen on this TCP port of 127.0.0.1 (1-65535).
    #[arg(long, value_name = "PORT", value_parser = clap::value_parser!(u16).range(1..))]
    port: Option<u16>,
    /// Terminal columns (1-500).
    #[arg(long, default_value_t = 100, value_parser = dimension)]
    cols: u16,
    /// Terminal rows (1-500).
    #[arg(long, default_value_t = 30, value_parser = dimension)]
    rows: u16,
    /// Working directory of the program.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

fn usage_error(message: &str) -> i32 {
    eprintln!("shotty serve: error: {message}");
    2
}

/// Parses `shotty serve` arguments (those after `serve`) and runs it. Usage errors are one
/// line on stderr with exit code 2.
pub fn main(args: &[String]) -> i32 {
    let argv = std::iter::once("shotty serve".to_owned()).chain(args.iter().cloned());
    match ServeCli::try_parse_from(argv) {
        Ok(cli) => run(cli.args),
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            0
        }
        Err(e) => {
            // clap's first paragraph, on one line, without its "error: " prefix.
            let rendered = e.render().to_string();
            let first = rendered.split("\n\n").next().unwrap_or_default();
            let line = first.lines().map(str::trim).collect::<Vec<_>>().join(" ");
            usage_error(line.strip_prefix("error: ").unwrap_or(&line))
        }
    }
}

/// Runs the endpoint until `pty/kill` or a signal; 0 then, 1 if it could not start.
pub fn run(args: ServeArgs) -> i32 {
    let command = match split_command(&args.cmd) {
        Ok(c) => c,
        Err(e) => return usage_error(&format!("--cmd: {}", e.message)),
    };
    let endpoint = match (args.socket, args.port) {
        (Some(_), Some(_)) => return usage_error("give either --socket or --port, not both"),
        (None, None) => return usage_error("give --socket PATH or --port PORT (1-65535)"),
        (Some(path), None) => Endpoint::Unix(path),
        (None, Some(port)) => Endpoint::Tcp(port),
    };
    let options = ServeOptions {
        command,
        cols: args.cols,
        rows: args.rows,
        cwd: args.cwd,
    };

    // SIGINT/SIGTERM/SIGHUP: stop the program's process group, remove the socket, exit 0. The
    // handler is installed before anything exists; a signal that arrives before the server
    // does is acted on as soon as it is there.
    let server_handle: Arc<OnceLock<ServerHandle>> = Arc::new(OnceLock::new());
    let early_signal = Arc::new(AtomicBool::new(false));
    {
        let server_handle = Arc::clone(&server_handle);
        let early_signal = Arc::clone(&early_signal);
        let installed = shotty::signals::on_termination(move || match server_handle.get() {
            Some(h) => h.shutdown(),
            None => early_signal.store(true, Ordering::SeqCst),
        });
        if let Err(e) = installed {
            eprintln!("shotty serve: warning: cannot handle signals: {e}");
        }
    }

    // Its 256 connections need more descriptors than the usual soft limit allows.
    shotty::session::host::raise_open_file_limit();
    let server = match Server::bind(&endpoint, &options) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("shotty serve: error: {}", e.message);
            return 1;
        }
    };
    let _ = server_handle.set(server.handle());
    if early_signal.load(Ordering::SeqCst) {
        server.handle().shutdown();
    }

    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "[shotty] session started, command: {} (pid {})",
        args.cmd,
        server.session().pid()
    );
    let _ = writeln!(out, "[shotty] address: {}", server.address());
    let _ = out.flush();
    drop(out);

    match server.run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("shotty serve: error: {}", e.message);
            1
        }
    }
}
