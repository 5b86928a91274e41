//! Cell-level comparison of two screens (`shotty diff`), for golden tests.
//!
//! Either side may be a structured snapshot (JSON) or an SVG written by shotty, whose
//! `<metadata>` carries the snapshot. Cells are compared by what they look like — text,
//! width, resolved style and link target — not by table indices.

use std::fmt;

use crate::term::{CellSnapshot, Snapshot, StyleSnapshot};

/// Reads a snapshot from JSON or from an SVG's `<metadata>`.
pub fn load_snapshot(bytes: &[u8]) -> Result<Snapshot, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned())?;
    let trimmed = text.trim_start();
    let json = if trimmed.starts_with('{') {
        trimmed.to_owned()
    } else if trimmed.starts_with('<') {
        let start = text
            .find("<metadata>")
            .ok_or("the SVG has no <metadata> (was it written with --no-metadata?)")?
            + "<metadata>".len();
        let end = text[start..]
            .find("</metadata>")
            .ok_or("the SVG's <metadata> is not closed")?
            + start;
        unescape_xml(&text[start..end])
    } else {
        return Err("neither a JSON snapshot nor an SVG".into());
    };
    let snapshot: Snapshot =
        serde_json::from_str(&json).map_err(|e| format!("not a schema-1 snapshot: {e}"))?;
    if snapshot.schema_version != crate::term::SCHEMA_VERSION {
        return Err(format!(
            "snapshot schema version {} is not supported",
            snapshot.schema_version
        ));
    }
    Ok(snapshot)
}

fn unescape_xml(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// What one cell looks like, independent of the snapshot's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellLook {
    /// Text.
    pub text: String,
    /// Width.
    pub width: u8,
    /// Style.
    pub style: StyleSnapshot,
    /// Link target.
    pub link: Option<String>,
}

impl CellLook {
    fn of(snapshot: &Snapshot, cell: &CellSnapshot) -> CellLook {
        CellLook {
            text: cell.t.to_string(),
            width: cell.w,
            style: snapshot
                .styles
                .get(cell.s as usize)
                .cloned()
                .unwrap_or_default(),
            link: cell
                .l
                .and_then(|l| snapshot.links.get(l as usize))
                .map(|l| l.uri.clone()),
        }
    }
}

impl fmt::Display for CellLook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.text)?;
        let style = serde_json::to_string(&self.style).unwrap_or_default();
        if style != "{}" {
            write!(f, " {style}")?;
        }
        if let Some(link) = &self.link {
            write!(f, " link={link}")?;
        }
        Ok(())
    }
}

/// One differing cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellChange {
    /// Column.
    pub col: usize,
    /// Expected look (`None` outside the expected screen).
    pub expected: Option<CellLook>,
    /// Actual look (`None` outside the actual screen).
    pub actual: Option<CellLook>,
}

/// One row with differences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowChange {
    /// Row.
    pub row: usize,
    /// Expected row text.
    pub expected: String,
    /// Actual row text.
    pub actual: String,
    /// The differing cells.
    pub cells: Vec<CellChange>,
}

/// The result of comparing two screens.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diff {
    /// Different sizes: expected and actual (width, height).
    pub size: Option<((u32, u32), (u32, u32))>,
    /// Different cursors, described.
    pub cursor: Option<(String, String)>,
    /// Different titles.
    pub title: Option<(String, String)>,
    /// Rows with differing cells.
    pub rows: Vec<RowChange>,
}

impl Diff {
    /// Whether the screens are the same.
    pub fn is_empty(&self) -> bool {
        self.size.is_none() && self.cursor.is_none() && self.title.is_none() && self.rows.is_empty()
    }

    /// Number of differing cells.
    pub fn changed_cells(&self) -> usize {
        self.rows.iter().map(|r| r.cells.len()).sum()
    }

    /// Positions (row, col) of the differing cells.
    pub fn positions(&self) -> Vec<(usize, usize)> {
        self.rows
            .iter()
            .flat_map(|r| r.cells.iter().map(move |c| (r.row, c.col)))
            .collect()
    }
}

fn row_text(snapshot: &Snapshot, row: usize) -> String {
    snapshot
        .rows
        .get(row)
        .map(|r| r.cells.iter().map(|c| &*c.t).collect::<String>())
        .unwrap_or_default()
        .trim_end()
        .to_owned()
}

fn cursor(s: &Snapshot) -> String {
    let c = &s.cursor;
    format!(
        "row {} col {} {}{}",
        c.row,
        c.col,
        c.shape,
        if c.visible { "" } else { " hidden" }
    )
}

