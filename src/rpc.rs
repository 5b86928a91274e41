//! JSON-RPC 2.0 as every shotty endpoint speaks it (the session host, `shotty serve`): one
//! request per line, the envelope checked the same way everywhere, the standard error codes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The longest request line any endpoint reads (the host, `shotty serve`, `shotty mcp`); a
/// longer one is answered with -32600 and skipped.
pub const MAX_LINE: usize = 1024 * 1024;

/// JSON-RPC 2.0 error codes.
pub mod code {
    /// Invalid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid request: not an object, no id (a notification), wrong `jsonrpc`, no
    /// method, params not an object, or an over-long line.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad params: unknown fields, wrong types, text and key together, unknown key names …
    pub const INVALID_PARAMS: i64 = -32602;
    /// Something failed inside the server.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The request is valid but cannot be done now (the program has exited …).
    pub const SERVER_ERROR: i64 = -32000;
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// One of [`code`].
    pub code: i64,
    /// What went wrong, for people.
    pub message: String,
    /// `{"code": "<stable session error code>"}` for errors from the session layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with this code and message.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// -32600 with a detail.
    pub fn invalid_request(detail: impl std::fmt::Display) -> RpcError {
        RpcError::new(code::INVALID_REQUEST, format!("Invalid Request: {detail}"))
    }

    /// -32602 with a detail.
    pub fn invalid_params(detail: impl std::fmt::Display) -> RpcError {
        RpcError::new(code::INVALID_PARAMS, format!("Invalid params: {detail}"))
    }
}

/// A request whose envelope was checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Its id: a string or a number.
    pub id: Value,
    /// The method name.
    pub method: String,
    /// The params object (empty when none was given).
    pub params: Map<String, Value>,
}

/// The id of a request too long to read, from the head of its line that was kept
/// ([`crate::lines::Line::TooLong`]): the id of a top-level `"id"` member that comes before
/// the first value cut short — clients write `jsonrpc`, `id` and `method` before `params` —
/// else `null`. So the client learns which of its requests failed instead of waiting for it.
pub fn id_in_head(head: &[u8]) -> Value {
    let mut rest = head.trim_ascii_start();
    let Some(after) = rest.strip_prefix(b"{") else {
        return Value::Null;
    };
    rest = after;
    loop {
        // A member: a key, a colon, a value; each parsed whole or not at all.
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
        let Some(Ok(Value::String(key))) = values.next() else {
            return Value::Null;
        };
        let Some(after) = rest[values.byte_offset()..]
            .trim_ascii_start()
            .strip_prefix(b":")
        else {
            return Value::Null;
        };
        let mut values = serde_json::Deserializer::from_slice(after).into_iter::<Value>();
        let Some(Ok(value)) = values.next() else {
            return Value::Null;
        };
        let next = after[values.byte_offset()..].trim_ascii_start();
        // A number at the very end of the head may be the start of a longer one.
        let whole = matches!(next.first(), Some(b',' | b'}'));
        if key == "id" {
            return match value {
                Value::String(_) | Value::Number(_) if whole => value,
                _ => Value::Null,
            };
        }
        let Some(after) = next.strip_prefix(b",") else {
            return Value::Null;
        };
        rest = after;
    }
}

