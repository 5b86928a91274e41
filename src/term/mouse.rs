//! Mouse reports: what a terminal sends a program for a press, a release, a motion or a wheel
//! turn, in the tracking mode and coordinate encoding the program enabled.
//!
//! After xterm's ctlseqs, "Mouse Tracking":
//!
//! * **Which events** ([`MouseTracking`]): X10 (`?9`) reports presses only, without
//!   modifiers; normal tracking (`?1000`) presses and releases; button-event tracking (`?1002`)
//!   adds motion while a button is held; any-event tracking (`?1003`) adds every motion.
//!   An event the mode does not report is not sent ([`encode`] answers `None`), exactly as a
//!   terminal drops it.
//! * **The button code** `Cb`: 0 left, 1 middle, 2 right, 3 release (or motion without a
//!   button); wheel up/down/left/right 64/65/66/67; plus 4 Shift, 8 Alt (or Meta), 16 Ctrl,
//!   32 motion. Wheel turns are presses without a release.
//! * **The encoding** ([`MouseEncoding`]) of `Cb` and the 1-based column and row:
//!   the default `CSI M Cb Cx Cy` with each value plus 32 in one byte (positions up to 223),
//!   UTF-8 (`?1005`: the same values as UTF-8 characters, positions up to 2015), SGR
//!   (`?1006`: `CSI < Cb ; Cx ; Cy M`, `m` for a release, which names its button) and urxvt
//!   (`?1015`: `CSI Cb+32 ; Cx ; Cy M`). A position the encoding cannot carry is an error
//!   rather than a report at the wrong place.

use std::fmt;

use super::keys::Modifiers;
use super::modes::{MouseEncoding, MouseTracking};

/// A mouse button.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The wheel button.
    Middle,
    /// The secondary button.
    Right,
}

impl MouseButton {
    /// The button's code in a report.
    fn code(self) -> u32 {
        match self {
            MouseButton::Left => 0,
            MouseButton::Middle => 1,
            MouseButton::Right => 2,
        }
    }
}

/// A direction of the wheel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WheelDirection {
    /// Away from the user: the content scrolls down, the view up.
    Up,
    /// Towards the user.
    Down,
    /// Tilted left.
    Left,
    /// Tilted right.
    Right,
}

impl WheelDirection {
    fn code(self) -> u32 {
        match self {
            WheelDirection::Up => 64,
            WheelDirection::Down => 65,
            WheelDirection::Left => 66,
            WheelDirection::Right => 67,
        }
    }
}

/// What the mouse did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MouseAction {
    /// A button went down.
    Press(MouseButton),
    /// A button came up.
    Release(MouseButton),
    /// The pointer moved to another cell, with this button held (or none).
    Motion(Option<MouseButton>),
    /// One notch of the wheel.
    Wheel(WheelDirection),
}

/// One mouse event at a cell (0-based, as `read` reports the cursor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MouseEvent {
    /// What happened.
    pub action: MouseAction,
    /// 0-based row.
    pub row: usize,
    /// 0-based column.
    pub col: usize,
    /// Modifier keys held (Meta counts as Alt: a report has one bit for both).
    pub mods: Modifiers,
}

/// Why a mouse event cannot be reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MouseError {
    /// The program has not enabled mouse tracking: it would read the report as typed text.
    TrackingOff,
    /// The position is beyond what the program's encoding can carry.
    OutOfRange {
        /// 0-based row.
        row: usize,
        /// 0-based column.
        col: usize,
        /// The largest 1-based position the encoding carries.
        max: usize,
    },
}

impl fmt::Display for MouseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MouseError::TrackingOff => write!(
                f,
                "the program has not turned mouse tracking on (modes 9, 1000, 1002 or 1003), \
                 so it would read a mouse report as typed text"
            ),
            MouseError::OutOfRange { row, col, max } => write!(
                f,
                "row {row}, column {col} is beyond position {max}, the most the program's mouse \
                 encoding can report (it has not enabled SGR mouse mode 1006)"
            ),
        }
    }
}

impl std::error::Error for MouseError {}

/// The largest 1-based position the default encoding carries (32 + 223 = 255).
const MAX_DEFAULT_POSITION: usize = 223;
/// The largest the UTF-8 encoding carries (32 + 2015 = 2047, a two-byte character).
const MAX_UTF8_POSITION: usize = 2015;

