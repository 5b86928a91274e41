//! The host's connections and its executor: requests read off the socket, run one at a
//! time in arrival order (a `wait` on its connection's own thread), answered in order.

use std::io::{BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::lines::{Line, read_line};
use crate::rpc::{self, MAX_LINE, code};

use super::{Entry, Host, PANIC_HOOK_ENV};

use crate::session::error::{ErrorCode, SessionError};
use crate::session::hangup::{DeadlineReader, HangupWatch, bound_writes};
use crate::session::instance::Session;
use crate::session::protocol::{
    PingReply, Response, SendParams, SendStep, StartParams, changes_no_session, params,
};

/// Work finished off the executor, whose result is the reply.
pub(super) type Deferred = Box<dyn FnOnce() -> Result<Value, SessionError> + Send>;

/// What a method gives the executor.
enum Answer {
    /// The result, serialised.
    Now(Box<RawValue>),
    /// Work to finish on a thread of its own (it holds no lock the executor needs).
    Later(Deferred),
}

/// Work for the executor, done one at a time in arrival order.
enum Job {
    /// A request and where its response goes.
    Request(rpc::Request, SyncSender<Response>),
    /// End the process if the host is idle. Queued behind requests, so a request that arrived
    /// first is answered first (and makes the host busy again) rather than cut short.
    ExitIfIdle,
}

impl Host {
    /// Runs one request (everything but `wait`) and sends its response to `reply`: on the
    /// executor, or on the connection's thread for [`Host::answered_on_connection`] methods. A panic
    /// inside it becomes a `session_error` reply: whatever one request does, the host keeps
    /// serving everyone. Work that takes long (a stop's grace period) is finished on a thread
    /// of its own, which replies when done; the executor goes on with the next request.
    fn execute(self: &Arc<Self>, request: rpc::Request, reply: SyncSender<Response>) {
        self.touch();
        let id = request.id.clone();
        let method = request.method.clone();
        let result = match catch_panic(&method, || self.dispatch(request)) {
            Ok(Some(Ok(Answer::Later(work)))) => {
                let worker = {
                    let (id, method, reply) = (id.clone(), method.clone(), reply.clone());
                    move || {
                        let result = catch_panic(&method, work).and_then(|r| r);
                        let _ = reply.send(Response::from_result(id, result));
                    }
                };
                match std::thread::Builder::new()
                    .name(format!("shotty-{method}"))
                    .spawn(worker)
                {
                    Ok(_) => return,
                    Err(e) => Err(SessionError::io("cannot start a worker thread", e)),
                }
            }
            Ok(Some(Ok(Answer::Now(v)))) => Ok(v),
            Ok(Some(Err(e))) | Err(e) => Err(e),
            Ok(None) => {
                let e = SessionError::invalid_request(format!("unknown method {method:?}"));
                let _ = reply.send(Response::rpc_err(id, code::METHOD_NOT_FOUND, &e));
                return;
            }
        };
        let _ = reply.send(Response::from_result(id, result));
    }

    /// Whether `method` is answered on its connection's thread rather than by the executor:
    /// those that change no session (a `list` of a thousand sessions, a `read` that waits for
    /// the screen to settle) never hold up the other clients' requests. `ping` stays with the
    /// executor: its answer tells that the executor is alive.
    fn answered_on_connection(method: &str) -> bool {
        method != "ping" && changes_no_session(method)
    }

    /// The method's outcome; `None` for an unknown method. (`wait` never comes here: it is
    /// answered on its connection's thread.)
    fn dispatch(self: &Arc<Self>, request: rpc::Request) -> Option<Result<Answer, SessionError>> {
        if self.panic_in.as_deref() == Some(request.method.as_str()) {
            panic!("{PANIC_HOOK_ENV} asked for a panic in {:?}", request.method);
        }
        // Session references become ids here, for every method; an unknown method is told
        // apart first (the match's last arm), whatever its params name.
        let mut params_object = request.params;
        let p = self
            .resolve_params(&mut params_object)
            .map(|()| Value::Object(params_object));
        fn now(r: Result<impl Serialize, SessionError>) -> Result<Answer, SessionError> {
            let result = r?;
            serde_json::value::to_raw_value(&result)
                .map(Answer::Now)
                .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))
        }
        Some(match request.method.as_str() {
            // Waiting for the program to be ready happens off the executor too.
            "start" => p.and_then(params::<StartParams>).and_then(|p| {
                let ready = p.wait_ready_ms.map(Duration::from_millis);
                let prompt = p.shell_integration;
                let mut reply = self.start(p)?;
                let Some(timeout) = ready else {
                    return now(Ok(reply));
                };
                let Entry::Live(entry) = self.lookup(&reply.session_id)? else {
                    return now(Ok(reply));
                };
                Ok(later(move || {
                    reply.ready = Some(entry.session.wait_ready(timeout, prompt));
                    Ok(reply)
                }))
            }),
            "read" => now(p.and_then(params).and_then(|p| self.read(p))),
            "snapshot" => now(p.and_then(params).and_then(|p| self.snapshot(p))),
            // A send that pauses (`delay` steps), or may wait for a program that has not read
            // its earlier input, does so off the executor, which the other clients' requests
            // need meanwhile. A client's own requests stay in order: its connection sends the
            // next one after this one's reply.
            "send" => p.and_then(params::<SendParams>).and_then(|p| {
                let pauses = p.steps.iter().any(|s| matches!(s, SendStep::Delay(_)));
                if pauses || self.input_backlogged(&p.session_id) {
                    let host = Arc::clone(self);
                    Ok(later(move || host.send(p)))
                } else {
                    now(self.send(p))
                }
            }),
            "resize" => now(p.and_then(params).and_then(|p| self.resize(p))),
            "history" => now(p.and_then(params).and_then(|p| self.history(p))),
            "commands" => now(p.and_then(params).and_then(|p| self.commands(p))),
            "find" => now(p.and_then(params).and_then(|p| self.find(p))),
            "output" => now(p.and_then(params).and_then(|p| self.output(p))),
            "mark" => now(p.and_then(params).and_then(|p| self.mark(p))),
            "export" => now(p.and_then(params).and_then(|p| self.export(p))),
            "journal" => now(p.and_then(params).and_then(|p| self.journal(p))),
            "list" => now(p.and_then(params).and_then(|p| self.list(p))),
            "stop" => p
                .and_then(params)
                .and_then(|p| self.stop(p))
                .map(Answer::Later),
            "restart" => p
                .and_then(params)
                .and_then(|p| self.restart(p))
                .map(Answer::Later),
            "golden" => p
                .and_then(params)
                .and_then(|p| self.golden(p))
                .map(Answer::Later),
            "ping" => now(Ok(PingReply {
                pid: std::process::id(),
            })),
            _ => return None,
        })
    }
}

