//! What a `send` writes: its steps (text, pastes, named keys, raw hex, mouse gestures,
//! pauses) turned into the bytes the program reads, keys and mouse reports encoded for the
//! modes the program has set. One encoder for every front end (the host, `shotty serve`, MCP
//! through the host, scenarios).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::error::{ErrorCode, SessionError};
use crate::term::keys::{self, KeyEvent, KeyModes, Modifiers};
use crate::term::mouse::{self, Gesture, MouseButton, WheelDirection};
use crate::term::{FindScope, Terminal};

/// The longest pause one `send` may hold (all its `delay` steps together).
pub const MAX_SEND_DELAY: Duration = Duration::from_secs(60);

/// The most wheel notches one scroll step turns.
pub const MAX_SCROLL_COUNT: u16 = 1000;

/// One step of `send`. Its JSON form (`{"text": "ls"}`, `{"keys": "Enter"}`,
/// `{"mouse": {"action": "click", "row": 3, "col": 10}}`, `{"delay": 50}`) is part of the
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
    /// A key's release (kitty keyboard protocol, when the program asked for event types).
    #[serde(alias = "key-release")]
    KeyRelease(String),
    /// A key's auto-repeat (kitty keyboard protocol, when the program asked for event
    /// types).
    #[serde(alias = "key-repeat")]
    KeyRepeat(String),
    /// Text pasted (bracketed when the program asked for it).
    Paste(String),
    /// Bytes as hex digit pairs, written together or apart (`1b5b41`, `1b 5b 41`).
    #[serde(alias = "raw-hex")]
    RawHex(String),
    /// A mouse gesture, reported as the program's mouse mode asks.
    Mouse(MouseStep),
    /// A pause of this many milliseconds before the next step (so `Escape`, a pause, then
    /// `q` reaches the program as two keys, not as Alt+q).
    Delay(u64),
}

/// What a mouse step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(
    any(feature = "scenario", feature = "mcp"),
    derive(schemars::JsonSchema)
)]
#[serde(rename_all = "camelCase")]
pub enum MouseActionName {
    /// Press and release a button.
    Click,
    /// Two clicks.
    DoubleClick,
    /// Press at `row`,`col`, move to `toRow`,`toCol` holding the button, release.
    Drag,
    /// Move the pointer without a button.
    Move,
    /// Turn the wheel.
    Scroll,
}

/// A mouse button by name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(
    any(feature = "scenario", feature = "mcp"),
    derive(schemars::JsonSchema)
)]
#[serde(rename_all = "lowercase")]
pub enum ButtonName {
    /// The primary button (the default).
    #[default]
    Left,
    /// The middle button.
    Middle,
    /// The secondary button.
    Right,
}

/// A wheel direction by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(
    any(feature = "scenario", feature = "mcp"),
    derive(schemars::JsonSchema)
)]
#[serde(rename_all = "lowercase")]
pub enum ScrollName {
    /// Wheel up (towards older content).
    Up,
    /// Wheel down.
    Down,
    /// Tilt left.
    Left,
    /// Tilt right.
    Right,
}

/// A modifier held during a mouse step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(
    any(feature = "scenario", feature = "mcp"),
    derive(schemars::JsonSchema)
)]
#[serde(rename_all = "lowercase")]
pub enum ModifierName {
    /// Shift.
    Shift,
    /// Alt (reported like Meta: a mouse report has one bit for both).
    Alt,
    /// Meta.
    Meta,
    /// Ctrl.
    Ctrl,
}

/// A mouse step: where (a cell, 0-based as `read` reports the cursor, or the Nth occurrence
/// of a text on the screen) and what.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(
    any(feature = "scenario", feature = "mcp"),
    derive(schemars::JsonSchema)
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MouseStep {
    /// click, doubleClick, drag, move or scroll.
    pub action: Option<MouseActionName>,
    /// The row (0-based). A scroll without a position turns the wheel where the last mouse
    /// step left the pointer (the screen's centre before any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<usize>,
    /// The column (0-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub col: Option<usize>,
    /// Instead of `row`/`col`: the first cell of this text on the screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// With `text`: its Nth occurrence in screen order (1-based, default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<usize>,
    /// drag: where the button comes up (row).
    #[serde(default, alias = "to-row", skip_serializing_if = "Option::is_none")]
    pub to_row: Option<usize>,
    /// drag: where the button comes up (column).
    #[serde(default, alias = "to-col", skip_serializing_if = "Option::is_none")]
    pub to_col: Option<usize>,
    /// left (default), middle or right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<ButtonName>,
    /// scroll: up, down, left or right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<ScrollName>,
    /// scroll: notches (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u16>,
    /// Modifiers held: shift, alt, meta, ctrl.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mods: Vec<ModifierName>,
}

