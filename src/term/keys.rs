//! The key table: key names (SPEC §4 "Keys", §5) and the bytes an xterm sends for them.
//!
//! This is the only place that turns a name such as `Ctrl+Alt+Left` into bytes; the CLI
//! (`shotty session send --keys`), the JSON-RPC endpoint and the MCP server all go through
//! [`parse_key`] / [`encode_keys`], and through [`paste_bytes`] for pastes.
//!
//! # Names
//!
//! Case-insensitive: `Enter` (`Return`), `Tab`, `Escape` (`Esc`), `Backspace`, `Delete`
//! (`Del`), `Insert` (`Ins`), `Up`/`Down`/`Left`/`Right` (`ArrowUp` …), `Home`, `End`, `PageUp`
//! (`PgUp`), `PageDown` (`PgDn`), `Space`, `Plus`, `F1`–`F12`, `KP0`–`KP9`, `KPDecimal`,
//! `KPEnter`, `KPAdd`, `KPSubtract`, `KPMultiply`, `KPDivide`, `KPSeparator`, or any single
//! printable character (one Unicode scalar value, e.g. `a`, `?`, `é`; a character is sent as
//! typed, so `A` is a capital A). Modifiers `Ctrl+` (`Control+`), `Alt+` (`Option+`), `Shift+`
//! and `Meta+` come before the key in any order and combination. `+` itself is `Plus`, or a
//! trailing `+` as in `Ctrl+Alt++`. Surrounding whitespace is ignored. tmux's spellings
//! work too: `C-c`, `M-x` (M is Alt, as in tmux), `S-Tab`, `C-M-Left` — upper-case prefixes,
//! each followed by `-`. An unknown name is answered with the nearest known ones.
//!
//! # Bytes
//!
//! What xterm sends with `TERM=xterm-256color` and its default resources (modifyOtherKeys off,
//! metaSendsEscape on, Backspace sends DEL), after ctlseqs "PC-Style Function Keys":
//!
//! * cursor keys and Home/End: `CSI A` (DECCKM reset) or `SS3 A` (DECCKM set); with modifiers
//!   `CSI 1 ; M A` in either mode, where M = 1 + Shift·1 + Alt·2 + Ctrl·4 + Meta·8;
//! * Insert/Delete/PageUp/PageDown and F5–F12: `CSI N ~`, modified `CSI N ; M ~`;
//! * F1–F4: `SS3 P`…`SS3 S`, modified `CSI 1 ; M P`…;
//! * keypad keys: their character in numeric mode, `SS3 p`… in application mode (DECKPAM /
//!   DECNKM); modified in application mode `SS3 M p` (xterm puts the modifier into the SS3
//!   sequence for the keypad);
//! * keys that send one character (Enter, Tab, Escape, Backspace, Space, printable characters,
//!   keypad keys in numeric mode): Alt or Meta prefixes ESC; Ctrl turns a character into its C0
//!   control code; Shift turns a letter into a capital.
//!
//! # Decisions where the legacy encoding has no room for a modifier
//!
//! * **Ctrl + a character without a C0 code** (`Ctrl+1`, `Ctrl+.`, `Ctrl+é`, `Ctrl++` …) is
//!   rejected with [`KeyError`] instead of sending the bare character: xterm (modifyOtherKeys
//!   off) would send just `1`, which types text the caller did not ask for. The accepted
//!   characters are those X11 and xterm give a control code: letters, Space, ``@ [ \ ] ^ _ ` { |
//!   } ~`` (masked with 0x1F), `2`–`8` (`2` NUL, `3` ESC, `4` FS, `5` GS, `6` RS, `7` US, `8`
//!   DEL), `/` (US), `?` (DEL) and `-` (US, as most terminals send for Ctrl+-).
//! * **Ctrl or Shift on Enter, Tab, Escape and Space, Shift on Backspace, and Ctrl/Shift on a
//!   keypad key in numeric mode** are dropped, exactly as xterm drops them: `Ctrl+Enter` sends
//!   `\r` (SPEC §4 lists it as valid). Only modifyOtherKeys could tell them apart, and an
//!   application that did not ask for that mode would misread its `CSI 27;…~` sequences.
//!   `Ctrl+Space` is NUL and `Ctrl+Backspace` BS, as in xterm.
//! * **Shift+Tab** is `CSI Z` (back-tab) whatever other modifiers come with it; xterm does the
//!   same (its back-tab sequence has no modifier parameter).
//! * **Alt and Meta together** prefix a single ESC.
//!
//! # Kitty keyboard protocol
//!
//! A program can ask for kitty's keyboard protocol ("progressive enhancement",
//! <https://sw.kovidgoyal.net/kitty/keyboard-protocol/>) with `CSI > flags u` and friends; the
//! emulator keeps the flags (per screen, see [`Modes::kitty_keyboard`](crate::term::Modes))
//! and [`KeyModes::kitty_flags`] carries them here. The flags are in [`kitty`]. With none of
//! flags 1 and 8 set, presses are encoded exactly as above (flags 4 and 16 alone change
//! nothing, as in kitty; flag 2 alone adds repeats and releases). Otherwise, following the
//! spec and kitty's own encoder:
//!
//! * **Modifiers** are `1 + Shift·1 + Alt·2 + Ctrl·4 + Meta·8`, the same numbers as xterm's:
//!   the protocol's bit 8 is *super*, so `Meta+` is sent as super (the protocol's own `meta`
//!   bit, 32, and the lock bits are never sent).
//! * **Flag 1** (disambiguate): a key that types text — a character or Space with no modifier
//!   but Shift, a keypad digit or operator with none — is still sent as that text. Escape is
//!   `CSI 27u`; a character with Ctrl, Alt or Meta is `CSI code ; mods u` with the
//!   *un-shifted* code (`Ctrl+Shift+a` is `CSI 97;6u`; a capital `A` is `a` with Shift), and
//!   Ctrl then goes with any character (`Ctrl+1` is `CSI 49;5u`, where the legacy encoding
//!   refuses it). Enter, Tab and Backspace keep `\r`, `\t` and `\x7f` unmodified, and are
//!   `CSI 13;5u`, `CSI 9;2u`, `CSI 127;5u` … with modifiers (`Shift+Tab` is no longer
//!   `CSI Z`). The other keys use the spec's functional table: arrows, Home, End as
//!   `CSI A` … `CSI 1;5A`, F1, F2, F4 as `CSI P`, `CSI Q`, `CSI S` (`CSI 1;mods P` with
//!   modifiers), **F3 as `CSI 13~`** (the spec dropped `CSI R`, a cursor position report),
//!   Insert, Delete, PageUp, PageDown as `CSI 2~`, `CSI 3~`, `CSI 5~`, `CSI 6~`, F5–F12 as
//!   `CSI 15~` … `CSI 24~`. The unmodified arrows, Home, End and F1–F4 are thus `CSI x`
//!   forms, not `SS3 x`: DECCKM (and DECKPAM) are not looked at, as in kitty. KPEnter, and
//!   keypad keys with a modifier, use kitty's keypad codes (`CSI 57414u`, `CSI 57400;5u` for
//!   `Ctrl+KP1`; KP0–KP9 are 57399–57408, then Decimal 57409, Divide 57410, Multiply 57411,
//!   Subtract 57412, Add 57413, Enter 57414, Separator 57416).
//! * **Flag 8** (all keys as escape codes): every key, text keys and Enter, Tab and Backspace
//!   included, is its escape code (`a` is `CSI 97u`, Enter `CSI 13u`, `KP1` `CSI 57400u`).
//! * **Flag 2** (event types): [`KeyCombo::encode_event`] sends [`KeyEvent::Repeat`] and
//!   [`KeyEvent::Release`] as `:2` and `:3` after the modifiers (`CSI 97;1:3u`, `CSI 1;5:3A`);
//!   a press has no event field. Text keys repeat as their text (without flag 8); unmodified
//!   Enter, Tab and Backspace repeat as their byte and send *nothing* on release (an empty
//!   encoding) unless flag 8 is set, as the spec asks. Without flag 2 a repeat or release is
//!   refused with [`KeyError`] ("the program has not asked for key release events (kitty
//!   keyboard flag 2)"). With flag 2 alone presses stay legacy, and a repeated or released
//!   keypad key is reported as the main-keyboard key it types (as kitty does without flag 1).
//! * **Flag 16** (associated text), only with flag 8: a press or repeat of a key that types
//!   text adds it as a third field (`CSI 97;;97u`, `Shift+a` `CSI 97;2;65u`); releases carry
//!   no text. Without flag 8 the flag is ignored (the spec leaves it undefined).
//! * **Flag 4** (alternate keys): only the *shifted key* is reported, only for a character
//!   held with Shift whose shifted form is known — a letter with a capital (`Ctrl+Shift+a`
//!   is `CSI 97:65;6u`; with flag 8, `Shift+a` is `CSI 97:65;2u`) — and only in an escape
//!   code the other flags already chose (a typed `A` stays text). The *base layout key* is
//!   never sent: there is no physical keyboard layout behind a key name, and the shifted
//!   form of digits and punctuation depends on one, so those get none either.
//!
//! Not supported: the keys the protocol adds beyond the names above (F13–F35, media keys,
//! modifier keys pressed alone, Caps Lock …), the lock modifiers, and the protocol's `meta`
//! and `hyper` modifiers. Text sent with `session send --text` is sent as is whatever the
//! flags (with flag 8 a program may expect key codes instead).
//!
//! [`paste_bytes`] sends a paste as a terminal does: line ends become CR (xterm, VTE, kitty and
//! Alacritty all send a pasted newline as CR) and, when the application enabled bracketed
//! paste, the text is wrapped in `ESC [200~` … `ESC [201~` with any end marker inside removed.