/// Work whose result is the reply, done on a thread of its own.
fn later<T: Serialize>(work: impl FnOnce() -> Result<T, SessionError> + Send + 'static) -> Answer {
    Answer::Later(Box::new(move || {
        serde_json::to_value(work()?)
            .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))
    }))
}

/// Runs `f`, turning a panic into a `session_error` that names `method`.
fn catch_panic<T>(method: &str, f: impl FnOnce() -> T) -> Result<T, SessionError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_owned());
        SessionError::new(
            ErrorCode::SessionError,
            format!("internal error in {method}: {what} (the host keeps running)"),
        )
    })
}

/// Refuses connections from other users.
fn peer_is_us(stream: &UnixStream) -> bool {
    rustix::net::sockopt::socket_peercred(stream)
        .is_ok_and(|cred| cred.uid == rustix::process::getuid())
}

fn write_response(stream: &mut UnixStream, response: &Response) -> bool {
    let Ok(mut line) = serde_json::to_vec(response) else {
        return false;
    };
    line.push(b'\n');
    stream
        .write_all(&line)
        .and_then(|()| stream.flush())
        .is_ok()
}

/// The bounds on the host's connections (`docs/host-protocol.md`, "Framing").
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections served at once; past it a new one is answered with `host_unavailable`
    /// and closed, while those open keep being served.
    pub max: usize,
    /// How long a connection has to send a whole request line: its first from its opening,
    /// each later one from its first byte. Past it the connection is closed, so a client that
    /// never asks anything, or stops half-way through a request, holds a thread and two
    /// descriptors no longer than this.
    pub request_deadline: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            max: 1024,
            request_deadline: Duration::from_secs(60),
        }
    }
}

/// One of the connections counted against [`ConnectionLimits::max`]: the count goes down
/// when it is dropped, however its thread ends.
struct ConnectionSlot(Arc<AtomicUsize>);

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Answers a connection past [`ConnectionLimits::max`] with `host_unavailable`, without
/// waiting for its request, and closes it.
fn refuse(mut stream: UnixStream, max: usize) {
    let e = SessionError::new(
        ErrorCode::HostUnavailable,
        format!(
            "the host already serves {max} connections, the most it takes at once; try again \
             once one closes"
        ),
    );
    // Never block on a client that does not read: the reply fits the socket's buffer.
    let _ = stream.set_nonblocking(true);
    let _ = write_response(&mut stream, &Response::err(Value::Null, &e));
}

