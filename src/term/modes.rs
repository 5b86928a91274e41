//! Terminal modes set by SM/RM and DECSET/DECRST, and the kitty keyboard protocol's flags.

use super::keys::kitty::{self, FlagsUpdate};

/// A mode a program can set or reset (ANSI `CSI Pm h` or DEC private `CSI ? Pm h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// IRM (ANSI 4): printed characters shift the rest of the line right.
    Insert,
    /// LNM (ANSI 20): LF, VT and FF also return the carriage.
    LineFeedNewLine,
    /// DECCOLM (?3): 132 columns (80 when reset); honoured only while ?40 allows it.
    Columns132,
    /// ?40: allow DECCOLM to switch between 80 and 132 columns.
    AllowColumnSwitch,
    /// DECLRMM (?69): `CSI Pl ; Pr s` sets left and right margins (DECSLRM).
    LeftRightMargins,
    /// DECCKM (?1): cursor keys send application sequences.
    CursorKeys,
    /// DECSCNM (?5): reverse video for the whole screen.
    ReverseVideo,
    /// DECOM (?6): cursor addressing relative to the scroll region.
    Origin,
    /// DECAWM (?7): autowrap at the right margin.
    AutoWrap,
    /// ?12: blinking cursor.
    CursorBlink,
    /// DECTCEM (?25): cursor visible.
    ShowCursor,
    /// ?47: alternate screen buffer.
    AltScreen,
    /// ?1047: alternate screen buffer, cleared when leaving it.
    AltScreenClear,
    /// ?1048: save/restore the cursor.
    SaveCursor,
    /// ?1049: save the cursor, switch to a cleared alternate screen.
    AltScreenSaveCursor,
    /// DECNKM (?66): keypad sends application sequences.
    KeypadApplication,
    /// ?9: X10 mouse reporting.
    MouseX10,
    /// ?1000: report button presses and releases.
    MouseNormal,
    /// ?1002: also report motion while a button is held.
    MouseButtonEvent,
    /// ?1003: report all motion.
    MouseAnyEvent,
    /// ?1004: report focus in/out.
    FocusEvents,
    /// ?1005: UTF-8 mouse coordinates.
    MouseUtf8,
    /// ?1006: SGR mouse coordinates.
    MouseSgr,
    /// ?1015: urxvt mouse coordinates.
    MouseUrxvt,
    /// ?2004: bracketed paste.
    BracketedPaste,
    /// ?2026: synchronized output.
    SynchronizedOutput,
}

impl Mode {
    /// The mode behind an ANSI mode number.
    pub fn from_ansi(n: u16) -> Option<Mode> {
        Some(match n {
            4 => Mode::Insert,
            20 => Mode::LineFeedNewLine,
            _ => return None,
        })
    }

    /// The mode behind a DEC private mode number.
    pub fn from_dec(n: u16) -> Option<Mode> {
        Some(match n {
            1 => Mode::CursorKeys,
            3 => Mode::Columns132,
            40 => Mode::AllowColumnSwitch,
            69 => Mode::LeftRightMargins,
            5 => Mode::ReverseVideo,
            6 => Mode::Origin,
            7 => Mode::AutoWrap,
            9 => Mode::MouseX10,
            12 => Mode::CursorBlink,
            25 => Mode::ShowCursor,
            47 => Mode::AltScreen,
            66 => Mode::KeypadApplication,
            1000 => Mode::MouseNormal,
            1002 => Mode::MouseButtonEvent,
            1003 => Mode::MouseAnyEvent,
            1004 => Mode::FocusEvents,
            1005 => Mode::MouseUtf8,
            1006 => Mode::MouseSgr,
            1015 => Mode::MouseUrxvt,
            1047 => Mode::AltScreenClear,
            1048 => Mode::SaveCursor,
            1049 => Mode::AltScreenSaveCursor,
            2004 => Mode::BracketedPaste,
            2026 => Mode::SynchronizedOutput,
            _ => return None,
        })
    }
}

/// Which mouse events the application asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MouseTracking {
    /// No mouse reporting.
    #[default]
    Off,
    /// ?9.
    X10,
    /// ?1000.
    Normal,
    /// ?1002.
    ButtonEvent,
    /// ?1003.
    AnyEvent,
}

