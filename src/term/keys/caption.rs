//! Input bytes back into the keys that sent them, for `--show-keys` captions: the key table
//! run in reverse, so a caption names a key exactly as [`super::parse_key`] would accept it.

use std::sync::LazyLock;

use super::{ESC, Key, KeyCombo, KeyModes, Modifiers, NAMED, PASTE_END, PASTE_START};

/// Every sequence a named key (not a character, not a keypad key) sends with any common
/// modifiers in any cursor-key mode, and with the kitty keyboard protocol's flag 1, with its
/// caption, longest first so a decoder matching the first entry that fits takes the longest
/// sequence.
static SEQUENCES: LazyLock<Vec<(Vec<u8>, String)>> = LazyLock::new(|| {
    let mut table: Vec<(Vec<u8>, String)> = Vec::new();
    let modifier_sets = [
        Modifiers::NONE,
        Modifiers {
            shift: true,
            ..Modifiers::NONE
        },
        Modifiers {
            alt: true,
            ..Modifiers::NONE
        },
        Modifiers {
            ctrl: true,
            ..Modifiers::NONE
        },
        Modifiers {
            ctrl: true,
            shift: true,
            ..Modifiers::NONE
        },
        Modifiers {
            ctrl: true,
            alt: true,
            ..Modifiers::NONE
        },
        Modifiers {
            alt: true,
            shift: true,
            ..Modifiers::NONE
        },
    ];
    for &(_, key) in NAMED {
        if matches!(key, Key::Char(_) | Key::Keypad(_) | Key::Space) {
            continue;
        }
        for mods in modifier_sets {
            let Ok(combo) = KeyCombo::new(key, mods) else {
                continue;
            };
            for (application, kitty_flags) in [(false, 0), (true, 0), (false, 1)] {
                let modes = KeyModes {
                    cursor_keys_application: application,
                    keypad_application: false,
                    kitty_flags,
                };
                let bytes = combo.encode(modes);
                // The first spelling of a sequence wins (modifiers the encoding drops, such
                // as Ctrl+Enter, read as the plain key).
                if !table.iter().any(|(b, _)| *b == bytes) {
                    table.push((bytes, label(key, mods)));
                }
            }
        }
    }
    table.sort_by_key(|(bytes, _)| std::cmp::Reverse(bytes.len()));
    table
});

/// How a caption shows a key with its modifiers.
fn label(key: Key, mods: Modifiers) -> String {
    let symbol = match key {
        Key::Enter => "⏎".to_owned(),
        Key::Tab if mods.shift => return "Shift+⇥".to_owned(),
        Key::Tab => "⇥".to_owned(),
        Key::Backspace => "⌫".to_owned(),
        Key::Escape => "Esc".to_owned(),
        Key::Up => "↑".to_owned(),
        Key::Down => "↓".to_owned(),
        Key::Left => "←".to_owned(),
        Key::Right => "→".to_owned(),
        other => other.name(),
    };
    let mut out = String::new();
    for (on, name) in [
        (mods.ctrl, "Ctrl+"),
        (mods.alt, "Alt+"),
        (mods.shift, "Shift+"),
        (mods.meta, "Meta+"),
    ] {
        if on {
            out.push_str(name);
        }
    }
    out.push_str(&symbol);
    out
}

/// One decoded piece of input.
enum Piece {
    /// Typed text.
    Text(char),
    /// A key or chord shown by name.
    Key(String),
}

