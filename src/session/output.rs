//! `session output`: the program's output as one byte stream, each byte at its offset from
//! the session's start — for the logs of dev servers and builds, where the screen shows only
//! the last lines. What is held is the recording's output (`start --record-limit`): an offset
//! older than that is reported as dropped.
//!
//! With `screen`, a reply carries instead the bytes that draw the current screen (a
//! keyframe) and the offset the stream continues from after them: what a terminal attaching
//! to the session (`session attach`) shows first, before it streams the output from there.

use serde::{Deserialize, Serialize};

/// The most output one reply carries; a client asks again from its `end`.
pub const MAX_OUTPUT_REPLY: usize = 1 << 20;
/// The longest an `output` request waits for new output.
pub const MAX_OUTPUT_WAIT_MS: u64 = 60_000;

/// `output` (also the MCP `output` tool's arguments).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutputParams {
    /// The session.
    pub session_id: String,
    /// The offset to read from (an earlier reply's `end`; default 0, the start).
    #[serde(default)]
    pub since: Option<u64>,
    /// Keep escape sequences (colours, cursor moves) instead of plain text.
    #[serde(default)]
    pub ansi: bool,
    /// When there is no output after `since` yet, wait this many milliseconds for some (at
    /// most 60000).
    #[serde(default)]
    pub wait_ms: Option<u64>,
    /// Bytes at most (default and most: 1 MiB).
    #[serde(default)]
    pub max_bytes: Option<usize>,
    /// Instead of the output after `since`, reply with `keyframe`: the bytes that draw the
    /// screen as it is (and restore its modes); `start` and `end` are then the stream's end,
    /// so the output read from `end` on continues exactly after it. `waitMs` still waits
    /// for output after `since` first; a string too long for a keyframe (a title, an
    /// image) being sent is waited for to end, a second at most.
    #[serde(default)]
    pub screen: bool,
}

/// The `output` reply.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutputReply {
    /// Output older than `since` was dropped (the recording's bound): `start` is later.
    pub dropped: bool,
    /// The offset after the last byte returned: the next `since`.
    pub end: u64,
    /// More output follows `end` already.
    pub more: bool,
    /// The session.
    pub session_id: String,
    /// The offset of the first byte returned.
    pub start: u64,
    /// The session's state.
    pub state: super::instance::State,
    /// The output from `start` to `end`: plain text, or with its escape sequences (`ansi`).
    pub text: String,
    /// With `screen`: the bytes that draw the screen and restore its modes on a terminal of
    /// the session's size (of an ended session: its final screen), as text. They are the
    /// screen's text and escape sequences; only a character the output left unfinished at
    /// its end can be invalid UTF-8, and becomes U+FFFD as in an `ansi` `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyframe: Option<String>,
}

/// The part of a stream from `since` on, at most `max` bytes: `chunks` are the output held,
/// oldest first, `held` bytes in all, the stream's end being at offset `total`. Returns
/// (start, bytes); a cut at `max` is moved back to a character's start.
pub fn slice<'a>(
    chunks: impl Iterator<Item = &'a [u8]>,
    held: u64,
    total: u64,
    since: u64,
    max: usize,
) -> (u64, Vec<u8>) {
    let first = total.saturating_sub(held);
    let from = since.clamp(first, total);
    let until = from.saturating_add(max as u64).min(total);
    let mut bytes = Vec::with_capacity((until - from) as usize);
    let mut offset = first;
    for chunk in chunks {
        let end = offset + chunk.len() as u64;
        if end > from && offset < until {
            let a = (from.max(offset) - offset) as usize;
            let b = (until.min(end) - offset) as usize;
            bytes.extend_from_slice(&chunk[a..b]);
        }
        offset = end;
        if offset >= until {
            break;
        }
    }
    if until < total {
        // Do not end inside a UTF-8 character: its rest comes with the next read.
        let tail = bytes.iter().rev().take(4).position(|&b| b & 0xC0 != 0x80);
        if let Some(i) = tail {
            let lead = bytes[bytes.len() - 1 - i];
            let needs = match lead {
                0xF0.. => 4,
                0xE0.. => 3,
                0xC0.. => 2,
                _ => 1,
            };
            if needs > i + 1 {
                bytes.truncate(bytes.len() - 1 - i);
            }
        }
    }
    (from, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_counts_offsets_from_the_streams_start() {
        let chunks: [&[u8]; 3] = [b"abc", b"def", b"gh"];
        // 8 bytes held of 10 written: the stream's first two bytes were dropped.
        let take = |since, max| slice(chunks.iter().copied(), 8, 10, since, max);
        assert_eq!(take(0, 100), (2, b"abcdefgh".to_vec()));
        assert_eq!(take(5, 100), (5, b"defgh".to_vec()));
        assert_eq!(take(6, 3), (6, b"efg".to_vec()));
        assert_eq!(take(10, 100), (10, Vec::new()));
        assert_eq!(take(99, 100), (10, Vec::new()));
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let text = "aé日".as_bytes();
        let take = |max| slice(std::iter::once(text), 6, 6, 0, max).1;
        assert_eq!(take(2), b"a");
        assert_eq!(take(3), "aé".as_bytes());
        assert_eq!(take(5), "aé".as_bytes());
        assert_eq!(take(6), text);
    }
}
