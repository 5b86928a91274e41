//! Snapshots: the visible screen as plain text, and the structured snapshot (schema version 1),
//! a public contract shared by `render --format json`, `session read --structured` and the SVG
//! metadata. These serde types are its single definition.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use std::borrow::Cow;

use super::grid::Row;
use super::link::{LinkId, LinkTable};
use super::screen::Screen;
use super::style::{Attrs, Color, Style, StyleId, StyleTable, Underline};

/// The schema version written into every structured snapshot.
pub const SCHEMA_VERSION: u32 = 1;

/// A colour in a snapshot: a palette index or a `#rrggbb` string. Absent means default.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum ColorValue {
    /// Palette entry 0–255.
    Index(u8),
    /// True colour as `#rrggbb`.
    Rgb(String),
}

impl ColorValue {
    fn from_color(color: Color) -> Option<ColorValue> {
        match color {
            Color::Default => None,
            Color::Indexed(i) => Some(ColorValue::Index(i)),
            Color::Rgb(r, g, b) => Some(ColorValue::Rgb(format!("#{r:02x}{g:02x}{b:02x}"))),
        }
    }

    /// The colour this value denotes (`Default` for a malformed string).
    pub fn to_color(&self) -> Color {
        match self {
            ColorValue::Index(i) => Color::Indexed(*i),
            ColorValue::Rgb(s) => {
                let hex = s.strip_prefix('#').unwrap_or(s);
                let channel = |i: usize| {
                    hex.get(i..i + 2)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                };
                match (hex.len(), channel(0), channel(2), channel(4)) {
                    (6, Some(r), Some(g), Some(b)) => Color::Rgb(r, g, b),
                    _ => Color::Default,
                }
            }
        }
    }
}

#[cfg(feature = "serde")]
fn is_false(b: &bool) -> bool {
    !*b
}

/// One style of the snapshot's style table. Flags appear only when true.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(rename_all = "camelCase", deny_unknown_fields)
)]
pub struct StyleSnapshot {
    /// Foreground colour.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub fg: Option<ColorValue>,
    /// Background colour.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub bg: Option<ColorValue>,
    /// Bold.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub bold: bool,
    /// Dim (faint).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub dim: bool,
    /// Italic.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub italic: bool,
    /// Underline style: `single`, `double`, `curly`, `dotted` or `dashed`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub underline: Option<String>,
    /// Underline colour.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub underline_color: Option<ColorValue>,
    /// Blink.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub blink: bool,
    /// Inverse video.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub inverse: bool,
    /// Hidden (concealed).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub hidden: bool,
    /// Strikethrough.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub strike: bool,
    /// Overline.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub overline: bool,
}

impl StyleSnapshot {
    /// The snapshot form of a style.
    pub fn from_style(style: &Style) -> StyleSnapshot {
        let a = style.attrs;
        StyleSnapshot {
            fg: ColorValue::from_color(style.fg),
            bg: ColorValue::from_color(style.bg),
            bold: a.contains(Attrs::BOLD),
            dim: a.contains(Attrs::DIM),
            italic: a.contains(Attrs::ITALIC),
            underline: style.underline.name().map(str::to_owned),
            underline_color: ColorValue::from_color(style.underline_color),
            blink: a.contains(Attrs::BLINK),
            inverse: a.contains(Attrs::INVERSE),
            hidden: a.contains(Attrs::HIDDEN),
            strike: a.contains(Attrs::STRIKE),
            overline: a.contains(Attrs::OVERLINE),
        }
    }

    /// The style this snapshot entry describes.
    pub fn to_style(&self) -> Style {
        let mut attrs = Attrs::empty();
        attrs.set(Attrs::BOLD, self.bold);
        attrs.set(Attrs::DIM, self.dim);
        attrs.set(Attrs::ITALIC, self.italic);
        attrs.set(Attrs::BLINK, self.blink);
        attrs.set(Attrs::INVERSE, self.inverse);
        attrs.set(Attrs::HIDDEN, self.hidden);
        attrs.set(Attrs::STRIKE, self.strike);
        attrs.set(Attrs::OVERLINE, self.overline);
        let color = |c: &Option<ColorValue>| c.as_ref().map_or(Color::Default, |v| v.to_color());
        Style {
            fg: color(&self.fg),
            bg: color(&self.bg),
            underline_color: color(&self.underline_color),
            attrs,
            underline: self
                .underline
                .as_deref()
                .and_then(Underline::from_name)
                .unwrap_or_default(),
        }
    }
}

/// One hyperlink of the snapshot's link table.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct LinkSnapshot {
    /// Target URI.
    pub uri: String,
    /// The OSC 8 `id=` parameter.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub id: Option<String>,
}

