//! MP4 video: frames rasterised exactly as PNG stills are, turned into 4:2:0 YUV (BT.601,
//! limited range: what players assume of a stream that says nothing), encoded as H.264 by
//! rusty_h264 and muxed by muxide — both pure Rust, so no ffmpeg or other program is needed.
//! The stream has a constant frame rate: a frame that lasts several intervals is encoded again
//! for each (a repeat costs a few bytes), so the video lasts exactly what the animation does.

use muxide::api::{Muxer, MuxerBuilder, VideoCodec};
use rusty_h264_common::YuvFrame;
use rusty_h264_encoder::{Encoder, EncoderConfig, Preset};

use super::AnimationWriter;
use super::raster::rasterise;
use crate::recording::frames::Timing;
use crate::render::layout::Layout;
use crate::render::{Appearance, RenderError};

/// The quantiser: sharp text (about 45 dB against the frames) at a few hundred kilobytes for
/// ten seconds of a 1200×600 terminal.
const QP: u8 = 26;
/// A key frame at least every this many seconds, so a player can seek.
const KEY_FRAME_SECONDS: u32 = 5;

/// An MP4 being written (see the module documentation).
pub struct VideoAnimation {
    appearance: Appearance,
    fps: u32,
    /// The encoder and muxer, made for the first frame's size.
    stream: Option<Stream>,
    /// The newest frame and its grid index, until the next frame says how long it lasts.
    pending: Option<(u64, YuvFrame)>,
}

struct Stream {
    encoder: Encoder,
    muxer: Muxer<Vec<u8>>,
    /// Even sides, as 4:2:0 needs.
    size: (usize, usize),
    /// Frames written.
    written: u64,
}

impl VideoAnimation {
    /// A writer drawing frames with `appearance`, at `timing`'s frame rate (a video does not
    /// loop).
    pub fn new(appearance: &Appearance, timing: &Timing) -> Result<VideoAnimation, RenderError> {
        timing.validate().map_err(RenderError::new)?;
        Ok(VideoAnimation {
            appearance: appearance.clone(),
            fps: timing.fps,
            stream: None,
            pending: None,
        })
    }

    /// Writes the pending frame until grid index `until`.
    fn write_pending(&mut self, until: u64) -> Result<(), RenderError> {
        let (Some(stream), Some((_, frame))) = (self.stream.as_mut(), self.pending.as_ref()) else {
            return Ok(());
        };
        while stream.written < until {
            let unit = stream.encoder.encode(frame);
            let at = stream.written as f64 / f64::from(self.fps);
            if !unit.is_empty() {
                stream
                    .muxer
                    .write_video(at, &unit, is_key_frame(&unit))
                    .map_err(|e| RenderError::new(format!("MP4: {e}")))?;
            }
            stream.written += 1;
        }
        Ok(())
    }
}

impl AnimationWriter for VideoAnimation {
    fn push(&mut self, layout: &Layout, index: u64) -> Result<(), RenderError> {
        let (width, height, pixels) = rasterise(layout, &self.appearance, None)?;
        if self.stream.is_none() {
            let size = (even(width as usize), even(height as usize));
            let mut config = EncoderConfig::new(size.0, size.1);
            config.qp = QP;
            config.bitrate = 0;
            config.gop_size = self.fps * KEY_FRAME_SECONDS;
            config.framerate = self.fps as f32;
            config.preset = Preset::Fast;
            // Without the look-ahead each frame's data comes out when it goes in.
            config.mbtree = false;
            let encoder = Encoder::new(config)
                .map_err(|e| RenderError::new(format!("the H.264 encoder refused: {e:?}")))?;
            let muxer = MuxerBuilder::new(Vec::new())
                .video(
                    VideoCodec::H264,
                    size.0 as u32,
                    size.1 as u32,
                    f64::from(self.fps),
                )
                .build()
                .map_err(|e| RenderError::new(format!("MP4: {e}")))?;
            self.stream = Some(Stream {
                encoder,
                muxer,
                size,
                written: 0,
            });
        }
        if let Some((previous, _)) = &self.pending
            && index <= *previous
        {
            return Err(RenderError::new(format!(
                "animation frame {index} comes after frame {previous}"
            )));
        }
        self.write_pending(index)?;
        let size = self.stream.as_ref().map_or((0, 0), |s| s.size);
        let frame = to_yuv(&pixels, (width as usize, height as usize), size);
        self.pending = Some((index, frame));
        Ok(())
    }

    fn finish(mut self: Box<Self>, end: u64) -> Result<Vec<u8>, RenderError> {
        let Some((last, _)) = &self.pending else {
            return Err(RenderError::new("an animation needs at least one frame"));
        };
        // The last frame lasts at least one frame interval.
        let end = end.max(last + 1);
        self.write_pending(end)?;
        let Some(mut stream) = self.stream.take() else {
            return Err(RenderError::new("an animation needs at least one frame"));
        };
        let tail = stream.encoder.flush();
        if !tail.is_empty() {
            let at = stream.written as f64 / f64::from(self.fps);
            stream
                .muxer
                .write_video(at, &tail, is_key_frame(&tail))
                .map_err(|e| RenderError::new(format!("MP4: {e}")))?;
        }
        stream
            .muxer
            .finish_in_place()
            .map_err(|e| RenderError::new(format!("MP4: {e}")))?;
        Ok(stream.muxer.into_writer())
    }
}

/// `n` rounded up to even.
fn even(n: usize) -> usize {
    n + n % 2
}

/// Whether an access unit (Annex B) holds an IDR slice: NAL unit type 5 after a start code.
fn is_key_frame(unit: &[u8]) -> bool {
    unit.windows(4)
        .any(|w| w[..3] == [0, 0, 1] && w[3] & 0x1f == 5)
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
