//! Text in the parser's ground state, read without vte's state machine.
//!
//! Between escape sequences, output is text and control characters. [`feed_text`] hands runs
//! of printable ASCII to the screen in one call each and decodes everything else itself —
//! exactly as vte's ground state would, except that a lone byte 0x80–0x9F is printed as
//! U+FFFD as xterm prints it, where vte would execute it as a C1 control.

use vte::Perform as _;

use super::ESC;
use super::handler::Handler;
use super::parser::Dispatcher;

/// Feeds the text `bytes` starts with — everything before the first ESC — to a parser in
/// its ground state. Returns how much it took: up to that ESC, or all of `bytes`.
///
/// Each byte is looked at once: a run of printable ASCII ends at any other byte, ESC
/// included, and anything else is decoded where it starts. A UTF-8 sequence ends at the
/// first byte that cannot continue it (printable ASCII, an ESC) or at the end of `bytes`,
/// and is then invalid and replaced: the caller never ends `bytes` inside a sequence that
/// can still be finished.
pub(super) fn feed_text<H: Handler>(dispatcher: &mut Dispatcher<'_, H>, bytes: &[u8]) -> usize {
    let mut done = 0;
    while let Some(&first) = bytes.get(done) {
        if is_printable_ascii(first) {
            let rest = &bytes[done..];
            let run = printable_ascii_prefix(rest);
            if run == 1 {
                // A lone space between words of other scripts or colour changes: printing one
                // character costs less than setting up a run.
                dispatcher.print(char::from(first));
            } else {
                dispatcher.print_ascii(&rest[..run]);
            }
            done += run;
        } else if first == ESC {
            break;
        } else {
            let (decoded, len) = decode(&bytes[done..]);
            done += len;
            match decoded {
                // C1 controls count only encoded in UTF-8; a lone byte 0x80–0x9F is invalid.
                Some(c @ ('\x00'..='\x1f' | '\u{80}'..='\u{9f}')) => dispatcher.execute(c as u8),
                Some(c) => dispatcher.print(c),
                None => dispatcher.print(char::REPLACEMENT_CHARACTER),
            }
        }
    }
    done
}

#[inline(always)]
fn is_printable_ascii(byte: u8) -> bool {
    (0x20..0x7f).contains(&byte)
}

/// How many bytes at the start of `bytes` are printable ASCII (0x20–0x7E). The first eight
/// are checked one by one (the words between colour changes are short), the rest eight at a
/// time (logs and source listings are long runs of it).
#[inline]
fn printable_ascii_prefix(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH_BITS: u64 = u64::from_ne_bytes([0x80; 8]);
    let head = bytes.len().min(8);
    if let Some(end) = bytes[..head].iter().position(|&b| !is_printable_ascii(b)) {
        return end;
    }
    let mut whole = head;
    for chunk in bytes[head..].chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk).map(u64::from_ne_bytes) else {
            break;
        };
        // A byte below 0x20 borrows into its high bit; one above 0x7E carries into it or had
        // it set. A borrow or carry can also flag a neighbour, but only in a word that has a
        // byte outside the range anyway, and that word is then checked byte by byte.
        let below = word.wrapping_sub(ONES * 0x20) & !word;
        let above = word.wrapping_add(ONES) | word;
        if (below | above) & HIGH_BITS != 0 {
            break;
        }
        whole += 8;
    }
    let tail = &bytes[whole..];
    whole
        + tail
            .iter()
            .position(|&b| !is_printable_ascii(b))
            .unwrap_or(tail.len())
}

