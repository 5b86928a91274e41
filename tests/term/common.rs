//! Shared helpers for the escape-sequence tests of the emulator (`tests/term/`).
#![allow(dead_code)]

use shotty::term::{CellSnapshot, ColorValue, Snapshot, StyleSnapshot, Terminal};

/// A `w × h` terminal that has been fed `bytes`.
pub fn term(w: usize, h: usize, bytes: &[u8]) -> Terminal {
    let mut t = Terminal::new(w, h);
    t.advance(bytes);
    t
}

/// The snapshot cell at `row`, `col`.
pub fn cell(t: &Terminal, row: usize, col: usize) -> CellSnapshot {
    t.snapshot().rows[row].cells[col].clone()
}

/// The style of the snapshot cell at `row`, `col`.
pub fn style(t: &Terminal, row: usize, col: usize) -> StyleSnapshot {
    let snap = t.snapshot();
    let s = snap.rows[row].cells[col].s as usize;
    snap.styles[s].clone()
}

/// The text of the cell at `row`, `col` (`""` for a wide character's right half).
pub fn ch(t: &Terminal, row: usize, col: usize) -> String {
    cell(t, row, col).t.into_owned()
}

/// The cursor as `(row, col)`.
pub fn cursor(t: &Terminal) -> (usize, usize) {
    let c = t.screen().cursor();
    (c.row, c.col)
}

/// The visible rows as right-trimmed strings.
pub fn lines(t: &Terminal) -> Vec<String> {
    t.text().split('\n').map(str::to_owned).collect()
}

/// Row `row` as a right-trimmed string.
pub fn line(t: &Terminal, row: usize) -> String {
    lines(t)[row].clone()
}

/// The `wrapped` flag of each visible row.
pub fn wrapped(t: &Terminal) -> Vec<bool> {
    t.snapshot().rows.iter().map(|r| r.wrapped).collect()
}

/// The scrollback lines, oldest first, right-trimmed.
pub fn scrollback(t: &Terminal) -> Vec<String> {
    t.screen()
        .scrollback()
        .rows()
        .iter()
        .map(|r| r.text())
        .collect()
}

/// The replies as a (lossy) string, draining them.
pub fn replies(t: &mut Terminal) -> String {
    String::from_utf8_lossy(&t.take_replies()).into_owned()
}

/// An indexed colour value.
pub fn idx(i: u8) -> Option<ColorValue> {
    Some(ColorValue::Index(i))
}

/// A true-colour value.
pub fn rgb(s: &str) -> Option<ColorValue> {
    Some(ColorValue::Rgb(s.to_owned()))
}

/// Structural invariants every snapshot must satisfy: every row holds exactly `width` cells,
/// every wide cell is followed by its spacer and every spacer follows a wide cell, and the
/// cursor lies on the screen.
pub fn check_invariants(snap: &Snapshot) {
    let w = snap.width as usize;
    assert_eq!(snap.rows.len(), snap.height as usize, "row count");
    for (r, row) in snap.rows.iter().enumerate() {
        assert_eq!(row.cells.len(), w, "row {r} has {} cells", row.cells.len());
        for (c, cell) in row.cells.iter().enumerate() {
            match cell.w {
                2 => {
                    let next = row.cells.get(c + 1);
                    assert!(
                        next.is_some_and(|n| n.w == 0),
                        "wide cell at ({r},{c}) without spacer"
                    );
                }
                0 => {
                    assert!(
                        c > 0 && row.cells[c - 1].w == 2,
                        "spacer at ({r},{c}) without wide cell"
                    );
                    assert_eq!(cell.t, "", "spacer at ({r},{c}) holds text");
                }
                1 => assert!(!cell.t.is_empty(), "empty narrow cell at ({r},{c})"),
                w => panic!("cell ({r},{c}) has width {w}"),
            }
        }
    }
    assert!(
        (snap.cursor.row as usize) < snap.height as usize,
        "cursor row"
    );
    assert!((snap.cursor.col as usize) < w, "cursor col");
}

/// [`check_invariants`] on the terminal's current snapshot.
pub fn check(t: &Terminal) {
    check_invariants(&t.snapshot());
}

/// A fixed-seed xorshift generator: the same streams on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next value.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}
