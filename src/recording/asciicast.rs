//! Writing a [`Timeline`] as an asciicast v2 file (asciinema's format): a JSON header line,
//! then one `[time, code, data]` line per event — `o` output, `i` input, `r` resize
//! (`"COLSxROWS"`), `m` marker.
//!
//! asciicast strings are text, the terminal's bytes are not: each stream (output, input) is
//! decoded as UTF-8 across events — a sequence split between two chunks is written whole with
//! the later one — and invalid bytes become U+FFFD, as asciinema's own recorder does.
//!
//! ```
//! use std::time::Duration;
//! use shotty::recording::{Event, Timeline, asciicast};
//!
//! let mut timeline = Timeline::new(20, 2, 1 << 20);
//! timeline.push(Duration::from_millis(500), Event::Output("caf\u{e9}".as_bytes().to_vec()));
//! let mut cast = Vec::new();
//! asciicast::write_v2(&timeline, &asciicast::CastInfo::default(), &mut cast).unwrap();
//! let text = String::from_utf8(cast).unwrap();
//! assert_eq!(text.lines().nth(1), Some("[0.500000, \"o\", \"caf\u{e9}\"]"));
//! ```

use std::io::{self, Write};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{Event, Start, Timeline};
use crate::term::TERM_NAME;

/// Header fields beyond the size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CastInfo {
    /// Unix time (seconds) the recording started, if it is to be written.
    pub timestamp: Option<u64>,
    /// The recording's title.
    pub title: Option<String>,
}

/// Writes `timeline` as asciicast v2. A timeline whose start was dropped begins with its
/// keyframe as output at time 0; later times count from the keyframe.
pub fn write_v2(timeline: &Timeline, info: &CastInfo, out: &mut impl Write) -> io::Result<()> {
    let (width, height) = timeline.start().size();
    let mut header = Map::new();
    header.insert("version".into(), json!(2));
    header.insert("width".into(), json!(width));
    header.insert("height".into(), json!(height));
    if let Some(t) = info.timestamp {
        header.insert("timestamp".into(), json!(t));
    }
    header.insert("env".into(), json!({ "TERM": TERM_NAME }));
    if let Some(title) = &info.title {
        header.insert("title".into(), json!(title));
    }
    writeln!(out, "{}", Value::Object(header))?;

    let origin = match timeline.start() {
        Start::Blank { .. } => Duration::ZERO,
        Start::Keyframe(k) => {
            line(out, Duration::ZERO, "o", &String::from_utf8_lossy(&k.bytes))?;
            k.at
        }
    };
    let mut output = Utf8Stream::default();
    let mut input = Utf8Stream::default();
    for e in timeline.events() {
        let at = e.at.saturating_sub(origin);
        match &e.event {
            Event::Output(bytes) => {
                let text = output.decode(bytes);
                if !text.is_empty() {
                    line(out, at, "o", &text)?;
                }
            }
            Event::Input(bytes) => {
                let text = input.decode(bytes);
                if !text.is_empty() {
                    line(out, at, "i", &text)?;
                }
            }
            Event::Resize { width, height } => line(out, at, "r", &format!("{width}x{height}"))?,
            Event::Marker(label) => line(out, at, "m", label)?,
            // A viewer's scrolling is no part of the terminal's recording.
            Event::View(_) => {}
        }
    }
    // Whatever is left of a sequence cut off by the end.
    let end = timeline
        .events()
        .last()
        .map_or(Duration::ZERO, |e| e.at.saturating_sub(origin));
    for (code, rest) in [("o", output.finish()), ("i", input.finish())] {
        if !rest.is_empty() {
            line(out, end, code, &rest)?;
        }
    }
    Ok(())
}

/// One event line; times in seconds with microseconds, always six decimals.
fn line(out: &mut impl Write, at: Duration, code: &str, data: &str) -> io::Result<()> {
    writeln!(
        out,
        "[{}.{:06}, \"{code}\", {}]",
        at.as_secs(),
        at.subsec_micros(),
        Value::String(data.to_owned())
    )
}

/// UTF-8 decoding across chunks: an unfinished sequence at a chunk's end waits for the next.
#[derive(Default)]
struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    fn decode(&mut self, bytes: &[u8]) -> String {
        let mut data = std::mem::take(&mut self.pending);
        data.extend_from_slice(bytes);
        let mut text = String::with_capacity(data.len());
        let mut rest = &data[..];
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // from_utf8 checked these bytes.
                    text.push_str(&String::from_utf8_lossy(valid));
                    match e.error_len() {
                        Some(bad) => {
                            text.push('\u{fffd}');
                            rest = &after[bad..];
                        }
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        text
    }

    fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.pending);
        String::from_utf8_lossy(&rest).into_owned()
    }
}
