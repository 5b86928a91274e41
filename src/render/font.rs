//! Bundled fonts, cell metrics and the font database used for PNG output.
//!
//! The PNG path never looks at system fonts: the bundled faces (plus any font files the user
//! adds) are loaded into `fontdb` in a fixed order, so the same input rasterises to the same
//! bytes on every machine. resvg's fallback walks faces in insertion order, which makes the
//! order below the fallback priority.

use std::sync::OnceLock;
#[cfg(feature = "png")]
use std::{path::PathBuf, sync::Arc};

#[cfg(feature = "png")]
use resvg::usvg::fontdb;

#[cfg(any(feature = "png", feature = "embed-font"))]
use super::RenderError;

/// One bundled font file.
pub struct BundledFont {
    /// File name under `fonts/`.
    pub file: &'static str,
    /// Family name as the font declares it.
    pub family: &'static str,
    /// Bold face.
    pub bold: bool,
    /// Italic face.
    pub italic: bool,
    /// The font bytes.
    pub data: &'static [u8],
}

/// The family every screenshot uses for its text.
pub const PRIMARY_FAMILY: &str = "JetBrains Mono";

macro_rules! bundled {
    ($file:literal, $family:literal, $bold:literal, $italic:literal) => {
        BundledFont {
            file: $file,
            family: $family,
            bold: $bold,
            italic: $italic,
            data: include_bytes!(concat!("../../fonts/", $file)),
        }
    };
}

/// The bundled faces in fallback priority order: the monospace family in four styles,
/// DejaVu Sans (braille, geometric shapes, symbols), Droid Sans Fallback (hanzi, kanji, kana,
/// CJK punctuation, fullwidth forms) and Baekmuk Dotum (Hangul syllables), both subset to the
/// common repertoire (`fonts/subset-cjk.py`), Symbola (monochrome emoji, symbols).
pub static BUNDLED: [BundledFont; 8] = [
    bundled!("JetBrainsMono-Regular.ttf", "JetBrains Mono", false, false),
    bundled!("JetBrainsMono-Bold.ttf", "JetBrains Mono", true, false),
    bundled!("JetBrainsMono-Italic.ttf", "JetBrains Mono", false, true),
    bundled!("JetBrainsMono-BoldItalic.ttf", "JetBrains Mono", true, true),
    bundled!("DejaVuSans.ttf", "DejaVu Sans", false, false),
    // Before Symbola, whose only CJK characters (中 and の) would otherwise stand out in its
    // style among Droid Sans Fallback's; the two CJK fonts share no character with the fonts
    // above, so nothing else changes face.
    bundled!(
        "DroidSansFallback-CJK.ttf",
        "Droid Sans Fallback",
        false,
        false
    ),
    bundled!("BaekmukDotum-Hangul.ttf", "Baekmuk Dotum", false, false),
    bundled!("Symbola.ttf", "Symbola", false, false),
];

fn primary_face() -> Option<&'static ttf_parser::Face<'static>> {
    monospace_face(false, false)
}

