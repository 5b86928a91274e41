//! Every request: checked by the guard, then routed to the page, its API or MCP.

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::StreamExt;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};
use tower_service::Service;

use super::guard::{Guard, Refusal};
use super::live::Live;
use super::reports;
use super::{Body, MAX_BODY, MAX_MCP_SESSIONS};
use crate::render::{Appearance, Format};
use crate::session::client::{Client, reply_timeout};
use crate::session::{ErrorCode, SessionError, artifacts};

/// The page and what it loads: nothing comes from elsewhere.
const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const APP_CSS: &str = include_str!("page/app.css");

/// The page may load its own script, style and images, talk to this server, and nothing else;
/// no other site may frame it.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// A scenario's failure report: its own inline script and styles, its images inline, and no
/// network at all.
const REPORT_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'unsafe-inline'; \
     style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Everything a request may reach.
pub struct App {
    pub guard: Guard,
    pub mcp: StreamableHttpService<crate::mcp::Server, LocalSessionManager>,
    /// The MCP transport's sessions, counted against [`MAX_MCP_SESSIONS`].
    pub mcp_sessions: Arc<LocalSessionManager>,
    pub live: Arc<Live>,
    /// Where scenario failure reports are (`--reports`).
    pub reports: Option<PathBuf>,
}

impl App {
    pub async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        let header = |name: header::HeaderName| {
            request
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        if let Err(refusal) = self.guard.check_origin(
            header(header::HOST).as_deref(),
            header(header::ORIGIN).as_deref(),
        ) {
            return refused(&refusal);
        }
        let path = request.uri().path().to_owned();
        // The page's address carries the token once: it becomes a cookie, and the address
        // loses it (out of the history and of what the page could leak).
        if request.method() == Method::GET && path == "/" {
            let query = request.uri().query().unwrap_or_default();
            if let Some(token) = query_value(query, "token") {
                if !self.guard.is_token(token) {
                    return refused(&Refusal::Unauthorized);
                }
                return Response::builder()
                    .status(StatusCode::SEE_OTHER)
                    .header(header::LOCATION, "/")
                    .header(header::SET_COOKIE, self.guard.cookie())
                    .header(header::CACHE_CONTROL, "no-store")
                    .body(empty())
                    .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR));
            }
        }
        if let Err(refusal) = self.guard.check_token(
            header(header::AUTHORIZATION).as_deref(),
            header(header::COOKIE).as_deref(),
        ) {
            return refused(&refusal);
        }
        if path == "/mcp" {
            return self.mcp(request).await;
        }
        let method = request.method().clone();
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        match (&method, parts.as_slice()) {
            (&Method::GET, [""]) => page(INDEX_HTML, "text/html; charset=utf-8"),
            (&Method::GET, ["app.js"]) => page(APP_JS, "text/javascript; charset=utf-8"),
            (&Method::GET, ["app.css"]) => page(APP_CSS, "text/css; charset=utf-8"),
            (&Method::GET, ["api", "sessions"]) => {
                host_json(|| call("list", &json!({ "all": true }))).await
            }
            (&Method::GET, ["api", "events"]) => self.events(),
            (&Method::GET, ["api", "sessions", id, "screen.svg"]) => {
                let id = (*id).to_owned();
                host_svg(move || {
                    let fetched = artifacts::fetch(Client::connect()?, &id)?;
                    let look = Appearance {
                        title: fetched.title.clone(),
                        ..Appearance::default()
                    };
                    artifacts::render(&fetched, Format::Svg, &look)
                })
                .await
            }
            (&Method::GET, ["api", "sessions", id, "commands"]) => {
                let params = json!({ "sessionId": id, "last": 1000 });
                host_json(move || call("commands", &params)).await
            }
            (&Method::GET, ["api", "sessions", id, "recording"]) => {
                let id = (*id).to_owned();
                host_json(move || recording_length(&id)).await
            }
            (&Method::GET, ["api", "sessions", id, "recording.svg"]) => {
                let at = query_value(request.uri().query().unwrap_or_default(), "at")
                    .and_then(|t| t.parse::<f64>().ok())
                    .filter(|t| t.is_finite() && *t >= 0.0);
                let Some(at) = at else {
                    return problem(StatusCode::BAD_REQUEST, "give ?at=SECONDS");
                };
                let id = (*id).to_owned();
                host_svg(move || recording_at(&id, at)).await
            }
            (&Method::POST, ["api", "sessions", id, "send"]) => {
                let id = (*id).to_owned();
                self.send(id, request).await
            }
            (_, ["api", "sessions", _, "send"]) => status(StatusCode::METHOD_NOT_ALLOWED),
            (&Method::GET, ["api", "reports"]) => {
                let reports = self
                    .reports
                    .as_deref()
                    .map(reports::list)
                    .unwrap_or_default();
                json_response(StatusCode::OK, &json!({ "reports": reports }))
            }
            (&Method::GET, ["reports", name, file]) => self.report(name, file),
            _ => problem(StatusCode::NOT_FOUND, &format!("nothing at {path}")),
        }
    }

    /// One document of a scenario failure report.
    fn report(&self, name: &str, file: &str) -> Response<Body> {
        let found = self
            .reports
            .as_deref()
            .and_then(|dir| reports::document(dir, name, file));
        let Some((path, content_type)) = found else {
            return problem(StatusCode::NOT_FOUND, "no such report");
        };
        match std::fs::read(&path) {
            Ok(bytes) => Response::builder()
                .header(header::CONTENT_TYPE, content_type)
                .header(
                    header::CONTENT_SECURITY_POLICY,
                    REPORT_CONTENT_SECURITY_POLICY,
                )
                .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
                .header(header::CACHE_CONTROL, "no-store")
                .body(full(bytes))
                .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR)),
            Err(_) => problem(StatusCode::NOT_FOUND, "no such report"),
        }
    }

    async fn mcp(&self, request: Request<Incoming>) -> Response<Body> {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|length| length > MAX_BODY as u64) {
            return problem(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("an MCP message is at most {MAX_BODY} bytes"),
            );
        }
        // A POST without a session id opens one (`initialize`).
        let opens = request.method() == hyper::Method::POST
            && !request.headers().contains_key("mcp-session-id");
        if opens && self.mcp_sessions.sessions.read().await.len() >= MAX_MCP_SESSIONS {
            return problem(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!(
                    "{MAX_MCP_SESSIONS} MCP sessions are open: end one (DELETE /mcp) or wait \
                     for an idle one to expire"
                ),
            );
        }
        let (parts, body) = request.into_parts();
        let request = Request::from_parts(parts, Limited::new(body, MAX_BODY));
        match self.mcp.clone().call(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }

    /// `POST /api/sessions/ID/send` with `{"steps": […]}`: the host's `send`, as `attach`
    /// types. Only JSON is taken, which a form on another site cannot send.
    async fn send(&self, id: String, request: Request<Incoming>) -> Response<Body> {
        let is_json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if !is_json {
            return problem(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "send takes application/json",
            );
        }
        let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(_) => {
                return problem(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!("a request body is at most {MAX_BODY} bytes"),
                );
            }
        };
        let steps = match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(o)) if o.len() == 1 && o.get("steps").is_some_and(Value::is_array) => {
                o["steps"].clone()
            }
            _ => return problem(StatusCode::BAD_REQUEST, "the body is {\"steps\": [...]}"),
        };
        let params = json!({ "sessionId": id, "steps": steps });
        host_json(move || call("send", &params)).await
    }

    /// `GET /api/events`: `data: {"type": "screen", "sessionId", "version"}` when a screen
    /// changed, `{"type": "sessions"}` when the list did, `{"type": "reload"}` when this page
    /// fell behind.
    fn events(&self) -> Response<Body> {
        let receiver = self.live.subscribe();
        let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
            let data = match receiver.recv().await {
                Ok(event) => event,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    json!({ "type": "reload" }).to_string()
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            };
            let frame = Frame::data(Bytes::from(format!("data: {data}\n\n")));
            Some((Ok::<_, Infallible>(frame), receiver))
        });
        // The first event tells the page the stream is open.
        let hello = futures_util::stream::once(async {
            Ok(Frame::data(Bytes::from(format!(
                "data: {}\n\n",
                json!({ "type": "sessions" })
            ))))
        });
        Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .header(header::CACHE_CONTROL, "no-store")
            .body(BodyExt::boxed(StreamBody::new(hello.chain(stream))))
            .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR))
    }
}

