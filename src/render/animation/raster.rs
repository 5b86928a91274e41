//! GIF and APNG: every frame rasterised exactly as a still PNG is, and only the rectangle that
//! changed since the previous frame encoded.
//!
//! A frame's duration is known only when the next one arrives, so the writer holds one frame
//! back (its pixels, as the base the next frame is diffed against) and encodes it then. What
//! it keeps of the frames before is their *encoded* form (LZW or deflate data of their changed
//! rectangles), from which [`AnimationWriter::finish`] assembles the file: memory stays bounded
//! by the output's size plus two frames' pixels.
//!
//! Colours: a terminal frame almost always has at most 256 colours (text antialiased against
//! a few backgrounds), and then a GIF frame is exact. One palette for the whole GIF is grown
//! frame by frame, appending, so indices already encoded stay valid; a frame whose colours no
//! longer fit gets its own palette, and a frame of more than 256 colours is reduced by a
//! deterministic median cut. APNG is always exact: 8-bit indices into one
//! RGBA palette grown the same way while the animation's colours fit 256 (a terminal frame
//! deflates about four times smaller so), else 8-bit RGBA (the frames so far are then
//! re-encoded once).
//!
//! Timing: frame `index` is shown from `index / fps` seconds, until the next frame; a frame
//! whose pixels equal the previous one's only makes that one last longer. APNG delays are
//! exact fractions of a second. GIF delays are whole centiseconds, each frame starting at its
//! grid time rounded to the nearest centisecond, so rounding never accumulates; no GIF delay
//! is below 2 cs (browsers show 0 or 1 cs as 10 cs), so a frame that would be shorter is shown
//! for 2 cs and the frames after it start that much later until they are back on the grid
//! (frames are never dropped: each may be the base of the next one's changed rectangle). A
//! delay too long for the format's 16-bit field is continued by hold frames that change
//! nothing.

use std::borrow::Cow;

use resvg::tiny_skia;
use rustc_hash::FxHashMap;

use super::AnimationWriter;
use crate::recording::frames::Timing;
use crate::render::layout::Layout;
use crate::render::shades::Shades;
use crate::render::{Appearance, PngCompression, RasterKind, RenderError, png};

/// The raster animation formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RasterFormat {
    /// GIF89a: at most 256 colours a frame, 1-bit transparency, centisecond delays.
    Gif,
    /// Animated PNG: 8-bit RGBA frames with exact delays.
    Apng,
}

impl RasterFormat {
    /// The raster kind whose defaults (antialiasing) the format's frames take.
    fn kind(self) -> RasterKind {
        match self {
            RasterFormat::Gif => RasterKind::Gif,
            RasterFormat::Apng => RasterKind::Apng,
        }
    }
}

/// Writes a GIF or APNG frame by frame (see the [module documentation](self)).
pub struct RasterAnimation {
    appearance: Appearance,
    fps: u32,
    looped: bool,
    /// The canvas size in pixels: the first frame's.
    size: Option<(u32, u32)>,
    /// The newest frame, waiting for the next one to know its duration.
    pending: Option<Pending>,
    encoder: Encoder,
    /// The antialiasing reduction, if the appearance asks for one for this format.
    shades: Option<Shades>,
}

/// A frame not yet encoded.
struct Pending {
    /// Demultiplied RGBA of the whole canvas.
    pixels: Vec<u8>,
    index: u64,
    /// The part of the canvas the frame draws.
    region: Region,
    /// GIF only: the frame's region is cleared to transparent after it is shown, because the
    /// next frame makes pixels transparent that it (or an earlier frame) drew.
    clears: bool,
}

/// A rectangle of canvas pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
}

impl Region {
    fn full(width: u32, height: u32) -> Region {
        Region {
            x: 0,
            y: 0,
            w: width,
            h: height,
        }
    }

    fn union(self, other: Region) -> Region {
        let x = self.x.min(other.x);
        let y = self.y.min(other.y);
        let right = (self.x + self.w).max(other.x + other.w);
        let bottom = (self.y + self.h).max(other.y + other.h);
        Region {
            x,
            y,
            w: right - x,
            h: bottom - y,
        }
    }

    /// The region's pixels of a canvas `width` pixels wide, row by row.
    fn rows<'a>(self, pixels: &'a [u8], width: u32) -> impl Iterator<Item = &'a [u8]> + 'a {
        let (x, w, stride) = (self.x as usize, self.w as usize, width as usize);
        (self.y as usize..(self.y + self.h) as usize)
            .map(move |row| &pixels[(row * stride + x) * 4..(row * stride + x + w) * 4])
    }
}

enum Encoder {
    Gif(GifFrames),
    Apng(ApngFrames),
}

impl RasterAnimation {
    /// A writer of `format` drawing frames with `appearance` (its scale, fonts and PNG
    /// compression apply), timed and looped as `timing` says.
    pub fn new(
        format: RasterFormat,
        appearance: &Appearance,
        timing: &Timing,
    ) -> Result<RasterAnimation, RenderError> {
        timing.validate().map_err(RenderError::new)?;
        let encoder = match format {
            RasterFormat::Gif => Encoder::Gif(GifFrames::default()),
            RasterFormat::Apng => Encoder::Apng(ApngFrames::new(appearance.png_compression)),
        };
        Ok(RasterAnimation {
            appearance: appearance.clone(),
            fps: timing.fps,
            looped: timing.looped,
            size: None,
            pending: None,
            encoder,
            shades: appearance
                .antialiasing
                .shades(format.kind())
                .map(Shades::new),
        })
    }

    /// The canvas size, set by the first frame; later frames are drawn onto it.
    fn canvas(&mut self, width: u32, height: u32) -> Result<(u32, u32), RenderError> {
        match self.size {
            None => {
                if matches!(self.encoder, Encoder::Gif(_))
                    && (width > u32::from(u16::MAX) || height > u32::from(u16::MAX))
                {
                    return Err(RenderError::new(format!(
                        "a {width}×{height} image is too large for a GIF (65535 px at most)"
                    )));
                }
                self.size = Some((width, height));
                Ok((width, height))
            }
            Some(size) => Ok(size),
        }
    }
}

