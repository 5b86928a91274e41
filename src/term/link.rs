//! Interned OSC 8 hyperlinks.

use rustc_hash::FxHashMap;

/// A hyperlink as set by `OSC 8 ; params ; URI`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    /// The target URI.
    pub uri: String,
    /// The `id=` parameter, which groups cells of one link across lines.
    pub id: Option<String>,
}

/// Index of a link in a [`LinkTable`]; `LinkId::NONE` means "no link".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(pub u16);

impl LinkId {
    /// The cell carries no hyperlink.
    pub const NONE: LinkId = LinkId(0);

    /// Whether this id refers to a link.
    #[inline]
    pub fn is_some(self) -> bool {
        self.0 != 0
    }
}

/// The most links a table holds before it is compacted.
pub const MAX_LINKS: usize = 4096;
/// URIs longer than this (in bytes) are ignored.
pub const MAX_URI_LEN: usize = 8192;
/// `id=` values longer than this (in bytes) are ignored.
pub const MAX_LINK_ID_LEN: usize = 256;

/// Interns hyperlinks; id 0 is reserved for "no link".
#[derive(Clone, Debug, Default)]
pub struct LinkTable {
    links: Vec<Link>,
    index: FxHashMap<Link, LinkId>,
}

impl LinkTable {
    /// The link behind an id, `None` for `LinkId::NONE` or an unknown id.
    pub fn get(&self, id: LinkId) -> Option<&Link> {
        if id.is_some() {
            self.links.get(id.0 as usize - 1)
        } else {
            None
        }
    }

    /// Number of interned links.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether no link is interned.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Whether another new link would exceed the bound.
    pub fn is_full(&self) -> bool {
        self.links.len() >= MAX_LINKS
    }

    /// The id of `link`, adding it if new. Returns `None` when the table is full.
    pub fn intern(&mut self, link: Link) -> Option<LinkId> {
        if let Some(&id) = self.index.get(&link) {
            return Some(id);
        }
        if self.is_full() {
            return None;
        }
        self.links.push(link.clone());
        let id = LinkId(self.links.len() as u16);
        self.index.insert(link, id);
        Some(id)
    }

    /// Rebuilds the table with only the ids marked in `used` (indexed by id) and returns the
    /// old → new id map.
    pub fn compact(&mut self, used: &[bool]) -> Vec<LinkId> {
        let mut remap = vec![LinkId::NONE; self.links.len() + 1];
        let old = std::mem::take(&mut self.links);
        *self = LinkTable::default();
        for (i, link) in old.into_iter().enumerate() {
            if used.get(i + 1).copied().unwrap_or(false) {
                remap[i + 1] = self.intern(link).unwrap_or(LinkId::NONE);
            }
        }
        remap
    }
}

/// Appends the OSC 8 that opens a link (`id`, `uri`), or that closes the open one (`None`).
/// Control characters are dropped, and so are `:` and `;` from the id (they end it), so the
/// sequence stays well-formed whatever the strings hold.
pub(crate) fn push_osc8(out: &mut String, link: Option<(Option<&str>, &str)>) {
    out.push_str("\x1b]8;");
    if let Some((id, uri)) = link {
        if let Some(id) = id {
            out.push_str("id=");
            out.extend(
                id.chars()
                    .filter(|c| !c.is_control() && *c != ':' && *c != ';'),
            );
        }
        out.push(';');
        out.extend(uri.chars().filter(|c| !c.is_control()));
    } else {
        out.push(';');
    }
    out.push_str("\x1b\\");
}
