//! Writes the cell widths of planes 0 and 1 as a two-level table (`cell_widths.rs` in
//! `OUT_DIR`), computed from the `unicode-width` crate the emulator uses for every other code
//! point: the table is a faster copy of that crate's answers, never a second opinion.
//!
//! Each code point takes two bits — 0, 1 or 2 cells, or 3 for anything else (controls,
//! which have no width, and the few characters three cells wide, such as U+2E3B), left to
//! the crate — and each block of 256 code points is stored once however many blocks share
//! it.

use std::fmt::Write;
use std::path::Path;

use unicode_width::UnicodeWidthChar;

/// Code points the table covers: the Basic Multilingual and Supplementary Multilingual
/// Planes (every script, the CJK ideographs most text uses, the emoji).
const COVERED: u32 = 0x2_0000;
const BLOCK: u32 = 256;

pub fn write(out_dir: &Path) {
    let mut blocks: Vec<[u8; (BLOCK / 4) as usize]> = Vec::new();
    let mut index = Vec::new();
    for start in (0..COVERED).step_by(BLOCK as usize) {
        let mut packed = [0u8; (BLOCK / 4) as usize];
        for offset in 0..BLOCK {
            // Surrogates are no chars; they never reach the table's users.
            let code = char::from_u32(start + offset).map_or(3, |c| match c.width() {
                Some(w @ 0..=2) => w as u8,
                _ => 3,
            });
            packed[(offset / 4) as usize] |= code << (2 * (offset % 4));
        }
        let position = blocks.iter().position(|b| *b == packed).unwrap_or_else(|| {
            blocks.push(packed);
            blocks.len() - 1
        });
        index.push(u8::try_from(position).expect("at most 256 distinct blocks"));
    }
    let mut code = String::new();
    writeln!(
        code,
        "/// Code points below this are in [`CELL_WIDTH_BLOCKS`]."
    )
    .unwrap();
    writeln!(code, "const CELL_WIDTHS_COVER: u32 = {COVERED:#x};").unwrap();
    writeln!(
        code,
        "/// The block of each 256 code points in [`CELL_WIDTH_BLOCKS`]."
    )
    .unwrap();
    writeln!(
        code,
        "static CELL_WIDTH_INDEX: [u8; {}] = {index:?};",
        index.len()
    )
    .unwrap();
    writeln!(
        code,
        "/// Two bits a code point: cells, or 3 to ask `unicode-width`."
    )
    .unwrap();
    writeln!(
        code,
        "static CELL_WIDTH_BLOCKS: [[u8; {}]; {}] = {blocks:?};",
        BLOCK / 4,
        blocks.len()
    )
    .unwrap();
    std::fs::write(out_dir.join("cell_widths.rs"), code).expect("write cell_widths.rs");
}