/// How mouse coordinates are encoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MouseEncoding {
    /// The original X10 byte encoding.
    #[default]
    Default,
    /// ?1005.
    Utf8,
    /// ?1006.
    Sgr,
    /// ?1015.
    Urxvt,
}

/// The state of every mode the terminal tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modes {
    /// IRM.
    pub insert: bool,
    /// LNM.
    pub linefeed_newline: bool,
    /// DECCKM.
    pub cursor_keys_application: bool,
    /// DECSCNM.
    pub reverse_video: bool,
    /// DECCOLM.
    pub columns_132: bool,
    /// ?40.
    pub allow_column_switch: bool,
    /// DECLRMM.
    pub left_right_margins: bool,
    /// DECOM.
    pub origin: bool,
    /// DECAWM.
    pub autowrap: bool,
    /// ?12.
    pub cursor_blink: bool,
    /// DECTCEM.
    pub cursor_visible: bool,
    /// DECNKM / DECKPAM.
    pub keypad_application: bool,
    /// Mouse reporting.
    pub mouse_tracking: MouseTracking,
    /// Mouse encoding.
    pub mouse_encoding: MouseEncoding,
    /// ?1004.
    pub focus_events: bool,
    /// ?2004.
    pub bracketed_paste: bool,
    /// ?2026.
    pub synchronized_output: bool,
    /// The kitty keyboard protocol's progressive enhancement flags of the screen shown
    /// (`CSI > flags u`, `CSI = flags ; mode u` …; 0 for legacy key encoding), a combination
    /// of [`kitty::DISAMBIGUATE`] … [`kitty::REPORT_ASSOCIATED_TEXT`]. Each screen has its
    /// own flags: this is the main screen's while it is shown, the alternate screen's while
    /// that is.
    pub kitty_keyboard: u8,
}

impl Default for Modes {
    fn default() -> Self {
        Modes {
            insert: false,
            linefeed_newline: false,
            cursor_keys_application: false,
            reverse_video: false,
            columns_132: false,
            allow_column_switch: false,
            left_right_margins: false,
            origin: false,
            autowrap: true,
            cursor_blink: false,
            cursor_visible: true,
            keypad_application: false,
            mouse_tracking: MouseTracking::Off,
            mouse_encoding: MouseEncoding::Default,
            focus_events: false,
            bracketed_paste: false,
            synchronized_output: false,
            kitty_keyboard: 0,
        }
    }
}

impl Modes {
    /// The state of a simple (non-screen-switching) mode; `None` for the alternate-screen and
    /// cursor-saving modes, whose state lives elsewhere.
    pub fn get(&self, mode: Mode) -> Option<bool> {
        Some(match mode {
            Mode::Insert => self.insert,
            Mode::LineFeedNewLine => self.linefeed_newline,
            Mode::CursorKeys => self.cursor_keys_application,
            Mode::ReverseVideo => self.reverse_video,
            Mode::Columns132 => self.columns_132,
            Mode::AllowColumnSwitch => self.allow_column_switch,
            Mode::LeftRightMargins => self.left_right_margins,
            Mode::Origin => self.origin,
            Mode::AutoWrap => self.autowrap,
            Mode::CursorBlink => self.cursor_blink,
            Mode::ShowCursor => self.cursor_visible,
            Mode::KeypadApplication => self.keypad_application,
            Mode::MouseX10 => self.mouse_tracking == MouseTracking::X10,
            Mode::MouseNormal => self.mouse_tracking == MouseTracking::Normal,
            Mode::MouseButtonEvent => self.mouse_tracking == MouseTracking::ButtonEvent,
            Mode::MouseAnyEvent => self.mouse_tracking == MouseTracking::AnyEvent,
            Mode::FocusEvents => self.focus_events,
            Mode::MouseUtf8 => self.mouse_encoding == MouseEncoding::Utf8,
            Mode::MouseSgr => self.mouse_encoding == MouseEncoding::Sgr,
            Mode::MouseUrxvt => self.mouse_encoding == MouseEncoding::Urxvt,
            Mode::BracketedPaste => self.bracketed_paste,
            Mode::SynchronizedOutput => self.synchronized_output,
            Mode::AltScreen
            | Mode::AltScreenClear
            | Mode::SaveCursor
            | Mode::AltScreenSaveCursor => return None,
        })
    }