use std::fmt;
use std::sync::LazyLock;

use super::ESC;

/// Start of a bracketed paste.
pub const PASTE_START: &[u8] = b"\x1b[200~";

/// End of a bracketed paste.
pub const PASTE_END: &[u8] = b"\x1b[201~";

/// The modifier names [`parse_key`] accepts (case-insensitive), canonical ones first.
pub const MODIFIER_NAMES: &[&str] = &["Ctrl", "Alt", "Shift", "Meta", "Control", "Option"];

/// Terminal modes that change what keys send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyModes {
    /// DECCKM: unmodified cursor keys and Home/End send `SS3 x` instead of `CSI x`.
    pub cursor_keys_application: bool,
    /// DECKPAM / DECNKM: keypad keys send `SS3 x` instead of their characters.
    pub keypad_application: bool,
    /// The kitty keyboard protocol's flags the program set ([`kitty::DISAMBIGUATE`] …
    /// [`kitty::REPORT_ASSOCIATED_TEXT`]); 0 for the legacy encoding. See "Kitty keyboard
    /// protocol" in the module documentation.
    pub kitty_flags: u8,
}

impl KeyModes {
    /// The legacy (xterm) modes alone: these modes without the kitty flags, as terminfo
    /// describes the keys.
    pub fn legacy(self) -> KeyModes {
        KeyModes {
            kitty_flags: 0,
            ..self
        }
    }
}

