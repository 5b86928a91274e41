//! Writing TrueType (sfnt) files: the table directory with its checksums, and the `cmap` table
//! of a font subset. `--embed-font` subsets a bundled face (subsetter keeps the glyphs and drops
//! `cmap`), adds the character map back here and hands the whole file to [`super::woff2`].
//!
//! Written by hand because it is small (OpenType spec, "Table directory" and "cmap"): the crates
//! that do it also bring a second copy of the font-reading stack, a third of a first build.

use std::collections::BTreeMap;

/// An sfnt being put together, table by table.
#[derive(Debug, Default)]
pub(crate) struct SfntBuilder {
    /// Tables by tag: the directory lists them in ascending tag order.
    tables: BTreeMap<[u8; 4], Vec<u8>>,
}

/// The version of an sfnt holding TrueType outlines.
const TRUETYPE: u32 = 0x0001_0000;
/// What the whole font's checksum is subtracted from to give `head.checksumAdjustment`.
const CHECKSUM_MAGIC: u32 = 0xB1B0_AFBA;
/// Where `checksumAdjustment` sits in the `head` table.
const CHECKSUM_ADJUSTMENT_AT: usize = 8;

impl SfntBuilder {
    /// Adds (or replaces) the table `tag`.
    pub(crate) fn add(&mut self, tag: [u8; 4], data: Vec<u8>) {
        self.tables.insert(tag, data);
    }

    /// The font file: the offset table, the table records (sorted by tag, each with its
    /// checksum), then the tables, each padded to four bytes; `head.checksumAdjustment` is set
    /// for the whole file. `None` when the file would not fit the format's 32-bit offsets.
    pub(crate) fn build(mut self) -> Option<Vec<u8>> {
        // The adjustment is left out of every checksum, the whole file's included.
        let head = self
            .tables
            .get_mut(b"head")
            .and_then(|head| head.get_mut(CHECKSUM_ADJUSTMENT_AT..CHECKSUM_ADJUSTMENT_AT + 4));
        let has_adjustment = head.map(|field| field.fill(0)).is_some();
        let count = u16::try_from(self.tables.len()).ok()?;
        // The largest power of two <= count, as the binary-search fields want it.
        let power = count.checked_ilog2().unwrap_or(0) as u16;
        let search_range = (1u16 << power) * 16;
        let directory_len = 12 + 16 * usize::from(count);
        let mut out = Vec::new();
        out.extend_from_slice(&TRUETYPE.to_be_bytes());
        out.extend_from_slice(&count.to_be_bytes());
        out.extend_from_slice(&search_range.to_be_bytes());
        out.extend_from_slice(&power.to_be_bytes());
        out.extend_from_slice(&(count.checked_mul(16)? - search_range).to_be_bytes());
        let mut offset = directory_len;
        let mut head_at = None;
        for (tag, data) in &self.tables {
            if tag == b"head" && has_adjustment {
                head_at = Some(offset + CHECKSUM_ADJUSTMENT_AT);
            }
            out.extend_from_slice(tag);
            out.extend_from_slice(&checksum(data).to_be_bytes());
            out.extend_from_slice(&u32::try_from(offset).ok()?.to_be_bytes());
            out.extend_from_slice(&u32::try_from(data.len()).ok()?.to_be_bytes());
            offset += data.len().next_multiple_of(4);
        }
        for data in self.tables.values() {
            out.extend_from_slice(data);
            out.resize(out.len().next_multiple_of(4), 0);
        }
        u32::try_from(out.len()).ok()?;
        if let Some(at) = head_at {
            let adjustment = CHECKSUM_MAGIC.wrapping_sub(checksum(&out));
            out[at..at + 4].copy_from_slice(&adjustment.to_be_bytes());
        }
        Some(out)
    }
}