/// Bundled face `index` of [`BUNDLED`], parsed once.
fn bundled_face(index: usize) -> Option<&'static ttf_parser::Face<'static>> {
    static FACES: OnceLock<[Option<ttf_parser::Face<'static>>; 8]> = OnceLock::new();
    FACES
        .get_or_init(|| std::array::from_fn(|i| ttf_parser::Face::parse(BUNDLED[i].data, 0).ok()))
        .get(index)?
        .as_ref()
}

/// The bundled monospace face of this weight and slant, parsed once.
pub(crate) fn monospace_face(
    bold: bool,
    italic: bool,
) -> Option<&'static ttf_parser::Face<'static>> {
    bundled_face(monospace_index(bold, italic))
}

/// Where the monospace face of this weight and slant is in [`BUNDLED`].
pub(crate) const fn monospace_index(bold: bool, italic: bool) -> usize {
    bold as usize + 2 * italic as usize
}

/// Whether the primary monospace font has a glyph for `c` (its advance is then exactly one
/// cell, so runs of such characters need no per-glyph positions).
pub fn primary_covers(c: char) -> bool {
    // Latin-1 from a table (most cells), everything else from the font's cmap.
    static LATIN1: OnceLock<[bool; 256]> = OnceLock::new();
    let face_covers = |c: char| primary_face().is_some_and(|f| f.glyph_index(c).is_some());
    match u8::try_from(u32::from(c)) {
        Ok(b) => LATIN1.get_or_init(|| std::array::from_fn(|i| face_covers(char::from(i as u8))))
            [b as usize],
        Err(_) => face_covers(c),
    }
}

/// Whether every monospace font a viewer is likely to substitute for the primary one has `c`:
/// the letters, digits and punctuation of WGL4 (Latin-1 and Extended-A, Greek, Cyrillic, the
/// common typographic marks, the arrows), which DejaVu Sans Mono, Liberation Mono, Menlo,
/// Consolas and Courier New all cover. A run of such characters is drawn by one font with one
/// advance, so it can be stretched to its cells as a whole; any other character may come from a
/// fallback font of another width.
pub fn substitutes_cover(c: char) -> bool {
    matches!(c,
        ' '..='~'
        | '\u{a0}'..='\u{17f}'
        | '\u{384}'..='\u{3ce}'
        | '\u{400}'..='\u{45f}'
        | '\u{490}'..='\u{491}'
        | '\u{2013}'..='\u{2015}'
        | '\u{2017}'..='\u{201e}'
        | '\u{2020}'..='\u{2022}'
        | '\u{2026}'
        | '\u{2030}'
        | '\u{2032}'..='\u{2033}'
        | '\u{2039}'..='\u{203a}'
        | '\u{20ac}'
        | '\u{2122}'
        | '\u{2190}'..='\u{2195}')
}

/// Where things go inside a cell, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellMetrics {
    /// Font size.
    pub font_size: f64,
    /// Cell width: the primary font's advance.
    pub width: f64,
    /// Cell height: font size × line height, rounded to hundredths of a pixel.
    pub height: f64,
    /// Baseline, from the top of the cell (the font's ascent–descent box centred vertically).
    pub baseline: f64,
    /// Top of the underline stroke, from the top of the cell.
    pub underline: f64,
    /// Underline / strike stroke thickness.
    pub stroke: f64,
    /// Centre of the strike-through line, from the top of the cell.
    pub strike: f64,
    /// The font's ascent at this size, px.
    pub ascent: f64,
    /// The font's descent at this size, px (positive: below the baseline).
    pub descent: f64,
}

impl CellMetrics {
    /// Metrics of the primary font at `font_size` px with rows of `line_height` × font size
    /// (rounded to hundredths of a pixel).
    pub fn new(font_size: f64, line_height: f64) -> CellMetrics {
        // JetBrains Mono's own values, used only if the bundled font failed to parse.
        let (upem, advance, ascent, descent, ul_pos, ul_thick, strike_pos) = match primary_face() {
            Some(f) => {
                let m = f.glyph_index('M').and_then(|g| f.glyph_hor_advance(g));
                let ul = f.underline_metrics();
                let st = f.strikeout_metrics();
                (
                    f.units_per_em() as f64,
                    m.unwrap_or(600) as f64,
                    f.ascender() as f64,
                    f.descender() as f64,
                    ul.map_or(-150.0, |u| u.position as f64),
                    ul.map_or(50.0, |u| u.thickness as f64),
                    st.map_or(260.0, |s| s.position as f64),
                )
            }
            None => (1000.0, 600.0, 1020.0, -300.0, -150.0, 50.0, 260.0),
        };
        let scale = font_size / upem;
        // In whole hundredths of a pixel, the precision every coordinate is written in, so
        // that every row is the same height as written and each row's top is the row
        // above's bottom (18.004 px rows were written 18 or 18.01 px high by position). The
        // width stays the font's advance, which glyphs placed by their run's start follow.
        let height = (font_size * line_height * 100.0).round() / 100.0;
        let baseline = (height - (ascent - descent) * scale) / 2.0 + ascent * scale;
        let stroke = (ul_thick * scale).max(1.0);
        CellMetrics {
            font_size,
            width: advance * scale,
            height,
            baseline,
            underline: baseline - ul_pos * scale,
            stroke,
            strike: baseline - strike_pos * scale,
            ascent: ascent * scale,
            descent: -descent * scale,
        }
    }
}