#[cfg(feature = "serde")]
fn is_one(w: &u8) -> bool {
    *w == 1
}

#[cfg(feature = "serde")]
fn one() -> u8 {
    1
}

#[cfg(feature = "serde")]
fn is_zero(s: &u32) -> bool {
    *s == 0
}

/// One cell. `w` is omitted when 1, `s` when 0, `l` when the cell has no link.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct CellSnapshot {
    /// The character and any zero-width characters after it; `" "` when empty, `""` for the
    /// right half of a wide character. A static string when it is one printable ASCII
    /// character: a screen is mostly those, and one allocation per cell was the largest
    /// part of taking a snapshot.
    pub t: Cow<'static, str>,
    /// Width in columns: 2 for wide, 0 for a wide character's spacer.
    #[cfg_attr(
        feature = "serde",
        serde(default = "one", skip_serializing_if = "is_one")
    )]
    pub w: u8,
    /// Index into `styles`.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_zero"))]
    pub s: u32,
    /// Index into `links`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub l: Option<u32>,
    /// The cell's text was a secret, masked (`--mask`): `t` is `*`, and renderers hatch it.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub m: bool,
}

/// One row: exactly `width` cells.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RowSnapshot {
    /// The row continues on the next one (soft wrap).
    pub wrapped: bool,
    /// `doubleWidth`, `doubleHeightTop` or `doubleHeightBottom` for a double-size row
    /// (DECDWL, DECDHL); omitted for a normal one.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub size: Option<String>,
    /// The cells, left to right.
    pub cells: Vec<CellSnapshot>,
}

/// The cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct CursorSnapshot {
    /// 0-based row.
    pub row: u32,
    /// 0-based column.
    pub col: u32,
    /// DECTCEM.
    pub visible: bool,
    /// `block`, `underline` or `bar`.
    pub shape: String,
}

/// The structured snapshot, schema version 1.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(rename_all = "camelCase", deny_unknown_fields)
)]
pub struct Snapshot {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The cursor.
    pub cursor: CursorSnapshot,
    /// Whether the alternate screen is shown.
    pub alternate_screen: bool,
    /// The window title (empty when none was set).
    pub title: String,
    /// Lines in the scrollback.
    pub scrollback_lines: u64,
    /// Styles used by the cells; entry 0 is always the empty style.
    pub styles: Vec<StyleSnapshot>,
    /// Hyperlinks used by the cells.
    pub links: Vec<LinkSnapshot>,
    /// The visible rows, top to bottom.
    pub rows: Vec<RowSnapshot>,
}

/// Renumbers interned ids into a snapshot's dense tables in order of first use, so the same
/// screen always gives the same snapshot whatever the interning history.
struct Renumber {
    ids: Vec<u32>,
    order: Vec<usize>,
}

impl Renumber {
    fn new(table_len: usize, reserve_zero: bool) -> Renumber {
        let mut r = Renumber {
            ids: vec![u32::MAX; table_len],
            order: Vec::new(),
        };
        if reserve_zero && table_len > 0 {
            r.ids[0] = 0;
            r.order.push(0);
        }
        r
    }

    fn get(&mut self, id: usize) -> u32 {
        match self.ids.get(id) {
            Some(&n) if n != u32::MAX => n,
            Some(_) => {
                let n = self.order.len() as u32;
                self.ids[id] = n;
                self.order.push(id);
                n
            }
            None => 0,
        }
    }
}

/// Builds the structured snapshot of `rows` (the visible screen) with the screen's metadata.
pub(crate) fn build(screen: &Screen) -> Snapshot {
    let cursor = screen.cursor();
    build_from(
        screen,
        screen.grid().rows().iter(),
        Some((cursor.row, cursor.col)),
    )
}

/// The primary screen's scrollback and screen as one tall snapshot, without the blank lines
/// below the last written one (and at most `max_lines`, the newest): everything a finished
/// command printed. The cursor is hidden unless it sits on a kept line.
pub(crate) fn build_history(screen: &Screen, max_lines: usize) -> Snapshot {
    let history = screen.scrollback().rows();
    let grid = screen.primary_grid().rows();
    let blank = |r: &&Row| !r.wrapped && r.occupied_len() == 0;
    let total = history.len() + grid.len();
    let trailing_blank = history
        .iter()
        .chain(grid.iter())
        .rev()
        .take_while(blank)
        .count();
    let end = (total - trailing_blank).max(1);
    let start = end.saturating_sub(max_lines.max(1));
    let cursor = if screen.is_alternate_screen() {
        None
    } else {
        let c = screen.cursor();
        let row = history.len() + c.row;
        (start..end).contains(&row).then(|| (row - start, c.col))
    };
    let rows = history
        .iter()
        .chain(grid.iter())
        .skip(start)
        .take(end - start);
    let mut snapshot = build_from(screen, rows, cursor);
    snapshot.alternate_screen = false;
    snapshot.scrollback_lines = 0;
    snapshot
}

