//! Fewer antialiasing shades in a raster: every pixel that blends two of the layout's own
//! colours (a glyph's edge over its cell's background, a curve of box drawing) is moved to the
//! nearest of a few evenly spaced blends of the same two colours.
//!
//! A screen rasterised by resvg has a shade for every coverage level of every glyph edge: an
//! 80×24 screen of text in three colours has about 200 colours, and a GIF's LZW codes get one
//! bit wider for every doubling. Glyph edges in six shades (as agg draws them) look the same at
//! 1× and take a GIF frame down to 5-bit codes with far longer repeats. The layout's colours
//! themselves are never changed, nor is a pixel that is not a blend of exactly two of them
//! (colour emoji, the window shadow, transparent pixels), so the result is the exact raster
//! with its edges posterised, the same for the same input.

use rustc_hash::FxHashMap;

use super::MIN_SHADES;
use super::layout::Layout;
use crate::term::Rgb;

/// How far (per channel, out of 255) a pixel may be from the straight blend of two colours and
/// still count as that blend: the rasteriser rounds each channel once.
const TOLERANCE: f64 = 1.5;

/// Reduces blends in rasters of layouts to `levels` shades (both ends included).
///
/// One `Shades` serves every frame of an animation: a colour keeps the shade it was first
/// given, so a cell that does not change is drawn the same in every frame (a blend can lie on
/// the lines of two pairs, grey over black and white over black, and which pair is nearest
/// would otherwise depend on the colours elsewhere on the screen).
pub struct Shades {
    levels: u8,
    /// Every layout colour seen so far, sorted.
    pure: Vec<Rgb>,
    /// What each colour seen so far becomes.
    mapped: FxHashMap<Rgb, Rgb>,
}

/// Past this many layout colours, blends are left as they are: the pairs to search grow with
/// the square, and such a screen (a colour table, an image) is no longer text in a few colours.
const MAX_PURE: usize = 64;

impl Shades {
    /// Blends reduced to `levels` shades; `levels` below [`MIN_SHADES`] counts as that.
    pub fn new(levels: u8) -> Shades {
        Shades {
            levels: levels.max(MIN_SHADES),
            pure: Vec::new(),
            mapped: FxHashMap::default(),
        }
    }

    /// Posterises the blends in `pixels` (demultiplied RGBA, drawn from `layout`).
    pub fn apply(&mut self, layout: &Layout, pixels: &mut [u8]) {
        let mut pure = layout_colours(layout);
        if pure.iter().any(|c| self.pure.binary_search(c).is_err()) {
            pure.extend_from_slice(&self.pure);
            pure.sort_unstable();
            pure.dedup();
            self.pure = pure;
        }
        let (pure, levels) = (&self.pure, self.levels);
        for px in pixels.chunks_exact_mut(4) {
            // Translucent pixels are blends with whatever is behind the image: left alone.
            if px[3] != u8::MAX {
                continue;
            }
            let colour = (px[0], px[1], px[2]);
            let to = *self.mapped.entry(colour).or_insert_with(|| {
                if pure.len() > MAX_PURE {
                    colour
                } else {
                    posterise(colour, pure, levels)
                }
            });
            (px[0], px[1], px[2]) = to;
        }
    }
}

/// Every colour `layout` paints with (a raster's layout: one theme), sorted and without
/// repeats.
fn layout_colours(layout: &Layout) -> Vec<Rgb> {
    let mut colours: Vec<Rgb> = layout.paints().map(|p| p.base).collect();
    colours.sort_unstable();
    colours.dedup();
    colours
}

/// `colour` moved to the nearest of `levels` blends of the two `pure` colours it is a blend of
/// (the closest such pair; the first in order on a tie), or `colour` itself.
fn posterise(colour: Rgb, pure: &[Rgb], levels: u8) -> Rgb {
    if pure.binary_search(&colour).is_ok() {
        return colour;
    }
    let p = channels(colour);
    let mut best: Option<(f64, [f64; 3], [f64; 3], f64)> = None;
    for (i, &from) in pure.iter().enumerate() {
        let a = channels(from);
        for &to in &pure[i + 1..] {
            let b = channels(to);
            let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let length = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            let t = ((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1] + (p[2] - a[2]) * d[2]) / length;
            if !(0.0..=1.0).contains(&t) {
                continue;
            }
            let off = (0..3)
                .map(|c| (p[c] - (a[c] + t * d[c])).abs())
                .fold(0.0, f64::max);
            if off <= TOLERANCE && best.is_none_or(|(o, ..)| off < o) {
                best = Some((off, a, d, t));
            }
        }
    }
    let Some((_, a, d, t)) = best else {
        return colour;
    };
    let steps = f64::from(levels - 1);
    let t = (t * steps).round() / steps;
    let channel = |c: usize| (a[c] + t * d[c]).round().clamp(0.0, 255.0) as u8;
    (channel(0), channel(1), channel(2))
}

