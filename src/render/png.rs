//! Layout → SVG → pixels → PNG with resvg and the bundled fonts.

use resvg::tiny_skia;
use resvg::usvg;

use super::font::{self, PRIMARY_FAMILY};
use super::glyphs;
use super::layout::{Layout, RunX};
use super::shades::Shades;
use super::{Appearance, PngCompression, RasterKind, RenderError, svg};

/// Rasterises a layout as a still PNG at the appearance's scale, antialiasing and compression.
pub fn rasterize(layout: &Layout, a: &Appearance) -> Result<Vec<u8>, RenderError> {
    let mut shades = a.antialiasing.shades(RasterKind::Png).map(Shades::new);
    encode(
        &render_layout(layout, a, shades.as_mut())?,
        a.png_compression,
    )
}

/// Rasterises a layout at the appearance's scale, its antialiased edges reduced by `shades`
/// when given: the SVG [`svg::write_for_raster`] writes, drawn by resvg, except for the text
/// of the bundled monospace faces, drawn from cached glyph coverage between what lies
/// under it and what lies over it.
pub fn render_layout(
    layout: &Layout,
    a: &Appearance,
    shades: Option<&mut Shades>,
) -> Result<tiny_skia::Pixmap, RenderError> {
    let blanked;
    let layout = match blank(layout, a)? {
        Some(without) => {
            blanked = without;
            &blanked
        }
        None => layout,
    };
    let mut pixmap = match glyphs::cached_runs(layout, a) {
        Some(drawn) => {
            let (under, over) = svg::write_for_raster_around_text(layout, a, &drawn)?;
            let under = parse(&under, a)?;
            let mut pixmap = new_pixmap(&under, a)?;
            draw(&under, &mut pixmap, a);
            glyphs::draw(&mut pixmap.as_mut(), layout, &drawn, canvas(&under, a));
            if let Some(over) = over {
                draw(&parse(&over, a)?, &mut pixmap, a);
            }
            pixmap
        }
        None => render_pixmap(&svg::write_for_raster(layout, a)?, a)?,
    };
    if let Some(shades) = shades {
        // Opaque pixels, the only ones changed, are the same premultiplied.
        shades.apply(layout, pixmap.data_mut());
    }
    Ok(pixmap)
}

/// The layout without the characters no font has ([`font::uncovered`], the characters
/// `missing_glyphs` names), if it has any: resvg would draw them as the primary face's
/// missing-glyph box.
fn blank(layout: &Layout, a: &Appearance) -> Result<Option<Layout>, RenderError> {
    let centred = layout
        .all_runs()
        .filter(|r| matches!(r.x, RunX::Centers(_)))
        .flat_map(|r| r.text.chars());
    let missing = font::uncovered(&*font::database(&a.font_files)?, centred);
    Ok((!missing.is_empty()).then(|| {
        let mut without = layout.clone();
        without.blank_out(&missing);
        without
    }))
}

/// Forgets every cached glyph ([`render_layout`]), so the next image rasterises its glyphs
/// afresh: benchmarks measure a process's first image with it.
#[doc(hidden)]
pub fn forget_glyphs() {
    glyphs::forget();
}

/// Rasterises an SVG produced by [`super::svg::write`] at the appearance's scale.
pub fn render_pixmap(svg: &str, a: &Appearance) -> Result<tiny_skia::Pixmap, RenderError> {
    let tree = parse(svg, a)?;
    let mut pixmap = new_pixmap(&tree, a)?;
    draw(&tree, &mut pixmap, a);
    Ok(pixmap)
}

/// Parses an SVG with the bundled fonts (and the appearance's).
fn parse(svg: &str, a: &Appearance) -> Result<usvg::Tree, RenderError> {
    let options = usvg::Options {
        font_family: PRIMARY_FAMILY.to_owned(),
        fontdb: font::database(&a.font_files)?,
        ..usvg::Options::default()
    };
    usvg::Tree::from_str(svg, &options)
        .map_err(|e| RenderError::new(format!("cannot rasterise the SVG: {e}")))
}

/// A transparent image of the document's size at the appearance's scale.
fn new_pixmap(tree: &usvg::Tree, a: &Appearance) -> Result<tiny_skia::Pixmap, RenderError> {
    let size = tree.size();
    let w = (size.width() * a.scale as f32).round().max(1.0) as u32;
    let h = (size.height() * a.scale as f32).round().max(1.0) as u32;
    tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| RenderError::new(format!("cannot allocate a {w}×{h} image")))
}

/// Draws the document onto the image, over what it holds.
fn draw(tree: &usvg::Tree, pixmap: &mut tiny_skia::Pixmap, a: &Appearance) {
    resvg::render(tree, scaling(a), &mut pixmap.as_mut());
}

