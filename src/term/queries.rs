//! Telling apart, in a program's output, the sequences that ask the terminal something (device
//! attributes, the cursor position, a mode's state, a colour …): a second terminal showing the
//! same output — `session attach` — must not answer them too, or its answers reach the program
//! as typed input. [`QueryFilter`] passes everything else through unchanged.

use super::ESC;

/// Removes terminal queries from a byte stream given in pieces (a sequence split between two
/// pieces is held until it is complete; one longer than [`MAX_HELD`] is passed on as it is).
#[derive(Clone, Debug, Default)]
pub struct QueryFilter {
    held: Vec<u8>,
}

/// The longest unfinished sequence held back.
pub const MAX_HELD: usize = 4096;

/// How a sequence starting at `bytes[0]` (an ESC) ends: `Some(len)` when complete.
fn sequence_len(bytes: &[u8]) -> Option<usize> {
    match bytes.get(1)? {
        b'[' => bytes
            .iter()
            .skip(2)
            .position(|b| (0x40..=0x7e).contains(b))
            .map(|i| i + 3),
        // Strings end with BEL (OSC only) or ST.
        b']' | b'P' | b'_' | b'^' => {
            let osc = bytes[1] == b']';
            (2..bytes.len()).find_map(|i| match bytes[i] {
                0x07 if osc => Some(i + 1),
                ESC if bytes.get(i + 1) == Some(&b'\\') => Some(i + 2),
                ESC if i + 1 == bytes.len() => None,
                _ => None,
            })
        }
        _ => Some(2),
    }
}

/// Whether a complete sequence asks the terminal for a reply.
fn is_query(seq: &[u8]) -> bool {
    match seq.get(1) {
        Some(b'[') => {
            let body = &seq[2..seq.len() - 1];
            let last = seq[seq.len() - 1];
            let digits = |s: &[u8]| s.iter().all(|b| b.is_ascii_digit() || *b == b';');
            match (body.first(), last) {
                // DA1 / DA2 / DA3.
                (Some(b'>' | b'='), b'c') => true,
                (_, b'c') => digits(body),
                // DSR: status, cursor position (also DECXCPR).
                (Some(b'?'), b'n') => true,
                (_, b'n') => body == b"5" || body == b"6",
                // DECRQM (`CSI ? Ps $ p`, `CSI Ps $ p`).
                (_, b'p') => body.ends_with(b"$"),
                // XTVERSION, kitty keyboard flags.
                (Some(b'>'), b'q') => true,
                (Some(b'?'), b'u') => body == b"?",
                // Window reports: size in characters/pixels, title.
                (_, b't') => matches!(
                    body,
                    b"11" | b"13" | b"14" | b"16" | b"18" | b"19" | b"20" | b"21"
                ),
                _ => false,
            }
        }
        // OSC colour queries (`4;N;?`, `10;?` …) and clipboard reads end with `?`.
        Some(b']') => {
            let end = if seq.ends_with(b"\x07") { 1 } else { 2 };
            seq.len() > 2 + end && seq[..seq.len() - end].ends_with(b"?")
        }
        // DECRQSS and XTGETTCAP.
        Some(b'P') => seq[2..].starts_with(b"$q") || seq[2..].starts_with(b"+q"),
        _ => false,
    }
}

/// The length of the terminal reply `bytes` starts with: the answer a terminal writes back to
/// one of the queries [`QueryFilter`] removes (a cursor position, device attributes, a mode's
/// state, a colour, a version …), or `None` when `bytes` starts with anything else. Keys never
/// look like replies, but for one: a modified F3 (`CSI 1 ; 2 R`) has the shape of a cursor
/// position report, so a reader of input takes a reply only where one is due.
pub fn reply_len(bytes: &[u8]) -> Option<usize> {
    if bytes.first() != Some(&ESC) {
        return None;
    }
    let len = sequence_len(bytes)?;
    is_reply(&bytes[..len]).then_some(len)
}

/// Whether a complete sequence is a terminal's reply to a query.
fn is_reply(seq: &[u8]) -> bool {
    let numbers = |s: &[u8]| {
        s.iter()
            .all(|b| b.is_ascii_digit() || matches!(b, b';' | b':'))
    };
    match seq.get(1) {
        Some(b'[') => {
            let body = &seq[2..seq.len() - 1];
            let after_mark = body.get(1..).unwrap_or_default();
            match (body.first(), seq[seq.len() - 1]) {
                // DA1 (`CSI ? … c`), DA2 (`CSI > … c`).
                (Some(b'?' | b'>'), b'c') => numbers(after_mark),
                // Cursor position: CPR (`CSI row ; col R`), DECXCPR (`CSI ? row ; col ; page R`).
                (Some(b'?'), b'R') => numbers(after_mark),
                (_, b'R') => numbers(body) && body.contains(&b';'),
                // DSR status: ready.
                (_, b'n') => body == b"0",
                // DECRPM (`CSI ? Ps ; Pm $ y`, `CSI Ps ; Pm $ y`).
                (_, b'y') => body
                    .strip_suffix(b"$")
                    .is_some_and(|b| numbers(b.strip_prefix(b"?").unwrap_or(b))),
                // The kitty keyboard protocol's flags.
                (Some(b'?'), b'u') => numbers(after_mark),
                // Window reports: state, position, size in pixels or characters.
                (Some(_), b't') => numbers(body),
                _ => false,
            }
        }
        // OSC strings come from the terminal, never from a key: colours (`4;N;rgb:…`,
        // `10;rgb:…`), the clipboard, titles.
        Some(b']') => true,
        // DECRQSS (`1$r…`, `0$r`), XTGETTCAP (`1+r…`, `0+r`), XTVERSION (`>|…`).
        Some(b'P') => [&b"1$r"[..], b"0$r", b"1+r", b"0+r", b">|"]
            .iter()
            .any(|p| seq[2..].starts_with(p)),
        _ => false,
    }
}