/// RGBA `pixels` of a `from`-sized image on a `to`-sized canvas, top-left aligned: a frame of
/// a resized screen keeps the animation's size, cut where it is larger and transparent where
/// it is smaller (as a terminal window that does not change size shows it).
fn fit(pixels: Vec<u8>, from: (u32, u32), to: (u32, u32)) -> Vec<u8> {
    if from == to {
        return pixels;
    }
    let (from_w, to_w) = (from.0 as usize * 4, to.0 as usize * 4);
    let mut canvas = vec![0u8; to_w * to.1 as usize];
    let row = from_w.min(to_w);
    for (dst, src) in canvas
        .chunks_exact_mut(to_w)
        .zip(pixels.chunks_exact(from_w))
    {
        dst[..row].copy_from_slice(&src[..row]);
    }
    canvas
}

impl AnimationWriter for RasterAnimation {
    fn push(&mut self, layout: &Layout, index: u64) -> Result<(), RenderError> {
        let (frame_width, frame_height, pixels) =
            rasterise(layout, &self.appearance, self.shades.as_mut())?;
        let (width, height) = self.canvas(frame_width, frame_height)?;
        let pixels = fit(pixels, (frame_width, frame_height), (width, height));
        let region = match self.pending.as_mut() {
            None => Region::full(width, height),
            Some(prev) => {
                if index <= prev.index {
                    return Err(RenderError::new(format!(
                        "animation frame {index} comes after frame {}",
                        prev.index
                    )));
                }
                // Identical pixels: the previous frame simply lasts longer.
                let Some(changed) = bounding_box(width, &prev.pixels, &pixels, |a, b| a != b)
                else {
                    return Ok(());
                };
                let region = match self.encoder {
                    Encoder::Gif(_) => gif_region(prev, &pixels, changed, width),
                    Encoder::Apng(_) => changed,
                };
                self.encoder.encode(prev, index, width, self.fps)?;
                region
            }
        };
        self.pending = Some(Pending {
            pixels,
            index,
            region,
            clears: false,
        });
        Ok(())
    }

    fn finish(mut self: Box<Self>, end: u64) -> Result<Vec<u8>, RenderError> {
        let (Some(last), Some((width, height))) = (self.pending.take(), self.size) else {
            return Err(RenderError::new("an animation needs at least one frame"));
        };
        // The last frame lasts at least one frame interval, even if `end` says less.
        let end = end.max(last.index + 1);
        self.encoder.encode(&last, end, width, self.fps)?;
        match self.encoder {
            Encoder::Gif(gif) => gif.finish(width, height, self.looped),
            Encoder::Apng(apng) => apng.finish(width, height, self.looped),
        }
    }
}

impl Encoder {
    /// Encodes `frame`, shown until grid index `end`.
    fn encode(
        &mut self,
        frame: &Pending,
        end: u64,
        width: u32,
        fps: u32,
    ) -> Result<(), RenderError> {
        match self {
            Encoder::Gif(gif) => gif.encode(frame, end, width, fps),
            Encoder::Apng(apng) => apng.encode(frame, end, width, fps),
        }
    }
}

/// Rasterises a layout exactly as [`crate::render::to_png`] does (with the same
/// antialiasing, given as `shades`): width, height and demultiplied RGBA.
pub(super) fn rasterise(
    layout: &Layout,
    a: &Appearance,
    shades: Option<&mut Shades>,
) -> Result<(u32, u32, Vec<u8>), RenderError> {
    let pixmap: tiny_skia::Pixmap = png::render_layout(layout, a, shades)?;
    let (width, height) = (pixmap.width(), pixmap.height());
    Ok((width, height, pixmap.take_demultiplied()))
}

/// The smallest region holding every pixel for which `differs(old, new)` holds (it must be
/// false for equal pixels: rows that are equal are skipped whole), `None` if there is none.
fn bounding_box(
    width: u32,
    old: &[u8],
    new: &[u8],
    differs: impl Fn(&[u8], &[u8]) -> bool,
) -> Option<Region> {
    let stride = width as usize * 4;
    let mut found: Option<Region> = None;
    for (y, (a, b)) in old
        .chunks_exact(stride)
        .zip(new.chunks_exact(stride))
        .enumerate()
    {
        if a == b {
            continue;
        }
        let pixel_differs = |x: &usize| differs(&a[x * 4..x * 4 + 4], &b[x * 4..x * 4 + 4]);
        let Some(first) = (0..width as usize).find(pixel_differs) else {
            continue;
        };
        let last = (first..width as usize)
            .rev()
            .find(pixel_differs)
            .unwrap_or(first);
        let row = Region {
            x: first as u32,
            y: y as u32,
            w: (last - first + 1) as u32,
            h: 1,
        };
        found = Some(found.map_or(row, |r| r.union(row)));
    }
    found
}

// ---------------------------------------------------------------------------------------------
// GIF

/// The palette key of a transparent pixel; opaque keys have 0xff in the top byte.
const TRANSPARENT: u32 = 0;

/// GIF delays below this many centiseconds are raised to it: browsers show a frame of 0 or 1 cs
/// for 10 cs, which would slow fast animations down five- to tenfold.
const MIN_GIF_DELAY: u64 = 2;

/// A pixel as GIF can show it: its colour, or transparent when less than half opaque.
fn gif_key(px: &[u8]) -> u32 {
    if px[3] < 128 {
        TRANSPARENT
    } else {
        0xff00_0000 | u32::from(px[0]) << 16 | u32::from(px[1]) << 8 | u32::from(px[2])
    }
}

fn key_rgb(key: u32) -> [u8; 3] {
    [(key >> 16) as u8, (key >> 8) as u8, key as u8]
}

/// The region the GIF frame after `prev` draws. A GIF frame cannot make a pixel transparent
/// (a transparent index leaves what is below), so when `next` makes visible pixels
/// transparent, `prev` grows to cover them and is cleared after it is shown, and `next` then
/// redraws all of `prev`'s region besides its own changes.
fn gif_region(prev: &mut Pending, next: &[u8], changed: Region, width: u32) -> Region {
    let vanishing = bounding_box(width, &prev.pixels, next, |a, b| a[3] >= 128 && b[3] < 128);
    match vanishing {
        None => changed,
        Some(vanishing) => {
            prev.region = prev.region.union(vanishing);
            prev.clears = true;
            changed.union(prev.region)
        }
    }
}

/// Centisecond `round(index * 100 / fps)` of grid index `index`, in integers.
fn centiseconds(index: u64, fps: u32) -> u64 {
    let fps = u128::from(fps);
    let cs = (u128::from(index) * 200 + fps) / (2 * fps);
    u64::try_from(cs).unwrap_or(u64::MAX)
}