impl From<&crate::term::Modes> for KeyModes {
    fn from(modes: &crate::term::Modes) -> KeyModes {
        KeyModes {
            cursor_keys_application: modes.cursor_keys_application,
            keypad_application: modes.keypad_application,
            kitty_flags: modes.kitty_keyboard,
        }
    }
}

/// What happened to a key, for the kitty keyboard protocol's event types (flag 2). Legacy
/// encodings, and the protocol without flag 2, know only presses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KeyEvent {
    /// The key went down (what [`KeyCombo::encode`] sends).
    #[default]
    Press,
    /// The key is held and repeats (`:2` after the modifiers).
    Repeat,
    /// The key went up (`:3` after the modifiers).
    Release,
}

impl KeyEvent {
    /// `press`, `repeat` or `release`.
    pub fn name(self) -> &'static str {
        match self {
            KeyEvent::Press => "press",
            KeyEvent::Repeat => "repeat",
            KeyEvent::Release => "release",
        }
    }
}

/// Modifier keys held with a key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    /// Shift.
    pub shift: bool,
    /// Alt (Option).
    pub alt: bool,
    /// Ctrl (Control).
    pub ctrl: bool,
    /// Meta. xterm gives it the modifier bit 8; the kitty keyboard protocol's bit 8 is
    /// *super*, so Meta is sent as super there too (kitty's own `meta`, 32, is never sent).
    pub meta: bool,
}

impl Modifiers {
    /// No modifier.
    pub const NONE: Modifiers = Modifiers {
        shift: false,
        alt: false,
        ctrl: false,
        meta: false,
    };

    /// Whether no modifier is held.
    pub fn is_empty(self) -> bool {
        self == Modifiers::NONE
    }

    /// xterm's modifier parameter: 1 + Shift·1 + Alt·2 + Ctrl·4 + Meta·8 (1 when none).
    pub fn param(self) -> u8 {
        1 + u8::from(self.shift)
            + 2 * u8::from(self.alt)
            + 4 * u8::from(self.ctrl)
            + 8 * u8::from(self.meta)
    }

    /// Alt or Meta: the modifiers that prefix ESC to a one-character key.
    fn escape_prefix(self) -> bool {
        self.alt || self.meta
    }
}

/// A key of the numeric keypad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeypadKey {
    /// KP0.
    Kp0,
    /// KP1.
    Kp1,
    /// KP2.
    Kp2,
    /// KP3.
    Kp3,
    /// KP4.
    Kp4,
    /// KP5.
    Kp5,
    /// KP6.
    Kp6,
    /// KP7.
    Kp7,
    /// KP8.
    Kp8,
    /// KP9.
    Kp9,
    /// KPDecimal (`.`).
    Decimal,
    /// KPEnter.
    Enter,
    /// KPAdd (`+`).
    Add,
    /// KPSubtract (`-`).
    Subtract,
    /// KPMultiply (`*`).
    Multiply,
    /// KPDivide (`/`).
    Divide,
    /// KPSeparator (`,`).
    Separator,
}