#[cfg(feature = "png")]
/// The font database for rasterising, in fallback order: the bundled monospace family, then
/// the `extra` font files (fonts the user names come before the bundled fallbacks for the
/// characters they cover), then the bundled fallbacks. The bundled-only database is built
/// once and shared; the last one with extra files is kept, so a render that also reports
/// missing glyphs reads the files once.
pub fn database(extra: &[PathBuf]) -> Result<Arc<fontdb::Database>, RenderError> {
    static BUNDLED_DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    static LAST_DB: std::sync::Mutex<Option<(Vec<PathBuf>, Arc<fontdb::Database>)>> =
        std::sync::Mutex::new(None);
    if extra.is_empty() {
        return Ok(BUNDLED_DB
            .get_or_init(|| Arc::new(build_database(&[]).unwrap_or_default()))
            .clone());
    }
    let mut last = LAST_DB.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((paths, db)) = last.as_ref()
        && paths.as_slice() == extra
    {
        return Ok(Arc::clone(db));
    }
    let mut files = Vec::with_capacity(extra.len());
    for path in extra {
        let data = std::fs::read(path)
            .map_err(|e| RenderError::new(format!("cannot read font {}: {e}", path.display())))?;
        files.push((path, data));
    }
    let db = Arc::new(build_database(&files)?);
    *last = Some((extra.to_vec(), Arc::clone(&db)));
    Ok(db)
}

#[cfg(feature = "png")]
fn build_database(extra: &[(&PathBuf, Vec<u8>)]) -> Result<fontdb::Database, RenderError> {
    let mut db = fontdb::Database::new();
    let (primary, fallbacks): (Vec<_>, Vec<_>) =
        BUNDLED.iter().partition(|f| f.family == PRIMARY_FAMILY);
    for font in primary {
        db.load_font_source(fontdb::Source::Binary(Arc::new(font.data)));
    }
    for (path, data) in extra {
        let before = db.len();
        db.load_font_data(data.clone());
        if db.len() == before {
            return Err(RenderError::new(format!(
                "{} is not a font fontdb can read (TTF, OTF or TTC)",
                path.display()
            )));
        }
    }
    for font in fallbacks {
        db.load_font_source(fontdb::Source::Binary(Arc::new(font.data)));
    }
    // Generic families must resolve to bundled faces, or usvg silently drops the text.
    db.set_monospace_family(PRIMARY_FAMILY);
    db.set_sans_serif_family("DejaVu Sans");
    db.set_serif_family("DejaVu Sans");
    db.set_cursive_family("DejaVu Sans");
    db.set_fantasy_family("DejaVu Sans");
    Ok(db)
}