/// Compares two screens cell by cell.
pub fn diff(expected: &Snapshot, actual: &Snapshot) -> Diff {
    let mut d = Diff::default();
    if (expected.width, expected.height) != (actual.width, actual.height) {
        d.size = Some((
            (expected.width, expected.height),
            (actual.width, actual.height),
        ));
    }
    if expected.cursor != actual.cursor {
        d.cursor = Some((cursor(expected), cursor(actual)));
    }
    if expected.title != actual.title {
        d.title = Some((expected.title.clone(), actual.title.clone()));
    }
    let rows = expected.rows.len().max(actual.rows.len());
    for row in 0..rows {
        let e = expected.rows.get(row);
        let a = actual.rows.get(row);
        let cols = e
            .map_or(0, |r| r.cells.len())
            .max(a.map_or(0, |r| r.cells.len()));
        let mut cells = Vec::new();
        for col in 0..cols {
            let el = e
                .and_then(|r| r.cells.get(col))
                .map(|c| CellLook::of(expected, c));
            let al = a
                .and_then(|r| r.cells.get(col))
                .map(|c| CellLook::of(actual, c));
            if el != al {
                cells.push(CellChange {
                    col,
                    expected: el,
                    actual: al,
                });
            }
        }
        if !cells.is_empty() {
            d.rows.push(RowChange {
                row,
                expected: row_text(expected, row),
                actual: row_text(actual, row),
                cells,
            });
        }
    }
    d
}

/// Cells listed per row in the report at most.
const MAX_CELLS_SHOWN: usize = 8;

impl fmt::Display for Diff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return writeln!(f, "screens are identical");
        }
        if let Some(((ew, eh), (aw, ah))) = self.size {
            writeln!(f, "size: expected {ew}x{eh}, actual {aw}x{ah}")?;
        }
        if let Some((e, a)) = &self.cursor {
            writeln!(f, "cursor: expected {e}, actual {a}")?;
        }
        if let Some((e, a)) = &self.title {
            writeln!(f, "title: expected {e:?}, actual {a:?}")?;
        }
        if !self.rows.is_empty() {
            writeln!(
                f,
                "{} cell(s) differ in {} row(s):",
                self.changed_cells(),
                self.rows.len()
            )?;
        }
        for row in &self.rows {
            writeln!(f, "row {}:", row.row)?;
            if row.expected != row.actual {
                writeln!(f, "  - {}", row.expected)?;
                writeln!(f, "  + {}", row.actual)?;
            }
            for c in row.cells.iter().take(MAX_CELLS_SHOWN) {
                let show = |l: &Option<CellLook>| {
                    l.as_ref().map_or("(none)".to_owned(), |l| l.to_string())
                };
                writeln!(
                    f,
                    "  col {}: expected {}, actual {}",
                    c.col,
                    show(&c.expected),
                    show(&c.actual)
                )?;
            }
            if row.cells.len() > MAX_CELLS_SHOWN {
                writeln!(
                    f,
                    "  … and {} more cell(s)",
                    row.cells.len() - MAX_CELLS_SHOWN
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Terminal;

    fn snap(bytes: &[u8]) -> Snapshot {
        let mut t = Terminal::new(10, 3);
        t.advance(bytes);
        t.snapshot()
    }

    #[test]
    fn identical_screens_have_no_diff_even_with_other_table_order() {
        // Same look, styles interned in a different order.
        let a = snap(b"\x1b[31mx\x1b[32my\x1b[0m");
        let b = snap(b"\x1b[32m\x1b[31mx\x1b[32my\x1b[0m");
        assert!(diff(&a, &b).is_empty(), "{}", diff(&a, &b));
    }

    #[test]
    fn colour_only_changes_are_found_and_reported() {
        let a = snap(b"ok \x1b[32mpass\x1b[0m");
        let b = snap(b"ok \x1b[31mpass\x1b[0m");
        let d = diff(&a, &b);
        assert_eq!(d.changed_cells(), 4);
        assert_eq!(d.positions()[0], (0, 3));
        let report = d.to_string();
        assert!(report.contains("4 cell(s) differ in 1 row(s)"), "{report}");
        assert!(
            report.contains(r#"col 3: expected "p" {"fg":2}, actual "p" {"fg":1}"#),
            "{report}"
        );
        // The row text is the same, so no -/+ lines.
        assert!(!report.contains("  - "), "{report}");
    }

    #[test]
    fn text_size_cursor_and_title_changes() {
        let a = snap(b"hello");
        let b = snap(b"\x1b]2;t\x07help");
        let d = diff(&a, &b);
        assert!(d.cursor.is_some());
        assert!(d.title.is_some());
        let report = d.to_string();
        assert!(report.contains("  - hello\n  + help"), "{report}");
        let mut t = Terminal::new(12, 3);
        t.advance(b"hello");
        assert!(diff(&a, &t.snapshot()).size.is_some());
    }

    #[test]
    fn snapshots_load_from_json_and_svg_metadata() {
        let s = snap(b"a<b>&\"c'");
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(load_snapshot(json.as_bytes()).unwrap(), s);
        let svg = crate::render::to_svg(&s, &crate::render::Appearance::default()).unwrap();
        assert_eq!(load_snapshot(svg.as_bytes()).unwrap(), s);
        assert!(
            load_snapshot(b"<svg></svg>")
                .unwrap_err()
                .contains("no <metadata>")
        );
        assert!(load_snapshot(b"\x89PNG").is_err());
        assert!(load_snapshot(b"{\"schemaVersion\":1}").is_err());
    }
}
