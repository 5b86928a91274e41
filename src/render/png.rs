//! SVG → PNG with resvg and the bundled fonts.

use resvg::tiny_skia;
use resvg::usvg;

use super::font::{self, PRIMARY_FAMILY};
use super::{Appearance, RenderError};

/// Rasterises an SVG produced by [`super::svg::write`] at the appearance's scale.
pub fn rasterize(svg: &str, a: &Appearance) -> Result<Vec<u8>, RenderError> {
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
    pixmap
        .encode_png()
        .map_err(|e| RenderError::new(format!("cannot encode the PNG: {e}")))
}