/// The next piece of `bytes` and how many bytes it took; `None` for a mouse report or a
/// sequence no key sends, which a caption leaves out.
fn next_piece(bytes: &[u8]) -> (Option<Piece>, usize) {
    if let Some(rest) = bytes.strip_prefix(PASTE_START) {
        let end = rest
            .windows(PASTE_END.len())
            .position(|w| w == PASTE_END)
            .map_or(bytes.len(), |i| PASTE_START.len() + i + PASTE_END.len());
        return (Some(Piece::Key("Paste".into())), end);
    }
    let alt_char = matches!(bytes, [ESC, next, ..] if *next != ESC);
    if let Some((seq, name)) = SEQUENCES
        .iter()
        .find(|(seq, _)| bytes.starts_with(seq) && !(alt_char && seq.as_slice() == [ESC]))
    {
        return (Some(Piece::Key(name.clone())), seq.len());
    }
    if let Some(found) = kitty_key(bytes) {
        return found;
    }
    match bytes {
        [] => (None, 0),
        // Mouse reports (X10 `CSI M` + 3 bytes, SGR `CSI <` … `M`/`m`) are not keys.
        [ESC, b'[', b'M', ..] => (None, bytes.len().min(6)),
        [ESC, b'[', b'<', rest @ ..] => {
            let len = rest.iter().position(|b| matches!(b, b'M' | b'm'));
            (None, len.map_or(bytes.len(), |i| 3 + i + 1))
        }
        [ESC, rest @ ..] if !rest.is_empty() && rest[0] != ESC => {
            // Alt + a character.
            let (piece, len) = next_piece(rest);
            let piece = piece.map(|p| match p {
                Piece::Text(c) => Piece::Key(format!("Alt+{c}")),
                Piece::Key(k) => Piece::Key(format!("Alt+{k}")),
            });
            (piece, 1 + len)
        }
        [0] => (Some(Piece::Key("Ctrl+Space".into())), 1),
        [c @ 1..=26, ..] => (
            Some(Piece::Key(format!("Ctrl+{}", char::from(b'A' + c - 1)))),
            1,
        ),
        [c @ 0..=31, ..] => (Some(Piece::Key(format!("Ctrl+{}", char::from(c + 64)))), 1),
        _ => {
            let len = utf8_len(bytes[0]).min(bytes.len());
            match std::str::from_utf8(&bytes[..len])
                .ok()
                .and_then(|s| s.chars().next())
            {
                Some(c) => (Some(Piece::Text(c)), len),
                None => (None, 1),
            }
        }
    }
}

