//! The methods: one function per request, and the dispatch from a request line to its reply.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::recording::asciicast::CastInfo;
use crate::recording::frames::Timing;
use crate::render::Appearance;
use crate::render::animation::AnimationFormat;
use crate::rpc::{Request, RpcError, code, parse_request};
use crate::session::artifacts;
use crate::session::error::{ErrorCode, SessionError};
use crate::session::hangup::HangupWatch;
use crate::session::host::PANIC_HOOK_ENV;
use crate::session::instance::Live;
use crate::session::protocol::SendStep;
use crate::session::rows::{Rows, RowsError};
use crate::session::wait::{Target, Until, WaitCondition, WaitResult, wait};

use super::catch_panic::catch_panic;
use super::params::{
    ExportParams, MarkParams, NoParams, ReadParams, ResizeParams, WaitParams, params, parse_actions,
};
use super::results::{
    EmptyResult, ExportResult, MarkResult, Outcome, Position, ScreenResult, Size, StatusResult,
    WaitReply, WriteResult, response_line, screen_text,
};
use super::shared::Shared;
use super::socket::Stream;
use super::{DEFAULT_WAIT_TIMEOUT_MS, MAX_WAIT_TIMEOUT_MS};

impl Shared {
    fn screen(live: &Live, rows: Rows) -> (String, Position, Size) {
        let cursor = live.term.screen().cursor();
        (
            screen_text(&rows.select(&live.term.text())),
            Position {
                row: cursor.row + 1,
                col: cursor.col + 1,
            },
            Size {
                cols: live.term.width(),
                rows: live.term.height(),
            },
        )
    }

    fn read(&self, p: ReadParams) -> Result<Outcome, RpcError> {
        let rows = Rows::parse(p.top, p.bottom, p.start, p.end, 1).map_err(|e| {
            RpcError::invalid_params(match e {
                RowsError::Several => "top, bottom and start/end exclude each other",
                RowsError::Unpaired => "start and end go together",
                RowsError::Reversed => "start is after end",
            })
        })?;
        let (screen, cursor, size) = Self::screen(&self.session.lock(), rows);
        Ok(Outcome::Screen(ScreenResult {
            screen,
            cursor,
            size,
        }))
    }

    fn write(&self, steps: Vec<SendStep>) -> Result<Outcome, RpcError> {
        let written = self.session.send(&steps).map_err(RpcError::from_session)?;
        Ok(Outcome::Written(WriteResult { written }))
    }

    fn wait(&self, p: WaitParams, cancel: &AtomicBool) -> Result<Outcome, RpcError> {
        let timeout_ms = p.timeout.unwrap_or(DEFAULT_WAIT_TIMEOUT_MS);
        if timeout_ms > MAX_WAIT_TIMEOUT_MS {
            return Err(RpcError::invalid_params(format!(
                "timeout is at most {MAX_WAIT_TIMEOUT_MS} ms"
            )));
        }
        let timeout = Duration::from_millis(timeout_ms);
        let start = Instant::now();
        let matched = match p.pattern {
            Some(m) if m.is_empty() => {
                return Err(RpcError::invalid_params(
                    "match is empty (leave it out to wait for the timeout)",
                ));
            }
            Some(m) => {
                let condition = WaitCondition {
                    target: Target::Text(m),
                    until: Until::Present,
                    stable_for: None,
                    timeout: Some(timeout),
                    fresh: false,
                };
                wait(&self.session, &condition, cancel).result == WaitResult::Matched
            }
            None => {
                // No text: just let the time pass (or the client hang up).
                let deadline = start + timeout;
                let mut live = self.session.lock();
                while !cancel.load(Ordering::SeqCst) && Instant::now() < deadline {
                    live = self.session.wait_lifecycle(live, Some(deadline));
                }
                false
            }
        };
        let waited_ms = start.elapsed().as_millis() as u64;
        let (screen, cursor, size) = Self::screen(&self.session.lock(), Rows::All);
        Ok(Outcome::Waited(WaitReply {
            matched,
            screen,
            cursor,
            size,
            waited_ms,
        }))
    }

    fn status(&self) -> Outcome {
        let live = self.session.lock();
        let ended = live.state.is_ended();
        Outcome::Status(StatusResult {
            running: !ended,
            exit_code: if ended { live.exit_code } else { None },
            pid: self.session.pid(),
        })
    }

    fn mark(&self, p: MarkParams) -> Result<Outcome, RpcError> {
        let label = p.label.unwrap_or_default();
        let at = self
            .session
            .mark(label.clone())
            .map_err(RpcError::from_session)?;
        Ok(Outcome::Marked(MarkResult {
            at_ms: u64::try_from(at.as_millis()).unwrap_or(u64::MAX),
            label,
        }))
    }

