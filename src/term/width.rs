//! How many cells a character takes on the grid.
//!
//! The answers are the `unicode-width` crate's. For the planes nearly all text comes from
//! (U+0000–U+1FFFF), `build/cell_widths.rs` copies them into a two-level table at build
//! time, so a character costs two loads instead of the crate's lookup and its special cases
//! (measured in BENCHMARKS.md, issue 46); the test below holds the copy to the crate at
//! every code point.

use unicode_width::UnicodeWidthChar;

include!(concat!(env!("OUT_DIR"), "/cell_widths.rs"));

/// The cells `c` takes on the grid: 0 for a combining mark, `None` for a control.
#[inline(always)]
pub(crate) fn cells_of(c: char) -> Option<usize> {
    let code = c as u32;
    if (0x20..0x7f).contains(&code) {
        return Some(1);
    }
    if code >= CELL_WIDTHS_COVER {
        return c.width();
    }
    let block = CELL_WIDTH_INDEX[(code >> 8) as usize];
    let packed = CELL_WIDTH_BLOCKS[usize::from(block)][(code & 0xff) as usize >> 2];
    match packed >> (2 * (code & 3)) & 3 {
        3 => c.width(),
        cells => Some(usize::from(cells)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_of_agrees_with_the_unicode_tables_at_every_code_point() {
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            assert_eq!(cells_of(c), c.width(), "U+{:04X}", c as u32);
        }
    }
}