/// Reads one request line and checks its envelope; an error carries the id to answer with
/// (`null` when there is none).
pub fn parse_request(line: &[u8]) -> Result<Request, (Value, RpcError)> {
    let value: Value = serde_json::from_slice(line).map_err(|e| {
        (
            Value::Null,
            RpcError::new(code::PARSE_ERROR, format!("Parse error: {e}")),
        )
    })?;
    let mut obj = match value {
        Value::Object(obj) => obj,
        Value::Array(_) => {
            return Err((
                Value::Null,
                RpcError::invalid_request("batches are not supported; send one request per line"),
            ));
        }
        _ => {
            return Err((
                Value::Null,
                RpcError::invalid_request("a request is a JSON object"),
            ));
        }
    };
    let id = match obj.remove("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id,
        None => {
            return Err((
                Value::Null,
                RpcError::invalid_request(
                    "notifications are not supported: every request needs an id",
                ),
            ));
        }
        Some(_) => {
            return Err((
                Value::Null,
                RpcError::invalid_request("id must be a string or a number"),
            ));
        }
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let detail = if obj.contains_key("op") && !obj.contains_key("method") {
            "the {op} protocol is not supported; send JSON-RPC 2.0 \
             ({\"jsonrpc\":\"2.0\",\"method\":…,\"params\":{…},\"id\":…})"
        } else {
            "jsonrpc must be \"2.0\""
        };
        return Err((id, RpcError::invalid_request(detail)));
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        _ => return Err((id, RpcError::invalid_request("method must be a string"))),
    };
    let params = match obj.remove("params") {
        None => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => return Err((id, RpcError::invalid_request("params must be an object"))),
    };
    Ok(Request { id, method, params })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_id_of_a_request_too_long_to_read_is_found_in_its_head() {
        use super::id_in_head;
        use serde_json::json;
        let cut = |line: &str| id_in_head(&line.as_bytes()[..line.len().min(60)]);
        let long = "x".repeat(100);
        let head =
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"m","params":{{"text":"{long}"}}}}"#);
        assert_eq!(cut(&head), json!(7));
        let spaced = format!(r#" {{ "id" : "a-1" , "params": "{long}" }}"#);
        assert_eq!(cut(&spaced), json!("a-1"));
        // After the value cut short, or cut itself: not known.
        let late = format!(r#"{{"params":"{long}","id":7}}"#);
        assert_eq!(cut(&late), json!(null));
        assert_eq!(id_in_head(br#"{"jsonrpc":"2.0","id":12"#), json!(null));
        assert_eq!(id_in_head(br#"{"id":{"a":1},"x":1}"#), json!(null));
        assert_eq!(id_in_head(b"not json"), json!(null));
        assert_eq!(id_in_head("{\"\u{e9}\":1,\"id\":2}".as_bytes()), json!(2));
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn envelopes() {
        let err = |line: &str| parse_request(line.as_bytes()).err().unwrap();
        assert_eq!(err("{").1.code, code::PARSE_ERROR);
        assert_eq!(err("{").0, Value::Null);
        assert_eq!(err("[]").1.code, code::INVALID_REQUEST);
        assert_eq!(err("3").1.code, code::INVALID_REQUEST);
        let (id, e) = err(r#"{"jsonrpc":"2.0","method":"pty/read"}"#);
        assert_eq!((id, e.code), (Value::Null, code::INVALID_REQUEST));
        let (id, e) = err(r#"{"jsonrpc":"2.0","method":"pty/read","id":null}"#);
        assert_eq!((id, e.code), (Value::Null, code::INVALID_REQUEST));
        let (id, e) = err(r#"{"method":"pty/read","id":4}"#);
        assert_eq!((id, e.code), (json!(4), code::INVALID_REQUEST));
        let (id, e) = err(r#"{"op":"read","id":"x"}"#);
        assert_eq!((id, e.code), (json!("x"), code::INVALID_REQUEST));
        assert!(e.message.contains("{op}"), "{}", e.message);
        let (_, e) = err(r#"{"jsonrpc":"2.0","method":"pty/read","params":[],"id":1}"#);
        assert_eq!(e.code, code::INVALID_REQUEST);
        let (_, e) = err(r#"{"jsonrpc":"2.0","method":7,"id":1}"#);
        assert_eq!(e.code, code::INVALID_REQUEST);
        let ok = parse_request(br#"{"jsonrpc":"2.0","method":"pty/status","id":"a"}"#)
            .ok()
            .unwrap();
        assert_eq!((ok.id, ok.method.as_str()), (json!("a"), "pty/status"));
        assert!(ok.params.is_empty());
    }
}
