//! What a `send` writes: its steps (text, pastes, named keys, raw hex) turned into the bytes
//! the program reads, keys encoded for the modes the program has set. One encoder for every
//! front end (the host, `shotty serve`, MCP through the host).

use serde::{Deserialize, Serialize};

use super::error::{ErrorCode, SessionError};
use crate::term::Modes;
use crate::term::keys::{self, KeyModes};

/// One step of `send`. Its JSON form (`{"text": "ls"}`, `{"keys": "Enter"}`) is part of the
/// host protocol, and a scenario file's `send` inputs are written in it too.
#[derive(Clone, Debug, Deserialize, Serialize)]
// Scenario files' JSON Schema is derived, where the step is one input of a `send`.
#[cfg_attr(feature = "scenario", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "scenario", schemars(rename = "Input"))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum SendStep {
    /// Literal text.
    Text(String),
    /// Key names (`Enter`, `Ctrl+C`, `Escape`…).
    Keys(String),
    /// Text pasted (bracketed when the program asked for it).
    Paste(String),
    /// Bytes as hex digit pairs.
    #[serde(alias = "raw-hex")]
    RawHex(String),
}

/// The bytes of `steps`, in order, for a terminal in `modes`. Every step is encoded before
/// anything is returned, so one bad key or hex digit sends nothing.
pub fn encode_steps(steps: &[SendStep], modes: &Modes) -> Result<Vec<u8>, SessionError> {
    let mut bytes = Vec::new();
    for step in steps {
        match step {
            SendStep::Text(t) => bytes.extend_from_slice(t.as_bytes()),
            SendStep::Paste(t) => bytes.extend(keys::paste_bytes(t, modes.bracketed_paste)),
            SendStep::Keys(k) => bytes.extend(
                keys::encode_keys(k, KeyModes::from(modes))
                    .map_err(|e| SessionError::new(ErrorCode::UnsupportedKey, e.to_string()))?,
            ),
            SendStep::RawHex(h) => bytes.extend(hex_bytes(h)?),
        }
    }
    Ok(bytes)
}

/// `--raw-hex` digits (whitespace between them ignored) as bytes.
fn hex_bytes(hex: &str) -> Result<Vec<u8>, SessionError> {
    let digits: Vec<u8> = hex
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| {
            c.to_digit(16)
                .filter(|_| c.is_ascii())
                .and_then(|d| u8::try_from(d).ok())
                .ok_or_else(|| {
                    SessionError::invalid_request(format!(
                        "--raw-hex takes hex digits (0-9, a-f), not {c:?}"
                    ))
                })
        })
        .collect::<Result<_, _>>()?;
    if digits.is_empty() || !digits.len().is_multiple_of(2) {
        return Err(SessionError::invalid_request(
            "--raw-hex needs a non-empty, even number of hex digits",
        ));
    }
    Ok(digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_steps() {
        assert_eq!(hex_bytes("1B5B41").unwrap(), b"\x1b[A");
        assert_eq!(hex_bytes("1b 5b 41").unwrap(), b"\x1b[A");
        assert!(hex_bytes("").is_err());
        assert!(hex_bytes("abc").is_err());
        assert!(hex_bytes("zz").is_err());
        // Not ASCII: refused, never sliced inside the character.
        assert!(hex_bytes("aéb").is_err());
        assert!(hex_bytes("é1").is_err());
        assert!(hex_bytes("１２").is_err());
    }

    #[test]
    fn steps_follow_the_modes_and_a_bad_one_sends_nothing() {
        let mut modes = Modes::default();
        let steps = [
            SendStep::Text("ls".into()),
            SendStep::Keys("Up".into()),
            SendStep::Paste("x".into()),
            SendStep::RawHex("0d".into()),
        ];
        assert_eq!(encode_steps(&steps, &modes).unwrap(), b"ls\x1b[Ax\r");
        modes.cursor_keys_application = true;
        modes.bracketed_paste = true;
        assert_eq!(
            encode_steps(&steps, &modes).unwrap(),
            b"ls\x1bOA\x1b[200~x\x1b[201~\r"
        );
        let bad = [SendStep::Text("ls".into()), SendStep::Keys("Nope".into())];
        let err = encode_steps(&bad, &modes).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnsupportedKey);
    }
}
