//! Video: frames rasterised exactly as PNG stills are, turned into 4:2:0 YUV (BT.601,
//! limited range: what players assume of a stream that says nothing) and encoded in-process
//! by pure-Rust encoders, so no ffmpeg or other program is needed:
//!
//! - MP4: H.264 by rusty_h264, muxed by muxide, at a constant frame rate (a frame that lasts
//!   several intervals is encoded again for each; a repeat costs a few bytes);
//! - WebM (the `webm` feature): AV1 by rav1e, muxed as Matroska by webm-iterable, each screen
//!   once with its own timestamp.
//!
//! Either way the video lasts exactly what the animation does. A video does not loop.

#[cfg(feature = "webm")]
mod av1;

use muxide::api::{Muxer, MuxerBuilder, VideoCodec};
use rusty_h264_common::YuvFrame;
use rusty_h264_encoder::{Encoder, EncoderConfig, Preset};

use super::AnimationWriter;
use super::raster::rasterise;
use crate::recording::frames::Timing;
use crate::render::layout::Layout;
use crate::render::{Appearance, RenderError};

/// The H.264 quantiser: sharp text (about 45 dB against the frames) at a few hundred
/// kilobytes for ten seconds of a 1200×600 terminal.
const QP: u8 = 26;
/// A key frame at least every this many seconds, so a player can seek.
const KEY_FRAME_SECONDS: u32 = 5;

/// A video container and codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// MP4 with H.264.
    Mp4,
    /// WebM with AV1.
    #[cfg(feature = "webm")]
    Webm,
}

/// An encoder and muxer of one container: frames in (each with the grid index it shows from
/// and how many intervals it lasts), the file out.
trait Stream {
    fn frame(&mut self, frame: &YuvFrame, index: u64, lasts: u64) -> Result<(), RenderError>;
    fn finish(self: Box<Self>, end: u64) -> Result<Vec<u8>, RenderError>;
}

/// A video being written (see the module documentation).
pub struct VideoAnimation {
    appearance: Appearance,
    fps: u32,
    container: Container,
    /// The encoder and muxer, made for the first frame's size (even sides, as 4:2:0 needs).
    stream: Option<(Box<dyn Stream>, (usize, usize))>,
    /// The newest frame and its grid index, until the next frame says how long it lasts.
    pending: Option<(u64, YuvFrame)>,
}

impl VideoAnimation {
    /// A writer of `container` drawing frames with `appearance`, at `timing`'s frame rate.
    pub fn new(
        container: Container,
        appearance: &Appearance,
        timing: &Timing,
    ) -> Result<VideoAnimation, RenderError> {
        timing.validate().map_err(RenderError::new)?;
        Ok(VideoAnimation {
            appearance: appearance.clone(),
            fps: timing.fps,
            container,
            stream: None,
            pending: None,
        })
    }

    fn start(&self, size: (usize, usize)) -> Result<Box<dyn Stream>, RenderError> {
        Ok(match self.container {
            Container::Mp4 => Box::new(H264::new(size, self.fps)?),
            #[cfg(feature = "webm")]
            Container::Webm => Box::new(av1::Av1::new(size, self.fps)?),
        })
    }
}

impl AnimationWriter for VideoAnimation {
    fn push(&mut self, layout: &Layout, index: u64) -> Result<(), RenderError> {
        let (width, height, pixels) = rasterise(layout, &self.appearance, None)?;
        if self.stream.is_none() {
            let size = (even(width as usize), even(height as usize));
            self.stream = Some((self.start(size)?, size));
        }
        let Some((stream, size)) = self.stream.as_mut() else {
            return Err(RenderError::new("no video stream"));
        };
        if let Some((previous, frame)) = self.pending.take() {
            if index <= previous {
                return Err(RenderError::new(format!(
                    "animation frame {index} comes after frame {previous}"
                )));
            }
            stream.frame(&frame, previous, index - previous)?;
        }
        let frame = to_yuv(&pixels, (width as usize, height as usize), *size);
        self.pending = Some((index, frame));
        Ok(())
    }

    fn finish(mut self: Box<Self>, end: u64) -> Result<Vec<u8>, RenderError> {
        let (Some((last, frame)), Some((mut stream, _))) =
            (self.pending.take(), self.stream.take())
        else {
            return Err(RenderError::new("an animation needs at least one frame"));
        };
        // The last frame lasts at least one frame interval.
        let end = end.max(last + 1);
        stream.frame(&frame, last, end - last)?;
        stream.finish(end)
    }
}

/// MP4 of H.264 at a constant frame rate.
struct H264 {
    encoder: Encoder,
    muxer: Muxer<Vec<u8>>,
    fps: u32,
    /// Frames written.
    written: u64,
}

