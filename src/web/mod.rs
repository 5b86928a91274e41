//! `shotty web`: one HTTP server on the session host for the people who watch sessions and
//! the agents that drive them from elsewhere (SPEC §15).
//!
//! - `/` — a page listing the host's sessions, each screen live (drawn by shotty's renderer,
//!   as SVG), typing into a session, scrubbing its recording, its finished commands.
//! - `/api/…` — what the page reads and does, as JSON and SVG (`routes.rs`); `/api/events` is a
//!   server-sent event stream of screen changes (`live.rs`).
//! - `/reports/NAME/{failure.md,trace.html}` — scenario failure reports from a directory
//!   given at start ([`reports`]).
//! - `/mcp` — the MCP Streamable HTTP transport (rmcp's), serving the same tool table as
//!   `shotty mcp` ([`crate::mcp::Server`]): one tool table, two transports.
//!
//! Every request needs the token ([`guard`]): `Authorization: Bearer …`, or for the page the
//! token in the URL once, then a cookie. A request whose `Host` or `Origin` is not this
//! server's is refused (DNS rebinding). The server listens on loopback unless told
//! otherwise, and a wider address needs a token file.

pub mod guard;
mod live;
pub mod reports;
mod routes;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use hyper::body::Bytes;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use guard::Guard;

/// What every response's body is.
type Body = BoxBody<Bytes, Infallible>;

/// The largest request body accepted (a `send` of pasted text, an MCP call): 1 MiB, the host
/// protocol's line limit.
pub const MAX_BODY: usize = crate::rpc::MAX_LINE;
/// MCP transport sessions open at once (an agent holds one or two; each costs memory until
/// it is ended with `DELETE /mcp` or expires idle).
pub const MAX_MCP_SESSIONS: usize = 256;

/// How `shotty web` serves.
#[derive(Clone, Debug)]
pub struct WebOptions {
    /// Where to listen.
    pub listen: SocketAddr,
    /// The token every request must carry.
    pub token: String,
    /// Where scenario runs leave their failure reports (`shotty test`'s `shotty-report/`):
    /// the page lists them and opens them.
    pub reports: Option<std::path::PathBuf>,
}

/// A bound server, not yet serving: its address is known (`--listen 127.0.0.1:0`).
pub struct WebServer {
    listener: std::net::TcpListener,
    options: WebOptions,
}

impl WebServer {
    /// Binds the listening socket.
    pub fn bind(options: WebOptions) -> Result<WebServer, String> {
        let listener = std::net::TcpListener::bind(options.listen)
            .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
        Ok(WebServer { listener, options })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> Result<SocketAddr, String> {
        self.listener.local_addr().map_err(|e| e.to_string())
    }

    /// The page's URL, with the token.
    pub fn url(&self) -> Result<String, String> {
        Ok(format!(
            "http://{}/?token={}",
            self.local_addr()?,
            self.options.token
        ))
    }

    /// Serves until the process ends.
    pub fn serve(self) -> Result<(), String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the runtime: {e}"))?;
        runtime.block_on(self.run())
    }

    async fn run(self) -> Result<(), String> {
        let addr = self.local_addr()?;
        let listener = tokio::net::TcpListener::from_std(self.listener)
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let guard = Guard::new(self.options.token.clone(), addr);
        let mcp_sessions = Arc::new(LocalSessionManager::default());
        let mcp = StreamableHttpService::new(
            || Ok(crate::mcp::Server::new()),
            Arc::clone(&mcp_sessions),
            StreamableHttpServerConfig::default()
                // This server checks Host and Origin itself, for every route alike.
                .disable_allowed_hosts()
                .disable_allowed_origins(),
        );
        let app = Arc::new(routes::App {
            guard,
            mcp,
            mcp_sessions,
            live: live::Live::new(),
            reports: self.options.reports.clone(),
        });
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                // Out of descriptors, a connection reset before it was taken: the others go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let app = Arc::clone(&app);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let app = Arc::clone(&app);
                    async move { Ok::<_, Infallible>(app.handle(request).await) }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .max_buf_size(64 * 1024)
                    .header_read_timeout(Duration::from_secs(10))
                    .timer(hyper_util::rt::TokioTimer::new())
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                // A client that goes away mid-request costs only its own connection.
                let _ = connection.await;
            });
        }
    }
}
