//! XTGETTCAP (`DCS + q Pt ST`): terminfo and termcap capabilities by name.
//!
//! Programs ask this instead of trusting `$TERM`'s terminfo entry (vim for its key codes,
//! Neovim and tmux for `RGB`). The answer describes this emulator: its name, its colours, and
//! what its keys send in the current modes — the same bytes [`KeyCombo::encode`] produces,
//! so the reply and the keys cannot disagree.
//!
//! Reply format (xterm's, compared in the xterm test): one reply per request,
//! `DCS 1 + r NAME=VALUE;NAME=VALUE ST` with names as sent and values hex-encoded, ending at
//! the first name it does not know (after its `;`); `DCS 0 + r ST` when that is the first.

use super::keys::{Key, KeyCombo, KeyModes, Modifiers};

/// The terminal type the emulator implements: `TERM` for programs in its PTY, and what
/// XTGETTCAP reports as `TN` / `name`.
pub const TERM_NAME: &str = "xterm-256color";

/// What a capability name stands for.
#[derive(Clone, Copy)]
enum Capability {
    /// The terminal's name.
    Name,
    /// The number of palette colours.
    Colors,
    /// ncurses' direct-colour extension: bits per channel.
    Rgb,
    /// What a key sends.
    Key(Key, Modifiers),
}

const SHIFT: Modifiers = Modifiers {
    shift: true,
    alt: false,
    ctrl: false,
    meta: false,
};
const NONE: Modifiers = Modifiers {
    shift: false,
    alt: false,
    ctrl: false,
    meta: false,
};

/// Every name answered: terminfo name, termcap name, capability.
const CAPABILITIES: &[(&str, &str, Capability)] = &[
    ("name", "TN", Capability::Name),
    ("colors", "Co", Capability::Colors),
    ("RGB", "RGB", Capability::Rgb),
    ("kcuu1", "ku", Capability::Key(Key::Up, NONE)),
    ("kcud1", "kd", Capability::Key(Key::Down, NONE)),
    ("kcuf1", "kr", Capability::Key(Key::Right, NONE)),
    ("kcub1", "kl", Capability::Key(Key::Left, NONE)),
    ("khome", "kh", Capability::Key(Key::Home, NONE)),
    ("kend", "@7", Capability::Key(Key::End, NONE)),
    ("kich1", "kI", Capability::Key(Key::Insert, NONE)),
    ("kdch1", "kD", Capability::Key(Key::Delete, NONE)),
    ("kpp", "kP", Capability::Key(Key::PageUp, NONE)),
    ("knp", "kN", Capability::Key(Key::PageDown, NONE)),
    ("kbs", "kb", Capability::Key(Key::Backspace, NONE)),
    ("kcbt", "kB", Capability::Key(Key::Tab, SHIFT)),
    ("kri", "kR", Capability::Key(Key::Up, SHIFT)),
    ("kind", "kF", Capability::Key(Key::Down, SHIFT)),
    ("kRIT", "%i", Capability::Key(Key::Right, SHIFT)),
    ("kLFT", "#4", Capability::Key(Key::Left, SHIFT)),
    ("kHOM", "#2", Capability::Key(Key::Home, SHIFT)),
    ("kEND", "*7", Capability::Key(Key::End, SHIFT)),
    ("kDC", "*4", Capability::Key(Key::Delete, SHIFT)),
    ("kf1", "k1", Capability::Key(Key::F(1), NONE)),
    ("kf2", "k2", Capability::Key(Key::F(2), NONE)),
    ("kf3", "k3", Capability::Key(Key::F(3), NONE)),
    ("kf4", "k4", Capability::Key(Key::F(4), NONE)),
    ("kf5", "k5", Capability::Key(Key::F(5), NONE)),
    ("kf6", "k6", Capability::Key(Key::F(6), NONE)),
    ("kf7", "k7", Capability::Key(Key::F(7), NONE)),
    ("kf8", "k8", Capability::Key(Key::F(8), NONE)),
    ("kf9", "k9", Capability::Key(Key::F(9), NONE)),
    ("kf10", "k;", Capability::Key(Key::F(10), NONE)),
    ("kf11", "F1", Capability::Key(Key::F(11), NONE)),
    ("kf12", "F2", Capability::Key(Key::F(12), NONE)),
];

/// The reply to an XTGETTCAP request whose data (after `+q`) is `request`.
pub(crate) fn reply(request: &[u8], modes: KeyModes) -> Vec<u8> {
    let names: Vec<&[u8]> = request.split(|&b| b == b';').collect();
    let known = |hex_name: &[u8]| decode_hex(hex_name).and_then(|name| lookup(&name));
    let mut out = b"\x1bP".to_vec();
    out.push(if known(names[0]).is_some() {
        b'1'
    } else {
        b'0'
    });
    out.extend_from_slice(b"+r");
    for (i, hex_name) in names.iter().enumerate() {
        let Some(cap) = known(hex_name) else { break };
        out.extend_from_slice(hex_name);
        out.push(b'=');
        push_hex(&mut out, &value(cap, modes));
        if i + 1 < names.len() {
            out.push(b';');
        }
    }
    out.extend_from_slice(b"\x1b\\");
    out
}

fn lookup(name: &[u8]) -> Option<Capability> {
    CAPABILITIES
        .iter()
        .find(|(terminfo, termcap, _)| name == terminfo.as_bytes() || name == termcap.as_bytes())
        .map(|&(_, _, cap)| cap)
}

fn value(cap: Capability, modes: KeyModes) -> Vec<u8> {
    match cap {
        Capability::Name => TERM_NAME.as_bytes().to_vec(),
        Capability::Colors => b"256".to_vec(),
        Capability::Rgb => b"8".to_vec(),
        Capability::Key(key, mods) => match KeyCombo::new(key, mods) {
            Ok(combo) => combo.encode(modes),
            Err(_) => Vec::new(),
        },
    }
}

/// Two hex digits (either case) per byte, or `None` for anything else (an empty name too).
fn decode_hex(hex: &[u8]) -> Option<Vec<u8>> {
    if hex.is_empty() || !hex.len().is_multiple_of(2) {
        return None;
    }
    let digit = |b: u8| char::from(b).to_digit(16);
    hex.chunks_exact(2)
        .map(|pair| Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8))
        .collect()
}

fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 0x0f)]);
    }
}