impl H264 {
    fn new((width, height): (usize, usize), fps: u32) -> Result<H264, RenderError> {
        let mut config = EncoderConfig::new(width, height);
        config.qp = QP;
        config.bitrate = 0;
        config.gop_size = fps * KEY_FRAME_SECONDS;
        config.framerate = fps as f32;
        config.preset = Preset::Fast;
        // Without the look-ahead each frame's data comes out when it goes in.
        config.mbtree = false;
        let encoder = Encoder::new(config)
            .map_err(|e| RenderError::new(format!("the H.264 encoder refused: {e:?}")))?;
        let muxer = MuxerBuilder::new(Vec::new())
            .video(
                VideoCodec::H264,
                width as u32,
                height as u32,
                f64::from(fps),
            )
            .build()
            .map_err(mp4_error)?;
        Ok(H264 {
            encoder,
            muxer,
            fps,
            written: 0,
        })
    }

    fn write(&mut self, unit: &[u8]) -> Result<(), RenderError> {
        if !unit.is_empty() {
            let at = self.written as f64 / f64::from(self.fps);
            self.muxer
                .write_video(at, unit, is_key_frame(unit))
                .map_err(mp4_error)?;
        }
        Ok(())
    }
}

impl Stream for H264 {
    fn frame(&mut self, frame: &YuvFrame, _index: u64, lasts: u64) -> Result<(), RenderError> {
        for _ in 0..lasts {
            let unit = self.encoder.encode(frame);
            self.write(&unit)?;
            self.written += 1;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>, _end: u64) -> Result<Vec<u8>, RenderError> {
        let tail = self.encoder.flush();
        self.write(&tail)?;
        self.muxer.finish_in_place().map_err(mp4_error)?;
        Ok(self.muxer.into_writer())
    }
}

fn mp4_error(e: impl std::fmt::Display) -> RenderError {
    RenderError::new(format!("MP4: {e}"))
}

/// Whether an access unit (Annex B) holds an IDR slice: NAL unit type 5 after a start code.
fn is_key_frame(unit: &[u8]) -> bool {
    unit.windows(4)
        .any(|w| w[..3] == [0, 0, 1] && w[3] & 0x1f == 5)
}

/// `n` rounded up to even.
fn even(n: usize) -> usize {
    n + n % 2
}

/// Demultiplied RGBA of `from` pixels as a 4:2:0 frame of `to` (even) pixels: the last row and
/// column repeated into what `to` adds, each chroma sample the average of its 2×2 pixels.
fn to_yuv(rgba: &[u8], from: (usize, usize), to: (usize, usize)) -> YuvFrame {
    let (w, h) = to;
    let pixel = |x: usize, y: usize| -> (i32, i32, i32) {
        let (x, y) = (
            x.min(from.0.saturating_sub(1)),
            y.min(from.1.saturating_sub(1)),
        );
        let at = (y * from.0 + x) * 4;
        match rgba.get(at..at + 3) {
            Some(p) => (i32::from(p[0]), i32::from(p[1]), i32::from(p[2])),
            None => (0, 0, 0),
        }
    };
    let clamp = |v: i32| v.clamp(0, 255) as u8;
    let mut y_plane = vec![0u8; w * h];
    let mut u_plane = vec![0u8; w * h / 4];
    let mut v_plane = vec![0u8; w * h / 4];
    for y in 0..h {
        for x in 0..w {
            let (r, g, b) = pixel(x, y);
            y_plane[y * w + x] = clamp(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
        }
    }
    for cy in 0..h / 2 {
        for cx in 0..w / 2 {
            let (mut r, mut g, mut b) = (0, 0, 0);
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let p = pixel(2 * cx + dx, 2 * cy + dy);
                r += p.0;
                g += p.1;
                b += p.2;
            }
            let (r, g, b) = (r / 4, g / 4, b / 4);
            let at = cy * (w / 2) + cx;
            u_plane[at] = clamp(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
            v_plane[at] = clamp(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
        }
    }
    YuvFrame {
        width: w,
        height: h,
        y: y_plane,
        u: u_plane,
        v: v_plane,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grey_white_and_black_are_their_limited_range_values() {
        let rgba = [
            255, 255, 255, 255, 0, 0, 0, 255, //
            128, 128, 128, 255, 255, 0, 0, 255,
        ];
        let frame = to_yuv(&rgba, (2, 2), (2, 2));
        assert_eq!(frame.y, [235, 16, 126, 82]);
        // The average of the four pixels, (159, 95, 95): a reddish grey, less blue and more
        // red than neutral (128, 128).
        assert_eq!((frame.u[0], frame.v[0]), (119, 156));
    }

    #[test]
    fn odd_sides_repeat_their_last_pixels() {
        let rgba = [0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255];
        let frame = to_yuv(&rgba, (3, 1), (4, 2));
        assert_eq!(frame.y, [16, 235, 16, 16, 16, 235, 16, 16]);
    }
}
