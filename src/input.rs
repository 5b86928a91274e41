//! Reading what gets rendered: raw terminal bytes or an asciicast recording (v2, and v3's
//! relative timestamps and comment lines), streamed into a [`Terminal`] with bounded buffers.

use std::fmt;
use std::io::{self, BufRead};
use std::time::Duration;

use serde_json::Value;

use crate::lines::Line;
use crate::recording::{Event, MAX_MARKER_LABEL, Start, TimedEvent};
use crate::term::Terminal;

/// The longest line an asciicast file may have (one event's JSON).
pub const MAX_CAST_LINE: usize = 16 * 1024 * 1024;
/// The largest terminal size accepted from a recording header or resize event.
pub const MAX_DIMENSION: usize = 1000;

/// Why a recording could not be read.
#[derive(Debug)]
pub enum InputError {
    /// Reading failed.
    Io(io::Error),
    /// The asciicast content is malformed; `line` is 1-based.
    Cast {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Io(e) => write!(f, "{e}"),
            InputError::Cast { line, message } => {
                write!(f, "asciicast line {line}: {message}")
            }
        }
    }
}

impl std::error::Error for InputError {}

impl From<io::Error> for InputError {
    fn from(e: io::Error) -> Self {
        InputError::Io(e)
    }
}

/// Header fields of an asciicast recording.
#[derive(Clone, Debug, PartialEq)]
pub struct CastHeader {
    /// Format version (2 or 3).
    pub version: u64,
    /// Terminal columns.
    pub width: usize,
    /// Terminal rows.
    pub height: usize,
    /// Recording title, if any.
    pub title: Option<String>,
}

/// Whether `first_line` is meant as an asciicast header: a JSON object with a `version` key.
/// (Whether the header is valid is for [`CastReader::new`] to say, with a clear error.)
pub fn looks_like_cast(first_line: &[u8]) -> bool {
    let trimmed = first_line.trim_ascii_start();
    trimmed.first() == Some(&b'{')
        && serde_json::from_slice::<Value>(trimmed).is_ok_and(|v| v.get("version").is_some())
}

fn cast_error(line: usize, message: impl Into<String>) -> InputError {
    InputError::Cast {
        line,
        message: message.into(),
    }
}

fn dimension(v: Option<&Value>, what: &str) -> Result<usize, String> {
    let n = v
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("header has no numeric {what}"))?;
    if n == 0 || n as usize > MAX_DIMENSION {
        return Err(format!("{what} {n} is outside 1–{MAX_DIMENSION}"));
    }
    Ok(n as usize)
}