/// A kitty keyboard protocol key, `CSI code[:alternates] [; mods[:event] [; text]] u`: a
/// character or a key by name with its modifiers; a release is left out.
fn kitty_key(bytes: &[u8]) -> Option<(Option<Piece>, usize)> {
    let body = bytes.strip_prefix(b"\x1b[")?;
    let end = body
        .iter()
        .position(|b| !matches!(b, b'0'..=b'9' | b';' | b':'))?;
    if end == 0 || body[end] != b'u' {
        return None;
    }
    let len = 2 + end + 1;
    let mut fields = body[..end].split(|&b| b == b';');
    // The first sub-field of a field as a number; an empty one is `default`.
    let number = |field: &[u8], default: u32| -> Option<u32> {
        match field.split(|&b| b == b':').next() {
            Some([]) | None => Some(default),
            Some(digits) => std::str::from_utf8(digits).ok()?.parse().ok(),
        }
    };
    let code = number(fields.next()?, 0)?;
    let mod_field = fields.next().unwrap_or_default();
    let bits = number(mod_field, 1)?.saturating_sub(1);
    let event = mod_field.split(|&b| b == b':').nth(1);
    if event == Some(b"3") {
        return Some((None, len));
    }
    let mods = Modifiers {
        shift: bits & 1 != 0,
        alt: bits & 2 != 0,
        ctrl: bits & 4 != 0,
        meta: bits & 8 != 0,
    };
    let key = match code {
        27 => Key::Escape,
        13 => Key::Enter,
        9 => Key::Tab,
        127 => Key::Backspace,
        32 => Key::Space,
        57399..=57416 => {
            let kp = NAMED.iter().find_map(|&(_, key)| match key {
                Key::Keypad(kp) if super::kitty::keypad_code(kp) == code => Some(kp),
                _ => None,
            })?;
            Key::Keypad(kp)
        }
        _ => Key::Char(char::from_u32(code).filter(|c| !c.is_control())?),
    };
    let piece = match key {
        Key::Char(c) if mods.is_empty() => Piece::Text(c),
        _ => Piece::Key(label(key, mods)),
    };
    Some((Some(piece), len))
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

/// The keys `bytes` (input as a terminal sends it) were typed with, as a caption: text as
/// typed, keys by name (`Ctrl+C`, `Esc`, `↑`, `⏎`), chords set apart by spaces — `:wq⏎`,
/// `ls -l⏎`, `Ctrl+C`. Mouse reports are left out.
///
/// ```
/// use shotty::term::keys::caption;
/// assert_eq!(caption(b":wq\r"), ":wq⏎");
/// assert_eq!(caption(b"\x03"), "Ctrl+C");
/// assert_eq!(caption(b"\x1b[A\x1b[A\r"), "↑↑⏎");
/// assert_eq!(caption(b"git st\x1b[1;5Dx"), "git st Ctrl+← x");
/// ```
pub fn caption(bytes: &[u8]) -> String {
    caption_of_writes([bytes])
}

/// The caption of input that arrived in several writes (the input events of a recording): each
/// write is decoded on its own, so an Escape written alone and a `:` in a later write are two
/// keys (`Esc :`), where one write of both is Alt+: — as the program reading them tells them
/// apart.
///
/// ```
/// use shotty::term::keys::caption_of_writes;
/// assert_eq!(caption_of_writes([&b"\x1b"[..], b":wq\r"]), "Esc :wq⏎");
/// assert_eq!(caption_of_writes([&b"\x1b:"[..]]), "Alt+:");
/// ```
pub fn caption_of_writes<'a>(writes: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut out = String::new();
    let mut previous_was_chord = false;
    for write in writes {
        let mut rest = write;
        while !rest.is_empty() {
            let (piece, len) = next_piece(rest);
            rest = &rest[len.max(1).min(rest.len())..];
            match piece {
                None => {}
                Some(Piece::Text(c)) => {
                    if previous_was_chord {
                        out.push(' ');
                    }
                    out.push(c);
                    previous_was_chord = false;
                }
                Some(Piece::Key(name)) => {
                    let chord = name.chars().count() > 1;
                    if !out.is_empty() && (chord || previous_was_chord) {
                        out.push(' ');
                    }
                    out.push_str(&name);
                    previous_was_chord = chord;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{encode_keys, paste_bytes};
    use super::*;

    #[test]
    fn every_named_key_reads_back_as_itself() {
        let application = KeyModes {
            cursor_keys_application: true,
            ..KeyModes::default()
        };
        for modes in [KeyModes::default(), application] {
            for (name, expected) in [
                ("Up", "↑"),
                ("Ctrl+Left", "Ctrl+←"),
                ("Shift+Right", "Shift+→"),
                ("Alt+Down", "Alt+↓"),
                ("Home", "Home"),
                ("End", "End"),
                ("PageUp", "PageUp"),
                ("Ctrl+PageDown", "Ctrl+PageDown"),
                ("Delete", "Delete"),
                ("Insert", "Insert"),
                ("F1", "F1"),
                ("Shift+F5", "Shift+F5"),
                ("F12", "F12"),
                ("Escape", "Esc"),
                ("Tab", "⇥"),
                ("Shift+Tab", "Shift+⇥"),
                ("Enter", "⏎"),
                ("Backspace", "⌫"),
                ("Alt+Enter", "Alt+⏎"),
            ] {
                let bytes = encode_keys(name, modes).expect("a valid key");
                assert_eq!(caption(&bytes), expected, "{name} in {modes:?}: {bytes:?}");
            }
        }
    }

    #[test]
    fn text_control_keys_pastes_and_mouse_reports() {
        assert_eq!(caption(b"echo hi\r"), "echo hi⏎");
        assert_eq!(caption(b"\x03\x04"), "Ctrl+C Ctrl+D");
        assert_eq!(caption(b"\x1bx"), "Alt+x");
        assert_eq!(caption("caf\u{e9} 日本".as_bytes()), "caf\u{e9} 日本");
        assert_eq!(caption(&paste_bytes("a\nb", true)), "Paste");
        assert_eq!(caption(b"\x1b[<0;10;5M\x1b[<0;10;5mq"), "q");
        assert_eq!(caption(b"\x1b[M !!q"), "q");
        // Invalid UTF-8 and a lone ESC at the end lose nothing else.
        assert_eq!(caption(b"a\xffb\x1b"), "ab Esc");
    }
}
