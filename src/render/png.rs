//! Layout → SVG → pixels → PNG with resvg and the bundled fonts.

use resvg::tiny_skia;
use resvg::usvg;

use super::font::{self, PRIMARY_FAMILY};
use super::layout::Layout;
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

/// Rasterises a layout at the appearance's scale (the SVG [`svg::write_for_raster`] writes,
/// drawn by resvg), its antialiased edges reduced by `shades` when given.
pub fn render_layout(
    layout: &Layout,
    a: &Appearance,
    shades: Option<&mut Shades>,
) -> Result<tiny_skia::Pixmap, RenderError> {
    let mut pixmap = render_pixmap(&svg::write_for_raster(layout, a)?, a)?;
    if let Some(shades) = shades {
        // Opaque pixels, the only ones changed, are the same premultiplied.
        shades.apply(layout, pixmap.data_mut());
    }
    Ok(pixmap)
}

/// Rasterises an SVG produced by [`super::svg::write`] at the appearance's scale.
pub fn render_pixmap(svg: &str, a: &Appearance) -> Result<tiny_skia::Pixmap, RenderError> {
    let options = usvg::Options {
        font_family: PRIMARY_FAMILY.to_owned(),
        fontdb: font::database(&a.font_files)?,
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)
        .map_err(|e| RenderError::new(format!("cannot rasterise the SVG: {e}")))?;
    let size = tree.size();
    let w = (size.width() * a.scale as f32).round().max(1.0) as u32;
    let h = (size.height() * a.scale as f32).round().max(1.0) as u32;
    let mut pixmap = tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| RenderError::new(format!("cannot allocate a {w}×{h} image")))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(a.scale as f32, a.scale as f32),
        &mut pixmap.as_mut(),
    );
    Ok(pixmap)
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