/// The character `bytes` (not empty) starts with and how many bytes it takes; or `None` and
/// the length of the invalid sequence there: the longest start of a valid sequence, at least
/// one byte (what `str::from_utf8` reports as `Utf8Error::error_len`, or the rest of the
/// bytes when they end in the middle of a sequence).
///
/// Validating and decoding in one pass costs half of `str::from_utf8` followed by `chars`
/// (BENCHMARKS.md, issue 46).
#[inline(always)]
fn decode(bytes: &[u8]) -> (Option<char>, usize) {
    let lead = u32::from(bytes[0]);
    // Continuation byte `i` if it is in `low..=high`, as its six bits of the code point.
    let continuation = |i: usize, low: u8, high: u8| {
        bytes
            .get(i)
            .filter(|b| (low..=high).contains(b))
            .map(|&b| u32::from(b & 0x3f))
    };
    // The first continuation's range rules out overlong forms, surrogates and code points
    // past U+10FFFF (the Unicode standard's table 3-7).
    match lead {
        0x00..=0x7f => (char::from_u32(lead), 1),
        0xc2..=0xdf => match continuation(1, 0x80, 0xbf) {
            Some(b1) => (char::from_u32((lead & 0x1f) << 6 | b1), 2),
            None => (None, 1),
        },
        0xe0..=0xef => {
            let (low, high) = match lead {
                0xe0 => (0xa0, 0xbf),
                0xed => (0x80, 0x9f),
                _ => (0x80, 0xbf),
            };
            let Some(b1) = continuation(1, low, high) else {
                return (None, 1);
            };
            let Some(b2) = continuation(2, 0x80, 0xbf) else {
                return (None, 2);
            };
            (char::from_u32((lead & 0x0f) << 12 | b1 << 6 | b2), 3)
        }
        0xf0..=0xf4 => {
            let (low, high) = match lead {
                0xf0 => (0x90, 0xbf),
                0xf4 => (0x80, 0x8f),
                _ => (0x80, 0xbf),
            };
            let Some(b1) = continuation(1, low, high) else {
                return (None, 1);
            };
            let Some(b2) = continuation(2, 0x80, 0xbf) else {
                return (None, 2);
            };
            let Some(b3) = continuation(3, 0x80, 0xbf) else {
                return (None, 3);
            };
            (
                char::from_u32((lead & 0x07) << 18 | b1 << 12 | b2 << 6 | b3),
                4,
            )
        }
        _ => (None, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `decode` must give, from the standard library: each character, or `None` for each
    /// invalid sequence (one U+FFFD each), the rest of the bytes being one when they end in
    /// the middle of a sequence.
    fn reference(mut bytes: &[u8]) -> Vec<Option<char>> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    out.extend(text.chars().map(Some));
                    break;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    let text = std::str::from_utf8(&bytes[..valid]).unwrap();
                    out.extend(text.chars().map(Some));
                    out.push(None);
                    bytes = &bytes[valid + e.error_len().unwrap_or(bytes.len() - valid)..];
                }
            }
        }
        out
    }

    fn decoded(mut bytes: &[u8]) -> Vec<Option<char>> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let (c, len) = decode(bytes);
            assert!(len > 0 && len <= bytes.len(), "{bytes:x?}");
            out.push(c);
            bytes = &bytes[len..];
        }
        out
    }

    #[test]
    fn decoding_agrees_with_the_standard_library_on_every_two_byte_string() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let bytes = [a, b];
                assert_eq!(decoded(&bytes), reference(&bytes), "{bytes:x?}");
            }
        }
    }

    #[test]
    fn decoding_agrees_with_the_standard_library_at_every_boundary_of_longer_strings() {
        // Every byte class edge of UTF-8: ASCII, continuations and their sub-ranges, invalid
        // leads, the leads whose first continuation is restricted.
        let edges = [
            0x00, 0x1f, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
            0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff,
        ];
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    for &d in &edges {
                        let bytes = [a, b, c, d, b'x'];
                        assert_eq!(decoded(&bytes), reference(&bytes), "{bytes:x?}");
                        assert_eq!(decoded(&bytes[..4]), reference(&bytes[..4]), "{bytes:x?}");
                    }
                }
            }
        }
    }

    #[test]
    fn decoding_gives_every_character_back() {
        let mut buf = [0; 4];
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            assert_eq!(decode(bytes), (Some(c), bytes.len()), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn printable_runs_end_at_the_first_other_byte_wherever_it_is() {
        for len in 0..40 {
            for at in 0..=len {
                for other in [0x00, 0x1b, 0x1f, 0x7f, 0x80, 0xc3, 0xff] {
                    let mut bytes = vec![b'a'; len];
                    if at < len {
                        bytes[at] = other;
                    }
                    assert_eq!(printable_ascii_prefix(&bytes), at, "{bytes:x?}");
                }
            }
        }
        // Every byte value just inside and outside the range, at each place of a word.
        for byte in 0..=255u8 {
            for at in 0..16 {
                let mut bytes = [b' '; 24];
                bytes[at] = byte;
                let expected = if is_printable_ascii(byte) { 24 } else { at };
                assert_eq!(
                    printable_ascii_prefix(&bytes),
                    expected,
                    "{byte:#x} at {at}"
                );
            }
        }
    }
}