/// Splits a delay into pieces that fit a field of at most `max`, none shorter than `min`
/// (unless the whole delay is).
fn split_delay(total: u64, max: u64, min: u64) -> Vec<u64> {
    let mut pieces = Vec::new();
    let mut left = total;
    while left > max {
        let piece = if left - max < min { max - min } else { max };
        pieces.push(piece);
        left -= piece;
    }
    pieces.push(left);
    pieces
}

/// The GIF palette shared by all frames, only ever appended to.
#[derive(Clone, Default)]
struct Palette {
    keys: Vec<u32>,
    index: FxHashMap<u32, u8>,
}

impl Palette {
    const MAX: usize = 256;

    /// Appends the keys of `colours` it lacks, if they all fit.
    fn extend(&mut self, colours: &[u32]) -> bool {
        let new: Vec<u32> = colours
            .iter()
            .copied()
            .filter(|k| !self.index.contains_key(k))
            .collect();
        if self.keys.len() + new.len() > Palette::MAX {
            return false;
        }
        for key in new {
            self.index.insert(key, self.keys.len() as u8);
            self.keys.push(key);
        }
        true
    }
}

/// The GIF colour table of palette `keys` (a transparent entry is black).
fn colour_table(keys: &[u32]) -> Vec<u8> {
    keys.iter().flat_map(|&k| key_rgb(k)).collect()
}

#[derive(Default)]
struct GifFrames {
    global: Palette,
    /// Frames with their LZW-encoded data.
    frames: Vec<gif::Frame<'static>>,
    /// The centisecond the previous frame ended at (where the next one starts).
    shown_until: Option<u64>,
    /// The previous frame's pixels, while it stays on the canvas (it is not cleared): what
    /// the next frame's transparent pixels show.
    below: Option<Vec<u8>>,
}

/// A frame's pixels as palette indices, LZW-compressed as the GIF stores them.
struct Indexed {
    /// The local colour table, when the global palette cannot take the frame's colours.
    palette: Option<Vec<u8>>,
    transparent: Option<u8>,
    /// The indices, LZW-compressed (what the frame's data is written as).
    lzw: Vec<u8>,
    /// The global palette with the frame's colours added.
    global: Palette,
}

impl GifFrames {
    /// `keys` (one per pixel) as indices: into the global palette if it can take their
    /// colours, else into a local one.
    fn indexed(&self, keys: Vec<u32>, clears: bool) -> Indexed {
        let mut counts: FxHashMap<u32, u32> = FxHashMap::default();
        for &key in &keys {
            *counts.entry(key).or_insert(0) += 1;
        }
        if clears {
            // Clearing needs the frame's transparent index, used or not.
            counts.entry(TRANSPARENT).or_insert(0);
        }
        let mut colours: Vec<(u32, u32)> = counts.into_iter().collect();
        colours.sort_unstable();
        let distinct: Vec<u32> = colours.iter().map(|&(k, _)| k).collect();
        let has_transparent = distinct.first() == Some(&TRANSPARENT);
        let mut global = self.global.clone();
        let (palette, map) = if global.extend(&distinct) {
            (None, Cow::Borrowed(&global.index))
        } else {
            let (keys, map) = local_palette(&colours);
            (Some(colour_table(&keys)), Cow::Owned(map))
        };
        let transparent = if has_transparent {
            map.get(&TRANSPARENT).copied()
        } else {
            None
        };
        let indices: Vec<u8> = keys
            .iter()
            .map(|k| map.get(k).copied().unwrap_or(0))
            .collect();
        drop(map);
        // The data is compressed once, here: the compressed size chooses between the ways of
        // writing a frame, and the chosen one is written as it is.
        let mut compressed = gif::Frame {
            buffer: Cow::Owned(indices),
            ..gif::Frame::default()
        };
        compressed.make_lzw_pre_encoded();
        Indexed {
            palette,
            transparent,
            lzw: compressed.buffer.into_owned(),
            global,
        }
    }

    fn encode(
        &mut self,
        frame: &Pending,
        end: u64,
        width: u32,
        fps: u32,
    ) -> Result<(), RenderError> {
        let region = frame.region;
        let plain: Vec<u32> = region
            .rows(&frame.pixels, width)
            .flat_map(|row| row.chunks_exact(4).map(gif_key))
            .collect();
        // Drawn as it is, or with the pixels the previous frame already shows transparent
        // (they stay as they are): runs of that one index usually compress far better, but
        // not always (a screen that scrolls changes nearly every pixel), so the smaller wins.
        let mut best = self.indexed(plain, frame.clears);
        if let Some(below) = &self.below {
            let kept: Vec<u32> = region
                .rows(&frame.pixels, width)
                .zip(region.rows(below, width))
                .flat_map(|(row, old)| {
                    row.chunks_exact(4)
                        .zip(old.chunks_exact(4))
                        .map(|(px, was)| if px == was { TRANSPARENT } else { gif_key(px) })
                })
                .collect();
            let other = self.indexed(kept, frame.clears);
            if other.lzw.len() < best.lzw.len() {
                best = other;
            }
        }
        let Indexed {
            palette,
            transparent,
            lzw,
            global,
        } = best;
        self.global = global;

        let start = self
            .shown_until
            .map_or(centiseconds(frame.index, fps), |until| {
                until.max(centiseconds(frame.index, fps))
            });
        let stop = centiseconds(end, fps).max(start + MIN_GIF_DELAY);
        self.shown_until = Some(stop);
        let delays = split_delay(stop - start, u64::from(u16::MAX), MIN_GIF_DELAY);
        let dispose = if frame.clears {
            gif::DisposalMethod::Background
        } else {
            gif::DisposalMethod::Keep
        };
        // When hold frames follow, the last of them does the clearing, over the same region.
        let holds = delays.len() - 1;
        let image = gif::Frame {
            delay: delays[0] as u16,
            dispose: if holds == 0 {
                dispose
            } else {
                gif::DisposalMethod::Keep
            },
            transparent,
            left: region.x as u16,
            top: region.y as u16,
            width: region.w as u16,
            height: region.h as u16,
            palette,
            buffer: Cow::Owned(lzw),
            ..gif::Frame::default()
        };
        self.frames.push(image);
        self.below = (!frame.clears).then(|| frame.pixels.clone());
        for (n, &delay) in delays[1..].iter().enumerate() {
            let last = n + 1 == holds;
            let hold_region = if frame.clears {
                region
            } else {
                Region::full(1, 1)
            };
            self.frames.push(gif_hold(
                hold_region,
                delay as u16,
                if last {
                    dispose
                } else {
                    gif::DisposalMethod::Keep
                },
            ));
        }
        Ok(())
    }

