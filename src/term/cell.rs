//! The grid cell.

use super::link::LinkId;
use super::style::StyleId;

/// Per-cell flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CellFlags(u8);

impl CellFlags {
    /// The cell holds a character two columns wide; the next cell is its spacer.
    pub const WIDE: CellFlags = CellFlags(1);
    /// The right half of a wide character; it holds no character of its own.
    pub const WIDE_SPACER: CellFlags = CellFlags(1 << 1);
    /// Blank padding at the end of a soft-wrapped row whose next character was too wide to fit.
    pub const LEADING_SPACER: CellFlags = CellFlags(1 << 2);
    /// Zero-width characters (combining marks, ZWJ, variation selectors) follow the character;
    /// they are kept in the row's side table.
    pub const EXTRA: CellFlags = CellFlags(1 << 3);
    /// Protected from erasure (DECSCA, SPA): which erases spare it depends on the protection
    /// mode the screen is in.
    pub const PROTECTED: CellFlags = CellFlags(1 << 4);

    /// No flag set.
    pub const fn empty() -> CellFlags {
        CellFlags(0)
    }

    /// Whether every bit of `other` is set.
    #[inline]
    pub const fn contains(self, other: CellFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any bit of `other` is set.
    #[inline]
    pub const fn intersects(self, other: CellFlags) -> bool {
        self.0 & other.0 != 0
    }

    /// These bits and those of `other`.
    #[inline]
    pub const fn with(self, other: CellFlags) -> CellFlags {
        CellFlags(self.0 | other.0)
    }

    /// Sets or clears the bits of `other`.
    #[inline]
    pub fn set(&mut self, other: CellFlags, on: bool) {
        if on {
            self.0 |= other.0;
        } else {
            self.0 &= !other.0;
        }
    }
}

/// One cell of the grid: a character of non-zero width, its interned style and link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    /// The character; `' '` for an empty cell and for spacers.
    pub ch: char,
    /// Interned style.
    pub style: StyleId,
    /// Interned hyperlink, `LinkId::NONE` for none.
    pub link: LinkId,
    /// Wide-character and side-table flags.
    pub flags: CellFlags,
}

const _: () = assert!(std::mem::size_of::<Cell>() <= 16);

impl Default for Cell {
    fn default() -> Self {
        Cell::BLANK
    }
}

impl Cell {
    /// An empty cell in the default style.
    pub const BLANK: Cell = Cell {
        ch: ' ',
        style: StyleId::DEFAULT,
        link: LinkId::NONE,
        flags: CellFlags::empty(),
    };

    /// An empty cell in `style` (used by erase operations).
    #[inline]
    pub const fn blank(style: StyleId) -> Cell {
        Cell {
            ch: ' ',
            style,
            link: LinkId::NONE,
            flags: CellFlags::empty(),
        }
    }

    /// Whether this is the right half of a wide character.
    #[inline]
    pub fn is_spacer(&self) -> bool {
        self.flags.contains(CellFlags::WIDE_SPACER)
    }

    /// Whether this cell holds a wide character.
    #[inline]
    pub fn is_wide(&self) -> bool {
        self.flags.contains(CellFlags::WIDE)
    }

    /// Display width: 2 for a wide character, 0 for a spacer, 1 otherwise.
    pub fn width(&self) -> u8 {
        if self.is_wide() {
            2
        } else if self.is_spacer() {
            0
        } else {
            1
        }
    }
}
