//! Telling apart, in a program's output, the sequences that ask the terminal something (device
//! attributes, the cursor position, a mode's state, a colour …): a second terminal showing the
//! same output — `session attach` — must not answer them too, or its answers reach the program
//! as typed input. [`QueryFilter`] passes everything else through unchanged.

/// Removes terminal queries from a byte stream given in pieces (a sequence split between two
/// pieces is held until it is complete; one longer than [`MAX_HELD`] is passed on as it is).
#[derive(Clone, Debug, Default)]
pub struct QueryFilter {
    held: Vec<u8>,
}

/// The longest unfinished sequence held back.
pub const MAX_HELD: usize = 4096;

const ESC: u8 = 0x1b;

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