/// The report of `event` for a program in `tracking` mode with `encoding`; `Ok(None)` when
/// that mode does not report this kind of event (a release in X10 mode, a motion in normal
/// tracking, a motion without a button in button-event tracking).
pub fn encode(
    event: &MouseEvent,
    tracking: MouseTracking,
    encoding: MouseEncoding,
) -> Result<Option<Vec<u8>>, MouseError> {
    let reported = match (tracking, event.action) {
        (MouseTracking::Off, _) => return Err(MouseError::TrackingOff),
        (_, MouseAction::Press(_) | MouseAction::Wheel(_)) => true,
        (MouseTracking::X10, _) => false,
        (_, MouseAction::Release(_)) => true,
        (MouseTracking::Normal, MouseAction::Motion(_)) => false,
        (MouseTracking::ButtonEvent, MouseAction::Motion(held)) => held.is_some(),
        (MouseTracking::AnyEvent, MouseAction::Motion(_)) => true,
    };
    if !reported {
        return Ok(None);
    }
    let mut cb = match event.action {
        MouseAction::Press(b) => b.code(),
        // Only SGR names the released button; the older encodings say "a button came up".
        MouseAction::Release(b) if encoding == MouseEncoding::Sgr => b.code(),
        MouseAction::Release(_) => 3,
        MouseAction::Motion(held) => 32 + held.map_or(3, MouseButton::code),
        MouseAction::Wheel(d) => d.code(),
    };
    // X10 mode reports no modifiers.
    if tracking != MouseTracking::X10 {
        let m = event.mods;
        cb += 4 * u32::from(m.shift) + 8 * u32::from(m.alt || m.meta) + 16 * u32::from(m.ctrl);
    }
    let (x, y) = (event.col + 1, event.row + 1);
    let max = match encoding {
        MouseEncoding::Default => MAX_DEFAULT_POSITION,
        MouseEncoding::Utf8 => MAX_UTF8_POSITION,
        MouseEncoding::Sgr | MouseEncoding::Urxvt => usize::MAX,
    };
    if x > max || y > max {
        return Err(MouseError::OutOfRange {
            row: event.row,
            col: event.col,
            max,
        });
    }
    let bytes = match encoding {
        MouseEncoding::Sgr => {
            let last = if matches!(event.action, MouseAction::Release(_)) {
                'm'
            } else {
                'M'
            };
            format!("\x1b[<{cb};{x};{y}{last}").into_bytes()
        }
        MouseEncoding::Urxvt => format!("\x1b[{};{x};{y}M", cb + 32).into_bytes(),
        MouseEncoding::Default => {
            // Each value fits one byte: the range check above bounds the positions, and the
            // largest button code (67 + 28) plus 32 is below 256.
            let byte = |v: usize| u8::try_from(v + 32).unwrap_or(u8::MAX);
            vec![0x1b, b'[', b'M', byte(cb as usize), byte(x), byte(y)]
        }
        MouseEncoding::Utf8 => {
            let mut out = b"\x1b[M".to_vec();
            for v in [cb as usize, x, y] {
                let c = char::from_u32((v + 32) as u32).unwrap_or(char::MAX);
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            out
        }
    };
    Ok(Some(bytes))
}

/// The reports of `events`, in order, dropping those the mode does not report; the first
/// event that cannot be reported fails the whole sequence, so nothing half-done is sent.
pub fn encode_all(
    events: &[MouseEvent],
    tracking: MouseTracking,
    encoding: MouseEncoding,
) -> Result<Vec<u8>, MouseError> {
    let mut out = Vec::new();
    for event in events {
        if let Some(bytes) = encode(event, tracking, encoding)? {
            out.extend(bytes);
        }
    }
    Ok(out)
}

/// A gesture a person makes with the mouse, as the events a terminal sees for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gesture {
    /// Press and release `button` at a cell, `count` times (2 for a double click).
    Click {
        /// Where.
        at: (usize, usize),
        /// Which button.
        button: MouseButton,
        /// How many clicks.
        count: u8,
    },
    /// Press `button` at `from`, move cell by cell to `to` holding it, release there.
    Drag {
        /// Where the button goes down.
        from: (usize, usize),
        /// Where it comes up.
        to: (usize, usize),
        /// Which button.
        button: MouseButton,
    },
    /// Move the pointer to a cell, no button held.
    Move {
        /// Where to.
        to: (usize, usize),
    },
    /// Turn the wheel `count` notches at a cell.
    Scroll {
        /// Where the pointer is.
        at: (usize, usize),
        /// Which way.
        direction: WheelDirection,
        /// How many notches.
        count: u16,
    },
}