fn channels((r, g, b): Rgb) -> [f64; 3] {
    [f64::from(r), f64::from(g), f64::from(b)]
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLACK: Rgb = (0, 0, 0);
    const WHITE: Rgb = (255, 255, 255);
    const RED: Rgb = (255, 0, 0);

    #[test]
    fn a_blend_moves_to_the_nearest_level_of_its_two_colours() {
        let pure = [BLACK, RED, WHITE];
        // 6 levels of black → white: 0, 51, 102, 153, 204, 255.
        assert_eq!(posterise((60, 60, 60), &pure, 6), (51, 51, 51));
        assert_eq!(posterise((230, 230, 230), &pure, 6), (255, 255, 255));
        // Red over white: green and blue fall together.
        assert_eq!(posterise((255, 140, 140), &pure, 6), (255, 153, 153));
        assert_eq!(posterise((255, 140, 140), &pure, 2), (255, 255, 255));
    }

    #[test]
    fn pure_colours_and_colours_of_no_blend_stay() {
        let grey = (128, 128, 128);
        let pure = [BLACK, grey, WHITE];
        // Grey lies on black → white but is the layout's own colour.
        assert_eq!(posterise(grey, &pure, 6), grey);
        // Not a blend of any two of them.
        assert_eq!(posterise((10, 200, 30), &pure, 6), (10, 200, 30));
        assert_eq!(posterise((120, 130, 128), &pure, 6), (120, 130, 128));
    }

    #[test]
    fn antialiasing_is_read_from_its_option_value() {
        use crate::render::{Antialiasing, RasterKind};
        assert_eq!("auto".parse(), Ok(Antialiasing::Auto));
        assert_eq!("full".parse(), Ok(Antialiasing::Full));
        assert_eq!("off".parse(), Ok(Antialiasing::Shades(2)));
        assert_eq!("16".parse(), Ok(Antialiasing::Shades(16)));
        for bad in ["1", "0", "256", "-3", "six", "", "６"] {
            let e = bad.parse::<Antialiasing>().expect_err(bad);
            assert!(e.contains("auto, full, off"), "{e}");
        }
        assert_eq!(Antialiasing::Auto.shades(RasterKind::Gif), Some(6));
        assert_eq!(Antialiasing::Auto.shades(RasterKind::Png), None);
        assert_eq!(Antialiasing::Full.shades(RasterKind::Gif), None);
        assert_eq!(Antialiasing::Shades(3).shades(RasterKind::Apng), Some(3));
    }

    /// Rasters of each screen of `steps` in turn, through one `Shades` when `levels` is given.
    fn frames(steps: &[&str], levels: Option<u8>) -> Vec<Vec<u8>> {
        let a = crate::render::Appearance::default();
        let mut term = crate::term::Terminal::new(24, 3);
        let mut shades = levels.map(Shades::new);
        steps
            .iter()
            .map(|step| {
                term.advance(step.as_bytes());
                let layout = Layout::new(&term.snapshot(), &a).expect("layout");
                let pixmap = crate::render::png::render_layout(&layout, &a, shades.as_mut());
                pixmap.expect("raster").take_demultiplied()
            })
            .collect()
    }

    #[test]
    fn a_pixel_that_does_not_change_keeps_its_shade_in_every_frame() {
        // Colours come and go: each screen has a different set of them.
        let steps = [
            "\x1b[1mworking\x1b[0m on \x1b[36mbuild\x1b[0m\r\n\x1b[32m[      ]\x1b[0m   0%",
            "\r\x1b[32m[###   ]\x1b[0m \x1b[33m 50%\x1b[0m",
            "\r\x1b[32m[######]\x1b[0m \x1b[1;32m100%\x1b[0m",
            "\x1b[A\r\x1b[7C\x1b[1K\r\n\x1b[44;97m done \x1b[0m",
        ];
        let full = frames(&steps, None);
        let shaded = frames(&steps, Some(GIF_LEVELS));
        let mut kept = 0;
        for i in 1..steps.len() {
            for (p, (was, is)) in full[i - 1].chunks(4).zip(full[i].chunks(4)).enumerate() {
                if was == is {
                    kept += 1;
                    let at = p * 4..p * 4 + 4;
                    assert_eq!(
                        shaded[i - 1][at.clone()],
                        shaded[i][at],
                        "pixel {p}, frame {i}"
                    );
                }
            }
        }
        assert!(kept > 1000, "{kept}");
        // And the edges did get fewer shades.
        let colours = |px: &[u8]| {
            let mut c: Vec<&[u8]> = px.chunks(4).collect();
            c.sort_unstable();
            c.dedup();
            c.len()
        };
        let last = steps.len() - 1;
        assert!(colours(&shaded[last]) * 2 < colours(&full[last]));
    }

    const GIF_LEVELS: u8 = crate::render::GIF_SHADES;
}
