//! Colours, SGR attributes and the interned style table.
//!
//! A cell stores a [`StyleId`] instead of its full style so cells stay small; the table maps ids
//! back to [`Style`] values. The table is bounded: when it fills up the terminal compacts it,
//! keeping only the styles still referenced by some cell (see `Screen::compact_tables`).

use rustc_hash::FxHashMap;

/// A colour as a terminal program sets it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Color {
    /// The terminal's default foreground or background.
    #[default]
    Default,
    /// An entry of the 256-colour palette (0–15 are the ANSI colours).
    Indexed(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

/// The underline styles of `SGR 4:N`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Underline {
    /// No underline.
    #[default]
    None,
    /// `SGR 4` / `4:1`.
    Single,
    /// `SGR 21` / `4:2`.
    Double,
    /// `SGR 4:3`.
    Curly,
    /// `SGR 4:4`.
    Dotted,
    /// `SGR 4:5`.
    Dashed,
}

impl Underline {
    /// The name used in snapshots, or `None` for no underline.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Underline::None => None,
            Underline::Single => Some("single"),
            Underline::Double => Some("double"),
            Underline::Curly => Some("curly"),
            Underline::Dotted => Some("dotted"),
            Underline::Dashed => Some("dashed"),
        }
    }

    /// Parses a snapshot name back into an underline style.
    pub fn from_name(name: &str) -> Option<Underline> {
        Some(match name {
            "single" => Underline::Single,
            "double" => Underline::Double,
            "curly" => Underline::Curly,
            "dotted" => Underline::Dotted,
            "dashed" => Underline::Dashed,
            _ => return None,
        })
    }
}

/// Boolean SGR attributes, one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attrs(u8);

impl Attrs {
    /// `SGR 1`.
    pub const BOLD: Attrs = Attrs(1);
    /// `SGR 2`.
    pub const DIM: Attrs = Attrs(1 << 1);
    /// `SGR 3`.
    pub const ITALIC: Attrs = Attrs(1 << 2);
    /// `SGR 5` / `6`.
    pub const BLINK: Attrs = Attrs(1 << 3);
    /// `SGR 7`.
    pub const INVERSE: Attrs = Attrs(1 << 4);
    /// `SGR 8`.
    pub const HIDDEN: Attrs = Attrs(1 << 5);
    /// `SGR 9`.
    pub const STRIKE: Attrs = Attrs(1 << 6);
    /// `SGR 53`.
    pub const OVERLINE: Attrs = Attrs(1 << 7);

    /// No attribute set.
    pub const fn empty() -> Attrs {
        Attrs(0)
    }

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: Attrs) -> bool {
        self.0 & other.0 == other.0
    }

    /// Sets or clears the bits of `other`.
    pub fn set(&mut self, other: Attrs, on: bool) {
        if on {
            self.0 |= other.0;
        } else {
            self.0 &= !other.0;
        }
    }
}

/// The full visual style of a cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Style {
    /// Foreground colour.
    pub fg: Color,
    /// Background colour.
    pub bg: Color,
    /// Underline colour (`SGR 58`); `Default` means the foreground colour.
    pub underline_color: Color,
    /// Boolean attributes.
    pub attrs: Attrs,
    /// Underline style.
    pub underline: Underline,
}

impl Style {
    /// The style erased cells get: only the background survives (xterm's back-colour erase).
    pub fn erase_style(&self) -> Style {
        Style {
            bg: self.bg,
            ..Style::default()
        }
    }
}

/// Index of a style in a [`StyleTable`]; `StyleId::DEFAULT` is the empty style.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StyleId(pub u16);

impl StyleId {
    /// The empty style, always present at index 0.
    pub const DEFAULT: StyleId = StyleId(0);
}

/// Interns styles: equal styles share one id.
#[derive(Clone, Debug)]
pub struct StyleTable {
    styles: Vec<Style>,
    index: FxHashMap<Style, StyleId>,
}

/// The most styles a table holds (ids are 16-bit).
pub const MAX_STYLES: usize = u16::MAX as usize;

impl Default for StyleTable {
    fn default() -> Self {
        StyleTable::new()
    }
}

impl StyleTable {
    /// A table holding only the default style.
    pub fn new() -> StyleTable {
        let mut index = FxHashMap::default();
        index.insert(Style::default(), StyleId::DEFAULT);
        StyleTable {
            styles: vec![Style::default()],
            index,
        }
    }

    /// The style behind an id (the default style for an unknown id).
    #[inline]
    pub fn get(&self, id: StyleId) -> &Style {
        self.styles.get(id.0 as usize).unwrap_or(&self.styles[0])
    }

    /// Number of interned styles, the default one included.
    pub fn len(&self) -> usize {
        self.styles.len()
    }

    /// Whether only the default style is present.
    pub fn is_empty(&self) -> bool {
        self.styles.len() <= 1
    }

    /// Whether another new style would exceed the table's bound.
    pub fn is_full(&self) -> bool {
        self.styles.len() >= MAX_STYLES
    }

    /// The id of `style`, adding it if new. Returns `None` when the table is full.
    pub fn intern(&mut self, style: Style) -> Option<StyleId> {
        if let Some(&id) = self.index.get(&style) {
            return Some(id);
        }
        if self.is_full() {
            return None;
        }
        let id = StyleId(self.styles.len() as u16);
        self.styles.push(style);
        self.index.insert(style, id);
        Some(id)
    }

    /// Rebuilds the table with only the ids marked in `used` and returns the old → new id map.
    pub fn compact(&mut self, used: &[bool]) -> Vec<StyleId> {
        let mut remap = vec![StyleId::DEFAULT; self.styles.len()];
        let old = std::mem::take(&mut self.styles);
        *self = StyleTable::new();
        for (i, style) in old.into_iter().enumerate() {
            if used.get(i).copied().unwrap_or(false) {
                remap[i] = self.intern(style).unwrap_or(StyleId::DEFAULT);
            }
        }
        remap
    }
}