impl KeypadKey {
    /// (numeric-mode byte, application-mode SS3 final byte), from xterm's `kypd_num` and
    /// `kypd_apl` tables.
    fn codes(self) -> (u8, u8) {
        match self {
            KeypadKey::Kp0 => (b'0', b'p'),
            KeypadKey::Kp1 => (b'1', b'q'),
            KeypadKey::Kp2 => (b'2', b'r'),
            KeypadKey::Kp3 => (b'3', b's'),
            KeypadKey::Kp4 => (b'4', b't'),
            KeypadKey::Kp5 => (b'5', b'u'),
            KeypadKey::Kp6 => (b'6', b'v'),
            KeypadKey::Kp7 => (b'7', b'w'),
            KeypadKey::Kp8 => (b'8', b'x'),
            KeypadKey::Kp9 => (b'9', b'y'),
            KeypadKey::Decimal => (b'.', b'n'),
            KeypadKey::Enter => (b'\r', b'M'),
            KeypadKey::Add => (b'+', b'k'),
            KeypadKey::Subtract => (b'-', b'm'),
            KeypadKey::Multiply => (b'*', b'j'),
            KeypadKey::Divide => (b'/', b'o'),
            KeypadKey::Separator => (b',', b'l'),
        }
    }
}

/// A key without modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// Enter (Return).
    Enter,
    /// Tab.
    Tab,
    /// Escape.
    Escape,
    /// Backspace.
    Backspace,
    /// Delete (the editing key, not DEL).
    Delete,
    /// Insert.
    Insert,
    /// Cursor up.
    Up,
    /// Cursor down.
    Down,
    /// Cursor left.
    Left,
    /// Cursor right.
    Right,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// The space bar.
    Space,
    /// A function key, F1–F12.
    F(u8),
    /// A keypad key.
    Keypad(KeypadKey),
    /// A printable character, sent as typed.
    Char(char),
}

/// Every key name (not single characters), case as documented; aliases follow their key.
const NAMED: &[(&str, Key)] = &[
    ("Enter", Key::Enter),
    ("Return", Key::Enter),
    ("Tab", Key::Tab),
    ("Escape", Key::Escape),
    ("Esc", Key::Escape),
    ("Backspace", Key::Backspace),
    ("Delete", Key::Delete),
    ("Del", Key::Delete),
    ("Insert", Key::Insert),
    ("Ins", Key::Insert),
    ("Up", Key::Up),
    ("Down", Key::Down),
    ("Left", Key::Left),
    ("Right", Key::Right),
    ("ArrowUp", Key::Up),
    ("ArrowDown", Key::Down),
    ("ArrowLeft", Key::Left),
    ("ArrowRight", Key::Right),
    ("Home", Key::Home),
    ("End", Key::End),
    ("PageUp", Key::PageUp),
    ("PgUp", Key::PageUp),
    ("PageDown", Key::PageDown),
    ("PgDn", Key::PageDown),
    ("Space", Key::Space),
    ("Plus", Key::Char('+')),
    ("F1", Key::F(1)),
    ("F2", Key::F(2)),
    ("F3", Key::F(3)),
    ("F4", Key::F(4)),
    ("F5", Key::F(5)),
    ("F6", Key::F(6)),
    ("F7", Key::F(7)),
    ("F8", Key::F(8)),
    ("F9", Key::F(9)),
    ("F10", Key::F(10)),
    ("F11", Key::F(11)),
    ("F12", Key::F(12)),
    ("KP0", Key::Keypad(KeypadKey::Kp0)),
    ("KP1", Key::Keypad(KeypadKey::Kp1)),
    ("KP2", Key::Keypad(KeypadKey::Kp2)),
    ("KP3", Key::Keypad(KeypadKey::Kp3)),
    ("KP4", Key::Keypad(KeypadKey::Kp4)),
    ("KP5", Key::Keypad(KeypadKey::Kp5)),
    ("KP6", Key::Keypad(KeypadKey::Kp6)),
    ("KP7", Key::Keypad(KeypadKey::Kp7)),
    ("KP8", Key::Keypad(KeypadKey::Kp8)),
    ("KP9", Key::Keypad(KeypadKey::Kp9)),
    ("KPDecimal", Key::Keypad(KeypadKey::Decimal)),
    ("KPEnter", Key::Keypad(KeypadKey::Enter)),
    ("KPAdd", Key::Keypad(KeypadKey::Add)),
    ("KPSubtract", Key::Keypad(KeypadKey::Subtract)),
    ("KPMultiply", Key::Keypad(KeypadKey::Multiply)),
    ("KPDivide", Key::Keypad(KeypadKey::Divide)),
    ("KPSeparator", Key::Keypad(KeypadKey::Separator)),
];

static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| NAMED.iter().map(|&(name, _)| name).collect());

/// The key names [`parse_key`] accepts besides single characters, aliases included
/// (`Enter`, `Return`, `Tab`, …, `KPSeparator`), for help texts, docs and schemas. Modifiers
/// are in [`MODIFIER_NAMES`].
pub fn key_names() -> &'static [&'static str] {
    &NAMES
}

impl Key {
    /// The canonical name (the first of its spellings in [`key_names`]); a character is
    /// itself, except `+`, which is `Plus`.
    pub fn name(self) -> String {
        match self {
            Key::Char(c) if c != '+' => c.to_string(),
            _ => NAMED
                .iter()
                .find(|&&(_, key)| key == self)
                .map_or_else(|| format!("{self:?}"), |&(name, _)| name.to_string()),
        }
    }
}

