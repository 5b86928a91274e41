//! The methods' params, read from a request's `params` object.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::rpc::RpcError;
use crate::session::error::ErrorCode;
use crate::session::protocol::SendStep;
use crate::term::keys;

pub(super) fn params<T: serde::de::DeserializeOwned>(
    params: Map<String, Value>,
) -> Result<T, RpcError> {
    serde_json::from_value(Value::Object(params)).map_err(RpcError::invalid_params)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NoParams {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReadParams {
    #[serde(default)]
    pub(super) top: Option<usize>,
    #[serde(default)]
    pub(super) bottom: Option<usize>,
    #[serde(default)]
    pub(super) start: Option<usize>,
    #[serde(default)]
    pub(super) end: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WaitParams {
    #[serde(default, rename = "match")]
    pub(super) pattern: Option<String>,
    #[serde(default)]
    pub(super) timeout: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MarkParams {
    #[serde(default)]
    pub(super) label: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct ExportParams {
    pub(super) path: std::path::PathBuf,
    #[serde(default)]
    pub(super) show_keys: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ResizeParams {
    pub(super) cols: u16,
    pub(super) rows: u16,
}

/// `pty/write`'s `action`: `{text}`, `{key}` or a non-empty array of them, as send steps.
/// Every key is checked here, before anything is written.
pub(super) fn parse_actions(mut params: Map<String, Value>) -> Result<Vec<SendStep>, RpcError> {
    let action = params.remove("action");
    if let Some(field) = params.keys().next() {
        return Err(RpcError::invalid_params(format!(
            "unknown field `{field}`; pty/write takes {{\"action\": …}}"
        )));
    }
    let one = |value: &Value| -> Result<SendStep, RpcError> {
        let Some(obj) = value.as_object() else {
            return Err(RpcError::invalid_params(
                "each action is an object: {\"text\": …} or {\"key\": …}",
            ));
        };
        if let Some(field) = obj.keys().find(|k| *k != "text" && *k != "key") {
            return Err(RpcError::invalid_params(format!(
                "unknown action field `{field}`; an action is {{\"text\": …}} or {{\"key\": …}}"
            )));
        }
        match (obj.get("text"), obj.get("key")) {
            (Some(_), Some(_)) => Err(RpcError::invalid_params(
                "a write action takes text or key, not both",
            )),
            (None, None) => Err(RpcError::invalid_params(
                "an empty action; give {\"text\": …} or {\"key\": …}",
            )),
            (Some(Value::String(t)), None) => Ok(SendStep::Text(t.clone())),
            (Some(_), None) => Err(RpcError::invalid_params("text must be a string")),
            (None, Some(Value::String(k))) => keys::parse_key(k)
                .map(|_| SendStep::Keys(k.clone()))
                .map_err(|e| {
                    let mut err = RpcError::invalid_params(e);
                    err.data = Some(json!({ "code": ErrorCode::UnsupportedKey }));
                    err
                }),
            (None, Some(_)) => Err(RpcError::invalid_params("key must be a string")),
        }
    };
    match action {
        None => Err(RpcError::invalid_params(
            "missing `action`: {\"text\": …}, {\"key\": …} or an array of them",
        )),
        Some(Value::Array(items)) if items.is_empty() => {
            Err(RpcError::invalid_params("`action` is an empty array"))
        }
        Some(Value::Array(items)) => items.iter().map(one).collect(),
        Some(value @ Value::Object(_)) => Ok(vec![one(&value)?]),
        Some(_) => Err(RpcError::invalid_params(
            "`action` is an object ({\"text\": …} or {\"key\": …}) or an array of them",
        )),
    }
}