    fn export(&self, p: ExportParams) -> Result<Outcome, RpcError> {
        if !p.path.is_absolute() {
            return Err(RpcError::invalid_params(
                "export needs an absolute path (the endpoint's working directory is not the caller's)",
            ));
        }
        let format = artifacts::export_format(&p.path).map_err(RpcError::invalid_params)?;
        let timeline = self.session.lock().recording.clone();
        let info = CastInfo {
            timestamp: None,
            title: Some(self.session.spec().command.join(" ")),
        };
        let timing = Timing {
            show_keys: p.show_keys,
            ..Timing::default()
        };
        let look = Appearance::default();
        let animation = format.map(|f| (f, timing, &look));
        let bytes = artifacts::timeline_file(&timeline, &info, animation)
            .map_err(RpcError::from_session)?;
        artifacts::write_file(&p.path, &bytes)
            .map_err(|e| RpcError::from_session(SessionError::new(ErrorCode::IoError, e)))?;
        Ok(Outcome::Exported(ExportResult {
            path: p.path,
            format: format.map_or("cast", AnimationFormat::name).to_owned(),
            recording: timeline.summary(),
        }))
    }

    fn resize(&self, p: ResizeParams) -> Result<Outcome, RpcError> {
        self.session
            .resize(p.cols, p.rows)
            .map_err(RpcError::from_session)?;
        Ok(Outcome::Empty(EmptyResult {}))
    }

    /// Answers one request line; `true` when the endpoint is to close after the reply
    /// (`pty/kill`).
    pub(super) fn handle(&self, line: &[u8], conn: &Stream) -> (Vec<u8>, bool) {
        let request = match parse_request(line) {
            Ok(r) => r,
            Err((id, e)) => return (response_line(&id, Err(e)), false),
        };
        let Request {
            id,
            method,
            params: p,
        } = request;
        // A panic inside one request becomes its error reply: the connection, the other
        // clients and the session carry on.
        let (result, close) =
            catch_panic(|| self.dispatch(&method, p, conn)).unwrap_or_else(|what| {
                let e = RpcError {
                    code: code::INTERNAL_ERROR,
                    message: format!(
                        "internal error in {method}: {what} (the server keeps running)"
                    ),
                    data: Some(json!({ "code": ErrorCode::SessionError })),
                };
                (Err(e), false)
            });
        (response_line(&id, result), close)
    }

    /// Runs one method; `true` when the endpoint is to close after the reply.
    fn dispatch(
        &self,
        method: &str,
        p: Map<String, Value>,
        conn: &Stream,
    ) -> (Result<Outcome, RpcError>, bool) {
        if self.panic_in.as_deref() == Some(method) {
            panic!("{PANIC_HOOK_ENV} asked for a panic in {method:?}");
        }
        let result = match method {
            "pty/read" => params(p).and_then(|p| self.read(p)),
            "pty/write" => parse_actions(p).and_then(|steps| self.write(steps)),
            "pty/wait" => params(p).and_then(|p| self.wait_cancellable(p, conn)),
            "pty/status" => params::<NoParams>(p).map(|_| self.status()),
            "pty/resize" => params(p).and_then(|p| self.resize(p)),
            "pty/mark" => params(p).and_then(|p| self.mark(p)),
            "pty/export" => params(p).and_then(|p| self.export(p)),
            "pty/kill" => {
                return match params::<NoParams>(p) {
                    Ok(_) => {
                        self.end_session();
                        (Ok(Outcome::Empty(EmptyResult {})), true)
                    }
                    Err(e) => (Err(e), false),
                };
            }
            other => Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {other}"),
            )),
        };
        (result, false)
    }

    /// `pty/wait`, abandoned when the client hangs up or the endpoint closes.
    fn wait_cancellable(&self, p: WaitParams, conn: &Stream) -> Result<Outcome, RpcError> {
        let cancel = Arc::new(AtomicBool::new(false));
        let _watch = match conn.try_clone() {
            Ok(probe) => {
                let cancel = Arc::clone(&cancel);
                let session = Arc::clone(&self.session);
                Some(
                    HangupWatch::start(probe.into_fd(), move || {
                        cancel.store(true, Ordering::SeqCst);
                        session.notify();
                    })
                    .map_err(|e| {
                        RpcError::new(code::INTERNAL_ERROR, format!("Internal error: {e}"))
                    })?,
                )
            }
            Err(e) => {
                return Err(RpcError::new(
                    code::INTERNAL_ERROR,
                    format!("Internal error: {e}"),
                ));
            }
        };
        self.wait(p, &cancel)
    }
}
