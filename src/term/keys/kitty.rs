//! The kitty keyboard protocol ("progressive enhancement",
//! <https://sw.kovidgoyal.net/kitty/keyboard-protocol/>): its flags, how `CSI = flags ; mode u`
//! applies them, and the encoder [`KeyCombo::encode`](super::KeyCombo::encode) uses once a
//! program has set any. The decisions are in the `# Kitty keyboard protocol` section of the
//! [`keys`](super) module documentation.

use std::fmt::Write as _;

use super::{Key, KeyCombo, KeyEvent, KeypadKey, function_key_code, shifted};

/// Flag 1, "disambiguate escape codes": Escape, and text keys with Ctrl, Alt or Meta, are sent
/// as `CSI … u`; so are keypad keys that type no text and modified Enter, Tab and Backspace.
pub const DISAMBIGUATE: u8 = 1;
/// Flag 2, "report event types": key repeat and release events are sent too.
pub const REPORT_EVENT_TYPES: u8 = 2;
/// Flag 4, "report alternate keys": the shifted key follows the key code (`97:65`).
pub const REPORT_ALTERNATE_KEYS: u8 = 4;
/// Flag 8, "report all keys as escape codes": text keys, Enter, Tab and Backspace too.
pub const REPORT_ALL_KEYS: u8 = 8;
/// Flag 16, "report associated text": with flag 8, the text a key types is added to its
/// escape code.
pub const REPORT_ASSOCIATED_TEXT: u8 = 16;
/// Every flag the protocol defines (and this terminal reports back to `CSI ? u`).
pub const ALL_FLAGS: u8 = 31;
/// Entries each screen's flag stack keeps; pushing onto a full stack drops the oldest.
pub const STACK_DEPTH: usize = 16;

/// How `CSI = flags ; mode u` changes the current flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagsUpdate {
    /// Mode 1 (the default): the flags become exactly `flags`.
    Replace,
    /// Mode 2: the bits of `flags` are set, the others left alone.
    Set,
    /// Mode 3: the bits of `flags` are cleared, the others left alone.
    Reset,
}

impl FlagsUpdate {
    /// The update a mode parameter names (0, absent, means 1); `None` for an unknown mode.
    pub fn from_mode(mode: u16) -> Option<FlagsUpdate> {
        match mode {
            0 | 1 => Some(FlagsUpdate::Replace),
            2 => Some(FlagsUpdate::Set),
            3 => Some(FlagsUpdate::Reset),
            _ => None,
        }
    }

    /// `current` changed by `flags` (bits beyond [`ALL_FLAGS`] are dropped).
    pub fn apply(self, current: u8, flags: u8) -> u8 {
        let flags = flags & ALL_FLAGS;
        match self {
            FlagsUpdate::Replace => flags,
            FlagsUpdate::Set => current | flags,
            FlagsUpdate::Reset => current & !flags,
        }
    }
}

/// Whether key presses are encoded by this protocol under `flags`: flag 1 or 8 is set. With
/// only flags 2, 4 or 16, presses keep the legacy (xterm) encoding.
pub(super) fn encodes_presses(flags: u8) -> bool {
    flags & (DISAMBIGUATE | REPORT_ALL_KEYS) != 0
}

/// The code kitty gives a keypad key (its "functional key" table, Private Use Area).
pub(super) fn keypad_code(kp: KeypadKey) -> u32 {
    match kp {
        KeypadKey::Kp0 => 57399,
        KeypadKey::Kp1 => 57400,
        KeypadKey::Kp2 => 57401,
        KeypadKey::Kp3 => 57402,
        KeypadKey::Kp4 => 57403,
        KeypadKey::Kp5 => 57404,
        KeypadKey::Kp6 => 57405,
        KeypadKey::Kp7 => 57406,
        KeypadKey::Kp8 => 57407,
        KeypadKey::Kp9 => 57408,
        KeypadKey::Decimal => 57409,
        KeypadKey::Divide => 57410,
        KeypadKey::Multiply => 57411,
        KeypadKey::Subtract => 57412,
        KeypadKey::Add => 57413,
        KeypadKey::Enter => 57414,
        KeypadKey::Separator => 57416,
    }
}

/// The main-keyboard key a keypad key types (what kitty reports it as when the program has
/// not asked to tell the keypad apart).
fn plain_key(kp: KeypadKey) -> Key {
    match kp {
        KeypadKey::Enter => Key::Enter,
        other => Key::Char(char::from(other.codes().0)),
    }
}

