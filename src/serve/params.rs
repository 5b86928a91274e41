//! The methods' params, read from a request's `params` object.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::rpc::RpcError;
use crate::session::error::ErrorCode;
use crate::session::protocol::SendStep;

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

/// `pty/write`'s `action`: `{text}`, `{key}`, `{mouse}`, `{delay}` or a non-empty array of
/// them, as send steps. Every step is checked here, before anything is written.
pub(super) fn parse_actions(mut params: Map<String, Value>) -> Result<Vec<SendStep>, RpcError> {
    const SHAPES: &str = "{\"text\": …}, {\"key\": …}, {\"mouse\": {…}} or {\"delay\": ms}";
    let action = params.remove("action");
    if let Some(field) = params.keys().next() {
        return Err(RpcError::invalid_params(format!(
            "unknown field `{field}`; pty/write takes {{\"action\": …}}"
        )));
    }
    let one = |value: &Value| -> Result<SendStep, RpcError> {
        let Some(obj) = value.as_object() else {
            return Err(RpcError::invalid_params(format!(
                "each action is an object: {SHAPES}"
            )));
        };
        let mut fields = obj.iter();
        let (name, value) = match (fields.next(), fields.next()) {
            (Some(field), None) => field,
            (None, _) => {
                return Err(RpcError::invalid_params(format!(
                    "an empty action; give {SHAPES}"
                )));
            }
            (Some(_), Some(_)) => {
                return Err(RpcError::invalid_params(format!(
                    "an action has one field: {SHAPES}"
                )));
            }
        };
        let typed = |what: &str| RpcError::invalid_params(format!("{name} must be {what}"));
        let step = match (name.as_str(), value) {
            ("text", Value::String(t)) => SendStep::Text(t.clone()),
            ("text", _) => return Err(typed("a string")),
            ("key", Value::String(k)) => SendStep::Keys(k.clone()),
            ("key", _) => return Err(typed("a string")),
            ("mouse", m) => SendStep::Mouse(
                serde_json::from_value(m.clone()).map_err(RpcError::invalid_params)?,
            ),
            ("delay", d) => SendStep::Delay(
                d.as_u64()
                    .ok_or_else(|| typed("a number of milliseconds"))?,
            ),
            (other, _) => {
                return Err(RpcError::invalid_params(format!(
                    "unknown action field `{other}`; an action is {SHAPES}"
                )));
            }
        };
        step.check().map_err(|e| {
            let mut err = RpcError::invalid_params(e.message);
            if e.code == ErrorCode::UnsupportedKey {
                err.data = Some(json!({ "code": ErrorCode::UnsupportedKey }));
            }
            err
        })?;
        Ok(step)
    };
    match action {
        None => Err(RpcError::invalid_params(format!(
            "missing `action`: {SHAPES} or an array of them"
        ))),
        Some(Value::Array(items)) if items.is_empty() => {
            Err(RpcError::invalid_params("`action` is an empty array"))
        }
        Some(Value::Array(items)) => items.iter().map(one).collect(),
        Some(value @ Value::Object(_)) => Ok(vec![one(&value)?]),
        Some(_) => Err(RpcError::invalid_params(format!(
            "`action` is an object ({SHAPES}) or an array of them"
        ))),
    }
}
