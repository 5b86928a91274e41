//! A raster's text of the bundled monospace faces, drawn from cached glyph coverage.
//!
//! resvg shapes every `<tspan>` anew and fills the outline of every glyph in every cell: on a
//! dense screen that is most of a PNG's time. Yet a screen's text is a few dozen glyphs at a
//! few sub-pixel offsets. So the runs of one monospace glyph a cell ([`RunX::Start`]) are drawn
//! here: each (face, glyph, size, offset) is rasterised once by tiny-skia into a coverage mask,
//! kept in a process-wide cache (animations draw the same glyphs frame after frame) and
//! blended onto the image in the run's colour. Everything else — fallback faces, wide and
//! combining characters, scaled rows, the title, the caption — is still drawn by resvg.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use resvg::tiny_skia::{self, FillRule, Mask, Paint, PathBuilder, Transform};

use super::Appearance;
use super::font;
use super::layout::{Layout, Run, RunX, TextClass};
use super::number::as_written;
use super::svg::is_xml_safe;

/// Sub-pixel offsets a glyph is drawn at, per pixel across.
const PHASES_X: f64 = 256.0;
/// Sub-pixel offsets a glyph is drawn at, per pixel down: fewer, since baselines fall on
/// few offsets (rows are a whole number of hundredths high; 18 px at 14 px puts them all on
/// one), each a set of glyphs to rasterise, and 1/16 px merges nearby ones.
const PHASES_Y: f64 = 16.0;

/// The coverage bytes the cache holds before it starts afresh: every printable ASCII glyph of
/// the four faces at the five offsets of 14 px cells is about 0.6 MiB at scale 1.
const CACHE_BYTES: usize = 16 << 20;

/// Which of a layout's runs ([`Layout::runs`]) are drawn from the glyph cache, by index.
/// `None` when none is, or when the appearance lets resvg take text from other faces (a font
/// family or font files of the user's, which come first in its fallback order).
pub(crate) fn cached_runs(layout: &Layout, a: &Appearance) -> Option<Vec<bool>> {
    if a.adds_faces() {
        return None;
    }
    let drawn: Vec<bool> = layout
        .runs
        .iter()
        .map(|run| is_cacheable(run, &layout.classes))
        .collect();
    drawn.contains(&true).then_some(drawn)
}

/// A run placed by its start, one character a cell, every one a glyph of its class's face.
fn is_cacheable(run: &Run, classes: &[TextClass]) -> bool {
    let (RunX::Start(_), Some(class)) = (&run.x, classes.get(run.class)) else {
        return false;
    };
    let Some(face) = font::monospace_face(class.bold, class.italic) else {
        return false;
    };
    run.text.chars().count() == run.cells
        && run
            .text
            .chars()
            .all(|c| is_xml_safe(c) && !c.is_control() && face.glyph_index(c).is_some())
}

/// Draws the layout's runs that `drawn` marks ([`cached_runs`]) onto `pixmap`, whose canvas
/// is mapped onto the pixels by `canvas` (the viewBox to the image at its scale).
pub(crate) fn draw(
    pixmap: &mut tiny_skia::PixmapMut<'_>,
    layout: &Layout,
    drawn: &[bool],
    canvas: Transform,
) {
    let runs = layout.runs.iter().zip(drawn).filter(|(_, d)| **d);
    let font_size = as_written(layout.metrics.font_size);
    // A viewBox maps uniformly (preserveAspectRatio's default), so a glyph's pixels depend only
    // on its sub-pixel offset; anything else is filled glyph by glyph.
    let uniform = canvas.kx == 0.0 && canvas.ky == 0.0 && canvas.sx == canvas.sy;
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    for (run, _) in runs {
        let (RunX::Start(x0), Some(class)) = (&run.x, layout.classes.get(run.class)) else {
            continue;
        };
        let Some(face) = font::monospace_face(class.bold, class.italic) else {
            continue;
        };
        let em = font_size / f64::from(face.units_per_em());
        let (x0, y) = (as_written(*x0), as_written(run.y));
        for (i, c) in run.text.chars().enumerate() {
            let Some(glyph) = face.glyph_index(c) else {
                continue;
            };
            let x = x0 + i as f64 * layout.metrics.width;
            if !uniform {
                fill_glyph(
                    pixmap,
                    face,
                    glyph,
                    class,
                    canvas.pre_translate(x as f32, y as f32),
                    em,
                );
                continue;
            }
            let scale = f64::from(canvas.sx);
            let (px, py) = (
                scale * x + f64::from(canvas.tx),
                scale * y + f64::from(canvas.ty),
            );
            let (ix, phase_x) = split(px, PHASES_X);
            let (iy, phase_y) = split(py, PHASES_Y);
            let key = GlyphKey {
                face: font::monospace_index(class.bold, class.italic) as u8,
                glyph: glyph.0,
                em: ((em * scale) as f32).to_bits(),
                phase_x,
                phase_y,
            };
            if let Some(coverage) = cache.get(key, face) {
                blend(pixmap, coverage, ix, iy, class.fill.base);
            }
        }
    }
}

