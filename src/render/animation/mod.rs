//! Frames → animations: animated SVG, GIF and APNG.
//!
//! A recording is played into [`Frames`] (the screens, on a frame grid); each frame is laid
//! out like a still ([`Layout`]) and handed to an [`AnimationWriter`] for the output format,
//! which keeps only what it needs to write the file (never every frame's pixels), so a long
//! recording is animated in bounded memory.

#[cfg(feature = "png")]
pub mod raster;

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
}

impl AnimationFormat {
    /// Every format with its command-line name.
    pub const ALL: [(&'static str, AnimationFormat); 3] = [
        ("svg", AnimationFormat::Svg),
        ("gif", AnimationFormat::Gif),
        ("apng", AnimationFormat::Apng),
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
        }
    }
}

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
    _appearance: &Appearance,
    _timing: &Timing,
) -> Result<Box<dyn AnimationWriter>, RenderError> {
    match format {
        AnimationFormat::Svg | AnimationFormat::Gif | AnimationFormat::Apng => Err(
            RenderError::new(format!("{} animations are not written yet", format.name())),
        ),
    }
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
    let mut out = writer(format, appearance, frames.timing())?;
    for frame in frames.by_ref() {
        let frame = frame.map_err(|e| RenderError::new(e.to_string()))?;
        let layout = Layout::new(&frame.snapshot, appearance)?;
        out.push(&layout, frame.index)?;
    }
    out.finish(frames.end_index())
}