impl MouseStep {
    /// Checks what can be checked without the screen: the fields the action needs are there
    /// and the others are not.
    pub fn check(&self) -> Result<(), SessionError> {
        let bad = |m: &str| Err(SessionError::invalid_request(m));
        let Some(action) = self.action else {
            return bad("a mouse step needs an action: click, doubleClick, drag, move or scroll");
        };
        match (self.row, self.col, &self.text) {
            (Some(_), Some(_), None) | (None, None, Some(_)) => {}
            (None, None, None) if action == MouseActionName::Scroll => {}
            (None, None, None) => return bad("a mouse step needs row and col, or text"),
            (_, _, Some(_)) => return bad("a mouse step takes row and col or text, not both"),
            _ => return bad("row and col go together"),
        }
        if self.text.as_deref() == Some("") {
            return bad("the mouse step's text is empty");
        }
        if self.nth == Some(0) {
            return bad("nth counts from 1");
        }
        if self.nth.is_some() && self.text.is_none() {
            return bad("nth goes with text");
        }
        let drag = action == MouseActionName::Drag;
        match (self.to_row, self.to_col) {
            (Some(_), Some(_)) if drag => {}
            (None, None) if !drag => {}
            _ if drag => return bad("a drag needs toRow and toCol"),
            _ => return bad("toRow and toCol are for a drag"),
        }
        let scroll = action == MouseActionName::Scroll;
        if scroll != self.direction.is_some() {
            return bad(if scroll {
                "a scroll needs a direction: up, down, left or right"
            } else {
                "direction is for a scroll"
            });
        }
        if self.count.is_some() && !scroll {
            return bad("count is for a scroll");
        }
        if self.count.is_some_and(|c| c == 0 || c > MAX_SCROLL_COUNT) {
            return bad("count is 1-1000");
        }
        if self.button.is_some()
            && matches!(action, MouseActionName::Move | MouseActionName::Scroll)
        {
            return bad("a button is for click, doubleClick and drag");
        }
        Ok(())
    }

    /// The modifiers held.
    fn modifiers(&self) -> Modifiers {
        let mut m = Modifiers::NONE;
        for name in &self.mods {
            match name {
                ModifierName::Shift => m.shift = true,
                ModifierName::Alt => m.alt = true,
                ModifierName::Meta => m.meta = true,
                ModifierName::Ctrl => m.ctrl = true,
            }
        }
        m
    }

    /// Where the step aims on `term`'s screen.
    fn target(&self, term: &Terminal) -> Result<Option<(usize, usize)>, SessionError> {
        let (row, col) = match (self.row, self.col, &self.text) {
            (Some(row), Some(col), _) => (row, col),
            (_, _, Some(text)) => {
                let nth = self.nth.unwrap_or(1);
                let found = term.find(FindScope::Screen, None, |line| {
                    line.match_indices(text.as_str())
                        .map(|(i, m)| i..i + m.len())
                        .collect()
                });
                let place = found.get(nth - 1).ok_or_else(|| {
                    SessionError::new(
                        ErrorCode::InvalidOperation,
                        format!(
                            "{text:?} is on the screen {} time(s), so there is no occurrence {nth} to click",
                            found.len()
                        ),
                    )
                })?;
                (place.row as usize, place.col)
            }
            _ => return Ok(None),
        };
        Ok(Some(check_cell(term, row, col)?))
    }