    /// Sets a simple mode (see [`Modes::get`]); returns false for modes not stored here.
    pub fn set(&mut self, mode: Mode, on: bool) -> bool {
        fn pick<T: PartialEq + Copy>(slot: &mut T, value: T, off: T, on: bool) {
            if on {
                *slot = value;
            } else if *slot == value {
                *slot = off;
            }
        }
        fn tracking(mode: MouseTracking, on: bool) -> MouseTracking {
            if on { mode } else { MouseTracking::Off }
        }
        match mode {
            Mode::Insert => self.insert = on,
            Mode::LineFeedNewLine => self.linefeed_newline = on,
            Mode::CursorKeys => self.cursor_keys_application = on,
            Mode::ReverseVideo => self.reverse_video = on,
            Mode::Columns132 => self.columns_132 = on,
            Mode::AllowColumnSwitch => self.allow_column_switch = on,
            Mode::LeftRightMargins => self.left_right_margins = on,
            Mode::Origin => self.origin = on,
            Mode::AutoWrap => self.autowrap = on,
            Mode::CursorBlink => self.cursor_blink = on,
            Mode::ShowCursor => self.cursor_visible = on,
            Mode::KeypadApplication => self.keypad_application = on,
            // xterm: a DECRST of any tracking mode turns reporting off, whichever was active.
            Mode::MouseX10 => self.mouse_tracking = tracking(MouseTracking::X10, on),
            Mode::MouseNormal => self.mouse_tracking = tracking(MouseTracking::Normal, on),
            Mode::MouseButtonEvent => {
                self.mouse_tracking = tracking(MouseTracking::ButtonEvent, on)
            }
            Mode::MouseAnyEvent => self.mouse_tracking = tracking(MouseTracking::AnyEvent, on),
            Mode::FocusEvents => self.focus_events = on,
            Mode::MouseUtf8 => pick(
                &mut self.mouse_encoding,
                MouseEncoding::Utf8,
                MouseEncoding::Default,
                on,
            ),
            Mode::MouseSgr => pick(
                &mut self.mouse_encoding,
                MouseEncoding::Sgr,
                MouseEncoding::Default,
                on,
            ),
            Mode::MouseUrxvt => pick(
                &mut self.mouse_encoding,
                MouseEncoding::Urxvt,
                MouseEncoding::Default,
                on,
            ),
            Mode::BracketedPaste => self.bracketed_paste = on,
            Mode::SynchronizedOutput => self.synchronized_output = on,
            Mode::AltScreen
            | Mode::AltScreenClear
            | Mode::SaveCursor
            | Mode::AltScreenSaveCursor => return false,
        }
        true
    }
}

/// One screen's kitty keyboard flags and the stack of earlier ones under them (`CSI > u`
/// pushes, `CSI < u` pops), as the protocol keeps them for each screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyboardFlags {
    /// The flags in force.
    current: u8,
    /// The flags pushed before them, oldest first; at most [`kitty::STACK_DEPTH`].
    saved: Vec<u8>,
}

impl KeyboardFlags {
    /// The flags in force.
    pub fn current(&self) -> u8 {
        self.current
    }

    /// The flags under the current ones, oldest first.
    pub fn saved(&self) -> &[u8] {
        &self.saved
    }

    /// `CSI > flags u`: the current flags go onto the stack (the oldest entry is dropped when
    /// it is full, as kitty does) and `flags` take their place.
    pub fn push(&mut self, flags: u8) {
        if self.saved.len() >= kitty::STACK_DEPTH {
            self.saved.remove(0);
        }
        self.saved.push(self.current);
        self.current = flags & kitty::ALL_FLAGS;
    }

    /// `CSI < count u`: back `count` entries; popping more than the stack holds empties it and
    /// resets the flags to 0.
    pub fn pop(&mut self, count: u16) {
        for _ in 0..count {
            match self.saved.pop() {
                Some(flags) => self.current = flags,
                None => {
                    self.current = 0;
                    break;
                }
            }
        }
    }

    /// `CSI = flags ; mode u`: changes the current flags; the stack stays as it is.
    pub fn update(&mut self, flags: u8, how: FlagsUpdate) {
        self.current = how.apply(self.current, flags);
    }
}
