//! Frames → animations: animated SVG, GIF and APNG.
//!
//! A recording is played into [`Frames`] (the screens, on a frame grid); each frame is laid
//! out like a still ([`Layout`]) and handed to an [`AnimationWriter`] for the output format,
//! which keeps only what it needs to write the file (never every frame's pixels), so a long
//! recording is animated in bounded memory.

#[cfg(feature = "png")]
pub mod raster;
pub mod svg;
#[cfg(feature = "video")]
pub mod video;

use std::fmt::Display;
use std::path::Path;

use super::layout::Layout;
use super::{Appearance, RenderError};
use crate::recording::TimedEvent;
use crate::recording::frames::{Frames, Timing};

/// An animated output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnimationFormat {
    /// One SVG document animated with CSS.
    Svg,
    /// GIF.
    Gif,
    /// Animated PNG.
    Apng,
    /// MP4 video (H.264; shotty's `video` feature).
    Mp4,
    /// WebM video (AV1; needs shotty's `webm` feature).
    Webm,
}

impl AnimationFormat {
    /// Every format with its command-line name.
    pub const ALL: [(&'static str, AnimationFormat); 5] = [
        ("svg", AnimationFormat::Svg),
        ("gif", AnimationFormat::Gif),
        ("apng", AnimationFormat::Apng),
        ("mp4", AnimationFormat::Mp4),
        ("webm", AnimationFormat::Webm),
    ];

    /// The format a file name asks for: `.svg`, `.gif`, `.apng` (a `.png` name stays a still
    /// unless the format is given).
    pub fn from_path(path: &Path) -> Option<AnimationFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        AnimationFormat::ALL
            .iter()
            .find(|(name, _)| *name == ext)
            .map(|(_, f)| *f)
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            AnimationFormat::Svg => "svg",
            AnimationFormat::Gif => "gif",
            AnimationFormat::Apng => "apng",
            AnimationFormat::Mp4 => "mp4",
            AnimationFormat::Webm => "webm",
        }
    }

    /// Why this build cannot write the format, if it cannot: its encoder is a cargo feature
    /// the build left out.
    pub fn unavailable(self) -> Option<&'static str> {
        match self {
            AnimationFormat::Svg => None,
            AnimationFormat::Gif | AnimationFormat::Apng => (!cfg!(feature = "png")).then_some(
                "this build writes no GIF or APNG (its rasteriser is shotty's `png` feature)",
            ),
            AnimationFormat::Mp4 => (!cfg!(feature = "video"))
                .then_some("this build writes no MP4 (its encoder is shotty's `video` feature)"),
            AnimationFormat::Webm => (!cfg!(feature = "webm")).then_some(WEBM_NEEDS_FEATURE),
        }
    }
}

/// Why a build without the `webm` feature writes no WebM, and what to do.
const WEBM_NEEDS_FEATURE: &str = "this build writes no WebM: its AV1 encoder (rav1e) is the \
     opt-in cargo feature `webm` (`cargo install shotty --features webm`), for the build time \
     and seconds of encoding it costs; .mp4 (H.264) is built in";

/// Writes one animated format, a frame at a time.
pub trait AnimationWriter {
    /// Adds a frame, shown from grid index `index` (`index / fps` seconds) until the next
    /// frame's. Indices only grow.
    fn push(&mut self, layout: &Layout, index: u64) -> Result<(), RenderError>;

    /// Ends the animation at grid index `end` (after the last frame's own) and returns the
    /// file.
    fn finish(self: Box<Self>, end: u64) -> Result<Vec<u8>, RenderError>;
}