    /// The gesture on `term`'s screen, `pointer` being where the last mouse step left the
    /// pointer.
    fn gesture(
        &self,
        term: &Terminal,
        pointer: Option<(usize, usize)>,
    ) -> Result<Gesture, SessionError> {
        self.check()?;
        let button = match self.button.unwrap_or_default() {
            ButtonName::Left => MouseButton::Left,
            ButtonName::Middle => MouseButton::Middle,
            ButtonName::Right => MouseButton::Right,
        };
        let at = self.target(term)?;
        let centre = (term.height() / 2, term.width() / 2);
        let at_or = |at: Option<(usize, usize)>| at.unwrap_or(centre);
        Ok(match self.action.unwrap_or(MouseActionName::Click) {
            MouseActionName::Click => Gesture::Click {
                at: at_or(at),
                button,
                count: 1,
            },
            MouseActionName::DoubleClick => Gesture::Click {
                at: at_or(at),
                button,
                count: 2,
            },
            MouseActionName::Drag => Gesture::Drag {
                from: at_or(at),
                to: check_cell(
                    term,
                    self.to_row.unwrap_or_default(),
                    self.to_col.unwrap_or_default(),
                )?,
                button,
            },
            MouseActionName::Move => Gesture::Move { to: at_or(at) },
            MouseActionName::Scroll => Gesture::Scroll {
                at: at.or(pointer).unwrap_or(centre),
                direction: match self.direction.unwrap_or(ScrollName::Down) {
                    ScrollName::Up => WheelDirection::Up,
                    ScrollName::Down => WheelDirection::Down,
                    ScrollName::Left => WheelDirection::Left,
                    ScrollName::Right => WheelDirection::Right,
                },
                count: self.count.unwrap_or(1),
            },
        })
    }
}

/// Refuses a cell outside the screen (`invalid_request`).
fn check_cell(term: &Terminal, row: usize, col: usize) -> Result<(usize, usize), SessionError> {
    if row >= term.height() || col >= term.width() {
        return Err(SessionError::invalid_request(format!(
            "row {row}, column {col} is outside the {}x{} screen (rows and columns count from 0)",
            term.width(),
            term.height()
        )));
    }
    Ok((row, col))
}

impl SendStep {
    /// Checks the step without writing anything: key names, hex digits, a mouse step's
    /// fields. (Whether a mouse step can be reported depends on the program's modes when it
    /// is sent.)
    pub fn check(&self) -> Result<(), SessionError> {
        match self {
            SendStep::Text(_) | SendStep::Paste(_) => Ok(()),
            SendStep::Keys(k) | SendStep::KeyRelease(k) | SendStep::KeyRepeat(k) => {
                keys::check_key_name(k)
                    .map_err(|e| SessionError::new(ErrorCode::UnsupportedKey, e.to_string()))
            }
            SendStep::RawHex(h) => hex_bytes(h).map(drop),
            SendStep::Mouse(m) => m.check(),
            SendStep::Delay(ms) if Duration::from_millis(*ms) > MAX_SEND_DELAY => {
                Err(SessionError::invalid_request(format!(
                    "a delay is at most {} s",
                    MAX_SEND_DELAY.as_secs()
                )))
            }
            SendStep::Delay(_) => Ok(()),
        }
    }

    /// Checks every step and their delays together (at most [`MAX_SEND_DELAY`]).
    pub fn check_all(steps: &[SendStep]) -> Result<(), SessionError> {
        let mut paused = Duration::ZERO;
        for step in steps {
            step.check()?;
            if let SendStep::Delay(ms) = step {
                paused += Duration::from_millis(*ms);
            }
        }
        if paused > MAX_SEND_DELAY {
            return Err(SessionError::invalid_request(format!(
                "the delays of one send add up to at most {} s",
                MAX_SEND_DELAY.as_secs()
            )));
        }
        Ok(())
    }
}