/// A position in pixels as a whole pixel and a sub-pixel offset in `phases` (rounded; an
/// offset of a whole pixel is the next pixel's).
fn split(v: f64, phases: f64) -> (i32, u16) {
    let whole = v.floor();
    let phase = ((v - whole) * phases).round();
    if phase >= phases {
        (whole as i32 + 1, 0)
    } else {
        (whole as i32, phase as u16)
    }
}

/// What a glyph's coverage depends on.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct GlyphKey {
    /// The monospace face, by [`font::monospace_index`].
    face: u8,
    glyph: u16,
    /// Pixels per font unit, as `f32` bits.
    em: u32,
    /// Sub-pixel offsets of the glyph's origin, in [`PHASES_X`] and [`PHASES_Y`].
    phase_x: u16,
    phase_y: u16,
}

/// A glyph's coverage, placed relative to the whole pixel of its origin.
struct Coverage {
    left: i32,
    top: i32,
    width: usize,
    alpha: Vec<u8>,
}

/// Glyph coverage by key (`None`: the glyph draws nothing, as a space), bounded by
/// [`CACHE_BYTES`].
#[derive(Default)]
struct GlyphCache {
    glyphs: HashMap<GlyphKey, Option<Coverage>>,
    bytes: usize,
}

static CACHE: LazyLock<Mutex<GlyphCache>> = LazyLock::new(Mutex::default);

/// Empties the cache.
pub(crate) fn forget() {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    *cache = GlyphCache::default();
}

impl GlyphCache {
    fn get(&mut self, key: GlyphKey, face: &ttf_parser::Face<'_>) -> Option<&Coverage> {
        if !self.glyphs.contains_key(&key) {
            let coverage = rasterize(face, key);
            let bytes = coverage.as_ref().map_or(0, |c| c.alpha.len());
            if self.bytes + bytes > CACHE_BYTES {
                self.glyphs.clear();
                self.bytes = 0;
            }
            self.bytes += bytes;
            self.glyphs.insert(key, coverage);
        }
        self.glyphs.get(&key).and_then(Option::as_ref)
    }
}

/// The glyph's outline in font units (y up), as a tiny-skia path.
fn outline(face: &ttf_parser::Face<'_>, glyph: ttf_parser::GlyphId) -> Option<tiny_skia::Path> {
    struct Pen(PathBuilder);
    impl ttf_parser::OutlineBuilder for Pen {
        fn move_to(&mut self, x: f32, y: f32) {
            self.0.move_to(x, y);
        }
        fn line_to(&mut self, x: f32, y: f32) {
            self.0.line_to(x, y);
        }
        fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
            self.0.quad_to(x1, y1, x, y);
        }
        fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
            self.0.cubic_to(x1, y1, x2, y2, x, y);
        }
        fn close(&mut self) {
            self.0.close();
        }
    }
    let mut pen = Pen(PathBuilder::new());
    face.outline_glyph(glyph, &mut pen)?;
    pen.0.finish()
}