/// Why a key name was refused. The session layer reports it with the stable error code
/// [`KeyError::CODE`] (`unsupported_key`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyError {
    /// The name as given.
    pub name: String,
    /// What is wrong with it (one line, without the name's prefix).
    pub message: String,
}

impl KeyError {
    /// The stable error code for a refused key (SPEC §4).
    pub const CODE: &'static str = "unsupported_key";

    fn new(name: &str, message: impl Into<String>) -> KeyError {
        KeyError {
            name: name.to_string(),
            message: message.into(),
        }
    }
}

/// At most this many characters of a refused name are repeated in messages.
const SHOWN_NAME_CHARS: usize = 40;

/// `name` for a one-line message: control characters escaped, long names cut.
fn shown(name: &str) -> String {
    let mut out: String = name
        .chars()
        .take(SHOWN_NAME_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if name.chars().count() > SHOWN_NAME_CHARS {
        out.push('…');
    }
    out
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message: String = self
            .message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        write!(f, "unsupported key \"{}\": {message}", shown(&self.name))
    }
}

impl std::error::Error for KeyError {}

/// A few valid names, for "unknown key" messages.
const EXAMPLES: &str = "expected Enter, Tab, Escape, Backspace, Delete, Insert, Up, Down, \
    Left, Right, Home, End, PageUp, PageDown, Space, F1-F12, KP0-KP9, KPEnter … or a single \
    printable character, optionally after Ctrl+, Alt+, Shift+ or Meta+";

/// What Ctrl turns a character into (X11's control mapping as xterm applies it, plus `-`).
fn control_code(c: char) -> Option<u8> {
    Some(match c {
        'a'..='z' => c as u8 - b'a' + 1,
        'A'..='Z' => c as u8 - b'A' + 1,
        '@' | '`' | ' ' | '2' => 0x00,
        '[' | '{' | '3' => 0x1b,
        '\\' | '|' | '4' => 0x1c,
        ']' | '}' | '5' => 0x1d,
        '^' | '~' | '6' => 0x1e,
        '_' | '-' | '/' | '7' => 0x1f,
        '?' | '8' => 0x7f,
        _ => return None,
    })
}

/// A parsed key combination: modifiers + key. Only combinations that have an encoding can be
/// built ([`parse_key`], [`KeyCombo::new`]), so [`KeyCombo::encode`] cannot fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeyCombo {
    key: Key,
    mods: Modifiers,
}

impl KeyCombo {
    /// Checks that `key` with `mods` can be sent: function keys F1–F12, printable characters,
    /// Ctrl only with characters that have a control code.
    pub fn new(key: Key, mods: Modifiers) -> Result<KeyCombo, KeyError> {
        KeyCombo::build(key, mods, false)
    }

    /// [`KeyCombo::new`]; with `any_ctrl`, Ctrl goes with every character (for the kitty
    /// keyboard protocol, which has a code for `Ctrl+1`).
    fn build(key: Key, mods: Modifiers, any_ctrl: bool) -> Result<KeyCombo, KeyError> {
        let combo = KeyCombo { key, mods };
        combo
            .check(any_ctrl)
            .map_err(|message| KeyError::new(&combo.to_string(), message))?;
        Ok(combo.normalized())
    }

    /// The key.
    pub fn key(&self) -> Key {
        self.key
    }

    /// The modifiers.
    pub fn modifiers(&self) -> Modifiers {
        self.mods
    }

    fn check(&self, any_ctrl: bool) -> Result<(), String> {
        match self.key {
            Key::F(n) if !(1..=12).contains(&n) => Err(format!(
                "unknown function key F{n}; function keys are F1-F12"
            )),
            Key::Char(c) if c.is_control() => Err(format!(
                "{} is a control character; name the key instead (e.g. Enter, Tab, Ctrl+A)",
                c.escape_unicode()
            )),
            Key::Char(c) if self.mods.ctrl && !any_ctrl && control_code(c).is_none() => {
                Err(format!(
                    "Ctrl+{} has no control code (Ctrl works with letters, Space, \
                     @ [ \\ ] ^ _ ` {{ | }} ~ ? / - and 2-8); send the character without Ctrl",
                    Key::Char(c).name()
                ))
            }
            _ => Ok(()),
        }
    }

    /// One spelling per key: the space character is [`Key::Space`], and Ctrl+letter, being
    /// case-insensitive, is stored in lower case, so that equal keys compare equal.
    fn normalized(mut self) -> KeyCombo {
        match self.key {
            Key::Char(' ') => self.key = Key::Space,
            Key::Char(c) if self.mods.ctrl && c.is_ascii_uppercase() => {
                self.key = Key::Char(c.to_ascii_lowercase());
            }
            _ => {}
        }
        self
    }

