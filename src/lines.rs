//! Reading newline-delimited input with a bound on the line length.

use std::io::{self, BufRead};

/// What [`read_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line (without its newline) is in the buffer.
    Complete,
    /// The line was longer than the bound; it was consumed up to its newline, and only its
    /// first [`KEPT_OF_LONG_LINE`] bytes are in the buffer (where a JSON-RPC request names
    /// its id, to answer it with).
    TooLong,
    /// End of input, nothing read.
    Eof,
}

/// How much of a line longer than the bound is kept.
pub const KEPT_OF_LONG_LINE: usize = 4096;

/// Reads one line of at most `max` bytes into `buf` (cleared first). A longer line is skipped
/// (all but its head, see [`Line::TooLong`]), so the stream stays usable after it.
pub fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    let mut line = LineReader::new(buf, max);
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let (consumed, done) = line.take(available);
        reader.consume(consumed);
        if let Some(done) = done {
            return Ok(done);
        }
    }
}

/// The bounded line splitting that [`read_line`] and asynchronous readers share: hand it what
/// the reader has buffered, consume what it says, until it says the line is done.
pub struct LineReader<'a> {
    buf: &'a mut Vec<u8>,
    max: usize,
    too_long: bool,
}

impl<'a> LineReader<'a> {
    /// A line of at most `max` bytes, collected into `buf` (cleared here).
    pub fn new(buf: &'a mut Vec<u8>, max: usize) -> LineReader<'a> {
        buf.clear();
        LineReader {
            buf,
            max,
            too_long: false,
        }
    }

    /// Takes from `available` (empty: end of input): how many bytes to consume, and the
    /// line's outcome once it is complete.
    pub fn take(&mut self, available: &[u8]) -> (usize, Option<Line>) {
        if available.is_empty() {
            let line = match (self.too_long, self.buf.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::Eof,
                (false, false) => Line::Complete,
            };
            return (0, Some(line));
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        if !self.too_long {
            if self.buf.len() + chunk.len() > self.max {
                self.too_long = true;
                let room = KEPT_OF_LONG_LINE.saturating_sub(self.buf.len());
                self.buf.extend_from_slice(&chunk[..room.min(chunk.len())]);
                self.buf.truncate(KEPT_OF_LONG_LINE);
            } else {
                self.buf.extend_from_slice(chunk);
            }
        }
        let consumed = newline.map_or(chunk.len(), |i| i + 1);
        let done = newline.map(|_| {
            if self.too_long {
                Line::TooLong
            } else {
                Line::Complete
            }
        });
        (consumed, done)
    }
}

/// Formats a time as an RFC 3339 UTC timestamp with milliseconds.
pub fn rfc3339(t: std::time::SystemTime) -> String {
    let d = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn long_lines_are_skipped_and_the_stream_continues() {
        let input = b"short\nthis line is far too long\nok\nlast";
        let mut reader = &input[..];
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut reader, &mut buf, 10).unwrap(),
            Line::Complete
        );
        assert_eq!(buf, b"short");
        assert_eq!(read_line(&mut reader, &mut buf, 10).unwrap(), Line::TooLong);
        assert_eq!(buf, b"this line is far too long", "its head is kept");
        assert_eq!(
            read_line(&mut reader, &mut buf, 10).unwrap(),
            Line::Complete
        );
        assert_eq!(buf, b"ok");
        assert_eq!(
            read_line(&mut reader, &mut buf, 10).unwrap(),
            Line::Complete
        );
        assert_eq!(buf, b"last");
        assert_eq!(read_line(&mut reader, &mut buf, 10).unwrap(), Line::Eof);
    }

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_764_531_123_456);
        assert_eq!(rfc3339(t), "2025-11-30T19:32:03.456Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.000Z");
    }
}
