//! Character sets designated into G0–G3 (`ESC ( 0`, `ESC ) B` …) and invoked with SO/SI.

/// A 94-character set the terminal can map printable ASCII through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Charset {
    /// US ASCII (`B`): no translation.
    #[default]
    Ascii,
    /// DEC Special Graphics (`0`): line drawing for `` ` ``, `a`, `j`…`x` and friends.
    DecSpecialGraphics,
    /// United Kingdom (`A`): `#` is `£`.
    Uk,
}

impl Charset {
    /// The set designated by the final byte of `ESC ( F`; unknown sets fall back to ASCII.
    pub fn from_designator(byte: u8) -> Charset {
        match byte {
            b'0' => Charset::DecSpecialGraphics,
            b'A' => Charset::Uk,
            _ => Charset::Ascii,
        }
    }

    /// The final byte that designates this set (`ESC ( F`).
    pub fn designator(self) -> u8 {
        match self {
            Charset::Ascii => b'B',
            Charset::DecSpecialGraphics => b'0',
            Charset::Uk => b'A',
        }
    }

    /// Maps a character through this set.
    #[inline]
    pub fn map(self, c: char) -> char {
        match self {
            Charset::Ascii => c,
            Charset::Uk => {
                if c == '#' {
                    '£'
                } else {
                    c
                }
            }
            Charset::DecSpecialGraphics => dec_special_graphics(c),
        }
    }
}

/// The VT100 DEC Special Graphics table for 0x5F–0x7E.
fn dec_special_graphics(c: char) -> char {
    match c {
        '_' => ' ', // U+00A0 on some terminals; xterm shows a blank.
        '`' => '◆',
        'a' => '▒',
        'b' => '␉',
        'c' => '␌',
        'd' => '␍',
        'e' => '␊',
        'f' => '°',
        'g' => '±',
        'h' => '␤',
        'i' => '␋',
        'j' => '┘',
        'k' => '┐',
        'l' => '┌',
        'm' => '└',
        'n' => '┼',
        'o' => '⎺',
        'p' => '⎻',
        'q' => '─',
        'r' => '⎼',
        's' => '⎽',
        't' => '├',
        'u' => '┤',
        'v' => '┴',
        'w' => '┬',
        'x' => '│',
        'y' => '≤',
        'z' => '≥',
        '{' => 'π',
        '|' => '≠',
        '}' => '£',
        '~' => '·',
        _ => c,
    }
}

/// One of the four designation slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharsetSlot {
    /// G0 (`ESC (`), invoked by SI.
    G0,
    /// G1 (`ESC )`), invoked by SO.
    G1,
    /// G2 (`ESC *`).
    G2,
    /// G3 (`ESC +`).
    G3,
}

/// The designated sets and which one is active.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Charsets {
    slots: [Charset; 4],
    active: usize,
    /// A single shift (SS2/SS3) applies to the next printed character only.
    single_shift: Option<usize>,
}

impl Charsets {
    /// Designates `charset` into `slot`.
    pub fn designate(&mut self, slot: CharsetSlot, charset: Charset) {
        self.slots[slot as usize] = charset;
    }

    /// Invokes `slot` into GL (SO/SI and the locking shifts).
    pub fn invoke(&mut self, slot: CharsetSlot) {
        self.active = slot as usize;
    }

    /// Uses `slot` for the next character only (SS2/SS3).
    pub fn single_shift(&mut self, slot: CharsetSlot) {
        self.single_shift = Some(slot as usize);
    }

    /// Whether every mapping is the identity (the common case, checked on the hot path).
    #[inline]
    pub fn is_identity(&self) -> bool {
        self.single_shift.is_none() && self.slots[self.active] == Charset::Ascii
    }

    /// These charsets without a pending single shift.
    pub(crate) fn without_single_shift(mut self) -> Charsets {
        self.single_shift = None;
        self
    }

    /// Appends the output that changes `from` into these charsets: designations (`ESC ( F`
    /// and friends), then the locking shift (SI, SO, LS2, LS3) and a pending single shift
    /// (SS2, SS3), which must be the last thing before the next printed character.
    pub(crate) fn write_change_from(&self, from: &Charsets, out: &mut String) {
        for (slot, intermediate) in ['(', ')', '*', '+'].into_iter().enumerate() {
            if self.slots[slot] != from.slots[slot] {
                out.push('\x1b');
                out.push(intermediate);
                out.push(char::from(self.slots[slot].designator()));
            }
        }
        if self.active != from.active {
            out.push_str(["\x0f", "\x0e", "\x1bn", "\x1bo"][self.active]);
        }
        if self.single_shift != from.single_shift {
            match self.single_shift {
                Some(2) => out.push_str("\x1bN"),
                Some(3) => out.push_str("\x1bO"),
                _ => {}
            }
        }
    }

    /// Maps a printed character through the active set, consuming a single shift.
    pub fn map(&mut self, c: char) -> char {
        let slot = self.single_shift.take().unwrap_or(self.active);
        self.slots[slot].map(c)
    }
}