fn call(method: &str, params: &Value) -> Result<Value, SessionError> {
    Client::connect()?.call(method, params, reply_timeout(method))
}

/// The recording's length in seconds (`{"sessionId", "seconds"}`), for the page's scrubber.
fn recording_length(id: &str) -> Result<Value, SessionError> {
    let (cast, _) = artifacts::export(Client::connect()?, id, None)?;
    let reader = crate::input::CastReader::new(cast.as_slice())
        .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
    let mut seconds = 0.0f64;
    for event in reader.events() {
        let event = event.map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
        seconds = seconds.max(event.at.as_secs_f64());
    }
    Ok(json!({ "sessionId": id, "seconds": seconds }))
}

/// The session's screen `at` seconds into its recording, as SVG.
fn recording_at(id: &str, at: f64) -> Result<Vec<u8>, SessionError> {
    let (cast, _) = artifacts::export(Client::connect()?, id, None)?;
    let bad =
        |e: crate::input::InputError| SessionError::new(ErrorCode::SessionError, e.to_string());
    let mut reader = crate::input::CastReader::new(cast.as_slice()).map_err(bad)?;
    let header = reader.header();
    let mut term = crate::Terminal::new(header.width, header.height);
    reader.play(&mut term, Some(at)).map_err(bad)?;
    crate::render::encode(&term.snapshot(), Format::Svg, &Appearance::default())
        .map_err(|e| SessionError::invalid_request(e.to_string()))
}