impl QueryFilter {
    /// `bytes` without the queries in them (and without the tail of an unfinished sequence,
    /// which comes out with the next piece).
    pub fn filter(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut input = std::mem::take(&mut self.held);
        input.extend_from_slice(bytes);
        let mut out = Vec::with_capacity(input.len());
        let mut i = 0;
        while i < input.len() {
            match memchr::memchr2(ESC, 0x05, &input[i..]) {
                None => {
                    out.extend_from_slice(&input[i..]);
                    break;
                }
                Some(skip) => {
                    out.extend_from_slice(&input[i..i + skip]);
                    i += skip;
                }
            }
            // ENQ asks for the answerback message.
            if input[i] == 0x05 {
                i += 1;
                continue;
            }
            match sequence_len(&input[i..]) {
                Some(len) => {
                    if !is_query(&input[i..i + len]) {
                        out.extend_from_slice(&input[i..i + len]);
                    }
                    i += len;
                }
                None if input.len() - i <= MAX_HELD => {
                    self.held = input[i..].to_vec();
                    break;
                }
                None => {
                    out.extend_from_slice(&input[i..]);
                    break;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything the emulator answers reads back as replies, one after another, and no key
    /// (but the modified F3 the doc names) reads as one.
    #[test]
    fn the_emulators_answers_are_replies_and_keys_are_not() {
        let mut term = crate::term::Terminal::new(80, 24);
        term.advance(
            b"\x1b[c\x1b[>c\x1b[5n\x1b[6n\x1b[?6n\x1b[?25$p\x1b[4$p\x1b[?1049$p\
              \x1b]10;?\x07\x1b]11;?\x1b\\\x1b]4;1;?\x07\x1b[>q\x1b[?u\x1b[18t\x1b[14t\
              \x1bP$qm\x1b\\\x1bP+q544e\x1b\\",
        );
        let replies = term.take_replies();
        let mut rest = &replies[..];
        let mut count = 0;
        while !rest.is_empty() {
            let len = reply_len(rest)
                .unwrap_or_else(|| panic!("not a reply: {:?}", String::from_utf8_lossy(rest)));
            rest = &rest[len..];
            count += 1;
        }
        assert!(
            count >= 14,
            "{count} replies: {:?}",
            String::from_utf8_lossy(&replies)
        );

        use crate::term::keys::{KeyModes, encode_keys};
        for key in [
            "Up",
            "Ctrl+Left",
            "Home",
            "End",
            "PageUp",
            "Delete",
            "Insert",
            "F1",
            "F3",
            "F5",
            "Shift+F5",
            "F12",
            "Escape",
            "Alt+x",
            "Alt+[",
            "Alt+]",
            "Alt+P",
            "Enter",
            "Tab",
            "Shift+Tab",
            "Ctrl+C",
        ] {
            for modes in [
                KeyModes::default(),
                KeyModes {
                    cursor_keys_application: true,
                    ..KeyModes::default()
                },
                KeyModes {
                    kitty_flags: 1,
                    ..KeyModes::default()
                },
            ] {
                let bytes = encode_keys(key, modes).expect("a key");
                assert_eq!(reply_len(&bytes), None, "{key} in {modes:?}: {bytes:?}");
            }
        }
    }

    #[test]
    fn queries_go_and_everything_else_stays() {
        let mut f = QueryFilter::default();
        let stream = b"a\x1b[c\x1b[>c\x1b[6n\x1b[?1049h\x1b[1;31mred\x1b[m\x1b]11;?\x07\x1b]2;t\x07\x1bP$qm\x1b\\\x1b[?2004$p\x1b[?u\x1b[18t\x1b[2Jb\x05";
        assert_eq!(
            f.filter(stream),
            b"a\x1b[?1049h\x1b[1;31mred\x1b[m\x1b]2;t\x07\x1b[2Jb".to_vec()
        );
    }

    #[test]
    fn a_sequence_split_between_pieces_is_judged_whole() {
        let mut f = QueryFilter::default();
        assert_eq!(f.filter(b"x\x1b["), b"x");
        assert_eq!(f.filter(b"6"), b"");
        assert_eq!(f.filter(b"ny\x1b]10"), b"y");
        assert_eq!(f.filter(b";?\x1b\\z"), b"z");
        assert_eq!(f.filter(b"\x1b[3"), b"");
        assert_eq!(f.filter(b"1mw"), b"\x1b[31mw");
    }
}