/// The table checksum: the sum of the data as big-endian 32-bit words, the last one padded
/// with zeros.
fn checksum(data: &[u8]) -> u32 {
    data.chunks(4).fold(0u32, |sum, chunk| {
        let mut word = [0; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        sum.wrapping_add(u32::from_be_bytes(word))
    })
}

/// A `cmap` table mapping each character to its glyph: a format 4 subtable for the Basic
/// Multilingual Plane (Unicode and Windows platforms), and a format 12 subtable for every
/// character when some lie beyond it. `mappings` must be sorted by character, each character
/// once. `None` when a format 4 subtable would outgrow its 16-bit length.
pub(crate) fn cmap(mappings: &[(char, u16)]) -> Option<Vec<u8>> {
    // Runs of consecutive characters mapped to consecutive glyphs: one segment (format 4) or
    // group (format 12) each.
    let mut runs: Vec<(u32, u32, u16)> = Vec::new();
    for &(c, glyph) in mappings {
        let c = u32::from(c);
        match runs.last_mut() {
            Some((start, end, first))
                if c == *end + 1 && u32::from(glyph) == u32::from(*first) + (c - *start) =>
            {
                *end = c;
            }
            _ => runs.push((c, c, glyph)),
        }
    }
    let bmp: Vec<(u16, u16, u16)> = runs
        .iter()
        .filter(|&&(start, _, _)| start < 0xFFFF)
        .map(|&(start, end, glyph)| (start as u16, end.min(0xFFFE) as u16, glyph))
        .collect();
    // Format 4 cannot map U+FFFF: its last segment is the end marker.
    let beyond_bmp = runs.last().is_some_and(|&(_, end, _)| end >= 0xFFFF);

    let format4 = format4(&bmp)?;
    let format12 = beyond_bmp.then(|| format12(&runs));
    // Encoding records: (platform, encoding) pairs in ascending order, each naming its
    // subtable's offset from the start of the table.
    let mut records: Vec<(u16, u16, usize)> = Vec::new();
    let header_len = 4 + 8 * if beyond_bmp { 4 } else { 2 };
    let format12_at = header_len + format4.len();
    records.push((0, 3, header_len));
    if beyond_bmp {
        records.push((0, 4, format12_at));
    }
    records.push((3, 1, header_len));
    if beyond_bmp {
        records.push((3, 10, format12_at));
    }
    let mut out = Vec::with_capacity(format12_at + format12.as_ref().map_or(0, Vec::len));
    push16(&mut out, 0); // version
    push16(&mut out, records.len() as u16);
    for (platform, encoding, offset) in records {
        push16(&mut out, platform);
        push16(&mut out, encoding);
        out.extend_from_slice(&u32::try_from(offset).ok()?.to_be_bytes());
    }
    out.extend_from_slice(&format4);
    if let Some(format12) = format12 {
        out.extend_from_slice(&format12);
    }
    Some(out)
}

/// A format 4 subtable: one segment per run (glyph = character + idDelta, modulo 65536), then
/// the 0xFFFF segment the format ends with.
fn format4(runs: &[(u16, u16, u16)]) -> Option<Vec<u8>> {
    let segments = runs.len() + 1;
    let seg_count_x2 = u16::try_from(segments * 2).ok()?;
    let power = (segments as u16).ilog2() as u16;
    let search_range = (1u16 << power) * 2;
    let length = u16::try_from(16 + 8 * segments).ok()?;
    let mut out = Vec::with_capacity(usize::from(length));
    push16(&mut out, 4);
    push16(&mut out, length);
    push16(&mut out, 0); // language
    push16(&mut out, seg_count_x2);
    push16(&mut out, search_range);
    push16(&mut out, power);
    push16(&mut out, seg_count_x2 - search_range);
    for &(_, end, _) in runs {
        push16(&mut out, end);
    }
    push16(&mut out, 0xFFFF);
    push16(&mut out, 0); // reservedPad
    for &(start, _, _) in runs {
        push16(&mut out, start);
    }
    push16(&mut out, 0xFFFF);
    for &(start, _, glyph) in runs {
        push16(&mut out, glyph.wrapping_sub(start));
    }
    push16(&mut out, 1); // 0xFFFF + 1 = glyph 0
    for _ in 0..segments {
        push16(&mut out, 0); // idRangeOffset: the delta gives the glyph
    }
    Some(out)
}

/// A format 12 subtable: one sequential map group per run.
fn format12(runs: &[(u32, u32, u16)]) -> Vec<u8> {
    let length = 16 + 12 * runs.len();
    let mut out = Vec::with_capacity(length);
    push16(&mut out, 12);
    push16(&mut out, 0); // reserved
    out.extend_from_slice(&(length as u32).to_be_bytes());
    out.extend_from_slice(&0u32.to_be_bytes()); // language
    out.extend_from_slice(&(runs.len() as u32).to_be_bytes());
    for &(start, end, glyph) in runs {
        out.extend_from_slice(&start.to_be_bytes());
        out.extend_from_slice(&end.to_be_bytes());
        out.extend_from_slice(&u32::from(glyph).to_be_bytes());
    }
    out
}

fn push16(out: &mut Vec<u8>, n: u16) {
    out.extend_from_slice(&n.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(data: &[u8]) -> ttf_parser::Face<'_> {
        ttf_parser::Face::parse(data, 0).expect("the built font parses")
    }

    /// A font of the tables a reader needs (`head`, `hhea`, `maxp`, of a bundled face) and the
    /// given `cmap`.
    fn font_with_cmap(cmap: Vec<u8>) -> Vec<u8> {
        let bundled = ttf_parser::RawFace::parse(super::super::font::BUNDLED[0].data, 0)
            .expect("bundled face");
        let mut builder = SfntBuilder::default();
        for tag in [*b"head", *b"hhea", *b"maxp"] {
            let table = bundled
                .table(ttf_parser::Tag::from_bytes(&tag))
                .expect("table");
            builder.add(tag, table.to_vec());
        }
        builder.add(*b"cmap", cmap);
        builder.build().expect("a small font")
    }

    #[test]
    fn every_character_maps_to_its_glyph_and_no_other_does() {
        let mappings = [
            (' ', 3),
            ('A', 4),
            ('B', 5),
            ('C', 6),
            ('E', 9),
            ('é', 7),
            ('─', 100),
            ('\u{fffe}', 12),
            ('😀', 20),
            ('😁', 21),
            ('😃', 30),
        ];
        let cmap = cmap(&mappings).expect("a cmap");
        let data = font_with_cmap(cmap);
        let face = face(&data);
        for (c, glyph) in mappings {
            assert_eq!(face.glyph_index(c).map(|g| g.0), Some(glyph), "{c:?}");
        }
        // Glyph 0 is the missing glyph: the end segment of format 4 maps U+FFFF to it.
        for c in ['D', 'F', '\u{1}', '😂', '\u{ffff}', '\u{10ffff}'] {
            assert_eq!(face.glyph_index(c).filter(|g| g.0 != 0), None, "{c:?}");
        }
        // Windows readers of the BMP and of every plane each find a subtable.
        let subtables = face.tables().cmap.expect("cmap").subtables;
        let ids: Vec<(u16, u16)> = subtables
            .into_iter()
            .map(|s| {
                let platform = match s.platform_id {
                    ttf_parser::PlatformId::Unicode => 0,
                    ttf_parser::PlatformId::Windows => 3,
                    _ => 99,
                };
                (platform, s.encoding_id)
            })
            .collect();
        assert_eq!(ids, [(0, 3), (0, 4), (3, 1), (3, 10)]);
    }

    #[test]
    fn a_bmp_only_map_has_no_format_12_subtable() {
        let cmap = cmap(&[('a', 1), ('b', 2)]).expect("a cmap");
        let data = font_with_cmap(cmap);
        let subtables = face(&data).tables().cmap.expect("cmap").subtables;
        assert_eq!(subtables.len(), 2);
        for subtable in subtables {
            assert!(
                matches!(
                    subtable.format,
                    ttf_parser::cmap::Format::SegmentMappingToDeltaValues(_)
                ),
                "{:?}",
                subtable.format
            );
        }
    }

    #[test]
    fn checksums_hold_for_every_table_and_the_whole_file() {
        let data = font_with_cmap(cmap(&[('x', 1)]).expect("a cmap"));
        let count = usize::from(u16::from_be_bytes([data[4], data[5]]));
        let mut tags = Vec::new();
        for i in 0..count {
            let record = &data[12 + 16 * i..][..16];
            let at = u32::from_be_bytes(record[8..12].try_into().unwrap()) as usize;
            let len = u32::from_be_bytes(record[12..16].try_into().unwrap()) as usize;
            assert_eq!(at % 4, 0);
            let mut table = data[at..at + len].to_vec();
            if &record[..4] == b"head" {
                table[8..12].fill(0);
            }
            assert_eq!(
                checksum(&table),
                u32::from_be_bytes(record[4..8].try_into().unwrap()),
                "{:?}",
                &record[..4]
            );
            tags.push(record[..4].to_vec());
        }
        assert_eq!(
            tags,
            [b"cmap", b"head", b"hhea", b"maxp"].map(|t| t.to_vec())
        );
        // The whole file, with the adjustment as written, sums to the magic number.
        assert_eq!(checksum(&data), CHECKSUM_MAGIC);
    }
}
