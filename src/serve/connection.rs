//! One connection: request lines read in order, each answered before the next is read, each
//! due whole within the request deadline from its first byte (the first from the connection's
//! opening), so a client that stalls cannot keep one of the connection slots.

use std::io::{BufReader, ErrorKind, Write};
use std::time::Duration;

use rustix::net::SendFlags;
use serde_json::Value;

use crate::lines::{Line, read_line};
use crate::rpc::{MAX_LINE, RpcError};
use crate::session::hangup::{DeadlineReader, bound_writes};

use super::results::response_line;
use super::shared::Shared;
use super::socket::Stream;

pub(super) fn serve_connection(shared: &Shared, stream: Stream) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(DeadlineReader::new(read_half, shared.request_deadline));
    let mut writer = stream;
    let _ = bound_writes(&writer, shared.request_deadline);
    let mut buf = Vec::new();
    loop {
        let (reply, close) = match read_line(&mut reader, &mut buf, MAX_LINE) {
            Ok(Line::Eof) => return,
            Err(e) if e.kind() == ErrorKind::TimedOut => {
                out_of_time(&writer, shared.request_deadline);
                return;
            }
            Err(_) => return,
            Ok(Line::TooLong) => {
                let e = RpcError::invalid_request(format!(
                    "the request line is longer than {MAX_LINE} bytes"
                ));
                (response_line(&crate::rpc::id_in_head(&buf), Err(e)), false)
            }
            Ok(Line::Complete) if buf.trim_ascii().is_empty() => {
                next_line_due(&mut reader);
                continue;
            }
            Ok(Line::Complete) => shared.handle(&buf, &writer),
        };
        let sent = writer.write_all(&reply).and_then(|()| writer.flush());
        if close {
            shared.close_endpoint();
            return;
        }
        if sent.is_err() {
            return;
        }
        next_line_due(&mut reader);
    }
}

/// Once a line is dealt with, the next one is due from its first byte, which may have come
/// with it.
fn next_line_due(reader: &mut BufReader<DeadlineReader<Stream>>) {
    let started = !reader.buffer().is_empty();
    reader.get_mut().answered(started);
}

/// Tells a client whose request did not come whole in time why its connection is closed — most
/// often a line missing its `\n`. Without waiting: a client that stalled may not read either.
fn out_of_time(writer: &Stream, deadline: Duration) {
    let e = RpcError::invalid_request(format!(
        "no whole request line within {} s (each request ends with \\n); closing the connection",
        deadline.as_secs_f64()
    ));
    let line = response_line(&Value::Null, Err(e));
    let _ = rustix::net::send(writer, &line, SendFlags::DONTWAIT | SendFlags::NOSIGNAL);
}
