//! `Terminal::keyframe`: the redrawn screen plus the state later output relies on. A terminal
//! restored from a keyframe answers every mode and setting query as the original does, and
//! the same further output leaves both with the same screen.

use shotty::term::{Snapshot, Terminal};

use crate::common::Rng;
use crate::support::fixtures;

/// Queries for every state a keyframe restores: DECRQM of each mode, DECRQSS of the margins,
/// pen, cursor style and protection, and the cursor position. None of them changes the state.
const PROBE: &[u8] = b"\x1b[4$p\x1b[20$p\x1b[?1$p\x1b[?5$p\x1b[?6$p\x1b[?7$p\x1b[?12$p\x1b[?25$p\
\x1b[?40$p\x1b[?66$p\x1b[?69$p\x1b[?9$p\x1b[?1000$p\x1b[?1002$p\x1b[?1003$p\x1b[?1004$p\
\x1b[?1005$p\x1b[?1006$p\x1b[?1015$p\x1b[?1049$p\x1b[?2004$p\
\x1bP$qr\x1b\\\x1bP$qs\x1b\\\x1bP$qm\x1b\\\x1bP$q q\x1b\\\x1bP$q\"q\x1b\\\x1b[6n";

fn fed(width: usize, height: usize, bytes: &[u8]) -> Terminal {
    let mut t = Terminal::new(width, height);
    t.advance(bytes);
    let _ = t.take_replies();
    t
}

fn probe(t: &mut Terminal) -> String {
    t.advance(PROBE);
    String::from_utf8_lossy(&t.take_replies()).into_owned()
}

/// The screen without the scrollback count (a keyframe holds no scrollback).
fn screen(t: &Terminal) -> Snapshot {
    Snapshot {
        scrollback_lines: 0,
        ..t.snapshot()
    }
}

/// Cuts `input` at `cut`: the terminal restored from the keyframe there must report the same
/// state as the original, and (when `then` is given) show the same screen after it.
#[track_caller]
fn check(width: usize, height: usize, input: &[u8], cut: usize, then: Option<&[u8]>, what: &str) {
    let mut original = fed(width, height, &input[..cut]);
    let mut copy = fed(width, height, &original.keyframe());
    assert_eq!(screen(&copy), screen(&original), "{what}: screen at {cut}");
    assert_eq!(
        probe(&mut copy),
        probe(&mut original),
        "{what}: modes and settings at {cut}"
    );
    if let Some(rest) = then {
        original.advance(rest);
        copy.advance(rest);
        assert_eq!(
            screen(&copy).rows,
            screen(&original).rows,
            "{what}: the screen after the output following {cut}"
        );
        assert_eq!(
            screen(&copy).cursor,
            screen(&original).cursor,
            "{what}: cursor"
        );
    }
}

#[test]
fn fixtures_report_the_same_state_at_many_points() {
    for fixture in fixtures() {
        let (w, h) = (80, 24);
        let step = (fixture.bytes.len() / 23).max(1);
        for cut in (0..fixture.bytes.len()).step_by(step) {
            let Some(cut) = (0..=cut)
                .rev()
                .find(|&c| !inside_sequence(&fixture.bytes[..c]))
            else {
                continue;
            };
            check(w, h, &fixture.bytes, cut, None, &fixture.name);
        }
    }
}