impl Gesture {
    /// The events of the gesture, each with `mods` held.
    pub fn events(&self, mods: Modifiers) -> Vec<MouseEvent> {
        let event = |action, (row, col): (usize, usize)| MouseEvent {
            action,
            row,
            col,
            mods,
        };
        match *self {
            Gesture::Click { at, button, count } => (0..count)
                .flat_map(|_| {
                    [
                        event(MouseAction::Press(button), at),
                        event(MouseAction::Release(button), at),
                    ]
                })
                .collect(),
            Gesture::Drag { from, to, button } => {
                let mut events = vec![event(MouseAction::Press(button), from)];
                events.extend(
                    line(from, to)
                        .skip(1)
                        .map(|cell| event(MouseAction::Motion(Some(button)), cell)),
                );
                events.push(event(MouseAction::Release(button), to));
                events
            }
            Gesture::Move { to } => vec![event(MouseAction::Motion(None), to)],
            Gesture::Scroll {
                at,
                direction,
                count,
            } => (0..count)
                .map(|_| event(MouseAction::Wheel(direction), at))
                .collect(),
        }
    }

    /// Where the pointer is after the gesture.
    pub fn end(&self) -> (usize, usize) {
        match *self {
            Gesture::Click { at, .. } | Gesture::Scroll { at, .. } => at,
            Gesture::Drag { to, .. } | Gesture::Move { to } => to,
        }
    }
}