/// The bytes of `steps` (none of them a delay: those are the caller's), in order, for a
/// terminal in the state `term` shows, `pointer` being where the last mouse step left the
/// pointer (updated as mouse steps move it). Every step is encoded before anything is
/// returned, so one bad key, hex digit or mouse step sends nothing.
pub fn encode_steps(
    steps: &[SendStep],
    term: &Terminal,
    pointer: &mut Option<(usize, usize)>,
) -> Result<Vec<u8>, SessionError> {
    let modes = term.screen().modes();
    let mut bytes = Vec::new();
    let mut moved = *pointer;
    for step in steps {
        match step {
            SendStep::Text(t) => bytes.extend_from_slice(t.as_bytes()),
            SendStep::Paste(t) => bytes.extend(keys::paste_bytes(t, modes.bracketed_paste)),
            SendStep::Keys(k) => bytes.extend(
                keys::encode_keys(k, KeyModes::from(modes))
                    .map_err(|e| SessionError::new(ErrorCode::UnsupportedKey, e.to_string()))?,
            ),
            SendStep::KeyRelease(k) | SendStep::KeyRepeat(k) => {
                let event = match step {
                    SendStep::KeyRelease(_) => KeyEvent::Release,
                    _ => KeyEvent::Repeat,
                };
                bytes.extend(
                    keys::encode_key_event(k, KeyModes::from(modes), event).map_err(|e| {
                        SessionError::new(ErrorCode::InvalidOperation, e.to_string())
                    })?,
                );
            }
            SendStep::RawHex(h) => bytes.extend(hex_bytes(h)?),
            SendStep::Mouse(m) => {
                let gesture = m.gesture(term, moved)?;
                let events = gesture.events(m.modifiers());
                bytes.extend(
                    mouse::encode_all(&events, modes.mouse_tracking, modes.mouse_encoding)
                        .map_err(|e| {
                            SessionError::new(ErrorCode::InvalidOperation, e.to_string())
                        })?,
                );
                moved = Some(gesture.end());
            }
            SendStep::Delay(_) => {
                return Err(SessionError::new(
                    ErrorCode::SessionError,
                    "a delay reached the encoder",
                ));
            }
        }
    }
    *pointer = moved;
    Ok(bytes)
}