#[test]
fn later_output_lands_as_it_would_have() {
    // What programs set before a cut and rely on after it.
    let cases: &[(&str, &[u8], &[u8])] = &[
        (
            "scroll region",
            b"top\x1b[2;4r\x1b[4;1Hone",
            b"\ntwo\nthree\nfour",
        ),
        (
            "origin mode",
            b"\x1b[3;5r\x1b[?6h\x1b[2;3Hx",
            b"\x1b[1;1Hhome\x1b[9;1Hlow",
        ),
        (
            "side margins",
            b"\x1b[?69h\x1b[3;8s\x1b[2;3H",
            b"abcdefghijkl\x1b[5C!",
        ),
        ("insert mode", b"abcdef\x1b[4h\x1b[1;2H", b"XY"),
        ("autowrap off", b"\x1b[?7l\x1b[1;8H", b"abcdef"),
        ("linefeed newline", b"\x1b[20h\x1b[1;5Hab", b"\ncd"),
        ("pen", b"\x1b[1;3;38;5;208;48:2::1:2:3mcol", b"our"),
        // Protected cells are not restored (a snapshot does not say which are); the pen is.
        (
            "protected pen",
            b"\x1b[1\"q\x1b[2;1H",
            b"kept\x1b[2;1H\x1b[?2K",
        ),
        ("cursor style", b"\x1b[5 q\x1b[?12h", b""),
        (
            "keys and mouse",
            b"\x1b[?1h\x1b=\x1b[?1002h\x1b[?1006h\x1b[?2004h\x1b[?1004h",
            b"",
        ),
        ("reverse video", b"\x1b[?5hx", b"y"),
        ("charsets", b"\x1b(0\x1b)B\x1b+A", b"qqq\x0eqq\x0fq\x1bo#"),
        ("single shift", b"\x1b*0\x1bN", b"qq"),
        ("tab stops", b"\x1b[3g\x1b[1;4H\x1bH\x1b[1;1H", b"\tX\tY"),
        (
            "saved cursor",
            b"\x1b[2;3H\x1b[1;32m\x1b(0\x1b7\x1b[m\x1b(B\x1b[5;1H",
            b"q\x1b8q",
        ),
        ("pending wrap", b"0123456789", b"X"),
        ("pending wrap, wide", "01234567\u{4e2d}".as_bytes(), b"X"),
        (
            "pending wrap, combining",
            "012345678e\u{301}".as_bytes(),
            b"X",
        ),
        ("saved pending wrap", b"0123456789\x1b7\x1b[3;1H", b"\x1b8X"),
        ("link", b"\x1b]8;id=7;http://a\x1b\\li", b"nk"),
    ];
    for &(what, before, after) in cases {
        let input = [before, after].concat();
        check(10, 5, &input, before.len(), Some(after), what);
    }
}