    fn finish(self, width: u32, height: u32, looped: bool) -> Result<Vec<u8>, RenderError> {
        let err = |e: gif::EncodingError| RenderError::new(format!("cannot encode the GIF: {e}"));
        let mut encoder = gif::Encoder::new(
            Vec::new(),
            width as u16,
            height as u16,
            &colour_table(&self.global.keys),
        )
        .map_err(err)?;
        if looped {
            encoder.set_repeat(gif::Repeat::Infinite).map_err(err)?;
        }
        for frame in &self.frames {
            encoder.write_lzw_pre_encoded_frame(frame).map_err(err)?;
        }
        encoder.into_inner().map_err(err)
    }
}

/// A frame that draws nothing (every pixel transparent) over `region` for `delay`.
fn gif_hold(region: Region, delay: u16, dispose: gif::DisposalMethod) -> gif::Frame<'static> {
    let mut frame = gif::Frame {
        delay,
        dispose,
        transparent: Some(0),
        left: region.x as u16,
        top: region.y as u16,
        width: region.w as u16,
        height: region.h as u16,
        palette: Some(vec![0, 0, 0]),
        buffer: Cow::Owned(vec![0; region.w as usize * region.h as usize]),
        ..gif::Frame::default()
    };
    frame.make_lzw_pre_encoded();
    frame
}

/// A frame's own palette for `colours` (key, count), sorted by key: exact if they fit,
/// else reduced by `median_cut`. The transparent entry, if any, comes last.
fn local_palette(colours: &[(u32, u32)]) -> (Vec<u32>, FxHashMap<u32, u8>) {
    let has_transparent = colours.first().map(|&(k, _)| k) == Some(TRANSPARENT);
    let opaque = &colours[usize::from(has_transparent)..];
    let room = Palette::MAX - usize::from(has_transparent);
    let (mut keys, mut map) = if opaque.len() <= room {
        let keys: Vec<u32> = opaque.iter().map(|&(k, _)| k).collect();
        let map = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i as u8))
            .collect();
        (keys, map)
    } else {
        median_cut(opaque, room)
    };
    if has_transparent {
        map.insert(TRANSPARENT, keys.len() as u8);
        keys.push(TRANSPARENT);
    }
    (keys, map)
}

/// A box of colours of the median cut: a range of the working list.
struct ColourBox {
    start: usize,
    end: usize,
    /// The channel (0 red, 1 green, 2 blue) of the widest spread, and that spread.
    channel: usize,
    spread: u8,
}

fn channel(key: u32, c: usize) -> u8 {
    key_rgb(key)[c]
}