async fn host_json(
    f: impl FnOnce() -> Result<Value, SessionError> + Send + 'static,
) -> Response<Body> {
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(value)) => json_response(StatusCode::OK, &value),
        Ok(Err(e)) => session_error(&e),
        Err(e) => problem(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

async fn host_svg(
    f: impl FnOnce() -> Result<Vec<u8>, SessionError> + Send + 'static,
) -> Response<Body> {
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(svg)) => Response::builder()
            .header(header::CONTENT_TYPE, "image/svg+xml")
            .header(header::CACHE_CONTROL, "no-store")
            .body(full(svg))
            .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR)),
        Ok(Err(e)) => session_error(&e),
        Err(e) => problem(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

fn session_error(e: &SessionError) -> Response<Body> {
    let code = match e.code {
        ErrorCode::SessionNotFound | ErrorCode::SessionExpired => StatusCode::NOT_FOUND,
        ErrorCode::HostUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::SessionError | ErrorCode::IoError => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    };
    json_response(
        code,
        &json!({ "error": { "code": e.code, "message": e.message } }),
    )
}

fn refused(refusal: &Refusal) -> Response<Body> {
    match refusal {
        Refusal::Unauthorized => {
            let mut response = problem(
                StatusCode::UNAUTHORIZED,
                "a token is needed: open the URL shotty web printed, or send Authorization: Bearer TOKEN",
            );
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            response
        }
        Refusal::ForeignOrigin(why) => problem(StatusCode::FORBIDDEN, why),
    }
}

fn problem(code: StatusCode, message: &str) -> Response<Body> {
    json_response(code, &json!({ "error": { "message": message } }))
}

fn json_response(code: StatusCode, value: &Value) -> Response<Body> {
    Response::builder()
        .status(code)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CACHE_CONTROL, "no-store")
        .body(full(value.to_string()))
        .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR))
}

fn page(text: &'static str, content_type: &'static str) -> Response<Body> {
    Response::builder()
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::REFERRER_POLICY, "no-referrer")
        .header(header::CACHE_CONTROL, "no-store")
        .body(full(text))
        .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR))
}

fn status(code: StatusCode) -> Response<Body> {
    let mut response = Response::new(empty());
    *response.status_mut() = code;
    response
}

fn full(bytes: impl Into<Bytes>) -> Body {
    BodyExt::boxed(Full::new(bytes.into()))
}

fn empty() -> Body {
    full(Bytes::new())
}

/// The value of `name` in a query string (no percent-decoding: the values read here are
/// tokens and numbers).
fn query_value<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query.split('&').find_map(|pair| {
        pair.split_once('=')
            .filter(|(k, _)| *k == name)
            .map(|(_, v)| v)
    })
}