fn serve_connection(
    host: Arc<Host>,
    stream: UnixStream,
    jobs: SyncSender<Job>,
    request_deadline: Duration,
) {
    let Ok(reader_stream) = stream.try_clone() else {
        return;
    };
    let mut writer = stream;
    let _ = bound_writes(&writer, request_deadline);
    let mut reader = BufReader::new(DeadlineReader::new(reader_stream, request_deadline));
    let mut buf = Vec::new();
    loop {
        let line = match read_line(&mut reader, &mut buf, MAX_LINE) {
            Ok(Line::Eof) | Err(_) => return,
            Ok(Line::TooLong) => {
                let e = SessionError::invalid_request(format!(
                    "request line longer than {MAX_LINE} bytes"
                ));
                let id = crate::rpc::id_in_head(&buf);
                let reply = Response::rpc_err(id, code::INVALID_REQUEST, &e);
                if !write_response(&mut writer, &reply) {
                    return;
                }
                continue;
            }
            Ok(Line::Complete) => &buf,
        };
        if line.trim_ascii().is_empty() {
            continue;
        }
        let request = match rpc::parse_request(line) {
            Ok(r) => r,
            Err((id, e)) => {
                let err = SessionError::invalid_request(e.message);
                if !write_response(&mut writer, &Response::rpc_err(id, e.code, &err)) {
                    return;
                }
                continue;
            }
        };
        let response = if request.method == "wait" {
            host.touch();
            let id = request.id.clone();
            // The client hanging up cancels its wait.
            let cancel = Arc::new(AtomicBool::new(false));
            let watched: Arc<Mutex<Option<Arc<Session>>>> = Arc::new(Mutex::new(None));
            let watch = writer.try_clone().ok().and_then(|probe| {
                let cancel = Arc::clone(&cancel);
                let watched = Arc::clone(&watched);
                HangupWatch::start(probe, move || {
                    cancel.store(true, Ordering::SeqCst);
                    if let Some(s) = watched.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                        s.notify();
                    }
                })
                .ok()
            });
            let mut wait_params = request.params;
            let result = catch_panic("wait", || {
                host.resolve_params(&mut wait_params)?;
                params(Value::Object(wait_params)).and_then(|p| {
                    host.wait(p, &cancel, |s| {
                        *watched.lock().unwrap_or_else(|e| e.into_inner()) = Some(s);
                    })
                })
            })
            .and_then(|r| r);
            let response = Response::from_result(id, result);
            drop(watch);
            // One request per connection for wait.
            let _ = write_response(&mut writer, &response);
            let _ = writer.shutdown(std::net::Shutdown::Both);
            return;
        } else {
            let (tx, rx) = mpsc::sync_channel(1);
            if Host::answered_on_connection(&request.method) {
                host.execute(request, tx);
            } else if jobs.send(Job::Request(request, tx)).is_err() {
                return;
            }
            match rx.recv() {
                Ok(r) => r,
                Err(_) => return,
            }
        };
        if !write_response(&mut writer, &response) {
            return;
        }
        let started = !reader.buffer().is_empty();
        reader.get_mut().answered(started);
    }
}

fn executor(host: Arc<Host>, jobs: Receiver<Job>, socket: &Path) {
    for job in jobs {
        match job {
            Job::Request(request, reply) => {
                if host.panic_in.as_deref() == Some("executor") && request.method == "ping" {
                    panic!("{PANIC_HOOK_ENV} asked for the executor to fail");
                }
                host.execute(request, reply);
            }
            Job::ExitIfIdle => {
                if host.is_idle() {
                    // Sessions that ended just now are kept before the host goes.
                    host.record_ended();
                    // Connections not yet answered are closed unread by the exit; their
                    // clients start a new host and send again.
                    let _ = std::fs::remove_file(socket);
                    std::process::exit(0);
                }
            }
        }
    }
}