/// The code and final byte of a key's escape code: `code u` for text keys and most others,
/// `code ~` or `1 X` for the keys the spec's functional table gives those forms.
fn code_and_final(key: Key) -> (u32, u8) {
    match key {
        Key::Char(c) => (u32::from(c), b'u'),
        Key::Space => (32, b'u'),
        Key::Escape => (27, b'u'),
        Key::Enter => (13, b'u'),
        Key::Tab => (9, b'u'),
        Key::Backspace => (127, b'u'),
        Key::Insert => (2, b'~'),
        Key::Delete => (3, b'~'),
        Key::PageUp => (5, b'~'),
        Key::PageDown => (6, b'~'),
        Key::Up => (1, b'A'),
        Key::Down => (1, b'B'),
        Key::Right => (1, b'C'),
        Key::Left => (1, b'D'),
        Key::Home => (1, b'H'),
        Key::End => (1, b'F'),
        Key::F(1) => (1, b'P'),
        Key::F(2) => (1, b'Q'),
        // `CSI R` would read as a cursor position report; the spec moved F3 to `13 ~`.
        Key::F(3) => (13, b'~'),
        Key::F(4) => (1, b'S'),
        Key::F(n) => (u32::from(function_key_code(n)), b'~'),
        Key::Keypad(kp) => (keypad_code(kp), b'u'),
    }
}

/// The lower-case letter of an upper-case one (one character each way), which the protocol
/// reports as that letter with Shift.
fn unshifted(c: char) -> Option<char> {
    if !c.is_uppercase() {
        return None;
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) if l != c => Some(l),
        _ => None,
    }
}

/// The text a key types with these modifiers: characters and Space without Ctrl, Alt or Meta
/// (Shift makes a letter a capital), keypad keys other than Enter without any modifier.
fn associated_text(key: Key, mods: super::Modifiers) -> Option<char> {
    if mods.ctrl || mods.alt || mods.meta {
        return None;
    }
    match key {
        Key::Char(c) if mods.shift => Some(shifted(c)),
        Key::Char(c) => Some(c),
        Key::Space => Some(' '),
        Key::Keypad(KeypadKey::Enter) => None,
        Key::Keypad(kp) if mods.is_empty() => Some(char::from(kp.codes().0)),
        _ => None,
    }
}

/// The bytes for `combo` and `event` under `flags` (see the module documentation of
/// [`keys`](super)); empty when the protocol sends nothing (the release of an unmodified
/// Enter, Tab or Backspace without flag 8). The caller has checked that flag 2 is set for a
/// repeat or release, and that flag 1 or 8 is set for a press.
pub(super) fn encode(combo: &KeyCombo, flags: u8, event: KeyEvent) -> Vec<u8> {
    let all_keys = flags & REPORT_ALL_KEYS != 0;
    let mut key = combo.key();
    let mut mods = combo.modifiers();
    if let Key::Keypad(kp) = key
        && !encodes_presses(flags)
    {
        key = plain_key(kp);
    }
    if let Key::Char(c) = key
        && let Some(lower) = unshifted(c)
    {
        key = Key::Char(lower);
        mods.shift = true;
    }
    let text = associated_text(key, mods);

    // Text goes as text unless every key is to be an escape code (a release has no text).
    if !all_keys
        && event != KeyEvent::Release
        && let Some(c) = text
    {
        return c.to_string().into_bytes();
    }
    // Enter, Tab and Backspace keep their bytes (and have no release) so that a shell stays
    // usable after a program that set the flags died without resetting them.
    if !all_keys && mods.is_empty() {
        let legacy: Option<&[u8]> = match key {
            Key::Enter => Some(b"\r"),
            Key::Tab => Some(b"\t"),
            Key::Backspace => Some(b"\x7f"),
            _ => None,
        };
        if let Some(bytes) = legacy {
            return if event == KeyEvent::Release {
                Vec::new()
            } else {
                bytes.to_vec()
            };
        }
    }

    let (code, fin) = code_and_final(key);
    let shifted_key = match key {
        Key::Char(c) if flags & REPORT_ALTERNATE_KEYS != 0 && mods.shift => {
            Some(shifted(c)).filter(|&s| s != c)
        }
        _ => None,
    };
    let embedded = text
        .filter(|_| all_keys && flags & REPORT_ASSOCIATED_TEXT != 0 && event != KeyEvent::Release);
    // Modifier bits: Shift 1, Alt 2, Ctrl 4, Meta as super 8 — xterm's parameter less one.
    let mod_bits = mods.param() - 1;
    let event_code = match event {
        KeyEvent::Press => None,
        KeyEvent::Repeat => Some(2),
        KeyEvent::Release => Some(3),
    };

    let mods_field = mod_bits != 0 || event_code.is_some();
    let mut out = String::from("\x1b[");
    if code != 1 || shifted_key.is_some() || mods_field || embedded.is_some() {
        let _ = write!(out, "{code}");
    }
    if let Some(s) = shifted_key {
        let _ = write!(out, ":{}", u32::from(s));
    }
    if mods_field || embedded.is_some() {
        out.push(';');
    }
    if mods_field {
        let _ = write!(out, "{}", mod_bits + 1);
        if let Some(e) = event_code {
            let _ = write!(out, ":{e}");
        }
    }
    if let Some(c) = embedded {
        let _ = write!(out, ";{}", u32::from(c));
    }
    out.push(char::from(fin));
    out.into_bytes()
}