#[cfg(feature = "png")]
/// The characters of `chars` that no face of `db` has a glyph for (each once, in order).
/// Characters that are not drawn as glyphs of their own — spaces, joiners, variation
/// selectors — are left out.
pub fn uncovered(db: &fontdb::Database, chars: impl IntoIterator<Item = char>) -> Vec<char> {
    let faces: Vec<fontdb::ID> = db.faces().map(|f| f.id).collect();
    let mut seen = std::collections::BTreeSet::new();
    chars
        .into_iter()
        .filter(|&c| {
            !(c.is_whitespace()
                || c.is_control()
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}'))
        })
        .filter(|&c| seen.insert(c))
        // Every database holds the bundled faces, parsed once here: only what none of them
        // has is looked for in the others (the user's font files).
        .filter(|&c| face_for(c, false, false).is_none())
        .filter(|&c| {
            !faces.iter().any(|&id| {
                db.with_face_data(id, |data, index| {
                    ttf_parser::Face::parse(data, index)
                        .ok()
                        .and_then(|f| f.glyph_index(c))
                        .is_some()
                })
                .unwrap_or(false)
            })
        })
        .collect()
}

/// The bundled face a browser will draw `c` with in a run of the given style: the matching
/// monospace face if it has the glyph, else the first fallback face that does (the same
/// order resvg uses).
pub(crate) fn face_for(c: char, bold: bool, italic: bool) -> Option<usize> {
    if primary_covers(c) {
        return Some(monospace_index(bold, italic));
    }
    (4..BUNDLED.len()).find(|&i| bundled_face(i).is_some_and(|f| f.glyph_index(c).is_some()))
}

/// How much narrower `c`, drawn centred on `cells` cells in a run of the given style, must be
/// for its ink to stay inside them: a fallback face's glyphs are of its own proportions (★ in
/// DejaVu Sans is 1.5 cells wide), and a terminal keeps every glyph to its cells. 1 when the
/// ink fits, and for the monospace faces' own glyphs, which are drawn as designed.
pub(crate) fn ink_fit(c: char, bold: bool, italic: bool, cells: usize) -> f64 {
    let fit = || -> Option<f64> {
        let index = face_for(c, bold, italic).filter(|&i| i >= 4)?;
        let (face, cell) = (bundled_face(index)?, primary_face()?);
        let glyph = face.glyph_index(c)?;
        let ink = face.glyph_bounding_box(glyph)?;
        let centre = f64::from(face.glyph_hor_advance(glyph)?) / 2.0;
        let half_ink = (centre - f64::from(ink.x_min)).max(f64::from(ink.x_max) - centre);
        // Both in ems: the cells' half width, and the ink's half width about the centre.
        let cell_em = f64::from(cell.glyph_hor_advance(cell.glyph_index('0')?)?)
            / f64::from(cell.units_per_em());
        let room = cells as f64 * cell_em / 2.0;
        let needed = half_ink / f64::from(face.units_per_em());
        // In the hundredths a document writes numbers in, rounded down to stay inside.
        let scale = ((room / needed).min(1.0) * 100.0).floor() / 100.0;
        Some(scale).filter(|s| s.is_finite() && *s > 0.0)
    };
    fit().unwrap_or(1.0)
}