    /// The bytes a press of this key sends in `modes`: xterm's, or the kitty keyboard
    /// protocol's once the program has set its flag 1 or 8 (see the module documentation).
    pub fn encode(&self, modes: KeyModes) -> Vec<u8> {
        if kitty::encodes_presses(modes.kitty_flags) {
            kitty::encode(self, modes.kitty_flags, KeyEvent::Press)
        } else {
            self.encode_legacy(modes)
        }
    }

    /// The bytes for a press, repeat or release of this key in `modes`. Repeats and releases
    /// exist only in the kitty keyboard protocol with flag 2 ("report event types"); without
    /// it they are refused. Empty when the protocol sends nothing for the event (the release
    /// of an unmodified Enter, Tab or Backspace without flag 8).
    pub fn encode_event(&self, modes: KeyModes, event: KeyEvent) -> Result<Vec<u8>, KeyError> {
        match event {
            KeyEvent::Press => Ok(self.encode(modes)),
            _ if modes.kitty_flags & kitty::REPORT_EVENT_TYPES == 0 => Err(KeyError::new(
                &self.to_string(),
                format!(
                    "the program has not asked for key {} events (kitty keyboard flag 2)",
                    event.name()
                ),
            )),
            _ => Ok(kitty::encode(self, modes.kitty_flags, event)),
        }
    }

    /// The bytes xterm sends for this key (the kitty flags are not looked at).
    fn encode_legacy(&self, modes: KeyModes) -> Vec<u8> {
        let mods = self.mods;
        let m = mods.param();
        match self.key {
            Key::Up => cursor_key(b'A', m, modes),
            Key::Down => cursor_key(b'B', m, modes),
            Key::Right => cursor_key(b'C', m, modes),
            Key::Left => cursor_key(b'D', m, modes),
            Key::Home => cursor_key(b'H', m, modes),
            Key::End => cursor_key(b'F', m, modes),
            Key::Insert => tilde_key(2, m),
            Key::Delete => tilde_key(3, m),
            Key::PageUp => tilde_key(5, m),
            Key::PageDown => tilde_key(6, m),
            Key::F(n @ 1..=4) => {
                let fin = b'P' + (n - 1);
                if m == 1 {
                    vec![ESC, b'O', fin]
                } else {
                    csi(&format!("1;{m}"), fin)
                }
            }
            Key::F(n) => tilde_key(function_key_code(n), m),
            Key::Keypad(kp) => {
                let (numeric, application) = kp.codes();
                if modes.keypad_application {
                    let mut out = vec![ESC, b'O'];
                    if m != 1 {
                        out.extend_from_slice(m.to_string().as_bytes());
                    }
                    out.push(application);
                    out
                } else {
                    with_prefix(mods, &[numeric])
                }
            }
            Key::Tab if mods.shift => b"\x1b[Z".to_vec(),
            Key::Tab => with_prefix(mods, b"\t"),
            Key::Enter => with_prefix(mods, b"\r"),
            Key::Escape => with_prefix(mods, &[ESC]),
            Key::Backspace => with_prefix(mods, if mods.ctrl { b"\x08" } else { b"\x7f" }),
            Key::Space => with_prefix(mods, if mods.ctrl { b"\0" } else { b" " }),
            Key::Char(c) => {
                if mods.ctrl {
                    // `check` guarantees a code; fall back to the character regardless.
                    match control_code(c) {
                        Some(code) => with_prefix(mods, &[code]),
                        None => with_prefix(mods, c.to_string().as_bytes()),
                    }
                } else {
                    let c = if mods.shift { shifted(c) } else { c };
                    with_prefix(mods, c.to_string().as_bytes())
                }
            }
        }
    }
}

impl fmt::Display for KeyCombo {
    /// The canonical spelling, e.g. `Ctrl+Alt+Left`; [`parse_key`] reads it back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mods = self.mods;
        for (held, name) in [
            (mods.ctrl, "Ctrl+"),
            (mods.alt, "Alt+"),
            (mods.shift, "Shift+"),
            (mods.meta, "Meta+"),
        ] {
            if held {
                f.write_str(name)?;
            }
        }
        f.write_str(&self.key.name())
    }
}

impl std::str::FromStr for KeyCombo {
    type Err = KeyError;

    fn from_str(name: &str) -> Result<KeyCombo, KeyError> {
        parse_key(name)
    }
}

/// Shift on a character: a letter becomes its capital (when that is one character), anything
/// else is sent as is.
fn shifted(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

fn with_prefix(mods: Modifiers, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 1);
    if mods.escape_prefix() {
        out.push(ESC);
    }
    out.extend_from_slice(bytes);
    out
}

fn csi(params: &str, fin: u8) -> Vec<u8> {
    let mut out = vec![ESC, b'['];
    out.extend_from_slice(params.as_bytes());
    out.push(fin);
    out
}