/// The writer of `format` for animations of `timing`'s frame rate and looping.
pub fn writer(
    format: AnimationFormat,
    appearance: &Appearance,
    timing: &Timing,
) -> Result<Box<dyn AnimationWriter>, RenderError> {
    match format {
        AnimationFormat::Svg => Ok(Box::new(svg::SvgAnimation::new(appearance, timing)?)),
        #[cfg(feature = "png")]
        AnimationFormat::Gif => Ok(Box::new(raster::RasterAnimation::new(
            raster::RasterFormat::Gif,
            appearance,
            timing,
        )?)),
        #[cfg(feature = "png")]
        AnimationFormat::Apng => Ok(Box::new(raster::RasterAnimation::new(
            raster::RasterFormat::Apng,
            appearance,
            timing,
        )?)),
        #[cfg(not(feature = "png"))]
        AnimationFormat::Gif | AnimationFormat::Apng => Err(unavailable(format)),
        #[cfg(feature = "video")]
        AnimationFormat::Mp4 => Ok(Box::new(video::VideoAnimation::new(
            video::Container::Mp4,
            appearance,
            timing,
        )?)),
        #[cfg(not(feature = "video"))]
        AnimationFormat::Mp4 => Err(unavailable(format)),
        #[cfg(feature = "webm")]
        AnimationFormat::Webm => Ok(Box::new(video::VideoAnimation::new(
            video::Container::Webm,
            appearance,
            timing,
        )?)),
        #[cfg(not(feature = "webm"))]
        AnimationFormat::Webm => Err(unavailable(format)),
    }
}

/// The error of a format this build cannot write ([`AnimationFormat::unavailable`]).
#[cfg(not(all(feature = "png", feature = "video", feature = "webm")))]
fn unavailable(format: AnimationFormat) -> RenderError {
    RenderError::new(format.unavailable().unwrap_or("this build cannot write it"))
}

/// Animates an asciicast recording read from `reader`, at its own size unless `width` or
/// `height` is given. Errors name the line of the recording at fault.
#[cfg(feature = "serde")]
pub fn animate_cast(
    reader: impl std::io::BufRead,
    size: (Option<usize>, Option<usize>),
    timing: Timing,
    format: AnimationFormat,
    appearance: &Appearance,
) -> Result<Vec<u8>, RenderError> {
    let cast =
        crate::input::CastReader::new(reader).map_err(|e| RenderError::new(e.to_string()))?;
    let start = cast.start(size.0, size.1);
    animate(
        &mut Frames::new(&start, cast.events(), timing),
        format,
        appearance,
    )
}

/// Plays `frames` into an animation of `format`. An error of the recording being read names
/// what failed to read.
pub fn animate<I, E>(
    frames: &mut Frames<I>,
    format: AnimationFormat,
    appearance: &Appearance,
) -> Result<Vec<u8>, RenderError>
where
    I: Iterator<Item = Result<TimedEvent, E>>,
    E: Display,
{
    animate_parts([frames], format, appearance)
}

/// Plays several stretches of frames one after the other into one animation of `format`,
/// each starting where the one before ends: a loop that begins part way through a recording
/// (its end, then its beginning). The first part's timing sets the frame rate and captions.
pub fn animate_parts<'f, I, E>(
    parts: impl IntoIterator<Item = &'f mut Frames<I>>,
    format: AnimationFormat,
    appearance: &Appearance,
) -> Result<Vec<u8>, RenderError>
where
    I: Iterator<Item = Result<TimedEvent, E>> + 'f,
    E: Display,
{
    let mut parts = parts.into_iter().peekable();
    let Some(first) = parts.peek() else {
        return Err(RenderError::new("an animation needs frames"));
    };
    let timing = first.timing().clone();
    // A raster cannot follow its viewer: it is drawn in the theme its scheme picks.
    let mut appearance = match format {
        AnimationFormat::Svg => std::borrow::Cow::Borrowed(appearance),
        AnimationFormat::Gif
        | AnimationFormat::Apng
        | AnimationFormat::Mp4
        | AnimationFormat::Webm => appearance.for_raster(),
    };
    // Captions go below the screen, in a band every frame keeps, so they hide nothing.
    if timing.show_keys {
        appearance.to_mut().caption_band = true;
    }
    let appearance = &*appearance;
    let mut out = writer(format, appearance, &timing)?;
    let mut offset = 0;
    for frames in parts {
        for frame in frames.by_ref() {
            let frame = frame.map_err(|e| RenderError::new(e.to_string()))?;
            let mut layout = Layout::new(&frame.snapshot, appearance)?;
            if let Some(caption) = &frame.caption {
                layout.set_caption(&appearance.mask.mask_text(caption));
            }
            out.push(&layout, offset + frame.index)?;
        }
        offset += frames.end_index();
    }
    out.finish(offset)
}