#[cfg(feature = "embed-font")]
/// A subset of bundled face `index` holding exactly `chars`, as a TrueType font browsers
/// accept: subsetter keeps the glyphs, this adds back the `cmap` and `OS/2` tables it drops.
pub(crate) fn subset_face(
    index: usize,
    chars: &std::collections::BTreeSet<char>,
) -> Result<Vec<u8>, RenderError> {
    let data = BUNDLED[index].data;
    let err =
        |what: &str| RenderError::new(format!("cannot subset {}: {what}", BUNDLED[index].file));
    let face = ttf_parser::Face::parse(data, 0).map_err(|e| err(&e.to_string()))?;
    let mut remapper = subsetter::GlyphRemapper::new();
    let mut mapped = Vec::new();
    for &c in chars {
        if let Some(g) = face.glyph_index(c) {
            mapped.push((c, remapper.remap(g.0)));
        }
    }
    let subset = subsetter::subset(data, 0, &remapper).map_err(|e| err(&format!("{e:?}")))?;
    let raw = ttf_parser::RawFace::parse(&subset, 0).map_err(|e| err(&e.to_string()))?;
    let mut builder = super::sfnt::SfntBuilder::default();
    for record in raw.table_records {
        if let Some(table) = raw.table(record.tag) {
            builder.add(record.tag.to_bytes(), table.to_vec());
        }
    }
    if let Some(os2) = face.raw_face().table(ttf_parser::Tag::from_bytes(b"OS/2")) {
        builder.add(*b"OS/2", os2.to_vec());
    }
    // `chars` is sorted, so the mappings are too.
    let cmap = super::sfnt::cmap(&mapped).ok_or_else(|| err("too many characters"))?;
    builder.add(*b"cmap", cmap);
    builder.build().ok_or_else(|| err("the font is over 4 GiB"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jetbrains_mono_metrics_at_14px() {
        let m = CellMetrics::new(14.0, 18.0 / 14.0);
        assert!((m.width - 8.4).abs() < 1e-9, "{}", m.width);
        assert!((m.height - 18.0).abs() < 1e-9);
        assert!(m.baseline > 9.0 && m.baseline < 18.0, "{}", m.baseline);
        assert!(m.underline > m.baseline && m.underline < m.height);
        assert!(m.strike < m.baseline && m.strike > 0.0);
    }

    #[test]
    fn monospace_faces_are_found_by_weight_and_slant() {
        for (bold, italic) in [(false, false), (true, false), (false, true), (true, true)] {
            let font = &BUNDLED[monospace_index(bold, italic)];
            assert_eq!(
                (font.family, font.bold, font.italic),
                (PRIMARY_FAMILY, bold, italic)
            );
            assert!(monospace_face(bold, italic).is_some(), "{}", font.file);
        }
    }

    #[test]
    #[cfg(feature = "embed-font")]
    fn a_subset_draws_each_character_as_its_whole_face_does() {
        for text in ["Ag─ {}é", "😀♞"] {
            let first = text.chars().next().expect("a character");
            let index = face_for(first, false, false).expect("a bundled face");
            let chars: std::collections::BTreeSet<char> = text.chars().collect();
            let subset = subset_face(index, &chars).expect("a subset");
            let whole = ttf_parser::Face::parse(BUNDLED[index].data, 0).expect("bundled face");
            let part = ttf_parser::Face::parse(&subset, 0).expect("the subset parses");
            assert!(part.number_of_glyphs() < whole.number_of_glyphs());
            for c in chars {
                let (g, h) = (
                    whole.glyph_index(c).expect("in the whole face"),
                    part.glyph_index(c)
                        .unwrap_or_else(|| panic!("{c:?} not in the subset")),
                );
                assert_eq!(
                    (whole.glyph_bounding_box(g), whole.glyph_hor_advance(g)),
                    (part.glyph_bounding_box(h), part.glyph_hor_advance(h)),
                    "{c:?}"
                );
            }
            assert_eq!(part.glyph_index('Z'), None);
        }
    }

    #[test]
    #[cfg(feature = "png")]
    fn bundled_faces_load_in_order() {
        let db = database(&[]).expect("bundled database");
        let families: Vec<String> = db.faces().map(|f| f.families[0].0.clone()).collect();
        assert_eq!(families.len(), BUNDLED.len());
        for (face, font) in families.iter().zip(&BUNDLED) {
            assert_eq!(face, font.family, "{}", font.file);
        }
        assert!(primary_covers('─'));
        assert!(primary_covers('a'));
        assert!(!primary_covers('日'));
    }

    #[test]
    #[cfg(feature = "png")]
    fn unreadable_extra_fonts_are_errors() {
        assert!(database(&[PathBuf::from("/nonexistent.ttf")]).is_err());
        let not_font = tempfile::NamedTempFile::new().expect("temp file");
        std::fs::write(not_font.path(), b"not a font").expect("write");
        let err = database(&[not_font.path().to_path_buf()]).unwrap_err();
        assert!(err.to_string().contains("is not a font"), "{err}");
    }
}