#[test]
fn random_streams_continue_alike() {
    // Sequences whose state a keyframe restores (the alternate screen is not: the primary
    // screen behind it is not in a snapshot).
    const PIECES: &[&[u8]] = &[
        b"a",
        b"bc",
        b"xyz ",
        b"\r",
        b"\n",
        b"\x08",
        b"\t",
        b"\x1b[m",
        b"\x1b[1;31m",
        b"\x1b[4:3;58;5;9m",
        b"\x1b[7m",
        b"\x1b[2;4r",
        b"\x1b[r",
        b"\x1b[?6h",
        b"\x1b[?6l",
        b"\x1b[?69h",
        b"\x1b[2;7s",
        b"\x1b[?69l",
        b"\x1b[4h",
        b"\x1b[4l",
        b"\x1b[?7l",
        b"\x1b[?7h",
        b"\x1b[20h",
        b"\x1b[20l",
        b"\x1b[H",
        b"\x1b[3;2H",
        b"\x1b[5G",
        b"\x1b[2J",
        b"\x1b[K",
        b"\x1b[S",
        b"\x1b[T",
        b"\x1b[L",
        b"\x1b[M",
        b"\x1b[2@",
        b"\x1b[P",
        b"\x1bM",
        b"\x1bD",
        b"\x1b[1\"q",
        b"\x1b[0\"q",
        b"\x1b[?1h",
        b"\x1b[3 q",
        "\u{4e2d}".as_bytes(),
        "e\u{301}".as_bytes(),
        b"qx",
        b"\x1b(0",
        b"\x1b(B",
        b"\x1b)0",
        b"\x1b*A",
        b"\x0e",
        b"\x0f",
        b"\x1bn",
        // A single shift pending when DECSC saves it is not restored: its character follows.
        b"\x1bNq",
        b"\x1b7",
        b"\x1b8",
        b"\x1bH",
        b"\x1b[g",
        b"\x1b[3g",
        b"\x1b]8;;http://a\x1b\\",
        b"\x1b]8;;\x1b\\",
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut next = move || rng.next();
    for round in 0..300 {
        let len = 5 + (next() % 60) as usize;
        let input: Vec<u8> = (0..len)
            .flat_map(|_| PIECES[(next() as usize) % PIECES.len()].iter().copied())
            .collect();
        let cut = (next() as usize) % input.len();
        // A keyframe describes a terminal between sequences: cut where the parser is idle.
        let Some(cut) = (0..=cut).rev().find(|&c| !inside_sequence(&input[..c])) else {
            continue;
        };
        let original = fed(9, 5, &input[..cut]);
        let (state, cursor) = (original.screen(), original.screen().cursor());
        let ((top, bottom), (left, right)) = (state.scroll_region(), state.side_margins());
        let outside =
            !(top..=bottom).contains(&cursor.row) || !(left..=right).contains(&cursor.col);
        let waits_on_wrapped_row = cursor.pending_wrap && state.grid().row(cursor.row).wrapped;
        if (state.modes().origin && outside) || waits_on_wrapped_row {
            // Only DECRC puts the cursor there; not restored.
            continue;
        }
        check(
            9,
            5,
            &input,
            cut,
            Some(&input[cut..]),
            &format!("round {round}"),
        );
    }
}

/// Whether `bytes` ends inside an escape sequence, a string or a UTF-8 character.
fn inside_sequence(bytes: &[u8]) -> bool {
    if ends_mid_character(bytes) {
        return true;
    }
    let Some(esc) = bytes.iter().rposition(|&b| b == 0x1b) else {
        return false;
    };
    let tail = &bytes[esc + 1..];
    match tail.split_first() {
        None => true,
        Some((b'[', rest)) => !rest.iter().any(|b| (0x40..=0x7e).contains(b)),
        // OSC ends with BEL here (or with ESC \, whose ESC is then the last one).
        Some((b']', rest)) => !rest.contains(&0x07),
        // DCS, SOS, PM, APC end only with ESC \.
        Some((b'P' | b'X' | b'^' | b'_', _)) => true,
        // Intermediates (charset designations, DEC line sizes) need their final byte.
        Some((0x20..=0x2f, rest)) => rest.is_empty(),
        Some(_) => false,
    }
}

/// Whether `bytes` ends with the start of a UTF-8 character whose other bytes are missing.
fn ends_mid_character(bytes: &[u8]) -> bool {
    let start = bytes.len().saturating_sub(4);
    let tail = &bytes[start..];
    match tail.iter().rposition(|&b| b & 0xc0 != 0x80) {
        Some(lead) => {
            let needed = match tail[lead] {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            tail.len() - lead < needed
        }
        None => false,
    }
}

/// A recording past its limit starts from a keyframe; a keyframe taken inside an escape
/// sequence or a UTF-8 character must end with what has come of it, or the rest of it would
/// replay as text. Output arrives in chunks of 3 to 13 bytes, so many keyframes are due
/// inside a sequence.
#[test]
fn a_recording_replays_from_a_keyframe_taken_inside_a_sequence() {
    use shotty::recording::{Event, Start, Timeline};
    use std::time::Duration;
    let mut stream = Vec::new();
    for i in 0..20_000u32 {
        stream.extend(format!("\x1b[{};1H\x1b[3{}m{i:05}é\x1b[0m", i % 8 + 1, i % 8).bytes());
        if i % 1000 == 0 {
            // A title ended by BEL, then text: the parser is back between sequences.
            stream.extend(format!("\x1b]0;title {i}\x07").bytes());
        }
    }
    let mut inside = 0;
    for size in 3..=13 {
        let mut term = Terminal::new(40, 10);
        let mut timeline = Timeline::new(40, 10, 64 << 10);
        let mut end = 0;
        for (n, chunk) in stream.chunks(size).enumerate() {
            let at = Duration::from_millis(n as u64);
            end += chunk.len();
            term.advance(chunk);
            timeline.push(at, Event::Output(chunk.to_vec()));
            inside += usize::from(timeline.wants_keyframe() && inside_sequence(&stream[..end]));
            timeline.keyframe_if_due(at, &term);
        }
        assert!(timeline.dropped_events() > 0, "{size}: nothing was dropped");
        let Start::Keyframe(frame) = timeline.start() else {
            panic!("{size}: the recording starts blank")
        };
        let mut replayed = Terminal::new(40, 10);
        replayed.advance(&frame.bytes);
        for e in timeline.events() {
            if let Event::Output(bytes) = &e.event {
                replayed.advance(bytes);
            }
        }
        assert_eq!(replayed.text(), term.text(), "{size}-byte chunks");
        assert_eq!(screen(&replayed), screen(&term), "{size}-byte chunks");
    }
    assert!(
        inside > 20,
        "only {inside} keyframes were due inside a sequence"
    );
}
