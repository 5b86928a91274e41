//! Finding text where it is on the screen: matches as cell positions (what a click aims at),
//! optionally only where the cells have a style (`bold`, `fg=1`, `bg=#ff0000` …).
//!
//! A row is searched as the text it shows, blanks as spaces and spacers of wide characters
//! skipped, so a match's column counts cells, not characters: after `日本` the next character
//! is in column 4. Matches do not run across rows.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use super::Terminal;
use super::grid::Row;
use super::style::{Attrs, Color, StyleTable, Underline};

/// Where [`Terminal::find`] looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindScope {
    /// The visible screen; rows are 0-based screen rows.
    Screen,
    /// The primary screen's scrollback and screen, from this global line index on (0: all
    /// of it); rows are global line indices (see [`Terminal::history`]).
    History(u64),
}

/// One match.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Found {
    /// The row: 0-based on the screen, or the line's global index in the history (see
    /// [`Terminal::history`]) when the history was searched.
    pub row: u64,
    /// The first cell's column (0-based).
    pub col: usize,
    /// Columns the match covers (a wide character counts two).
    pub length: usize,
    /// The matched text.
    pub text: String,
}

/// Cells to match: every condition must hold for every cell of a match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StyleFilter {
    attrs: Attrs,
    underline: bool,
    fg: Option<Color>,
    bg: Option<Color>,
}

/// A style filter that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StyleFilterError(String);

impl fmt::Display for StyleFilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StyleFilterError {}

/// The attribute names a filter takes, as the snapshot names them.
const ATTRIBUTES: &[(&str, Attrs)] = &[
    ("bold", Attrs::BOLD),
    ("dim", Attrs::DIM),
    ("italic", Attrs::ITALIC),
    ("blink", Attrs::BLINK),
    ("inverse", Attrs::INVERSE),
    ("hidden", Attrs::HIDDEN),
    ("strikethrough", Attrs::STRIKE),
    ("overline", Attrs::OVERLINE),
];

impl FromStr for StyleFilter {
    type Err = StyleFilterError;

    /// Comma-separated conditions: attribute names (`bold`, `dim`, `italic`, `underline`,
    /// `blink`, `inverse`, `hidden`, `strikethrough`, `overline`) and colours `fg=C`, `bg=C`
    /// where C is what [`Color::parse`] reads: `default`, a palette index 0–255, an ANSI
    /// colour name (`red`, `bright-blue`) or `#rrggbb`.
    fn from_str(spec: &str) -> Result<StyleFilter, StyleFilterError> {
        let mut filter = StyleFilter::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some((key, value)) = part.split_once('=') {
                let c = Color::parse(value.trim()).ok_or_else(|| {
                    StyleFilterError(format!(
                        "{value:?} is not a colour (default, 0-255, a name such as red or \
                         bright-blue, or #rrggbb)"
                    ))
                })?;
                match key.trim() {
                    "fg" => filter.fg = Some(c),
                    "bg" => filter.bg = Some(c),
                    other => {
                        return Err(StyleFilterError(format!(
                            "unknown style key {other:?} (fg or bg)"
                        )));
                    }
                }
            } else if part == "underline" {
                filter.underline = true;
            } else if let Some((_, a)) = ATTRIBUTES.iter().find(|(name, _)| *name == part) {
                filter.attrs.set(*a, true);
            } else {
                let names: Vec<&str> = ATTRIBUTES.iter().map(|(n, _)| *n).collect();
                return Err(StyleFilterError(format!(
                    "unknown style {part:?} (underline, {}, fg=C, bg=C)",
                    names.join(", ")
                )));
            }
        }
        Ok(filter)
    }
}

impl StyleFilter {
    fn accepts(&self, styles: &StyleTable, row: &Row, cols: Range<usize>) -> bool {
        row.cells()[cols].iter().all(|cell| {
            let style = styles.get(cell.style);
            style.attrs.contains(self.attrs)
                && (!self.underline || style.underline != Underline::None)
                && self.fg.is_none_or(|c| style.fg == c)
                && self.bg.is_none_or(|c| style.bg == c)
        })
    }
}

/// A row's text as [`Row::write_text`] writes it (blanks at its end removed, so `$` of a
/// pattern is where the text ends), with the column each character starts at and the column
/// after the last.
fn row_text(row: &Row) -> (String, Vec<(usize, usize)>) {
    let mut text = String::new();
    let mut starts = Vec::new();
    for (col, cell) in row.cells().iter().enumerate() {
        if cell.is_spacer() {
            continue;
        }
        starts.push((text.len(), col));
        text.push(cell.ch);
        if let Some(extra) = row.extra(col) {
            text.push_str(extra);
        }
    }
    starts.push((text.len(), row.cells().len()));
    text.truncate(text.trim_end_matches(' ').len());
    (text, starts)
}

/// The column of the character at byte `at` of a row's text (the next character's when `at`
/// is inside one).
fn column(starts: &[(usize, usize)], at: usize) -> usize {
    let i = starts.partition_point(|&(byte, _)| byte < at);
    starts.get(i).map_or(0, |&(_, col)| col)
}