/// Arrows, Home and End.
fn cursor_key(fin: u8, m: u8, modes: KeyModes) -> Vec<u8> {
    if m != 1 {
        csi(&format!("1;{m}"), fin)
    } else if modes.cursor_keys_application {
        vec![ESC, b'O', fin]
    } else {
        vec![ESC, b'[', fin]
    }
}

/// `CSI code ~`, modified `CSI code ; m ~`.
fn tilde_key(code: u8, m: u8) -> Vec<u8> {
    if m == 1 {
        csi(&code.to_string(), b'~')
    } else {
        csi(&format!("{code};{m}"), b'~')
    }
}

/// The VT220 code of F5–F12 (F1–F4 would be 11–14, but xterm sends them as SS3 P–S).
fn function_key_code(n: u8) -> u8 {
    match n {
        1..=5 => 10 + n,
        6..=10 => 11 + n,
        _ => 12 + n,
    }
}

/// Adds the modifier called `name` to `mods`; false if there is no such modifier.
fn add_modifier(mods: &mut Modifiers, name: &str) -> bool {
    let is = |n: &str| n.eq_ignore_ascii_case(name);
    if is("ctrl") || is("control") {
        mods.ctrl = true;
    } else if is("alt") || is("option") {
        mods.alt = true;
    } else if is("shift") {
        mods.shift = true;
    } else if is("meta") {
        mods.meta = true;
    } else {
        return false;
    }
    true
}

/// Parses a key name such as `Enter`, `ctrl+c`, `Shift+Tab`, `Ctrl+Alt+Left`, `é` or `Alt++`
/// (see the module documentation). Fails for unknown names and for combinations without an
/// encoding (`Ctrl+1`).
pub fn parse_key(name: &str) -> Result<KeyCombo, KeyError> {
    parse_key_with(name, false)
}

/// Checks that `name` names a key in some mode: [`parse_key`], also accepting Ctrl with any
/// character (which the kitty keyboard protocol can send). What a front end checks before the
/// program's modes are known; the encoder refuses what the modes at the time cannot send.
pub fn check_key_name(name: &str) -> Result<(), KeyError> {
    parse_key_with(name, true).map(drop)
}

/// [`parse_key`]; `any_ctrl` as in [`KeyCombo::build`].
fn parse_key_with(name: &str, any_ctrl: bool) -> Result<KeyCombo, KeyError> {
    let err = |message: String| KeyError::new(name, message);
    if name.trim().is_empty() && name != " " {
        return Err(err(format!("empty key name; {EXAMPLES}")));
    }
    if let Some((mods, key_text)) = tmux_spelling(name) {
        let key = parse_base_key(key_text).map_err(err)?;
        return KeyCombo::build(key, mods, any_ctrl).map_err(|e| KeyError::new(name, e.message));
    }
    // Whitespace is trimmed per part (not as a whole, so that `Alt+ ` names the space bar).
    let text = name;

    // Split into modifiers and key. `+` alone is the key `+`; so is a trailing `++`.
    let (mods_text, key_text) = if text.trim() == "+" {
        (None, "+")
    } else if let Some(rest) = text.trim_end().strip_suffix("++") {
        (Some(rest), "+")
    } else {
        match text.rfind('+') {
            Some(i) => (Some(&text[..i]), &text[i + 1..]),
            None => (None, text),
        }
    };

    if key_text.trim().is_empty() && key_text != " " {
        return Err(err(format!(
            "missing key after \"{}\"; {EXAMPLES}",
            shown(text)
        )));
    }
    let key_text = if key_text.trim().is_empty() {
        key_text
    } else {
        key_text.trim()
    };

    let mut mods = Modifiers::NONE;
    if let Some(mods_text) = mods_text {
        for part in mods_text.split('+') {
            let part = part.trim();
            if part.is_empty() {
                return Err(err(format!(
                    "empty modifier in \"{}\" (modifiers are Ctrl, Alt, Shift, Meta; \
                     the + key is Plus)",
                    shown(text)
                )));
            }
            if !add_modifier(&mut mods, part) {
                return Err(err(format!(
                    "unknown modifier \"{}\" (modifiers are Ctrl, Alt, Shift, Meta)",
                    shown(part)
                )));
            }
        }
    }

    let key = parse_base_key(key_text).map_err(err)?;
    KeyCombo::build(key, mods, any_ctrl).map_err(|e| KeyError::new(name, e.message))
}

/// The modifiers and key of a tmux-style name (`C-c`, `M-x`, `S-Tab`, `C-M-Left`), or `None`
/// if `name` is not one. `C-` alone and `-` stay ordinary names.
fn tmux_spelling(name: &str) -> Option<(Modifiers, &str)> {
    let mut mods = Modifiers::NONE;
    let mut rest = name.trim();
    let mut any = false;
    while let Some((flag, tail)) = ["C-", "M-", "S-"]
        .iter()
        .find_map(|p| rest.strip_prefix(p).map(|t| (p.as_bytes()[0], t)))
        .filter(|(_, tail)| !tail.is_empty())
    {
        match flag {
            b'C' => mods.ctrl = true,
            b'M' => mods.alt = true,
            _ => mods.shift = true,
        }
        any = true;
        rest = tail;
    }
    any.then_some((mods, rest))
}