/// The appearance's scale, as resvg draws with it.
fn scaling(a: &Appearance) -> tiny_skia::Transform {
    tiny_skia::Transform::from_scale(a.scale as f32, a.scale as f32)
}

/// Where the document's canvas (its viewBox) lands on the image.
fn canvas(tree: &usvg::Tree, a: &Appearance) -> tiny_skia::Transform {
    scaling(a).pre_concat(tree.root().abs_transform())
}

/// Encodes a rasterised image as an 8-bit RGBA PNG (alpha demultiplied).
pub fn encode(
    pixmap: &tiny_skia::Pixmap,
    compression: PngCompression,
) -> Result<Vec<u8>, RenderError> {
    let err = |e: png::EncodingError| RenderError::new(format!("cannot encode the PNG: {e}"));
    // An opaque image (any without a transparent backdrop) is the same premultiplied: no copy.
    let opaque = pixmap.pixels().iter().all(|p| p.is_opaque());
    let demultiplied;
    let pixels = if opaque {
        pixmap.data()
    } else {
        demultiplied = pixmap.clone().take_demultiplied();
        &demultiplied
    };
    let mut data = Vec::new();
    let mut encoder = png::Encoder::new(&mut data, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    set_compression(&mut encoder, compression);
    let mut writer = encoder.write_header().map_err(err)?;
    writer.write_image_data(pixels).map_err(err)?;
    writer.finish().map_err(err)?;
    Ok(data)
}

/// Sets how `encoder` filters and deflates, for stills and animation frames alike.
///
/// The default leaves rows unfiltered at zlib level 4: a terminal screen repeats the same
/// glyphs on flat colours, which deflate finds as repeats only in the unfiltered bytes. On seven
/// 100×30 fixture screens this is 5–26 % smaller than the png crate's balanced setting
/// (adaptive filters, level 6) on all but the sparsest (+7 %), in half the time (BENCHMARKS.md).
pub(crate) fn set_compression<W: std::io::Write>(
    encoder: &mut png::Encoder<'_, W>,
    compression: PngCompression,
) {
    match compression {
        PngCompression::Default => {
            encoder.set_filter(png::Filter::NoFilter);
            encoder.set_deflate_compression(png::DeflateCompression::Level(4));
        }
        PngCompression::Fast => encoder.set_compression(png::Compression::Fast),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Terminal;

    fn decode(data: &[u8]) -> (u32, u32, Vec<u8>) {
        let mut reader = png::Decoder::new(std::io::Cursor::new(data))
            .read_info()
            .expect("PNG header");
        let mut pixels = vec![0; reader.output_buffer_size().expect("buffer size")];
        let info = reader.next_frame(&mut pixels).expect("PNG frame");
        pixels.truncate(info.buffer_size());
        (info.width, info.height, pixels)
    }

    #[test]
    fn both_compressions_keep_the_pixels_of_tiny_skias_encoder() {
        let mut term = Terminal::new(30, 4);
        term.advance(
            "\x1b[1;31mred\x1b[0m ┌──┐ \x1b[44m blue \x1b[0m 日本\r\n\x1b[4mline".as_bytes(),
        );
        // Transparent corners and shadow (demultiplied), and an opaque image (written as it is).
        for window in [
            super::super::WindowStyle::Transparent,
            super::super::WindowStyle::None,
        ] {
            let a = Appearance {
                window,
                ..Appearance::default()
            };
            let layout = super::super::layout::Layout::new(&term.snapshot(), &a).expect("layout");
            let svg = super::super::svg::write_for_raster(&layout, &a).expect("svg");
            let pixmap = render_pixmap(&svg, &a).expect("pixmap");
            let opaque = pixmap.pixels().iter().all(|p| p.is_opaque());
            assert_eq!(opaque, window == super::super::WindowStyle::None);
            let default = encode(&pixmap, PngCompression::Default).expect("default");
            let fast = encode(&pixmap, PngCompression::Fast).expect("fast");
            let reference = decode(&pixmap.encode_png().expect("tiny-skia's encoder"));
            assert_ne!(default, fast);
            assert_eq!(decode(&default), reference, "{window:?}");
            assert_eq!(decode(&fast), reference, "{window:?}");
        }
    }

    /// The largest difference of a channel, and the mean difference of the channels.
    fn difference(a: &tiny_skia::Pixmap, b: &tiny_skia::Pixmap) -> (u8, f64) {
        assert_eq!((a.width(), a.height()), (b.width(), b.height()));
        let diffs = a.data().iter().zip(b.data()).map(|(x, y)| x.abs_diff(*y));
        let (max, sum) = diffs.fold((0, 0u64), |(m, s), d| (m.max(d), s + u64::from(d)));
        (max, sum as f64 / a.data().len() as f64)
    }

    /// The largest mean difference of a channel over a block of `n`×`n` pixels.
    fn worst_block(a: &tiny_skia::Pixmap, b: &tiny_skia::Pixmap, n: usize) -> f64 {
        let (w, h) = (a.width() as usize, a.height() as usize);
        let mut sums = vec![0u64; w.div_ceil(n) * h.div_ceil(n)];
        for (i, (x, y)) in a.data().chunks(4).zip(b.data().chunks(4)).enumerate() {
            let d = x
                .iter()
                .zip(y)
                .map(|(p, q)| p.abs_diff(*q))
                .max()
                .unwrap_or(0);
            sums[(i / w / n) * w.div_ceil(n) + (i % w) / n] += u64::from(d);
        }
        sums.into_iter().max().unwrap_or(0) as f64 / (n * n) as f64
    }

    #[test]
    fn cached_glyphs_draw_what_resvg_draws() {
        let mut term = Terminal::new(60, 6);
        term.advance(
            concat!(
                "\x1b]2;title\x07plain text, digits 0123456789 and {[(<punctuation>)]}!?\r\n",
                "\x1b[1mbold\x1b[0m \x1b[3mitalic\x1b[0m \x1b[1;3mboth\x1b[0m \x1b[31;44mred on blue\x1b[0m ",
                "\x1b[4munder\x1b[0m \x1b[9mstruck\x1b[0m\r\n",
                "wide 日本 and e\u{301} stay resvg's, ┌──┐ ▒▒ too, ",
                "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\r\n",
                "\x1b#6double\r\n",
                "secret=hunter2 highlighted",
            )
            .as_bytes(),
        );
        let snapshot = term.snapshot();
        let mask = crate::render::mask::Mask::new(&["hunter2".to_owned()], false).expect("mask");
        for (window, scale) in [
            (super::super::WindowStyle::None, 1.0),
            (super::super::WindowStyle::Macos, 2.0),
            (super::super::WindowStyle::Transparent, 1.5),
        ] {
            let a = Appearance {
                window,
                scale,
                mask: mask.clone(),
                ..Appearance::default()
            };
            let mut layout = super::super::layout::Layout::new(&snapshot, &a).expect("layout");
            layout.highlight(&[(5, 20), (5, 21), (0, 0)]);
            layout.set_caption("ctrl-c");
            let drawn = glyphs::cached_runs(&layout, &a).expect("cached runs");
            assert!(drawn.iter().filter(|d| **d).count() >= 8, "{drawn:?}");
            let resvg = render_pixmap(&svg::write_for_raster(&layout, &a).expect("svg"), &a)
                .expect("resvg");
            let cached = render_layout(&layout, &a, None).expect("cached");
            let (max, mean) = difference(&resvg, &cached);
            let block = worst_block(&resvg, &cached, 8);
            // Sub-pixel offsets rounded (to 1/256 px across, 1/16 px down) move some edges by
            // a supersample: 8×8 blocks differ by up to 6.5 here, the whole by 0.08; a glyph a
            // pixel off makes a block 84 and the whole 6.7, text over the highlights instead of
            // under them a block 21.
            assert!(
                block < 10.0 && mean < 0.15,
                "{window:?} ×{scale}: worst 8×8 block {block}, mean {mean}, max {max}"
            );
        }
    }

    #[test]
    fn the_svg_written_for_the_rasteriser_draws_the_same_pixels() {
        let mut term = Terminal::new(40, 5);
        term.advance(
            concat!(
                "\x1b]2;title\x07\x1b[1;3;32mbold italic\x1b[0m \x1b[2;35mdim\x1b[0m ",
                "\x1b[7minverse\x1b[0m \x1b[38;2;1;2;3;48;5;200mtrue\x1b[0m\r\n",
                "╭─┬─╮ 日本語 e\u{301} \x1b[9;53mdeco\x1b[0m ",
                "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\",
            )
            .as_bytes(),
        );
        let snapshot = term.snapshot();
        for window in [
            super::super::WindowStyle::None,
            super::super::WindowStyle::Macos,
        ] {
            let a = Appearance {
                window,
                ..Appearance::default()
            };
            let layout = super::super::layout::Layout::new(&snapshot, &a).expect("layout");
            let full = super::super::svg::write(&layout, &snapshot, &a).expect("svg");
            let raster = super::super::svg::write_for_raster(&layout, &a).expect("svg");
            assert!(full.contains("<metadata>") && !raster.contains("<metadata>"));
            // The full document's text is fitted to the grid for any viewer's font, in row
            // texts stretched to their cells; resvg has the bundled faces and needs neither.
            assert!(full.contains("textLength") && !raster.contains("textLength"));
            assert!(!raster.contains(" class=\"c"));
            let full = render_pixmap(&full, &a).expect("pixmap");
            let raster = render_pixmap(&raster, &a).expect("pixmap");
            assert!(full.data() == raster.data(), "{window:?}");
        }
    }
}
