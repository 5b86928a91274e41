//! Colours, SGR attributes and the interned style table.
//!
//! A cell stores a [`StyleId`] instead of its full style so cells stay small; the table maps ids
//! back to [`Style`] values. The table is bounded: when it fills up the terminal compacts it,
//! keeping only the styles still referenced by some cell (see `Screen::compact_tables`).

use std::hash::Hasher;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

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

/// The names of the 16 ANSI colours, by palette index: `black` … `white` (0–7), then
/// `bright-black` … `bright-white` (8–15).
pub const ANSI_COLOR_NAMES: [&str; 16] = [
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "magenta",
    "cyan",
    "white",
    "bright-black",
    "bright-red",
    "bright-green",
    "bright-yellow",
    "bright-blue",
    "bright-magenta",
    "bright-cyan",
    "bright-white",
];

impl Color {
    /// A colour as people write it: `default`, a palette index (`1`, `196`), one of the
    /// [`ANSI_COLOR_NAMES`] (`red`, `bright-blue`) or `#rrggbb`; `None` for anything else.
    ///
    /// ```
    /// use shotty::term::Color;
    ///
    /// assert_eq!(Color::parse("bright-blue"), Some(Color::Indexed(12)));
    /// assert_eq!(Color::parse("#ff8000"), Some(Color::Rgb(255, 128, 0)));
    /// assert_eq!(Color::parse("orange"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Color> {
        if text == "default" {
            return Some(Color::Default);
        }
        if let Some(hex) = text.strip_prefix('#') {
            if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let channel = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
            return Some(Color::Rgb(channel(0)?, channel(2)?, channel(4)?));
        }
        if let Some(index) = ANSI_COLOR_NAMES.iter().position(|n| *n == text) {
            return u8::try_from(index).ok().map(Color::Indexed);
        }
        text.parse().ok().map(Color::Indexed)
    }
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

/// Slots of the cache in front of the hash map while a table is small: programs alternate
/// between a few styles (text, highlight, reset), so most lookups end here.
const SMALL_CACHE: usize = 8;

/// Slots of the cache once a table holds more than [`LARGE_CACHE_AFTER`] styles. A stream of
/// new true-colour styles fills the map with styles that never come back, so the few hundred
/// that do (a palette in bold, say) lie scattered over a map of up to [`MAX_STYLES`] entries,
/// each lookup a cache miss; this array keeps them in 32 KiB. Idle terminals never pay for it.
const LARGE_CACHE: usize = 1024;

/// Styles in a table before its cache grows to [`LARGE_CACHE`] slots.
const LARGE_CACHE_AFTER: usize = 64;

/// Interns styles: equal styles share one id.
#[derive(Clone, Debug)]
pub struct StyleTable {
    styles: Vec<Style>,
    /// The key of each of `styles`: what a lookup compares and growing the index hashes, one
    /// load each instead of a key computed from the style every time.
    keys: Vec<u128>,
    /// The ids of `styles`, by the hash of their key: 4 bytes an entry where a map from keys
    /// would take 32, so even a table of [`MAX_STYLES`] stays a megabyte, mostly in cache.
    index: HashTable<StyleId>,
    /// Direct-mapped (key, id) pairs, a power of two of them; an empty slot holds the default
    /// style's pair, which is a true one.
    cache: Box<[(u128, StyleId)]>,
}

impl Default for StyleTable {
    fn default() -> Self {
        StyleTable::new()
    }
}

/// The hash of a style's key in the index.
#[inline]
fn key_hash(key: u128) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write_u128(key);
    hasher.finish()
}

/// The cache slot of a key in a cache of `len` slots (a power of two).
#[inline]
fn cache_slot(key: u128, len: usize) -> usize {
    let folded = key as u64 ^ (key >> 64) as u64;
    (folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as usize & (len - 1)
}

impl StyleTable {
    /// A table holding only the default style.
    pub fn new() -> StyleTable {
        let default_key = Style::default().key();
        let mut index = HashTable::new();
        index.insert_unique(key_hash(default_key), StyleId::DEFAULT, |_| {
            key_hash(default_key)
        });
        StyleTable {
            styles: vec![Style::default()],
            keys: vec![default_key],
            index,
            cache: vec![(default_key, StyleId::DEFAULT); SMALL_CACHE].into_boxed_slice(),
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
        let slot = cache_slot(key, self.cache.len());
        if let Some(&(cached, id)) = self.cache.get(slot)
            && cached == key
        {
            return Some(id);
        }
        let hash = key_hash(key);
        let key_of = |keys: &[u128], id: StyleId| keys.get(id.0 as usize).copied();
        let found = self
            .index
            .find(hash, |&id| key_of(&self.keys, id) == Some(key));
        let id = match found {
            Some(&id) => id,
            None => {
                if self.is_full() {
                    return None;
                }
                let id = StyleId(self.styles.len() as u32);
                self.styles.push(style);
                self.keys.push(key);
                let keys = &self.keys;
                self.index
                    .insert_unique(hash, id, |&id| key_of(keys, id).map_or(0, key_hash));
                if self.styles.len() > LARGE_CACHE_AFTER && self.cache.len() < LARGE_CACHE {
                    let default = (Style::default().key(), StyleId::DEFAULT);
                    self.cache = vec![default; LARGE_CACHE].into_boxed_slice();
                }
                id
            }
        };
        if let Some(entry) = self.cache.get_mut(cache_slot(key, self.cache.len())) {
            *entry = (key, id);
        }
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
    fn ids_stay_true_through_the_cache_growing_and_compaction() {
        // Styles that repeat among thousands that do not, as an SGR-heavy program writes them:
        // the cache grows past LARGE_CACHE_AFTER and many keys share a slot.
        let style = |i: u32| Style {
            fg: Color::Rgb((i >> 16) as u8, (i >> 8) as u8, i as u8),
            attrs: if i.is_multiple_of(3) {
                Attrs::BOLD
            } else {
                Attrs::default()
            },
            ..Style::default()
        };
        let mut table = StyleTable::new();
        let mut ids = Vec::new();
        for i in 0..5000u32 {
            let id = table.intern(style(i)).expect("room");
            ids.push(id);
            let again = i * 7919 % (i + 1);
            assert_eq!(table.intern(style(again)), Some(ids[again as usize]));
        }
        for (i, &id) in ids.iter().enumerate().rev() {
            assert_eq!(table.intern(style(i as u32)), Some(id));
            assert_eq!(table.get(id), &style(i as u32));
        }
        let used: Vec<bool> = (0..table.len()).map(|i| i % 2 == 1).collect();
        let remap = table.compact(&used);
        for (i, &id) in ids.iter().enumerate() {
            if id.0 % 2 == 1 {
                let new = remap[id.0 as usize];
                assert_eq!(table.intern(style(i as u32)), Some(new));
                assert_eq!(table.get(new), &style(i as u32));
            }
        }
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