/// The key names nearest to `text` (at most three, closest first), for a refusal.
fn nearest_names(text: &str) -> Vec<&'static str> {
    let wanted: Vec<char> = text.to_lowercase().chars().collect();
    let limit = (wanted.len() / 3).max(1);
    let mut near: Vec<(usize, &'static str)> = NAMED
        .iter()
        .map(|(n, _)| {
            (
                edit_distance(&wanted, &n.to_lowercase().chars().collect::<Vec<_>>()),
                *n,
            )
        })
        .filter(|&(d, _)| d <= limit)
        .collect();
    near.sort();
    near.dedup_by_key(|(_, n)| *n);
    near.into_iter().take(3).map(|(_, n)| n).collect()
}

/// Levenshtein distance between two character sequences.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

/// A key without modifiers: a name from [`NAMED`] or one printable character.
fn parse_base_key(text: &str) -> Result<Key, String> {
    if let Some(&(_, key)) = NAMED.iter().find(|(n, _)| n.eq_ignore_ascii_case(text)) {
        return Ok(key);
    }
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(' '), None) => Ok(Key::Space),
        (Some(c), None) if c.is_control() => Err(format!(
            "{} is a control character; name the key instead (e.g. Enter, Tab, Ctrl+A)",
            c.escape_unicode()
        )),
        (Some(c), None) => Ok(Key::Char(c)),
        _ => {
            let lower = text.to_ascii_lowercase();
            if let Some(n) = lower.strip_prefix('f')
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
            {
                return Err("unknown function key; function keys are F1-F12".to_owned());
            }
            if let Some(rest) = lower.strip_prefix("kp")
                && !rest.is_empty()
            {
                return Err(
                    "unknown keypad key; keypad keys are KP0-KP9, KPDecimal, KPEnter, \
                     KPAdd, KPSubtract, KPMultiply, KPDivide, KPSeparator"
                        .to_owned(),
                );
            }
            match nearest_names(text).as_slice() {
                [] => Err(format!("unknown key; {EXAMPLES}")),
                near => Err(format!(
                    "unknown key; did you mean {}? {EXAMPLES}",
                    near.join(", ")
                )),
            }
        }
    }
}

/// [`parse_key`] and [`KeyCombo::encode`] in one step: the bytes for one key name. Under
/// the kitty keyboard protocol's flag 1 or 8, Ctrl goes with every character (`Ctrl+1` is
/// `CSI 49;5u` there).
pub fn encode_keys(name: &str, modes: KeyModes) -> Result<Vec<u8>, KeyError> {
    Ok(parse_key_for(name, modes)?.encode(modes))
}

/// [`encode_keys`] for a press, repeat or release ([`KeyCombo::encode_event`]).
pub fn encode_key_event(name: &str, modes: KeyModes, event: KeyEvent) -> Result<Vec<u8>, KeyError> {
    parse_key_for(name, modes)?.encode_event(modes, event)
}

/// [`parse_key`], accepting Ctrl with any character when `modes` encode it as kitty's `CSI u`.
fn parse_key_for(name: &str, modes: KeyModes) -> Result<KeyCombo, KeyError> {
    parse_key_with(name, kitty::encodes_presses(modes.kitty_flags))
}

/// The bytes a terminal sends when `text` is pasted: line ends (`\r\n`, `\n`) become `\r`, as
/// in every common terminal; when the application enabled bracketed paste (`bracketed`, mode
/// 2004) the text is wrapped in [`PASTE_START`] … [`PASTE_END`], and every [`PASTE_END`]
/// inside it is removed (also one that removing another would form), so a paste cannot end
/// itself early.
pub fn paste_bytes(text: &str, bracketed: bool) -> Vec<u8> {
    let mut body = Vec::with_capacity(text.len() + PASTE_START.len() + PASTE_END.len());
    if bracketed {
        body.extend_from_slice(PASTE_START);
    }
    let start = body.len();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        i += 1;
        match b {
            b'\r' if bytes.get(i) == Some(&b'\n') => {
                body.push(b'\r');
                i += 1;
            }
            b'\n' => body.push(b'\r'),
            _ => body.push(b),
        }
        // Removing on the fly (a stack) also catches markers formed by an earlier removal.
        if bracketed && body.len() - start >= PASTE_END.len() && body.ends_with(PASTE_END) {
            body.truncate(body.len() - PASTE_END.len());
        }
    }
    if bracketed {
        body.extend_from_slice(PASTE_END);
    }
    body
}

mod caption;
pub mod kitty;

pub use caption::{caption, caption_of_writes};

#[cfg(test)]
mod tests;