/// `--raw-hex` as bytes: hex digit pairs, written together or apart (`1b5b41`, `1b 5b 41`);
/// space between the two digits of a byte (`4 1`) is refused, as is anything but hex digits.
fn hex_bytes(hex: &str) -> Result<Vec<u8>, SessionError> {
    let digit = |c: char| {
        c.to_digit(16)
            .filter(|_| c.is_ascii())
            .and_then(|d| u8::try_from(d).ok())
            .ok_or_else(|| {
                SessionError::invalid_request(format!(
                    "--raw-hex takes hex digits (0-9, a-f), not {c:?}"
                ))
            })
    };
    let mut bytes = Vec::new();
    for group in hex.split_whitespace() {
        let digits: Vec<u8> = group.chars().map(digit).collect::<Result<_, _>>()?;
        if !digits.len().is_multiple_of(2) {
            return Err(SessionError::invalid_request(format!(
                "--raw-hex takes whole bytes, two hex digits each: {group:?} has {}",
                digits.len()
            )));
        }
        bytes.extend(digits.chunks(2).map(|p| p[0] << 4 | p[1]));
    }
    if bytes.is_empty() {
        return Err(SessionError::invalid_request(
            "--raw-hex needs at least one byte (two hex digits)",
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_steps() {
        assert_eq!(hex_bytes("1B5B41").unwrap(), b"\x1b[A");
        assert_eq!(hex_bytes("1b 5b 41").unwrap(), b"\x1b[A");
        assert_eq!(hex_bytes(" 1b5b\t41 ").unwrap(), b"\x1b[A");
        // Space inside a byte is refused, not joined.
        assert!(hex_bytes("4 1").is_err());
        assert!(hex_bytes("1b5 b41").is_err());
        assert!(hex_bytes("   ").is_err());
        assert!(hex_bytes("").is_err());
        assert!(hex_bytes("abc").is_err());
        assert!(hex_bytes("zz").is_err());
        // Not ASCII: refused, never sliced inside the character.
        assert!(hex_bytes("aéb").is_err());
        assert!(hex_bytes("é1").is_err());
        assert!(hex_bytes("１２").is_err());
    }

    fn encode(steps: &[SendStep], term: &Terminal) -> Result<Vec<u8>, SessionError> {
        encode_steps(steps, term, &mut None)
    }

    #[test]
    fn steps_follow_the_modes_and_a_bad_one_sends_nothing() {
        let mut term = Terminal::new(80, 24);
        let steps = [
            SendStep::Text("ls".into()),
            SendStep::Keys("Up".into()),
            SendStep::Paste("x".into()),
            SendStep::RawHex("0d".into()),
        ];
        assert_eq!(encode(&steps, &term).unwrap(), b"ls\x1b[Ax\r");
        term.advance(b"\x1b[?1h\x1b[?2004h");
        assert_eq!(
            encode(&steps, &term).unwrap(),
            b"ls\x1bOA\x1b[200~x\x1b[201~\r"
        );
        let bad = [SendStep::Text("ls".into()), SendStep::Keys("Nope".into())];
        let err = encode(&bad, &term).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnsupportedKey);
    }

    fn mouse(json: serde_json::Value) -> SendStep {
        SendStep::Mouse(serde_json::from_value(json).unwrap())
    }

    #[test]
    fn a_mouse_step_needs_tracking_and_follows_the_programs_encoding() {
        let mut term = Terminal::new(80, 24);
        term.advance(b"  [ OK ]  [ OK ]");
        let click = mouse(serde_json::json!({"action": "click", "row": 2, "col": 4}));
        let err = encode(std::slice::from_ref(&click), &term).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidOperation);
        assert!(err.message.contains("mouse tracking"), "{}", err.message);
        term.advance(b"\x1b[?1000h\x1b[?1006h");
        assert_eq!(
            encode(std::slice::from_ref(&click), &term).unwrap(),
            b"\x1b[<0;5;3M\x1b[<0;5;3m"
        );
        // The second "OK" starts in column 12; the scroll that follows turns the wheel there.
        let steps = [
            mouse(
                serde_json::json!({"action": "click", "text": "OK", "nth": 2, "button": "right", "mods": ["ctrl"]}),
            ),
            mouse(serde_json::json!({"action": "scroll", "direction": "up"})),
        ];
        let mut pointer = None;
        assert_eq!(
            encode_steps(&steps, &term, &mut pointer).unwrap(),
            b"\x1b[<18;13;1M\x1b[<18;13;1m\x1b[<64;13;1M"
        );
        assert_eq!(pointer, Some((0, 12)));
        let third = mouse(serde_json::json!({"action": "click", "text": "OK", "nth": 3}));
        assert_eq!(
            encode(&[third], &term).unwrap_err().code,
            ErrorCode::InvalidOperation
        );
        let outside = mouse(serde_json::json!({"action": "click", "row": 24, "col": 0}));
        assert_eq!(
            encode(&[outside], &term).unwrap_err().code,
            ErrorCode::InvalidRequest
        );
    }

    #[test]
    fn mouse_steps_are_checked_before_anything_is_sent() {
        let bad = [
            serde_json::json!({"row": 1, "col": 1}),
            serde_json::json!({"action": "click", "row": 1}),
            serde_json::json!({"action": "click", "row": 1, "col": 1, "text": "x"}),
            serde_json::json!({"action": "click", "text": ""}),
            serde_json::json!({"action": "click", "text": "x", "nth": 0}),
            serde_json::json!({"action": "drag", "row": 1, "col": 1}),
            serde_json::json!({"action": "click", "row": 1, "col": 1, "toRow": 2, "toCol": 2}),
            serde_json::json!({"action": "scroll"}),
            serde_json::json!({"action": "scroll", "direction": "up", "count": 0}),
            serde_json::json!({"action": "move", "row": 1, "col": 1, "button": "left"}),
        ];
        for json in bad {
            let SendStep::Mouse(m) = mouse(json.clone()) else {
                unreachable!()
            };
            assert!(m.check().is_err(), "{json} was accepted");
        }
        assert!(serde_json::from_value::<MouseStep>(serde_json::json!({"action": "tap"})).is_err());
        assert!(SendStep::check_all(&[SendStep::Delay(40_000), SendStep::Delay(40_000)]).is_err());
        assert!(SendStep::check_all(&[SendStep::Delay(50), SendStep::Keys("q".into())]).is_ok());
    }
}
