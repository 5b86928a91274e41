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

impl Color {
    /// A 26-bit code: 2 tag bits and 24 value bits.
    #[inline]
    fn code(self) -> u128 {
        match self {
            Color::Default => 0,
            Color::Indexed(i) => 1 << 24 | i as u128,
            Color::Rgb(r, g, b) => 2 << 24 | (r as u128) << 16 | (g as u128) << 8 | b as u128,
        }
    }
}

impl Style {
    /// The whole style packed into one integer: equal styles give equal keys, so interning
    /// hashes and compares a single `u128` instead of walking the fields.
    #[inline]
    fn key(&self) -> u128 {
        self.fg.code()
            | self.bg.code() << 26
            | self.underline_color.code() << 52
            | (self.attrs.0 as u128) << 78
            | (self.underline as u128) << 86
    }
}

/// Index of a style in a [`StyleTable`]; `StyleId::DEFAULT` is the empty style.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StyleId(pub u32);

impl StyleId {
    /// The empty style, always present at index 0.
    pub const DEFAULT: StyleId = StyleId(0);
}

/// The most styles a table holds. A screenful of true-colour art uses one style per cell,
/// so the bound is generous; beyond it the table is compacted (see `Screen`).
pub const MAX_STYLES: usize = 1 << 18;

/// Recently interned styles, checked before the hash map: programs alternate between a few
/// styles (text, highlight, reset), so most lookups end here.
const RECENT: usize = 4;

/// Interns styles: equal styles share one id.
#[derive(Clone, Debug)]
pub struct StyleTable {
    styles: Vec<Style>,
    index: FxHashMap<u128, StyleId>,
    recent: [(u128, StyleId); RECENT],
    recent_next: usize,
}

impl Default for StyleTable {
    fn default() -> Self {
        StyleTable::new()
    }
}

impl StyleTable {
    /// A table holding only the default style.
    pub fn new() -> StyleTable {
        let default_key = Style::default().key();
        let mut index = FxHashMap::default();
        index.insert(default_key, StyleId::DEFAULT);
        StyleTable {
            styles: vec![Style::default()],
            index,
            recent: [(default_key, StyleId::DEFAULT); RECENT],
            recent_next: 0,
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
    #[inline]
    pub fn intern(&mut self, style: Style) -> Option<StyleId> {
        let key = style.key();
        if let Some(&(_, id)) = self.recent.iter().find(|(k, _)| *k == key) {
            return Some(id);
        }
        let id = match self.index.get(&key) {
            Some(&id) => id,
            None => {
                if self.is_full() {
                    return None;
                }
                let id = StyleId(self.styles.len() as u32);
                self.styles.push(style);
                self.index.insert(key, id);
                id
            }
        };
        self.recent[self.recent_next] = (key, id);
        self.recent_next = (self.recent_next + 1) % RECENT;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_distinguish_every_field() {
        let base = Style::default();
        let variants = [
            Style {
                fg: Color::Indexed(1),
                ..base
            },
            Style {
                bg: Color::Indexed(1),
                ..base
            },
            Style {
                underline_color: Color::Indexed(1),
                ..base
            },
            Style {
                fg: Color::Rgb(0, 0, 1),
                ..base
            },
            Style {
                fg: Color::Rgb(1, 0, 0),
                ..base
            },
            Style {
                attrs: Attrs::OVERLINE,
                ..base
            },
            Style {
                underline: Underline::Dashed,
                ..base
            },
        ];
        let mut keys: Vec<u128> = variants.iter().map(Style::key).collect();
        keys.push(base.key());
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), variants.len() + 1);
    }

    #[test]
    fn interning_is_stable_and_bounded() {
        let mut table = StyleTable::new();
        let red = Style {
            fg: Color::Indexed(1),
            ..Style::default()
        };
        let a = table.intern(red).unwrap();
        for i in 0..10u8 {
            table.intern(Style {
                bg: Color::Indexed(i),
                ..Style::default()
            });
        }
        assert_eq!(table.intern(red), Some(a));
        assert_eq!(table.get(a), &red);
        assert_eq!(table.intern(Style::default()), Some(StyleId::DEFAULT));
        let mut used = vec![false; table.len()];
        used[a.0 as usize] = true;
        let remap = table.compact(&used);
        assert_eq!(table.len(), 2);
        assert_eq!(table.get(remap[a.0 as usize]), &red);
    }
}