fn parse_header(line: &[u8]) -> Result<CastHeader, String> {
    let value: Value = serde_json::from_slice(line).map_err(|e| format!("header: {e}"))?;
    let version = value
        .get("version")
        .and_then(Value::as_u64)
        .ok_or("header has no version")?;
    let (width, height) = match version {
        2 => (
            dimension(value.get("width"), "width")?,
            dimension(value.get("height"), "height")?,
        ),
        3 => {
            let term = value.get("term");
            (
                dimension(term.and_then(|t| t.get("cols")), "term.cols")?,
                dimension(term.and_then(|t| t.get("rows")), "term.rows")?,
            )
        }
        v => return Err(format!("unsupported asciicast version {v}")),
    };
    Ok(CastHeader {
        version,
        width,
        height,
        title: value
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// Reads one line of at most `max` bytes into `buf`; false at end of input.
fn read_line_bounded(reader: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<bool> {
    match crate::lines::read_line(reader, buf, max)? {
        Line::Complete => Ok(true),
        Line::Eof => Ok(false),
        Line::TooLong => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("line longer than {max} bytes"),
        )),
    }
}

/// An asciicast recording being read event by event.
pub struct CastReader<R> {
    reader: R,
    header: CastHeader,
    line: usize,
    clock: f64,
    buf: Vec<u8>,
}

impl<R: BufRead> CastReader<R> {
    /// Reads the header line.
    pub fn new(mut reader: R) -> Result<CastReader<R>, InputError> {
        let mut buf = Vec::new();
        if !read_line_bounded(&mut reader, &mut buf, MAX_CAST_LINE)? {
            return Err(cast_error(1, "empty file"));
        }
        let header = parse_header(&buf).map_err(|m| cast_error(1, m))?;
        Ok(CastReader {
            reader,
            header,
            line: 1,
            clock: 0.0,
            buf,
        })
    }

    /// The header.
    pub fn header(&self) -> &CastHeader {
        &self.header
    }

    /// The next event (output, input, resize or marker), skipping events of other codes.
    pub fn next_event(&mut self) -> Result<Option<TimedEvent>, InputError> {
        loop {
            if !read_line_bounded(&mut self.reader, &mut self.buf, MAX_CAST_LINE)? {
                return Ok(None);
            }
            self.line += 1;
            let line = self.line;
            let content = self.buf.trim_ascii();
            // v3 allows comment lines, which players ignore.
            if content.is_empty() || self.header.version >= 3 && content.starts_with(b"#") {
                continue;
            }
            let value: Value =
                serde_json::from_slice(&self.buf).map_err(|e| cast_error(line, e.to_string()))?;
            let Some([time, code, data]) = value.as_array().map(Vec::as_slice) else {
                return Err(cast_error(line, "an event must be [time, code, data]"));
            };
            let time = time
                .as_f64()
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| cast_error(line, "event time must be a non-negative number"))?;
            // v3 stores the interval since the previous event.
            let time = if self.header.version >= 3 {
                self.clock += time;
                self.clock
            } else {
                time
            };
            let (Some(code), Some(data)) = (code.as_str(), data.as_str()) else {
                return Err(cast_error(line, "event code and data must be strings"));
            };
            let at = Duration::try_from_secs_f64(time)
                .map_err(|_| cast_error(line, "event time is too large"))?;
            let event = match code {
                "o" => Event::Output(data.as_bytes().to_vec()),
                "i" => Event::Input(data.as_bytes().to_vec()),
                "m" => Event::Marker(data.chars().take(MAX_MARKER_LABEL).collect()),
                "r" => {
                    let (width, height) = data
                        .split_once('x')
                        .and_then(|(w, h)| Some((w.parse::<u16>().ok()?, h.parse::<u16>().ok()?)))
                        .filter(|&(w, h)| {
                            let range = 1..=MAX_DIMENSION;
                            range.contains(&usize::from(w)) && range.contains(&usize::from(h))
                        })
                        .ok_or_else(|| cast_error(line, format!("bad resize {data:?}")))?;
                    Event::Resize { width, height }
                }
                _ => continue,
            };
            return Ok(Some(TimedEvent { at, event }));
        }
    }

    /// Every remaining event, in order; reading stops at the first error.
    pub fn events(mut self) -> impl Iterator<Item = Result<TimedEvent, InputError>> {
        let mut failed = false;
        std::iter::from_fn(move || {
            if failed {
                return None;
            }
            let next = self.next_event().transpose();
            failed = matches!(next, Some(Err(_)));
            next
        })
    }

    /// Where replay of [`CastReader::events`] starts: a blank terminal of the header's size,
    /// or of `width × height` when given.
    pub fn start(&self, width: Option<usize>, height: Option<usize>) -> Start {
        let size = |given: Option<usize>, header: usize| {
            u16::try_from(given.unwrap_or(header)).unwrap_or(u16::MAX)
        };
        Start::Blank {
            width: size(width, self.header.width),
            height: size(height, self.header.height),
        }
    }

    /// Plays events into `term` up to the marker `marker` names — for a number N the Nth
    /// marker (from 1), else the first with that label — and returns its time, or
    /// `Ok(Err(labels))` with every marker's label when none matches (`term` then shows the
    /// end).
    pub fn play_to_marker(
        &mut self,
        term: &mut Terminal,
        marker: &str,
    ) -> Result<Result<Duration, Vec<String>>, InputError> {
        let nth = marker.parse::<usize>().ok();
        let mut labels = Vec::new();
        while let Some(TimedEvent { at, event }) = self.next_event()? {
            match event {
                Event::Output(data) => term.advance(&data),
                Event::Resize { width, height } => {
                    term.resize(usize::from(width), usize::from(height))
                }
                Event::Input(_) | Event::View(_) => {}
                Event::Marker(label) => {
                    labels.push(label);
                    let matches = match nth {
                        Some(n) => labels.len() == n,
                        None => labels.last().is_some_and(|l| l == marker),
                    };
                    if matches {
                        return Ok(Ok(at));
                    }
                }
            }
        }
        Ok(Err(labels))
    }

    /// Plays events into `term` up to and including time `until` (all when `None`).
    pub fn play(&mut self, term: &mut Terminal, until: Option<f64>) -> Result<(), InputError> {
        while let Some(TimedEvent { at, event }) = self.next_event()? {
            if until.is_some_and(|t| at.as_secs_f64() > t) {
                break;
            }
            match event {
                Event::Output(data) => term.advance(&data),
                Event::Resize { width, height } => {
                    term.resize(usize::from(width), usize::from(height))
                }
                Event::Input(_) | Event::Marker(_) | Event::View(_) => {}
            }
        }
        Ok(())
    }
}

/// Streams raw output from `reader` into `term` in bounded chunks. Raw output was written to
/// a pipe or a file, not to a terminal, so no terminal driver turned its line feeds into
/// CR LF: line feed/new line mode (LNM) is set first, and a bare LF starts a new line as it
/// would have on a terminal (CR LF stays one line break). Recordings ([`CastReader`]) and
/// programs in a PTY are played exactly as they are.
pub fn play_raw(reader: &mut impl io::Read, term: &mut Terminal) -> io::Result<()> {
    term.advance(b"\x1b[20h");
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => term.advance(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAST: &str = r#"{"version": 2, "width": 20, "height": 3, "title": "demo"}
[0.5, "o", "hello"]
[1.0, "i", "ignored"]
[1.5, "o", "\r\nworld"]
[2.0, "r", "10x2"]
"#;

    #[test]
    fn cast_plays_until_a_moment() {
        let mut reader = CastReader::new(CAST.as_bytes()).unwrap();
        assert_eq!(reader.header().width, 20);
        assert_eq!(reader.header().title.as_deref(), Some("demo"));
        let mut term = Terminal::new(20, 3);
        reader.play(&mut term, Some(1.0)).unwrap();
        assert_eq!(term.text(), "hello\n\n");
    }

    #[test]
    fn cast_resize_event_applies() {
        let mut reader = CastReader::new(CAST.as_bytes()).unwrap();
        let mut term = Terminal::new(20, 3);
        reader.play(&mut term, None).unwrap();
        assert_eq!((term.width(), term.height()), (10, 2));
        assert_eq!(term.text(), "hello\nworld");
    }

    #[test]
    fn events_carry_input_markers_and_resizes() {
        let cast = format!("{CAST}[2.5, \"m\", \"here\"]\n[3, \"x\", \"unknown\"]\n");
        let events: Vec<TimedEvent> = CastReader::new(cast.as_bytes())
            .unwrap()
            .events()
            .collect::<Result<_, _>>()
            .unwrap();
        let kinds: Vec<(u128, Event)> = events
            .into_iter()
            .map(|e| (e.at.as_millis(), e.event))
            .collect();
        assert_eq!(
            kinds,
            [
                (500, Event::Output(b"hello".to_vec())),
                (1000, Event::Input(b"ignored".to_vec())),
                (1500, Event::Output(b"\r\nworld".to_vec())),
                (
                    2000,
                    Event::Resize {
                        width: 10,
                        height: 2
                    }
                ),
                (2500, Event::Marker("here".into())),
            ]
        );
        let huge = "{\"version\":2,\"width\":10,\"height\":2}\n[1e300,\"o\",\"a\"]\n";
        let err = CastReader::new(huge.as_bytes()).unwrap().events().next();
        assert!(matches!(err, Some(Err(_))), "{err:?}");
    }

    #[test]
    fn v3_times_are_intervals() {
        let cast = "{\"version\":3,\"term\":{\"cols\":10,\"rows\":2}}\n[1.0,\"o\",\"a\"]\n[1.0,\"o\",\"b\"]\n";
        let mut reader = CastReader::new(cast.as_bytes()).unwrap();
        let mut term = Terminal::new(10, 2);
        reader.play(&mut term, Some(1.5)).unwrap();
        assert_eq!(term.text(), "a\n");
    }

    #[test]
    fn malformed_events_name_their_line() {
        let cast = "{\"version\":2,\"width\":10,\"height\":2}\n[0.1,\"o\",\"a\"]\n[oops]\n";
        let mut reader = CastReader::new(cast.as_bytes()).unwrap();
        let err = reader.play(&mut Terminal::new(10, 2), None).unwrap_err();
        assert!(err.to_string().starts_with("asciicast line 3:"), "{err}");
        assert!(CastReader::new("{\"version\":2,\"width\":0,\"height\":2}\n".as_bytes()).is_err());
        assert!(CastReader::new("".as_bytes()).is_err());
    }

    #[test]
    fn header_detection() {
        assert!(looks_like_cast(
            br#"{"version": 2, "width": 80, "height": 24}"#
        ));
        assert!(!looks_like_cast(b"\x1b[31mred"));
        assert!(!looks_like_cast(b"{not json"));
    }
}
