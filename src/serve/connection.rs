//! One connection: request lines read in order, each answered before the next is read.

use std::io::{BufReader, Write};

use serde_json::Value;

use crate::lines::{Line, read_line};
use crate::rpc::{MAX_LINE, RpcError};

use super::results::response_line;
use super::shared::Shared;
use super::socket::Stream;

pub(super) fn serve_connection(shared: &Shared, stream: Stream) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    let mut buf = Vec::new();
    loop {
        let (reply, close) = match read_line(&mut reader, &mut buf, MAX_LINE) {
            Ok(Line::Eof) | Err(_) => return,
            Ok(Line::TooLong) => {
                let e = RpcError::invalid_request(format!(
                    "the request line is longer than {MAX_LINE} bytes"
                ));
                (response_line(&Value::Null, Err(e)), false)
            }
            Ok(Line::Complete) if buf.trim_ascii().is_empty() => continue,
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
    }
}
