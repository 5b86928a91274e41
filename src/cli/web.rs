//! `shotty web`: the live page of the host's sessions and MCP over HTTP (`shotty::web`).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use shotty::web::{WebOptions, WebServer, guard};

/// `shotty web` options.
#[derive(Args, Debug)]
pub struct WebArgs {
    /// Where to listen: ADDR:PORT (port 0 picks a free one). An address other than loopback
    /// needs --token-file.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7681")]
    listen: SocketAddr,
    /// Read the token from this file (mode 0600, one line of at least 32 characters) instead
    /// of making a fresh one: clients configured with it keep working across restarts.
    #[arg(long, value_name = "PATH")]
    token_file: Option<PathBuf>,
    /// Where scenario runs leave their failure reports, which the page lists and opens
    /// (default: ./shotty-report, where `shotty test` writes them).
    #[arg(long, value_name = "DIR", default_value = "shotty-report")]
    reports: PathBuf,
    #[command(flatten)]
    help: super::HelpFlag,
}

pub fn run(args: WebArgs) -> Result<i32, String> {
    let token = match &args.token_file {
        Some(path) => guard::read_token_file(path)?,
        None if !args.listen.ip().is_loopback() => {
            eprintln!(
                "shotty web: error: listening on {} (not loopback) needs --token-file: a token \
                 printed on a terminal is no secret on a network",
                args.listen
            );
            return Ok(2);
        }
        None => guard::new_token().map_err(|e| format!("cannot make a token: {e}"))?,
    };
    let reports = std::path::absolute(&args.reports)
        .map_err(|e| format!("{}: {e}", args.reports.display()))?;
    let server = WebServer::bind(WebOptions {
        listen: args.listen,
        token,
        reports: Some(reports),
    })?;
    let addr = server.local_addr()?;
    let announcement = format!(
        "{}\nMCP (Streamable HTTP): http://{addr}/mcp with Authorization: Bearer <the token>\n",
        server.url()?
    );
    // Whoever started the server may stop reading once it has the URL: a closed stdout is
    // no reason to stop serving.
    let mut stdout = std::io::stdout();
    let _ = stdout
        .write_all(announcement.as_bytes())
        .and_then(|()| stdout.flush());
    server.serve().map(|()| 0)
}
