//! The bulk ASCII path of [`Terminal::advance`] against the parser's own character-by-character
//! path: the same bytes must leave the same screen, scrollback and replies.

use super::parser::Dispatcher;
use super::{Screen, Terminal, TerminalOptions, snapshot};

/// The screen as `vte` alone leaves it: one `print` per character, never `print_ascii`.
fn per_character(input: &[u8], width: usize, height: usize) -> Screen {
    let mut screen = Screen::new(width, height, TerminalOptions::default());
    let mut parser = vte::Parser::new();
    parser.advance(&mut Dispatcher::new(&mut screen), input);
    screen
}

#[track_caller]
fn assert_same(input: &[u8], width: usize, height: usize) {
    let mut reference = per_character(input, width, height);
    let mut bulk = Terminal::new(width, height);
    bulk.advance(input);
    let shown = String::from_utf8_lossy(&input[..input.len().min(120)]);
    assert_eq!(
        snapshot::build_history(bulk.screen(), usize::MAX),
        snapshot::build_history(&reference, usize::MAX),
        "scrollback and screen differ for {shown:?}"
    );
    assert_eq!(
        bulk.snapshot(),
        snapshot::build(&reference),
        "screen differs for {shown:?}"
    );
    assert_eq!(
        bulk.take_replies(),
        reference.take_replies(),
        "replies differ for {shown:?}"
    );
}

#[test]
fn recorded_programs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("tests/fixtures") {
        let path = entry.expect("fixture entry").path();
        if path.extension().is_some_and(|e| e == "bin") {
            let bytes = std::fs::read(&path).expect("fixture readable");
            for (w, h) in [(80, 24), (37, 9)] {
                assert_same(&bytes, w, h);
            }
            seen += 1;
        }
    }
    assert!(seen >= 10, "only {seen} fixtures found");
}

#[test]
fn text_against_every_kind_of_boundary() {
    let cases: &[&[u8]] = &[
        // Wrapping at the edge, with and without autowrap; pending wrap then more text.
        b"0123456789abcdefghijklmnopqrstuvwxyz0123456789",
        b"\x1b[?7l0123456789abcdefghijklmnopqrstuvwxyz\x1b[?7hXY",
        // Left/right margins, origin mode, text crossing the right margin.
        b"\x1b[?69h\x1b[5;15s\x1b[?6h\x1b[2;1Habcdefghijklmnopqrstuvw",
        // Double-width and double-height rows.
        b"\x1b#6double width text longer than half\r\n\x1b#3tall\r\n\x1b#4tall",
        // Protection, then a selective erase.
        b"\x1b[1\"qkept\x1b[0\"q gone\x1b[?2K after",
        // Insert mode over text, charsets, single shifts.
        b"abcdef\x1b[4h\x1b[1;3HXYZ\x1b[4l\x1b(0lqqk\x1b(B\x1bNab",
        // A wide character under the run, then overwritten; combining marks after ASCII.
        "中文\x1b[1;2Hxy\x1b[1;1He\u{301}x".as_bytes(),
        // UTF-8 cut short by ASCII, by ESC and at the end; C1 controls as UTF-8; DEL.
        b"a\xe4b\xe4\x1b[mc\xc3\xa9d\xc2\x85e\x7ff\xe4",
        // C0 controls inside a CSI, CAN/SUB aborting one, a CSI ignored for its parameters.
        b"ab\x1b[1\n;31mcd\x1b[3\x18ef\x1b[3\x1agh\x1b[1;2:3:4;5<mij",
        // OSC ended by BEL and by ST, DCS, SOS/PM/APC, then text.
        b"\x1b]0;title\x07ab\x1b]2;t\x1b\\cd\x1bP$qm\x1b\\ef\x1b_apc\x1b\\gh\x1bXsos\x1b\\ij",
        // REP after a run, tabs, backspace, CR/LF inside runs.
        b"abc\x1b[5bdef\tgh\x08\x08ij\r\nkl\x0bmn",
        // Replies in the middle of text.
        b"ab\x1b[6ncd\x1b[?69$pef\x1b[cgh",
        // Colours and attributes changing between runs; scroll region scrolling.
        b"\x1b[2;4r\x1b[4;1H\x1b[31mred\n\x1b[1mbold\n\x1b[38;2;1;2;3mtrue\n\x1b[0mplain\n",
    ];
    for input in cases {
        for (w, h) in [(10, 4), (20, 5), (80, 24)] {
            assert_same(input, w, h);
        }
    }
}

#[test]
fn random_streams() {
    // A fixed-seed xorshift over an alphabet dense in sequence starts and boundaries.
    const ALPHABET: &[&[u8]] = &[
        b"a",
        b"b",
        b"Z",
        b" ",
        b"0",
        b"1",
        b";",
        b":",
        b"?",
        b"[",
        b"m",
        b"H",
        b"J",
        b"K",
        b"r",
        b"s",
        b"h",
        b"l",
        b"#",
        b"6",
        b"\x1b",
        b"\x1b[",
        b"\r",
        b"\n",
        b"\t",
        b"\x08",
        b"\x07",
        b"\x18",
        b"\xe4",
        b"\xb8",
        b"\xad",
        b"\xc3",
        // No lone 0x80–0x9F: the ground state prints it as U+FFFD where the parser alone
        // executes it (tests/term/xterm.rs has that case).
        b"\x7f",
        b"\x1b]0;",
        b"\x1b\\",
        b"\x1b(0",
        b"\x1b(B",
        b"\x1b[4h",
        b"\x1b[?69h",
        b"\x1b[2;6s",
        "中".as_bytes(),
        "é".as_bytes(),
        "\u{301}".as_bytes(),
        "😀".as_bytes(),
        "\u{85}".as_bytes(),
        "\u{9b}".as_bytes(),
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..300 {
        let len = (next() % 400) as usize;
        let mut input = Vec::new();
        for _ in 0..len {
            // Text runs of several letters are what the bulk path takes.
            if next() % 3 == 0 {
                let run = (next() % 12) as usize;
                input.extend(std::iter::repeat_n(b'x', run));
            } else {
                input.extend_from_slice(ALPHABET[(next() as usize) % ALPHABET.len()]);
            }
        }
        assert_same(&input, 12, 5);
    }
}