/// Runs the host until it has been idle (no live sessions, no requests) for its idle time.
/// The caller holds the host lock; `socket` is bound here (0600) and removed on exit.
pub fn run(
    socket: &Path,
    state_dir: PathBuf,
    idle_exit: Duration,
    limits: ConnectionLimits,
) -> Result<(), SessionError> {
    raise_open_file_limit();
    let host = Arc::new(Host::new(socket, state_dir, idle_exit)?);
    let _ = std::fs::remove_file(socket);
    let listener = crate::session::paths::bind_private_socket(socket)
        .map_err(|e| SessionError::io(&format!("cannot listen on {}", socket.display()), e))?;
    let (jobs_tx, jobs_rx) = mpsc::sync_channel::<Job>(64);
    {
        let host = Arc::clone(&host);
        let socket = socket.to_path_buf();
        std::thread::Builder::new()
            .name("shotty-executor".into())
            .spawn(move || {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    executor(Arc::clone(&host), jobs_rx, &socket)
                }));
                // The executor cannot end otherwise: a host that can no longer execute must
                // not linger holding the socket. Its sessions are kept as records, and the
                // next command starts a fresh host that finds them.
                host.shutdown();
                let _ = std::fs::remove_file(&socket);
                std::process::exit(70);
            })
            .map_err(|e| SessionError::io("cannot start the executor", e))?;
    }
    {
        let host = Arc::clone(&host);
        let socket = socket.to_path_buf();
        let jobs = jobs_tx.clone();
        std::thread::Builder::new()
            .name("shotty-housekeeper".into())
            .spawn(move || housekeeper(&host, &socket, &jobs))
            .map_err(|e| SessionError::io("cannot start the housekeeper", e))?;
    }
    {
        // SIGINT, SIGTERM, SIGHUP: stop every session (reason `shutdown`, records written),
        // then leave.
        let host = Arc::clone(&host);
        let socket = socket.to_path_buf();
        let _ = crate::signals::on_termination(move || {
            host.shutdown();
            let _ = std::fs::remove_file(&socket);
            std::process::exit(0);
        });
    }
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            continue;
        };
        if !peer_is_us(&stream) {
            continue;
        }
        // Only this loop adds to the count, so it cannot pass the bound between the check
        // and the increment.
        if open.load(Ordering::SeqCst) >= limits.max {
            refuse(stream, limits.max);
            continue;
        }
        open.fetch_add(1, Ordering::SeqCst);
        let slot = ConnectionSlot(Arc::clone(&open));
        let host = Arc::clone(&host);
        let jobs = jobs_tx.clone();
        // A thread that cannot start drops its closure, and with it the slot and the stream.
        let _ = std::thread::Builder::new()
            .name("shotty-conn".into())
            .spawn(move || {
                let _slot = slot;
                serve_connection(host, stream, jobs, limits.request_deadline);
            });
    }
    Ok(())
}

/// Raises this process's soft limit on open files towards the hard one, to at most
/// 16,384: each session holds three descriptors and each connection two or
/// three, and the usual soft limit of 1024 would stop a host at about 300 sessions and
/// `shotty serve` at about 250 waiting clients. (Programs started inherit the raised limit;
/// it stays moderate because some programs walk every possible descriptor at start.)
pub fn raise_open_file_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    let wanted = limit
        .maximum
        .map_or(OPEN_FILES_WANTED, |max| max.min(OPEN_FILES_WANTED));
    if limit.current.is_some_and(|current| current < wanted) {
        limit.current = Some(wanted);
        let _ = setrlimit(Resource::Nofile, limit);
    }
}

/// The soft limit on open files the host asks for.
const OPEN_FILES_WANTED: u64 = 16_384;

/// Ends the host process once it has been idle long enough (through the executor, see
/// [`Job::ExitIfIdle`]), or when its socket was removed (a newer host took over); drops
/// expired sessions, stops those whose owner process has ended, writes records that could
/// not be written before, and gives the memory of ended sessions back. Once a second: this is housekeeping, not a reaction to anything a
/// client waits for.
fn housekeeper(host: &Host, socket: &Path, jobs: &SyncSender<Job>) {
    let mut live_before = 0;
    // Ticks left to give memory back: a session's memory is freed when the last holder of it
    // lets go, which can be its own thread a moment after it left the registry.
    let mut trims_due = 0u8;
    loop {
        std::thread::sleep(Duration::from_secs(1).min(host.idle_exit));
        host.sweep();
        // A record that could not be written when its session ended (a full or read-only
        // state directory) is written once it can be.
        host.record_ended();
        let live = host.live_entries().len();
        if live < live_before {
            trims_due = 2;
        }
        live_before = live;
        if trims_due > 0 {
            trims_due -= 1;
            super::memory::give_back_free_memory();
        }
        if std::fs::symlink_metadata(socket).is_err() {
            host.shutdown();
            std::process::exit(0);
        }
        let orphans = host.orphans();
        if !orphans.is_empty() {
            // Stopped as a client's `stop` would be, on the executor; nobody reads the reply.
            let (reply, _) = std::sync::mpsc::sync_channel(1);
            let mut params = serde_json::Map::new();
            params.insert("sessionIds".into(), orphans.into());
            let stop = rpc::Request {
                id: serde_json::Value::Null,
                method: "stop".into(),
                params,
            };
            let _ = jobs.try_send(Job::Request(stop, reply));
        }
        if host.is_idle() {
            let _ = jobs.try_send(Job::ExitIfIdle);
        }
    }
}