impl ColourBox {
    fn new(colours: &[(u32, u32)], start: usize, end: usize) -> ColourBox {
        let (channel, spread) = (0..3)
            .map(|c| {
                let values = colours[start..end].iter().map(|&(k, _)| channel(k, c));
                let (lo, hi) = values.fold((u8::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
                (c, hi.saturating_sub(lo))
            })
            // The first channel of the widest spread: ties go to red, then green.
            .fold((0, 0), |best, cur| if cur.1 > best.1 { cur } else { best });
        ColourBox {
            start,
            end,
            channel,
            spread,
        }
    }
}

/// Reduces opaque `colours` (key, pixel count) to at most `max` colours by median cut: the box
/// with the widest channel spread is split at the pixel-weighted median of that channel until
/// there are `max` boxes; each box becomes its pixels' mean colour. Every choice is made on
/// colour values and counts, ties by colour value and position, so equal input gives equal
/// output. Returns the palette keys and each input key's index.
fn median_cut(colours: &[(u32, u32)], max: usize) -> (Vec<u32>, FxHashMap<u32, u8>) {
    let mut work = colours.to_vec();
    let mut boxes = vec![ColourBox::new(&work, 0, work.len())];
    while boxes.len() < max {
        // The first box of the widest spread.
        let Some((widest, _)) = boxes.iter().enumerate().filter(|(_, b)| b.spread > 0).fold(
            None,
            |best: Option<(usize, u8)>, (i, b)| match best {
                Some((_, s)) if s >= b.spread => best,
                _ => Some((i, b.spread)),
            },
        ) else {
            break;
        };
        let b = boxes.swap_remove(widest);
        let c = b.channel;
        work[b.start..b.end].sort_unstable_by_key(|&(k, _)| (channel(k, c), k));
        let total: u64 = work[b.start..b.end]
            .iter()
            .map(|&(_, n)| u64::from(n))
            .sum();
        let mut seen = 0;
        let mut cut = b.start + 1;
        for (i, &(_, n)) in work[b.start..b.end].iter().enumerate() {
            seen += u64::from(n);
            if seen * 2 >= total {
                cut = b.start + i + 1;
                break;
            }
        }
        // Both halves keep at least one colour.
        let cut = cut.clamp(b.start + 1, b.end - 1);
        boxes.push(ColourBox::new(&work, b.start, cut));
        boxes.push(ColourBox::new(&work, cut, b.end));
    }
    // swap_remove reordered the boxes: order them by position for a stable palette.
    boxes.sort_unstable_by_key(|b| b.start);
    let mut keys = Vec::with_capacity(boxes.len());
    let mut map = FxHashMap::default();
    for (i, b) in boxes.iter().enumerate() {
        let members = &work[b.start..b.end];
        let total: u64 = members.iter().map(|&(_, n)| u64::from(n).max(1)).sum();
        let mean = |c: usize| {
            let sum: u64 = members
                .iter()
                .map(|&(k, n)| u64::from(channel(k, c)) * u64::from(n).max(1))
                .sum();
            ((sum + total / 2) / total) as u32
        };
        keys.push(0xff00_0000 | mean(0) << 16 | mean(1) << 8 | mean(2));
        for &(k, _) in members {
            map.insert(k, i as u8);
        }
    }
    (keys, map)
}

// ---------------------------------------------------------------------------------------------
// APNG

/// An APNG frame: where it draws, for how long, and its deflated image data.
struct ApngFrame {
    region: Region,
    delay: (u16, u16),
    data: Vec<u8>,
}

/// How APNG pixels are stored. All frames share the colour type and the palette.
enum ApngPixels {
    /// 8-bit indices into one RGBA palette (PLTE and tRNS), grown as frames come: a terminal
    /// frame deflates several times smaller so.
    Indexed(Palette),
    /// 8-bit RGBA, once the colours of the animation no longer fit a palette.
    Rgba,
}

struct ApngFrames {
    compression: PngCompression,
    pixels: ApngPixels,
    frames: Vec<ApngFrame>,
}

/// The palette key of an RGBA pixel.
fn rgba_key(px: &[u8]) -> u32 {
    u32::from_be_bytes([px[0], px[1], px[2], px[3]])
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The fcTL delays of a frame lasting `frames` grid intervals at `fps`: the exact fraction,
/// reduced, or pieces of at most 65535 intervals when it does not fit 16 bits.
fn apng_delays(frames: u64, fps: u32) -> Vec<(u16, u16)> {
    let g = gcd(frames, u64::from(fps)).max(1);
    if let (Ok(num), Ok(den)) = (u16::try_from(frames / g), u16::try_from(u64::from(fps) / g)) {
        return vec![(num, den)];
    }
    split_delay(frames, u64::from(u16::MAX), 1)
        .into_iter()
        .flat_map(|piece| apng_delays(piece, fps))
        .collect()
}

impl ApngFrames {
    fn new(compression: PngCompression) -> ApngFrames {
        ApngFrames {
            compression,
            pixels: ApngPixels::Indexed(Palette::default()),
            frames: Vec::new(),
        }
    }

    fn encode(
        &mut self,
        frame: &Pending,
        end: u64,
        width: u32,
        fps: u32,
    ) -> Result<(), RenderError> {
        let delays = apng_delays(end - frame.index, fps);
        // A delay too long for one fcTL continues in hold frames that redraw the top-left
        // pixel as it is.
        let holds = delays[1..].iter().map(|&d| (Region::full(1, 1), d));
        for (region, delay) in std::iter::once((frame.region, delays[0])).chain(holds) {
            let rgba: Vec<u8> = region
                .rows(&frame.pixels, width)
                .flatten()
                .copied()
                .collect();
            let data = self.deflate(&rgba, region)?;
            self.frames.push(ApngFrame {
                region,
                delay,
                data,
            });
        }
        Ok(())
    }

    /// Deflates a region's RGBA pixels in the animation's colour type, switching the
    /// animation to RGBA when its colours outgrow the palette.
    fn deflate(&mut self, rgba: &[u8], region: Region) -> Result<Vec<u8>, RenderError> {
        if let ApngPixels::Indexed(palette) = &mut self.pixels {
            let keys: Vec<u32> = rgba.chunks_exact(4).map(rgba_key).collect();
            let mut distinct = keys.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if palette.extend(&distinct) {
                let indices: Vec<u8> = keys
                    .iter()
                    .map(|k| palette.index.get(k).copied().unwrap_or(0))
                    .collect();
                return deflate_still(&indices, region, Some(palette), self.compression);
            }
            self.switch_to_rgba()?;
        }
        deflate_still(rgba, region, None, self.compression)
    }

    /// Re-encodes the frames so far as RGBA: each is inflated (as a still PNG with the
    /// palette), expanded and deflated again, one at a time.
    fn switch_to_rgba(&mut self) -> Result<(), RenderError> {
        let ApngPixels::Indexed(palette) = std::mem::replace(&mut self.pixels, ApngPixels::Rgba)
        else {
            return Ok(());
        };
        for frame in &mut self.frames {
            let rgba = inflate_indexed(&frame.data, frame.region, &palette)?;
            frame.data = deflate_still(&rgba, frame.region, None, self.compression)?;
        }
        Ok(())
    }

    fn finish(self, width: u32, height: u32, looped: bool) -> Result<Vec<u8>, RenderError> {
        let err = |e: ::png::EncodingError| {
            RenderError::new(format!("cannot encode the animated PNG: {e}"))
        };
        let count = u32::try_from(self.frames.len())
            .map_err(|_| RenderError::new("too many frames for an animated PNG"))?;
        let palette = match &self.pixels {
            ApngPixels::Indexed(palette) => Some(palette),
            ApngPixels::Rgba => None,
        };
        let mut out = Vec::new();
        let mut encoder = png_encoder(&mut out, Region::full(width, height), palette);
        encoder
            .set_animated(count, if looped { 0 } else { 1 })
            .map_err(err)?;
        let mut writer = encoder.write_header().map_err(err)?;
        let mut sequence = 0u32;
        for (i, frame) in self.frames.iter().enumerate() {
            writer
                .write_chunk(::png::chunk::fcTL, &fctl(sequence, frame))
                .map_err(err)?;
            sequence += 1;
            if i == 0 {
                // The first frame is the default image too.
                writer
                    .write_chunk(::png::chunk::IDAT, &frame.data)
                    .map_err(err)?;
            } else {
                let mut fdat = Vec::with_capacity(4 + frame.data.len());
                fdat.extend_from_slice(&sequence.to_be_bytes());
                fdat.extend_from_slice(&frame.data);
                writer.write_chunk(::png::chunk::fdAT, &fdat).map_err(err)?;
                sequence += 1;
            }
        }
        writer.finish().map_err(err)?;
        Ok(out)
    }
}

/// The fcTL chunk of a frame: it replaces its region (blend Source) and leaves it (dispose
/// None).
fn fctl(sequence: u32, frame: &ApngFrame) -> [u8; 26] {
    let r = frame.region;
    let mut data = [0; 26];
    data[..4].copy_from_slice(&sequence.to_be_bytes());
    data[4..8].copy_from_slice(&r.w.to_be_bytes());
    data[8..12].copy_from_slice(&r.h.to_be_bytes());
    data[12..16].copy_from_slice(&r.x.to_be_bytes());
    data[16..20].copy_from_slice(&r.y.to_be_bytes());
    data[20..22].copy_from_slice(&frame.delay.0.to_be_bytes());
    data[22..24].copy_from_slice(&frame.delay.1.to_be_bytes());
    data[24] = ::png::DisposeOp::None as u8;
    data[25] = ::png::BlendOp::Source as u8;
    data
}

/// A PNG encoder of an image of `region`'s size: 8-bit indexed with `palette`'s PLTE and tRNS,
/// or 8-bit RGBA without one.
fn png_encoder<'a>(
    out: &'a mut Vec<u8>,
    region: Region,
    palette: Option<&Palette>,
) -> ::png::Encoder<'static, &'a mut Vec<u8>> {
    let mut encoder = ::png::Encoder::new(out, region.w, region.h);
    encoder.set_depth(::png::BitDepth::Eight);
    match palette {
        Some(palette) => {
            encoder.set_color(::png::ColorType::Indexed);
            let bytes: Vec<[u8; 4]> = palette.keys.iter().map(|k| k.to_be_bytes()).collect();
            encoder.set_palette(
                bytes
                    .iter()
                    .flat_map(|b| [b[0], b[1], b[2]])
                    .collect::<Vec<_>>(),
            );
            encoder.set_trns(bytes.iter().map(|b| b[3]).collect::<Vec<_>>());
        }
        None => encoder.set_color(::png::ColorType::Rgba),
    }
    encoder
}

/// Filters and deflates an image (indices into `palette`, or RGBA without one) as the png
/// crate does for a still: the zlib stream of its IDAT chunks.
fn deflate_still(
    pixels: &[u8],
    region: Region,
    palette: Option<&Palette>,
    compression: PngCompression,
) -> Result<Vec<u8>, RenderError> {
    let err = |e: ::png::EncodingError| RenderError::new(format!("cannot encode a frame: {e}"));
    let mut still = Vec::new();
    let mut encoder = png_encoder(&mut still, region, palette);
    crate::render::png::set_compression(&mut encoder, compression);
    let mut writer = encoder.write_header().map_err(err)?;
    writer.write_image_data(pixels).map_err(err)?;
    writer.finish().map_err(err)?;
    idat_data(&still)
}

/// The RGBA pixels of an indexed frame's IDAT data.
fn inflate_indexed(data: &[u8], region: Region, palette: &Palette) -> Result<Vec<u8>, RenderError> {
    let err = |e: String| RenderError::new(format!("cannot re-encode a frame as RGBA: {e}"));
    let mut still = Vec::new();
    let mut writer = png_encoder(&mut still, region, Some(palette))
        .write_header()
        .map_err(|e| err(e.to_string()))?;
    writer
        .write_chunk(::png::chunk::IDAT, data)
        .map_err(|e| err(e.to_string()))?;
    writer.finish().map_err(|e| err(e.to_string()))?;
    let mut decoder = ::png::Decoder::new(std::io::Cursor::new(still));
    decoder.set_transformations(::png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(|e| err(e.to_string()))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| err("the frame is too large".into()))?;
    let mut rgba = vec![0; size];
    let info = reader
        .next_frame(&mut rgba)
        .map_err(|e| err(e.to_string()))?;
    rgba.truncate(info.buffer_size());
    if info.color_type != ::png::ColorType::Rgba {
        return Err(err(format!("expanded to {:?}", info.color_type)));
    }
    Ok(rgba)
}

/// The concatenated IDAT data of a PNG file.
fn idat_data(file: &[u8]) -> Result<Vec<u8>, RenderError> {
    let malformed = || RenderError::new("the PNG encoder wrote a malformed file");
    let mut rest = file.get(8..).ok_or_else(malformed)?;
    let mut data = Vec::new();
    while rest.len() >= 12 {
        let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let body = rest.get(8..8 + len).ok_or_else(malformed)?;
        if rest[4..8] == *b"IDAT" {
            data.extend_from_slice(body);
        }
        rest = rest.get(12 + len..).ok_or_else(malformed)?;
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Terminal;

    /// Layouts of a terminal fed `steps` one after another (each step's screen).
    fn layouts(cols: usize, rows: usize, steps: &[&str], a: &Appearance) -> Vec<Layout> {
        let mut term = Terminal::new(cols, rows);
        steps
            .iter()
            .map(|step| {
                term.advance(step.as_bytes());
                Layout::new(&term.snapshot(), a).expect("layout")
            })
            .collect()
    }

    fn timing(fps: u32, looped: bool) -> Timing {
        Timing {
            fps,
            looped,
            ..Timing::default()
        }
    }

    fn write(
        format: RasterFormat,
        a: &Appearance,
        timing: &Timing,
        frames: &[(&Layout, u64)],
        end: u64,
    ) -> Vec<u8> {
        let mut w = Box::new(RasterAnimation::new(format, a, timing).expect("writer"));
        for &(layout, index) in frames {
            w.push(layout, index).expect("push");
        }
        w.finish(end).expect("finish")
    }

    /// A decoded GIF frame: its rectangle, delay, disposal and RGBA pixels.
    struct GifFrame {
        region: Region,
        delay: u16,
        dispose: gif::DisposalMethod,
        rgba: Vec<u8>,
    }

    fn decode_gif(data: &[u8]) -> (u16, u16, gif::Repeat, Vec<GifFrame>) {
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(data).expect("GIF header");
        let (w, h) = (decoder.width(), decoder.height());
        let mut frames = Vec::new();
        while let Some(f) = decoder.read_next_frame().expect("GIF frame") {
            frames.push(GifFrame {
                region: Region {
                    x: f.left.into(),
                    y: f.top.into(),
                    w: f.width.into(),
                    h: f.height.into(),
                },
                delay: f.delay,
                dispose: f.dispose,
                rgba: f.buffer.to_vec(),
            });
        }
        (w, h, decoder.repeat(), frames)
    }

    /// The GIF's last picture: frames drawn over each other, transparent pixels leaving what is
    /// below, `Background` clearing the frame's rectangle after it.
    fn composite_gif(width: u16, height: u16, frames: &[GifFrame]) -> Vec<u8> {
        let width = u32::from(width);
        let mut canvas = vec![0u8; width as usize * usize::from(height) * 4];
        for (n, f) in frames.iter().enumerate() {
            let r = f.region;
            for y in 0..r.h {
                for x in 0..r.w {
                    let src = ((y * r.w + x) * 4) as usize;
                    let dst = (((r.y + y) * width + r.x + x) * 4) as usize;
                    let last = n + 1 == frames.len();
                    if f.dispose == gif::DisposalMethod::Background && !last {
                        canvas[dst..dst + 4].fill(0);
                    } else if f.rgba[src + 3] != 0 {
                        canvas[dst..dst + 4].copy_from_slice(&f.rgba[src..src + 4]);
                    }
                }
            }
        }
        canvas
    }

    /// A decoded APNG frame: its fcTL and pixels.
    struct ApngOut {
        control: ::png::FrameControl,
        rgba: Vec<u8>,
    }

    fn decode_apng(data: &[u8]) -> (u32, u32, ::png::AnimationControl, Vec<ApngOut>) {
        let mut decoder = ::png::Decoder::new(std::io::Cursor::new(data));
        decoder.set_transformations(::png::Transformations::EXPAND);
        let mut reader = decoder.read_info().expect("PNG header");
        let info = reader.info();
        let (w, h) = (info.width, info.height);
        let actl = info.animation_control.expect("acTL");
        let mut frames = Vec::new();
        for _ in 0..actl.num_frames {
            let mut buf = vec![0; reader.output_buffer_size().expect("size")];
            let out = reader.next_frame(&mut buf).expect("APNG frame");
            buf.truncate(out.buffer_size());
            let control = reader.info().frame_control.expect("fcTL");
            frames.push(ApngOut { control, rgba: buf });
        }
        (w, h, actl, frames)
    }

    /// The APNG's last picture (dispose None; blend Source replaces, Over of a transparent
    /// pixel keeps).
    fn composite_apng(width: u32, height: u32, frames: &[ApngOut]) -> Vec<u8> {
        let mut canvas = vec![0u8; (width * height * 4) as usize];
        for f in frames {
            let c = f.control;
            for y in 0..c.height {
                for x in 0..c.width {
                    let src = ((y * c.width + x) * 4) as usize;
                    let dst = (((c.y_offset + y) * width + c.x_offset + x) * 4) as usize;
                    if c.blend_op == ::png::BlendOp::Source || f.rgba[src + 3] == 255 {
                        canvas[dst..dst + 4].copy_from_slice(&f.rgba[src..src + 4]);
                    } else {
                        assert_eq!(f.rgba[src + 3], 0, "only transparent pixels blend over");
                    }
                }
            }
        }
        canvas
    }

    /// The still a frame of `format` is drawn as (with the format's antialiasing).
    fn still(layout: &Layout, a: &Appearance, format: RasterFormat) -> Vec<u8> {
        let mut shades = a.antialiasing.shades(format.kind()).map(Shades::new);
        rasterise(layout, a, shades.as_mut()).expect("raster").2
    }

    const COUNTER: [&str; 3] = ["\x1b[1;32mcount\x1b[0m: 1", "\x1b[D2", "\x1b[D\x1b[31m3"];

    #[test]
    fn the_same_frames_give_the_same_bytes() {
        let a = Appearance::default();
        let l = layouts(20, 3, &COUNTER, &a);
        let frames = [(&l[0], 0), (&l[1], 7), (&l[2], 31)];
        for format in [RasterFormat::Gif, RasterFormat::Apng] {
            let one = write(format, &a, &timing(30, true), &frames, 60);
            let two = write(format, &a, &timing(30, true), &frames, 60);
            assert!(one == two, "{format:?}");
        }
    }

    #[test]
    fn a_changed_cell_encodes_a_small_rectangle_and_the_last_frame_is_the_still() {
        let a = Appearance::default();
        let l = layouts(20, 3, &COUNTER, &a);
        let frames = [(&l[0], 0), (&l[1], 7), (&l[2], 31)];
        let (w, h, repeat, gif) = decode_gif(&write(
            RasterFormat::Gif,
            &a,
            &timing(30, true),
            &frames,
            60,
        ));
        assert_eq!(repeat, gif::Repeat::Infinite);
        assert_eq!(gif.len(), 3);
        assert_eq!(gif[0].region, Region::full(w.into(), h.into()));
        let cell = l[0].metrics;
        for f in &gif[1..] {
            // One character (and the cursor beside it), at most two cells.
            assert!(
                f.region.w as f64 <= 2.0 * cell.width + 2.0,
                "{:?}",
                f.region
            );
            assert!(f.region.h as f64 <= cell.height + 2.0, "{:?}", f.region);
            assert_eq!(f.dispose, gif::DisposalMethod::Keep);
        }
        assert!(composite_gif(w, h, &gif) == still(&l[2], &a, RasterFormat::Gif));

        let (w, h, actl, apng) = decode_apng(&write(
            RasterFormat::Apng,
            &a,
            &timing(30, false),
            &frames,
            60,
        ));
        assert_eq!((actl.num_frames, actl.num_plays), (3, 1));
        assert_eq!((apng[0].control.width, apng[0].control.height), (w, h));
        for f in &apng[1..] {
            let c = f.control;
            // The GIF's rectangles can be a pixel smaller: its edges have fewer shades.
            assert!(f64::from(c.width) <= 2.0 * cell.width + 2.0, "{c:?}");
            assert!(f64::from(c.height) <= cell.height + 2.0, "{c:?}");
            assert_eq!(c.dispose_op, ::png::DisposeOp::None);
            assert_eq!(c.blend_op, ::png::BlendOp::Source);
        }
        assert!(composite_apng(w, h, &apng) == still(&l[2], &a, RasterFormat::Apng));
    }

    #[test]
    fn delays_add_up_to_the_end() {
        let a = Appearance::default();
        let l = layouts(20, 3, &COUNTER, &a);
        // At 30 fps frames 0, 7, 31 until 61: 0, 23.3, 103.3, 203.3 cs.
        let frames = [(&l[0], 0), (&l[1], 7), (&l[2], 31)];
        let (_, _, _, gif) = decode_gif(&write(
            RasterFormat::Gif,
            &a,
            &timing(30, true),
            &frames,
            61,
        ));
        let delays: Vec<u16> = gif.iter().map(|f| f.delay).collect();
        assert_eq!(delays, [23, 80, 100]);
        let (_, _, _, apng) = decode_apng(&write(
            RasterFormat::Apng,
            &a,
            &timing(30, true),
            &frames,
            61,
        ));
        let delays: Vec<(u16, u16)> = apng
            .iter()
            .map(|f| (f.control.delay_num, f.control.delay_den))
            .collect();
        assert_eq!(delays, [(7, 30), (4, 5), (1, 1)]);
    }

    #[test]
    fn gif_delays_never_drop_below_two_centiseconds_and_catch_up() {
        let a = Appearance::default();
        let l = layouts(20, 3, &COUNTER, &a);
        // 120 fps: frames 1/120 s apart would be 0.83 cs; they get 2 cs each, and the time
        // lost is made up by the last frame, so the total stays cs(240) = 200.
        let frames = [(&l[0], 0), (&l[1], 1), (&l[2], 2)];
        let (_, _, _, gif) = decode_gif(&write(
            RasterFormat::Gif,
            &a,
            &timing(120, true),
            &frames,
            240,
        ));
        let delays: Vec<u16> = gif.iter().map(|f| f.delay).collect();
        assert_eq!(delays, [2, 2, 196]);
    }

    #[test]
    fn an_identical_frame_extends_the_previous_one() {
        let a = Appearance::default();
        let l = layouts(20, 3, &COUNTER, &a);
        let frames = [(&l[0], 0), (&l[1], 30), (&l[1], 45), (&l[2], 60)];
        let (_, _, _, gif) = decode_gif(&write(
            RasterFormat::Gif,
            &a,
            &timing(30, true),
            &frames,
            90,
        ));
        assert_eq!(gif.iter().map(|f| f.delay).collect::<Vec<_>>(), [100; 3]);
        let (_, _, actl, apng) = decode_apng(&write(
            RasterFormat::Apng,
            &a,
            &timing(30, true),
            &frames,
            90,
        ));
        assert_eq!(actl.num_frames, 3);
        assert!(
            apng.iter()
                .all(|f| f.control.delay_num == f.control.delay_den)
        );
    }

    #[test]
    fn delays_too_long_for_the_format_continue_in_hold_frames() {
        let a = Appearance::default();
        let l = layouts(20, 3, &COUNTER, &a);
        // 700 s and a frame: more than GIF's 655.35 s, and 84001/120 s does not reduce to a
        // fraction of 16-bit terms.
        let end = 700 * 120 + 2;
        let frames = [(&l[0], 0), (&l[1], 1)];
        let (w, h, _, gif) = decode_gif(&write(
            RasterFormat::Gif,
            &a,
            &timing(120, true),
            &frames,
            end,
        ));
        let delays: Vec<u16> = gif.iter().map(|f| f.delay).collect();
        assert_eq!(delays.iter().map(|&d| u64::from(d)).sum::<u64>(), 70002);
        assert_eq!(delays, [2, 65535, 4465]);
        assert!(composite_gif(w, h, &gif) == still(&l[1], &a, RasterFormat::Gif));
        let (w, h, _, apng) = decode_apng(&write(
            RasterFormat::Apng,
            &a,
            &timing(120, true),
            &frames,
            end,
        ));
        let delays: Vec<(u16, u16)> = apng
            .iter()
            .map(|f| (f.control.delay_num, f.control.delay_den))
            .collect();
        // 65535/120 = 4369/8, 18466/120 = 9233/60.
        assert_eq!(delays, [(1, 120), (4369, 8), (9233, 60)]);
        assert!(composite_apng(w, h, &apng) == still(&l[1], &a, RasterFormat::Apng));
    }

    /// A screen of `n` background colours in a truecolor gradient.
    fn gradient(n: usize) -> String {
        (0..n)
            .map(|i| {
                format!(
                    "\x1b[48;2;{};{};{}m ",
                    i % 256,
                    (i * 7) % 256,
                    255 - i % 256
                )
            })
            .collect()
    }

    #[test]
    fn a_frame_of_many_colours_is_quantised_deterministically() {
        let a = Appearance::default();
        let text = gradient(600);
        let l = layouts(40, 16, &["hi", &text], &a);
        let frames = [(&l[0], 0), (&l[1], 10)];
        let one = write(RasterFormat::Gif, &a, &timing(30, true), &frames, 40);
        let two = write(RasterFormat::Gif, &a, &timing(30, true), &frames, 40);
        assert!(one == two);
        let (w, h, _, gif) = decode_gif(&one);
        assert_eq!(gif.len(), 2);
        // The second frame has its own palette, so each pixel is near its true colour.
        let got = composite_gif(w, h, &gif);
        let want = still(&l[1], &a, RasterFormat::Gif);
        let worst = got
            .iter()
            .zip(&want)
            .map(|(g, w)| g.abs_diff(*w))
            .max()
            .unwrap_or(0);
        assert!(worst <= 48, "worst channel error {worst}");
        assert!(got != want, "600 colours cannot be exact");

        // APNG: the first frame was indexed, the second outgrows the palette, and the file
        // is RGBA throughout, exact.
        let one = write(RasterFormat::Apng, &a, &timing(30, true), &frames, 40);
        let two = write(RasterFormat::Apng, &a, &timing(30, true), &frames, 40);
        assert!(one == two);
        assert_eq!(apng_colour_type(&one), ::png::ColorType::Rgba);
        let (w, h, _, apng) = decode_apng(&one);
        assert!(composite_apng(w, h, &apng) == still(&l[1], &a, RasterFormat::Apng));
        let few = write(RasterFormat::Apng, &a, &timing(30, true), &frames[..1], 40);
        assert_eq!(apng_colour_type(&few), ::png::ColorType::Indexed);
    }

    fn apng_colour_type(data: &[u8]) -> ::png::ColorType {
        let reader = ::png::Decoder::new(std::io::Cursor::new(data))
            .read_info()
            .expect("PNG header");
        reader.info().color_type
    }

    #[test]
    fn the_median_cut_keeps_few_colours_and_splits_many() {
        let colours: Vec<(u32, u32)> = (0..1000u32)
            .map(|i| (0xff00_0000 | (i * 16_000), 1 + i % 3))
            .collect();
        let (keys, map) = median_cut(&colours, 255);
        assert_eq!(keys.len(), 255);
        assert!(colours.iter().all(|(k, _)| map.contains_key(k)));
        assert_eq!(median_cut(&colours, 255).0, keys);
        // Fewer colours than room: each is its own box.
        let (mut keys, _) = median_cut(&colours[..3], 255);
        keys.sort_unstable();
        assert_eq!(
            keys,
            colours[..3].iter().map(|&(k, _)| k).collect::<Vec<_>>()
        );
    }

    #[test]
    fn gif_clears_pixels_that_turn_transparent() {
        let a = Appearance {
            window: crate::render::WindowStyle::Transparent,
            cursor: false,
            ..Appearance::default()
        };
        // Text appears, then the first word is erased (its pixels become transparent).
        let l = layouts(20, 2, &["one two", "\r\x1b[K    two"], &a);
        let frames = [(&l[0], 0), (&l[1], 15)];
        let (w, h, _, gif) = decode_gif(&write(
            RasterFormat::Gif,
            &a,
            &timing(30, true),
            &frames,
            30,
        ));
        assert_eq!(gif[0].dispose, gif::DisposalMethod::Background);
        let want: Vec<u8> = still(&l[1], &a, RasterFormat::Gif)
            .chunks_exact(4)
            .flat_map(|p| {
                if p[3] < 128 {
                    [0, 0, 0, 0]
                } else {
                    [p[0], p[1], p[2], 255]
                }
            })
            .collect();
        assert!(composite_gif(w, h, &gif) == want);
    }
}