impl Terminal {
    /// The places where `matches` finds text, in screen order: `matches` is given each row's
    /// text and returns byte ranges in it (a literal's occurrences, a regex's matches).
    /// `scope` says which rows; `filter` keeps only matches whose every cell has the style.
    ///
    /// ```
    /// use shotty::term::{FindScope, Terminal};
    ///
    /// let mut t = Terminal::new(20, 2);
    /// t.advance("日本 \x1b[1mOK\x1b[m OK".as_bytes());
    /// let ok = |text: &str| text.match_indices("OK").map(|(i, m)| i..i + m.len()).collect();
    /// let found = t.find(FindScope::Screen, None, ok);
    /// assert_eq!((found[0].row, found[0].col, found[0].length), (0, 5, 2));
    /// let bold = "bold".parse().unwrap();
    /// assert_eq!(t.find(FindScope::Screen, Some(&bold), ok).len(), 1);
    /// ```
    pub fn find(
        &self,
        scope: FindScope,
        filter: Option<&StyleFilter>,
        matches: impl FnMut(&str) -> Vec<Range<usize>>,
    ) -> Vec<Found> {
        self.find_at_most(scope, filter, usize::MAX, matches)
    }

    /// [`find`](Self::find), stopping at the first `limit` places: no row after the one that
    /// gives the last of them is read, so a search of a long history costs what its answer
    /// holds.
    pub fn find_at_most(
        &self,
        scope: FindScope,
        filter: Option<&StyleFilter>,
        limit: usize,
        mut matches: impl FnMut(&str) -> Vec<Range<usize>>,
    ) -> Vec<Found> {
        let styles = self.screen().styles();
        let mut found = Vec::new();
        let mut search = |index: u64, row: &Row, found: &mut Vec<Found>| {
            let (text, starts) = row_text(row);
            for range in matches(&text) {
                if found.len() >= limit {
                    return;
                }
                let Some(matched) = text.get(range.clone()).filter(|m| !m.is_empty()) else {
                    continue;
                };
                let (start, end) = (column(&starts, range.start), column(&starts, range.end));
                if filter.is_some_and(|f| !f.accepts(styles, row, start..end)) {
                    continue;
                }
                found.push(Found {
                    row: index,
                    col: start,
                    length: end - start,
                    text: matched.to_owned(),
                });
            }
        };
        let rows: Box<dyn Iterator<Item = (u64, &Row)>> = match scope {
            FindScope::History(first) => {
                Box::new(self.history().skip_while(move |(i, _)| *i < first))
            }
            FindScope::Screen => Box::new(
                self.screen()
                    .grid()
                    .rows()
                    .iter()
                    .enumerate()
                    .map(|(i, row)| (i as u64, row)),
            ),
        };
        for (index, row) in rows {
            if found.len() >= limit {
                break;
            }
            search(index, row, &mut found);
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(needle: &'static str) -> impl FnMut(&str) -> Vec<Range<usize>> {
        move |text| {
            text.match_indices(needle)
                .map(|(i, m)| i..i + m.len())
                .collect()
        }
    }

    /// A search with a limit stops reading rows once it has its places.
    #[test]
    fn a_limited_search_stops_at_its_limit() {
        let mut t = Terminal::with_options(
            20,
            3,
            crate::term::TerminalOptions {
                scrollback: 1000,
                ..Default::default()
            },
        );
        for _ in 0..500 {
            t.advance(b"y y y y\r\n");
        }
        let mut rows_read = 0;
        let found = t.find_at_most(FindScope::History(0), None, 10, |text| {
            rows_read += 1;
            literal("y")(text)
        });
        assert_eq!(found.len(), 10);
        assert_eq!(
            rows_read, 3,
            "four places a row: the third row gives the tenth"
        );
        assert_eq!(
            t.find(FindScope::History(0), None, literal("y")).len(),
            2000
        );
    }

    #[test]
    fn columns_count_cells_past_wide_and_combining_characters() {
        let mut t = Terminal::new(20, 3);
        t.advance("a日b\r\ne\u{301}x OK\r\n   OK".as_bytes());
        let found = t.find(FindScope::Screen, None, literal("b"));
        assert_eq!((found[0].row, found[0].col, found[0].length), (0, 3, 1));
        let found = t.find(FindScope::Screen, None, literal("日"));
        assert_eq!((found[0].col, found[0].length), (1, 2));
        let found = t.find(FindScope::Screen, None, literal("OK"));
        let places: Vec<_> = found.iter().map(|f| (f.row, f.col)).collect();
        assert_eq!(places, [(1, 3), (2, 3)]);
    }

    #[test]
    fn a_style_filter_keeps_matches_whose_every_cell_has_the_style() {
        let mut t = Terminal::new(30, 2);
        t.advance(b"\x1b[1;31mOK\x1b[m OK \x1b[1mO\x1b[mK \x1b[48;2;255;0;0mOK\x1b[m");
        let cols = |spec: &str| -> Vec<usize> {
            let f: StyleFilter = spec.parse().unwrap();
            t.find(FindScope::Screen, Some(&f), literal("OK"))
                .iter()
                .map(|m| m.col)
                .collect()
        };
        assert_eq!(cols(""), [0, 3, 6, 9]);
        assert_eq!(cols("bold"), [0]);
        assert_eq!(cols("bold, fg=1"), [0]);
        assert_eq!(cols("fg=2"), Vec::<usize>::new());
        assert_eq!(cols("bg=#ff0000"), [9]);
        assert_eq!(cols("fg=default"), [3, 6, 9]);
        assert!("blue".parse::<StyleFilter>().is_err());
        assert!("fg=#12345".parse::<StyleFilter>().is_err());
        assert!("fg=256".parse::<StyleFilter>().is_err());
    }

    #[test]
    fn the_history_is_searched_with_global_line_indices() {
        let mut t = Terminal::new(10, 2);
        t.advance(b"one\r\ntwo\r\nthree\r\nfour");
        assert!(t.find(FindScope::Screen, None, literal("one")).is_empty());
        let found = t.find(FindScope::History(0), None, literal("one"));
        assert_eq!((found[0].row, found[0].col), (0, 0));
        let found = t.find(FindScope::History(0), None, literal("four"));
        assert_eq!(found[0].row, 3);
    }
}