/// The screen's height of rows of the primary screen's scrollback and screen together, from
/// row `first` of them on (the cursor where its row is shown).
pub(crate) fn build_view(screen: &Screen, first: usize) -> Snapshot {
    let history = screen.scrollback().rows();
    let grid = screen.primary_grid().rows();
    let height = grid.len();
    let first = first.min(history.len());
    let cursor = {
        let c = screen.cursor();
        let row = history.len() + c.row;
        (first..first + height)
            .contains(&row)
            .then(|| (row - first, c.col))
    };
    let rows = history.iter().chain(grid.iter()).skip(first).take(height);
    let mut snapshot = build_from(screen, rows, cursor);
    snapshot.alternate_screen = false;
    snapshot.scrollback_lines = 0;
    snapshot
}

fn build_from<'a>(
    screen: &Screen,
    rows: impl Iterator<Item = &'a Row>,
    cursor: Option<(usize, usize)>,
) -> Snapshot {
    let styles: &StyleTable = screen.styles();
    let links: &LinkTable = screen.links();
    let mut style_ids = Renumber::new(styles.len(), true);
    let mut link_ids = Renumber::new(links.len() + 1, false);
    let rows: Vec<RowSnapshot> = rows
        .map(|row| row_snapshot(row, &mut style_ids, &mut link_ids))
        .collect();
    let (cursor_row, cursor_col) = cursor.unwrap_or((0, 0));
    Snapshot {
        schema_version: SCHEMA_VERSION,
        width: screen.width() as u32,
        height: rows.len() as u32,
        cursor: CursorSnapshot {
            row: cursor_row as u32,
            col: cursor_col as u32,
            visible: cursor.is_some() && screen.modes().cursor_visible,
            shape: screen.cursor_shape().name().to_owned(),
        },
        alternate_screen: screen.is_alternate_screen(),
        title: screen.title().to_owned(),
        scrollback_lines: screen.scrollback().len() as u64,
        styles: style_ids
            .order
            .iter()
            .map(|&id| StyleSnapshot::from_style(styles.get(StyleId(id as u32))))
            .collect(),
        links: link_ids
            .order
            .iter()
            .filter_map(|&id| links.get(LinkId(id as u16)))
            .map(|l| LinkSnapshot {
                uri: l.uri.clone(),
                id: l.id.clone(),
            })
            .collect(),
        rows,
    }
}

/// A cell's text for one character, without allocating for printable ASCII.
fn cell_text(ch: char) -> Cow<'static, str> {
    const PRINTABLE: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
    match ch {
        ' '..='~' => {
            let at = ch as usize - ' ' as usize;
            Cow::Borrowed(&PRINTABLE[at..at + 1])
        }
        _ => Cow::Owned(ch.to_string()),
    }
}

fn row_snapshot(row: &Row, styles: &mut Renumber, links: &mut Renumber) -> RowSnapshot {
    let cells = row
        .cells()
        .iter()
        .enumerate()
        .map(|(col, cell)| {
            let t = if cell.is_spacer() {
                Cow::Borrowed("")
            } else if let Some(extra) = row.extra(col) {
                let mut t = String::with_capacity(cell.ch.len_utf8() + extra.len());
                t.push(cell.ch);
                t.push_str(extra);
                Cow::Owned(t)
            } else {
                cell_text(cell.ch)
            };
            CellSnapshot {
                t,
                w: cell.width(),
                s: styles.get(cell.style.0 as usize),
                l: cell.link.is_some().then(|| links.get(cell.link.0 as usize)),
                m: false,
            }
        })
        .collect();
    RowSnapshot {
        wrapped: row.wrapped,
        size: row.size.name().map(str::to_owned),
        cells,
    }
}

impl Snapshot {
    /// The screen as text: one line per row, trailing spaces removed, spacers skipped.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, row) in self.rows.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let start = out.len();
            for cell in &row.cells {
                out.push_str(&cell.t);
            }
            let trimmed = out[start..].trim_end_matches(' ').len();
            out.truncate(start + trimmed);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cells_text_is_its_character_and_borrowed_for_printable_ascii() {
        for ch in (' '..='~').chain(['\u{7f}', 'é', '─', '你', '\u{1f600}']) {
            let text = cell_text(ch);
            assert_eq!(text, ch.to_string(), "{ch:?}");
            assert_eq!(
                matches!(text, Cow::Borrowed(_)),
                (' '..='~').contains(&ch),
                "{ch:?}"
            );
        }
    }
}