/// Rasterises the glyph of `key` with antialiasing, as resvg fills an outline.
fn rasterize(face: &ttf_parser::Face<'_>, key: GlyphKey) -> Option<Coverage> {
    let path = outline(face, ttf_parser::GlyphId(key.glyph))?;
    let em = f32::from_bits(key.em);
    let (dx, dy) = (
        (f64::from(key.phase_x) / PHASES_X) as f32,
        (f64::from(key.phase_y) / PHASES_Y) as f32,
    );
    let bounds = path
        .clone()
        .transform(Transform::from_row(em, 0.0, 0.0, -em, dx, dy))?
        .bounds();
    // A pixel of margin: antialiasing touches the pixels an edge passes through.
    let left = bounds.left().floor() as i32 - 1;
    let top = bounds.top().floor() as i32 - 1;
    let width = (bounds.right().ceil() as i32 + 1 - left).max(1);
    let height = (bounds.bottom().ceil() as i32 + 1 - top).max(1);
    let mut mask = Mask::new(width as u32, height as u32)?;
    let placed = Transform::from_row(em, 0.0, 0.0, -em, dx - left as f32, dy - top as f32);
    mask.fill_path(&path, FillRule::Winding, true, placed);
    Some(Coverage {
        left,
        top,
        width: width as usize,
        alpha: mask.take(),
    })
}

/// Blends `colour` through `coverage` onto the premultiplied pixels, its origin at `(x, y)`.
fn blend(
    pixmap: &mut tiny_skia::PixmapMut<'_>,
    coverage: &Coverage,
    x: i32,
    y: i32,
    colour: (u8, u8, u8),
) {
    let (image_w, image_h) = (pixmap.width() as i64, pixmap.height() as i64);
    let (left, top) = (
        i64::from(x) + i64::from(coverage.left),
        i64::from(y) + i64::from(coverage.top),
    );
    let width = coverage.width as i64;
    // The columns of the mask inside the image.
    let (from, to) = ((-left).max(0), width.min(image_w - left));
    if from >= to {
        return;
    }
    let src = [colour.0, colour.1, colour.2, 255];
    let data = pixmap.data_mut();
    for (row, alphas) in coverage.alpha.chunks_exact(coverage.width).enumerate() {
        let py = top + row as i64;
        if !(0..image_h).contains(&py) {
            continue;
        }
        let start = ((py * image_w + left + from) * 4) as usize;
        let pixels = &mut data[start..start + (to - from) as usize * 4];
        for (pixel, &a) in pixels
            .chunks_exact_mut(4)
            .zip(&alphas[from as usize..to as usize])
        {
            match a {
                0 => {}
                255 => pixel.copy_from_slice(&src),
                a => {
                    let (a, rest) = (u32::from(a), 255 - u32::from(a));
                    for (d, s) in pixel.iter_mut().zip(src) {
                        *d = div255(u32::from(s) * a + u32::from(*d) * rest);
                    }
                }
            }
        }
    }
}

/// `v / 255`, rounded, for `v` ≤ 255².
fn div255(v: u32) -> u8 {
    ((v + 128 + ((v + 128) >> 8)) >> 8) as u8
}

/// Fills one glyph at `transform` (its origin; font units scaled by `em`) without the cache.
fn fill_glyph(
    pixmap: &mut tiny_skia::PixmapMut<'_>,
    face: &ttf_parser::Face<'_>,
    glyph: ttf_parser::GlyphId,
    class: &TextClass,
    transform: Transform,
    em: f64,
) {
    let Some(path) = outline(face, glyph) else {
        return;
    };
    let (r, g, b) = class.fill.base;
    let mut paint = Paint::default();
    paint.set_color_rgba8(r, g, b, 255);
    let em = em as f32;
    pixmap.fill_path(
        &path,
        &paint,
        FillRule::Winding,
        transform.pre_scale(em, -em),
        None,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_by_255_rounds() {
        for v in 0..=255 * 255 {
            assert_eq!(u32::from(div255(v)), (v + 127) / 255, "{v}");
        }
    }

    #[test]
    fn positions_split_into_pixel_and_offset() {
        assert_eq!(split(10.0, 64.0), (10, 0));
        assert_eq!(split(10.5, 64.0), (10, 32));
        assert_eq!(split(10.999, 64.0), (11, 0));
        assert_eq!(split(-0.25, 16.0), (-1, 12));
    }
}