/// The cells a pointer crosses going straight from `from` to `to`, both included, one per
/// step along the longer axis (a motion report is sent per cell entered, as a terminal does).
fn line(from: (usize, usize), to: (usize, usize)) -> impl Iterator<Item = (usize, usize)> {
    let (r0, c0) = (from.0 as f64, from.1 as f64);
    let (dr, dc) = (to.0 as f64 - r0, to.1 as f64 - c0);
    let steps = from.0.abs_diff(to.0).max(from.1.abs_diff(to.1));
    (0..=steps).map(move |i| {
        if steps == 0 {
            return from;
        }
        let t = i as f64 / steps as f64;
        (
            (r0 + dr * t).round() as usize,
            (c0 + dc * t).round() as usize,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(action: MouseAction, row: usize, col: usize) -> MouseEvent {
        MouseEvent {
            action,
            row,
            col,
            mods: Modifiers::NONE,
        }
    }

    fn report(event: MouseEvent, tracking: MouseTracking, encoding: MouseEncoding) -> Vec<u8> {
        encode(&event, tracking, encoding).unwrap().unwrap()
    }

    const LEFT: MouseAction = MouseAction::Press(MouseButton::Left);

    #[test]
    fn each_encoding_writes_a_left_press_at_row_2_column_4_as_xterm_does() {
        let e = at(LEFT, 2, 4);
        let normal = MouseTracking::Normal;
        // ctlseqs: CSI M Cb Cx Cy, each value + 32, 1-based: Cx = 5 + 32, Cy = 3 + 32.
        assert_eq!(report(e, normal, MouseEncoding::Default), b"\x1b[M %#");
        assert_eq!(report(e, normal, MouseEncoding::Utf8), b"\x1b[M %#");
        assert_eq!(report(e, normal, MouseEncoding::Sgr), b"\x1b[<0;5;3M");
        assert_eq!(report(e, normal, MouseEncoding::Urxvt), b"\x1b[32;5;3M");
    }

    #[test]
    fn a_release_names_its_button_only_in_sgr() {
        let e = at(MouseAction::Release(MouseButton::Right), 0, 0);
        let normal = MouseTracking::Normal;
        assert_eq!(report(e, normal, MouseEncoding::Sgr), b"\x1b[<2;1;1m");
        assert_eq!(report(e, normal, MouseEncoding::Default), b"\x1b[M#!!");
        assert_eq!(report(e, normal, MouseEncoding::Urxvt), b"\x1b[35;1;1M");
    }

    #[test]
    fn modifiers_add_4_8_16_and_x10_mode_drops_them() {
        let mut e = at(MouseAction::Press(MouseButton::Middle), 0, 0);
        e.mods = Modifiers {
            shift: true,
            ctrl: true,
            alt: false,
            meta: true,
        };
        // 1 + 4 + 8 + 16 = 29.
        assert_eq!(
            report(e, MouseTracking::Normal, MouseEncoding::Sgr),
            b"\x1b[<29;1;1M"
        );
        assert_eq!(
            report(e, MouseTracking::X10, MouseEncoding::Sgr),
            b"\x1b[<1;1;1M"
        );
    }

    #[test]
    fn each_mode_reports_only_its_events() {
        use MouseTracking::*;
        let release = at(MouseAction::Release(MouseButton::Left), 0, 0);
        let drag = at(MouseAction::Motion(Some(MouseButton::Left)), 0, 0);
        let hover = at(MouseAction::Motion(None), 0, 0);
        let sgr = MouseEncoding::Sgr;
        let sent = |e: &MouseEvent, t| encode(e, t, sgr).unwrap();
        assert_eq!(sent(&release, X10), None);
        assert_eq!(sent(&drag, Normal), None);
        assert_eq!(sent(&hover, ButtonEvent), None);
        assert_eq!(sent(&drag, ButtonEvent).unwrap(), b"\x1b[<32;1;1M");
        assert_eq!(sent(&hover, AnyEvent).unwrap(), b"\x1b[<35;1;1M");
        assert_eq!(
            encode(&release, Off, sgr).unwrap_err(),
            MouseError::TrackingOff
        );
    }

    #[test]
    fn wheel_notches_are_buttons_64_and_65_without_release() {
        let up = at(MouseAction::Wheel(WheelDirection::Up), 9, 19);
        let down = at(MouseAction::Wheel(WheelDirection::Down), 9, 19);
        let t = MouseTracking::Normal;
        assert_eq!(report(up, t, MouseEncoding::Sgr), b"\x1b[<64;20;10M");
        assert_eq!(report(down, t, MouseEncoding::Sgr), b"\x1b[<65;20;10M");
        assert_eq!(report(down, t, MouseEncoding::Default), b"\x1b[M\x614*");
    }

    #[test]
    fn positions_past_an_encodings_reach_are_refused_not_clamped() {
        let t = MouseTracking::Normal;
        let last = at(LEFT, 0, 222);
        assert_eq!(report(last, t, MouseEncoding::Default), b"\x1b[M \xff!");
        let past = at(LEFT, 0, 223);
        assert!(matches!(
            encode(&past, t, MouseEncoding::Default),
            Err(MouseError::OutOfRange { max: 223, .. })
        ));
        // UTF-8 carries it as a two-byte character: 224 + 32 = 256 = U+0100.
        assert_eq!(report(past, t, MouseEncoding::Utf8), b"\x1b[M \xc4\x80!");
        assert_eq!(report(past, t, MouseEncoding::Sgr), b"\x1b[<0;224;1M");
        assert!(encode(&at(LEFT, 2015, 0), t, MouseEncoding::Utf8).is_err());
    }

    #[test]
    fn gestures_expand_to_the_events_a_terminal_sees() {
        let sgr = |g: Gesture, t| {
            String::from_utf8(
                encode_all(&g.events(Modifiers::NONE), t, MouseEncoding::Sgr).unwrap(),
            )
            .unwrap()
        };
        let double = Gesture::Click {
            at: (1, 1),
            button: MouseButton::Left,
            count: 2,
        };
        assert_eq!(
            sgr(double, MouseTracking::Normal),
            "\x1b[<0;2;2M\x1b[<0;2;2m\x1b[<0;2;2M\x1b[<0;2;2m"
        );
        let drag = Gesture::Drag {
            from: (0, 0),
            to: (1, 3),
            button: MouseButton::Left,
        };
        // One motion per cell along the longer axis.
        assert_eq!(
            sgr(drag, MouseTracking::ButtonEvent),
            "\x1b[<0;1;1M\x1b[<32;2;1M\x1b[<32;3;2M\x1b[<32;4;2M\x1b[<0;4;2m"
        );
        // Normal tracking sees the press and the release only.
        assert_eq!(sgr(drag, MouseTracking::Normal), "\x1b[<0;1;1M\x1b[<0;4;2m");
        let scroll = Gesture::Scroll {
            at: (4, 4),
            direction: WheelDirection::Down,
            count: 3,
        };
        assert_eq!(
            sgr(scroll, MouseTracking::Normal),
            "\x1b[<65;5;5M".repeat(3)
        );
        assert_eq!(drag.end(), (1, 3));
    }
}
