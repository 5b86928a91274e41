//! Differential test against real xterm, the reference the emulator follows.
//!
//! Each case's bytes go to shotty's `Terminal` and to a fresh xterm (Debian's `xterm` on a
//! private Xvfb display, 80×24, UTF-8). Replies to the case's own queries are compared byte
//! for byte. xterm reports its own state: the cursor through a cursor position report, the
//! saved lines and the screen through media copy (`CSI ? 11 i` with `printAttributes: 2`:
//! every row's line size, its text and the SGR attributes of each cell). On the alternate
//! screen xterm prints only that screen, so the scrollback is compared on the primary one. Compared per cell:
//! the text (a wide character's right half as a spacer), bold, dim, italic, underline (any
//! style), blink, inverse, strike, foreground and background (default, palette entry or
//! RGB); per row the line size; and the cursor.
//!
//! Media copy has limits the comparison follows: a blank's attributes are not printed (and
//! trailing blanks not at all), concealed text is printed as blanks, and a plain character
//! printed after an attributed one of the same colours gets no new SGR (xterm resets its
//! "last attributes" for every cell), so it reads as having the previous one's. shotty's
//! screen is read through the same rules ([`as_printed`]).
//!
//! Cases in [`KNOWN`] differ on purpose or are features shotty does not have yet: each must
//! still differ (so the entry goes when the feature lands) and is listed in
//! `tests/KNOWN_DIFFERENCES.md`.
//!
//! Needs `xterm` and `Xvfb` (`tests/install-deps` installs them; without, the test is skipped
//! outside CI). `XTERM_CASE=name` runs one case.

use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use shotty::term::{ColorValue, Snapshot, StyleSnapshot, Terminal};

use crate::support::{escape_bytes, needs};

const WIDTH: usize = 80;
const HEIGHT: usize = 24;

/// The cases: a name and the bytes, grouped by sequence family.
const CASES: &[(&str, &str)] = &[
    // Text, wrapping, autowrap.
    ("text and CRLF", "hello\r\nworld\r\n\tTab"),
    (
        "wrap at the margin",
        concat!(
            "0123456789012345678901234567890123456789",
            "0123456789012345678901234567890123456789",
            "wrapped"
        ),
    ),
    (
        "pending wrap then CR",
        concat!(
            "0123456789012345678901234567890123456789",
            "0123456789012345678901234567890123456789",
            "\rX"
        ),
    ),
    (
        "autowrap off overwrites the last column",
        concat!(
            "\x1b[?7l",
            "0123456789012345678901234567890123456789",
            "0123456789012345678901234567890123456789",
            "ABC"
        ),
    ),
    ("bare LF keeps the column", "abc\ndef\nghi"),
    ("backspace and overwrite", "abcdef\x08\x08XY"),
    // Cursor movement.
    ("CUP HVP CHA VPA", "\x1b[5;10Ha\x1b[2;3fb\x1b[20Gc\x1b[8dd"),
    (
        "CUU CUD CUF CUB stop at the edges",
        "\x1b[12;40H\x1b[99Au\x1b[99Bd\x1b[99Cr\x1b[99Dl",
    ),
    ("CNL CPL", "\x1b[10;10Hx\x1b[3Ey\x1b[2Fz"),
    ("HPR VPR HPA", "\x1b[3;3H\x1b[5aa\x1b[4eb\x1b[60`c"),
    (
        "save and restore the cursor (DECSC/DECRC)",
        "\x1b[5;5H\x1b[1;31m\x1b7\x1b[10;10H\x1b[0mplain\x1b8restored",
    ),
    (
        "save and restore (CSI s/u)",
        "\x1b[7;7H\x1b[s\x1b[1;1Hhome\x1b[uback",
    ),
    (
        "IND RI NEL",
        "\x1b[24;1Hbottom\x1bDnext\x1b[1;1H\x1bMtop\x1bEnel",
    ),
    // Erasing.
    (
        "ED 0 1 2",
        "\x1b[2J\x1b[1;1HAAAAAAAAAA\r\nBBBBBBBBBB\r\nCCCCCCCCCC\x1b[2;5H\x1b[0J\x1b[1;3H\x1b[1J",
    ),
    (
        "EL 0 1 2",
        "0123456789\r\n0123456789\r\n0123456789\x1b[1;5H\x1b[K\x1b[2;5H\x1b[1K\x1b[3;5H\x1b[2K",
    ),
    ("ECH", "0123456789\x1b[1;3H\x1b[4X"),
    (
        "erase with a background colour (BCE)",
        "\x1b[44m\x1b[2;1H\x1b[K\x1b[5;5H\x1b[3X\x1b[0m",
    ),
    // Insert and delete.
    ("ICH DCH", "0123456789\x1b[1;3H\x1b[2@\x1b[1;8H\x1b[3P"),
    (
        "IL DL",
        "1\r\n2\r\n3\r\n4\r\n5\x1b[2;1H\x1b[2L\x1b[5;1H\x1b[1M",
    ),
    ("insert mode (IRM)", "abcdef\x1b[1;3H\x1b[4hXY\x1b[4l"),
    ("REP", "x\x1b[5b\r\n\x1b[1;32my\x1b[3b"),
    (
        "REP after a control or a sequence repeats nothing",
        "a\r\n\x1b[3bb\x1b[1m\x1b[3bc\x07\x1b[3bd\x1b]0;t\x07\x1b[3b",
    ),
    // Scrolling regions.
    (
        "DECSTBM and LF at the bottom margin",
        "\x1b[5;10r\x1b[10;1Hbottom\n\nafter\x1b[r",
    ),
    (
        "SU SD inside the region",
        "1\r\n2\r\n3\r\n4\r\n5\r\n6\x1b[2;5r\x1b[2S\x1b[1T\x1b[r",
    ),
    (
        "RI at the top margin",
        "1\r\n2\r\n3\r\n4\x1b[2;4r\x1b[2;1H\x1bM\x1bM\x1b[r",
    ),
    (
        "origin mode",
        "\x1b[5;15r\x1b[?6h\x1b[1;1Horigin\x1b[99;1Hlast\x1b[?6l\x1b[r\x1b[20;1H",
    ),
    // Tabs.
    ("HT CHT CBT", "a\tb\x1b[2Ic\x1b[3Zd"),
    (
        "HTS and TBC",
        "\x1b[3g\x1b[1;5H\x1bH\x1b[1;13H\x1bH\r\tx\ty\tz\x1b[1;5H\x1b[0g\r\tw",
    ),
    // SGR.
    (
        "SGR attributes",
        "\x1b[1mB\x1b[22;2mD\x1b[22;3mI\x1b[23;4mU\x1b[24;5mK\x1b[25;7mR\x1b[27;9mS\x1b[0mN",
    ),
    (
        "SGR colours with their values missing",
        "\x1b[38;2;1;2mA\x1b[0m \x1b[38;5mB\x1b[0m \x1b[48;2;7mC\x1b[0m \x1b[38;2mD",
    ),
    (
        "DECALN resets the pen",
        "\x1b[1;4;9;31;44mA\x1b#8\x1b[5;5HB",
    ),
    (
        "SGR 16 colours",
        "\x1b[31mr\x1b[42mg\x1b[93my\x1b[104mb\x1b[39mx\x1b[49mz",
    ),
    (
        "SGR 256 and true colour",
        "\x1b[38;5;196ma\x1b[48;5;21mb\x1b[0m\x1b[38;2;1;2;3mc\x1b[48:2::10:20:30md",
    ),
    ("SGR concealed", "\x1b[8mhidden\x1b[28mshown"),
    (
        "SGR resets",
        "\x1b[1;3;4;7mx\x1b[mplain\x1b[1;31my\x1b[0;4mz",
    ),
    // Character sets.
    (
        "DEC special graphics",
        "\x1b(0lqqk\r\nx  x\r\nmqqj\x1b(B ascii",
    ),
    ("SO SI with G1 graphics", "\x1b)0a\x0eqq\x0fb"),
    // Wide characters.
    ("wide characters", "日本語 ok\r\n\x1b[1;79H語"),
    (
        "overwriting half of a wide character",
        "日本\x1b[1;2Hx\x1b[2;1H日本\x1b[2;3Hy",
    ),
    // Modes and screens.
    ("alternate screen 1049", "main\x1b[?1049halt\x1b[?1049l"),
    (
        "alternate screen 47 keeps the cursor",
        "main\x1b[?47h\x1b[5;5Halt\x1b[?47l",
    ),
    ("DECSTR soft reset", "\x1b[1;31m\x1b[?6h\x1b[4h\x1b[!pafter"),
    ("cursor hidden", "\x1b[?25lx"),
    ("DECALN fills the screen with E", "\x1b[1;31m\x1b#8"),
    ("RIS resets everything", "\x1b[1;31mtext\x1b[5;5r\x1bc"),
    // Protected characters: DECSCA with the selective erases, SPA/EPA with every erase.
    (
        "DECSCA with DECSED and DECSEL",
        "\x1b[1\"qPROT\x1b[0\"qfree\x1b[1;1H\x1b[?2K\r\n\x1b[1\"qP\x1b[0\"qf\x1b[?0J",
    ),
    (
        "ED and EL erase DEC-protected characters",
        "\x1b[1\"qPROT\x1b[0\"qfree\r\nPROT2\x1b[1;1H\x1b[2K\x1b[2;3H\x1b[J",
    ),
    (
        "ECH spares DEC-protected characters",
        "\x1b[1\"qABC\x1b[0\"qdef\x1b[1;1H\x1b[6X",
    ),
    (
        "DECSED 1 and DECSEL 1 spare protected characters",
        "ab\x1b[1\"qCD\x1b[2\"qef\r\nghij\x1b[2;3H\x1b[?1J\x1b[1;6H\x1b[?1K",
    ),
    (
        "SPA and EPA guard against ED and EL",
        "\x1bVguard\x1bWfree\x1b[1;1H\x1b[K\r\n\x1bVg2\x1bWf2\x1b[2J\x1b[3;1H",
    ),
    (
        "DECSCA is saved with the cursor",
        "\x1b[1\"q\x1b7\x1b[0\"q\x1b8SAVED\x1b[0\"qx\x1b[1;1H\x1b[?K",
    ),
    (
        "DECSTR ends protection",
        "\x1b[1\"q\x1b[!pafter\x1b[1;1H\x1b[?K",
    ),
    (
        "DECSED 2 with nothing protected, then protected text",
        "\x1b[1\"q\x1b[?2JX\x1b[?2J",
    ),
    (
        "protected wide characters",
        "\x1b[1\"q\u{65e5}\x1b[0\"q\u{672c}\x1b[1;1H\x1b[?K",
    ),
    // DECCOLM.
    (
        "DECCOLM without mode 40 changes nothing",
        "text\x1b[5;10r\x1b[3;3H\x1b[?3hafter",
    ),
    (
        "DECCOLM with mode 40 clears and homes",
        "text\x1b[5;10r\x1b[3;3H\x1b[?40h\x1b[?3hwide\x1b[?3lnarrow\x1b[6n",
    ),
    (
        "DECCOLM to 132 columns",
        "\x1b[?40h\x1b[?3h\x1b[1;100Hfar\x1b[24;132Hend",
    ),
    // The scrollback.
    (
        "lines scrolled off the top are saved",
        "line01\r\nline02\r\nline03\r\nline04\r\nline05\r\nline06\r\nline07\r\nline08\r\nline09\r\nline10\r\nline11\r\nline12\r\nline13\r\nline14\r\nline15\r\nline16\r\nline17\r\nline18\r\nline19\r\nline20\r\nline21\r\nline22\r\nline23\r\nline24\r\nline25\r\nline26\r\nline27\r\nline28\r\nline29\r\nline30\r\nlast",
    ),
    (
        "RIS keeps the scrollback",
        "line01\r\nline02\r\nline03\r\nline04\r\nline05\r\nline06\r\nline07\r\nline08\r\nline09\r\nline10\r\nline11\r\nline12\r\nline13\r\nline14\r\nline15\r\nline16\r\nline17\r\nline18\r\nline19\r\nline20\r\nline21\r\nline22\r\nline23\r\nline24\r\nline25\r\nline26\r\nline27\r\nline28\r\nline29\r\nline30\r\n\x1bc",
    ),
    (
        "ED 3 clears the scrollback",
        "line01\r\nline02\r\nline03\r\nline04\r\nline05\r\nline06\r\nline07\r\nline08\r\nline09\r\nline10\r\nline11\r\nline12\r\nline13\r\nline14\r\nline15\r\nline16\r\nline17\r\nline18\r\nline19\r\nline20\r\nline21\r\nline22\r\nline23\r\nline24\r\nline25\r\nline26\r\nline27\r\nline28\r\nline29\r\nline30\r\n\x1b[3J",
    ),
    (
        "a scroll region saves nothing",
        "\x1b[2;10r\x1b[10;1Hline01\r\nline02\r\nline03\r\nline04\r\nline05\r\nline06\r\nline07\r\nline08\r\nline09\r\nline10\r\nline11\r\nline12\r\nline13\r\nline14\r\nline15\r\nline16\r\nline17\r\nline18\r\nline19\r\nline20\r\nline21\r\nline22\r\nline23\r\nline24\r\nline25\r\nline26\r\nline27\r\nline28\r\nline29\r\nline30\r\n",
    ),
    (
        "a region from the top row saves its lines",
        "\x1b[1;10r\x1b[10;1Hline01\r\nline02\r\nline03\r\nline04\r\nline05\r\nline06\r\nline07\r\nline08\r\nline09\r\nline10\r\nline11\r\nline12\r\nline13\r\nline14\r\nline15\r\nline16\r\nline17\r\nline18\r\nline19\r\nline20\r\nline21\r\nline22\r\nline23\r\nline24\r\nline25\r\nline26\r\nline27\r\nline28\r\nline29\r\nline30\r\n\x1b[r",
    ),
    (
        "the alternate screen saves nothing",
        "\x1b[?1049hline01\r\nline02\r\nline03\r\nline04\r\nline05\r\nline06\r\nline07\r\nline08\r\nline09\r\nline10\r\nline11\r\nline12\r\nline13\r\nline14\r\nline15\r\nline16\r\nline17\r\nline18\r\nline19\r\nline20\r\nline21\r\nline22\r\nline23\r\nline24\r\nline25\r\nline26\r\nline27\r\nline28\r\nline29\r\nline30\r\n\x1b[?1049l",
    ),
    // Replies.
    ("DSR and CPR", "\x1b[5n\x1b[3;7H\x1b[6n\x1b[?6n"),
    ("CPR at the pending wrap", concat!("\x1b[1;80Hx", "\x1b[6n")),
    (
        "CPR in origin mode",
        "\x1b[5;10r\x1b[?6h\x1b[2;3H\x1b[6n\x1b[?6l\x1b[r",
    ),
    (
        "DECRQM of ANSI modes",
        "\x1b[4$p\x1b[20$p\x1b[4h\x1b[4$p\x1b[4l\x1b[99$p",
    ),
    (
        "DECRQM of DEC modes",
        "\x1b[?1$p\x1b[?6$p\x1b[?7$p\x1b[?25$p\x1b[?47$p\x1b[?1000$p\x1b[?1002$p\x1b[?1006$p\x1b[?1049$p\x1b[?2004$p",
    ),
    (
        "DECRQM after setting DEC modes",
        "\x1b[?1h\x1b[?1000h\x1b[?1006h\x1b[?2004h\x1b[?1$p\x1b[?1000$p\x1b[?1006$p\x1b[?2004$p\x1b[?1l\x1b[?1000l\x1b[?1006l\x1b[?2004l",
    ),
    (
        "DECRQM of more DEC modes",
        "\x1b[?3$p\x1b[?5$p\x1b[?12$p\x1b[?40$p\x1b[?66$p\x1b[?1004$p\x1b[?1005$p\x1b[?1015$p\x1b[?40h\x1b[?40$p\x1b[?3h\x1b[?3$p\x1b[?3l\x1b[?40l",
    ),
    (
        "DECRQSS SGR",
        "\x1b[1;4;31;48;5;17m\x1bP$qm\x1b\\\x1b[0m\x1bP$qm\x1b\\",
    ),
    (
        "DECRQSS DECSTBM and DECSCUSR",
        "\x1b[3;20r\x1bP$qr\x1b\\\x1b[r\x1b[4 q\x1bP$q q\x1b\\\x1b[0 q",
    ),
    (
        "DECRQSS DECSCA",
        "\x1b[1\"q\x1bP$q\"q\x1b\\\x1b[0\"q\x1bP$q\"q\x1b\\",
    ),
    ("DECRQSS of something unknown", "\x1bP$qz\x1b\\"),
    (
        "XTGETTCAP",
        "\x1bP+q544e\x1b\\\x1bP+q436f\x1b\\\x1bP+q636f6c6f7273\x1b\\\x1bP+q6b63757531\x1b\\\x1bP+q6b6631\x1b\\\x1bP+q6b6433\x1b\\\x1bP+q7a7a\x1b\\",
    ),
    (
        "XTGETTCAP of keys in both cursor key modes",
        "\x1bP+q6b636274\x1b\\\x1bP+q6b6273\x1b\\\x1bP+q6b4c4654\x1b\\\x1bP+q6b663130\x1b\\\x1bP+q6b663132\x1b\\\x1bP+q6b686f6d65\x1b\\\x1bP+q6b646368\x1b\\\x1b[?1h\x1bP+q6b63757531\x1b\\\x1bP+q6b686f6d65\x1b\\\x1bP+q6b656e64\x1b\\\x1b[?1l",
    ),
    (
        "XTGETTCAP of several names at once",
        "\x1bP+q544e;436f\x1b\\\x1bP+q524742\x1b\\\x1bP+q436f;7a7a;544e\x1b\\\x1bP+q7a7a;544e\x1b\\\x1bP+q436f;\x1b\\\x1bP+q5g\x1b\\",
    ),
    ("text area size report", "\x1b[18t"),
    // Different on purpose (see KNOWN).
    ("DA1 DA2 DA3", "\x1b[c\x1b[>c\x1b[=c"),
    ("DECRQSS DECSCL", "\x1bP$q\"p\x1b\\"),
    ("DECRQM 2026", "\x1b[?2026$p"),
    // Left and right margins.
    (
        "DECLRMM and DECSLRM",
        "\x1b[?69h\x1b[10;20s\x1b[1;10H0123456789abcdef\x1b[?69l",
    ),
    (
        "CR, CUF, CUB and tabs inside the margins",
        "\x1b[?69h\x1b[10;20s\x1b[5;15Habc\rX\x1b[50CY\x1b[50DZ\tT\x1b[?69l",
    ),
    (
        "ICH and DCH inside the margins",
        "0123456789012345678901234\x1b[?69h\x1b[5;15s\x1b[1;8H\x1b[3@\x1b[1;10H\x1b[2P\x1b[1;2H\x1b[2@",
    ),
    (
        "IL and DL inside the margins",
        "0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\x1b[?69h\x1b[3;8s\x1b[2;6r\x1b[3;4H\x1b[2L\x1b[5;5H\x1b[1M\x1b[1;1H\x1b[L",
    ),
    (
        "scrolling inside the margins",
        "0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\x1b[?69h\x1b[3;8s\x1b[2;6r\x1b[6;4H\nnew\x1b[2S\x1b[1T\x1b[2;5H\x1bM\x1bM",
    ),
    (
        "origin mode with side margins",
        "\x1b[?69h\x1b[5;20s\x1b[3;10r\x1b[?6h\x1b[1;1Ho\x1b[99;99Hx\x1b[2;3H\x1b[5Gc\x1b[?6l\x1b[r",
    ),
    (
        "printing right of the right margin",
        "\x1b[?69h\x1b[5;10s\x1b[1;20H0123456789012345678901234567890123456789012345678901234567890123456789",
    ),
    (
        "an invalid DECSLRM is ignored",
        "\x1b[?69h\x1b[20;10s\x1b[3;3Hx\x1b[1;1s\x1bP$qs\x1b\\",
    ),
    (
        "DECRQSS DECSLRM",
        "\x1b[?69h\x1b[5;30s\x1bP$qs\x1b\\\x1b[?69l\x1bP$qs\x1b\\\x1b[?69$p",
    ),
    (
        "DECSTR ends the side margins",
        "\x1b[?69h\x1b[5;10s\x1b[!p\x1b[1;5H0123456789\x1b[?69$p",
    ),
    (
        "IND and RI outside the side margins",
        "0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\x1b[?69h\x1b[3;8s\x1b[2;6r\x1b[6;15H\x1bDx\x1b[2;15H\x1bMy",
    ),
    (
        "wrapping at the right margin at the bottom of the region",
        "0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\r\n0123456789abcdefghij\x1b[?69h\x1b[3;8s\x1b[2;6r\x1b[6;3HABCDEFGHIJ",
    ),
    (
        "DECRQM of modes shotty lacks",
        "\x1b[?45$p\x1b[?67$p\x1b[?1016$p",
    ),
    // Line sizes.
    ("DECDWL double-width line", "\x1b#6wide\r\nnormal"),
    (
        "DECDWL halves the columns",
        "\x1b#601234567890123456789012345678901234567890123456789",
    ),
    (
        "DECDWL over a full line",
        "01234567890123456789012345678901234567890123456789012345678901234567890123456789\x1b#6\x1b[6n",
    ),
    (
        "cursor motion on a double-width line",
        "\x1b#6\x1b[99Cx\x1b[1;70Hy\r\n\x1b[2;70Hz",
    ),
    (
        "printing past the half of a double-width line",
        "\x1b#6\x1b[1;70Hy\x1b[6n",
    ),
    ("DECSWL makes a line single-width again", "\x1b#6ab\x1b#5cd"),
    (
        "ED 2 and DECALN reset line sizes",
        "\x1b#6a\r\n\x1b#3b\r\n\x1b#4b\x1b[2Jc\r\n\x1b#6d\x1b#8",
    ),
    (
        "line sizes move with scrolling",
        "\x1b#6top\r\nx\x1b[S\x1b[3;1H\x1b#3t\x1b[T",
    ),
    ("EL on a double-width line", "\x1b#6abcdef\x1b[1;3H\x1b[K"),
    ("DECDHL double-height lines", "\x1b#3top\r\n\x1b#4top"),
];

/// Cases whose bytes are not UTF-8, which [`CASES`] cannot hold.
const BYTE_CASES: &[(&str, &[u8])] = &[(
    "a lone byte 0x80-0x9F is U+FFFD, a C1 control in UTF-8 does nothing",
    b"a\x80b\x9bc\x1b[2;1Hd\xc2\x85e\xc2\x84f\xc2\x8dg\xc2\x88\xc2\x8eqh\xc3(i",
)];

/// Every case, by name, with its bytes.
fn all_cases() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    CASES
        .iter()
        .map(|(name, text)| (*name, text.as_bytes()))
        .chain(BYTE_CASES.iter().copied())
}

/// Cases that differ: on purpose, or because shotty lacks the feature yet.
const KNOWN: &[(&str, &str)] = &[
    (
        "DA1 DA2 DA3",
        "shotty identifies itself as a VT220-class terminal with ANSI colour, not as xterm",
    ),
    (
        "DECRQSS DECSCL",
        "the conformance level is the one DA1 reports (62, VT220)",
    ),
    (
        "DECRQM 2026",
        "shotty applies synchronized updates, which xterm does not know",
    ),
    (
        "DECRQM of modes shotty lacks",
        "reverse wraparound, DECBKM and SGR pixel mouse reports are not implemented: shotty reports them unknown",
    ),
];

// ----- the common representation ------------------------------------------------------------

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Colour {
    #[default]
    Default,
    Index(u8),
    Rgb(u8, u8, u8),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Attrs {
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
    blink: bool,
    inverse: bool,
    strike: bool,
    fg: Colour,
    bg: Colour,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Cell {
    /// The character; empty for a wide character's right half.
    text: String,
    attrs: Attrs,
}

impl Cell {
    fn is_blank(&self) -> bool {
        self.text == " "
    }
}

impl Attrs {
    fn has_flags(&self) -> bool {
        let plain = Attrs {
            fg: self.fg,
            bg: self.bg,
            ..Attrs::default()
        };
        *self != plain
    }
}

/// The `ESC #` line size xterm prints before a row (5: single width).
type LineSize = u8;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Row {
    size: LineSize,
    /// Up to the last cell that is not a blank with default attributes.
    cells: Vec<Cell>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Screen {
    /// The scrollback, oldest first (none while the alternate screen is shown).
    saved: Vec<Row>,
    rows: Vec<Row>,
    /// 1-based, as a cursor position report gives it.
    cursor: (usize, usize),
    /// What the terminal answered to the case's queries, in order.
    replies: Vec<u8>,
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text: String = self.cells.iter().map(|c| c.text.as_str()).collect();
        write!(f, "#{} {text:?}", self.size)
    }
}

/// The cells as media copy can tell them: blanks without attributes, none at the end.
fn trimmed(mut cells: Vec<Cell>) -> Vec<Cell> {
    while cells.last().is_some_and(Cell::is_blank) {
        cells.pop();
    }
    for cell in &mut cells {
        if cell.is_blank() {
            cell.attrs = Attrs::default();
        }
    }
    cells
}

/// shotty's cells as xterm's media copy would print them: a character gets a new SGR when it
/// has attributes or its colours differ from the last SGR printed; otherwise it keeps the
/// last one. Blanks print no SGR.
fn as_printed(mut cells: Vec<Cell>) -> Vec<Cell> {
    let mut last = Attrs::default();
    for cell in &mut cells {
        if cell.is_blank() {
            continue;
        }
        let colours_differ = (cell.attrs.fg, cell.attrs.bg) != (last.fg, last.bg);
        if cell.attrs.has_flags() || colours_differ {
            last = cell.attrs;
        } else {
            cell.attrs = last;
        }
    }
    cells
}

// ----- shotty's side ------------------------------------------------------------------------

fn colour(value: &Option<ColorValue>) -> Colour {
    match value {
        None => Colour::Default,
        Some(ColorValue::Index(i)) => Colour::Index(*i),
        Some(ColorValue::Rgb(hex)) => {
            let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).expect("#rrggbb");
            Colour::Rgb(byte(1), byte(3), byte(5))
        }
    }
}

fn attrs(style: &StyleSnapshot) -> Attrs {
    Attrs {
        bold: style.bold,
        dim: style.dim,
        italic: style.italic,
        underline: style.underline.is_some(),
        blink: style.blink,
        inverse: style.inverse,
        strike: style.strike,
        fg: colour(&style.fg),
        bg: colour(&style.bg),
    }
}

/// What xterm prints for a concealed cell: a blank (a spacer stays one).
fn concealed(width: u8, attrs: Attrs) -> (String, Attrs) {
    let text = if width == 0 { "" } else { " " };
    (text.to_owned(), attrs)
}

/// The rows of a snapshot as media copy would print them.
fn printed_rows(snapshot: &Snapshot) -> Vec<Row> {
    snapshot
        .rows
        .iter()
        .map(|row| {
            let cells = row
                .cells
                .iter()
                .map(|cell| {
                    let style = &snapshot.styles[cell.s as usize];
                    let (text, attrs) = if style.hidden {
                        concealed(cell.w, attrs(style))
                    } else {
                        (cell.t.to_string(), attrs(style))
                    };
                    Cell { text, attrs }
                })
                .collect();
            let size = match row.size.as_deref() {
                None => 5,
                Some("doubleWidth") => 6,
                Some("doubleHeightTop") => 3,
                Some("doubleHeightBottom") => 4,
                Some(other) => panic!("row size {other:?}"),
            };
            let cells = trimmed(as_printed(cells));
            // xterm prints no line size for an empty row.
            let size = if cells.is_empty() { 5 } else { size };
            Row { size, cells }
        })
        .collect()
}

fn shotty_screen(bytes: &[u8]) -> Screen {
    let mut term = Terminal::new(WIDTH, HEIGHT);
    term.advance(bytes);
    let replies = term.take_replies();
    let snapshot: Snapshot = term.snapshot();
    let rows = printed_rows(&snapshot);
    let saved = if term.screen().is_alternate_screen() {
        Vec::new()
    } else {
        // The history snapshot leaves out trailing blank lines: pad the scrollback back.
        let kept = term.screen().scrollback().len();
        let mut saved = printed_rows(&term.history_snapshot(usize::MAX));
        saved.resize(
            kept,
            Row {
                size: 5,
                cells: Vec::new(),
            },
        );
        saved
    };
    let cursor = (
        snapshot.cursor.row as usize + 1,
        (snapshot.cursor.col as usize).min(snapshot.width as usize - 1) + 1,
    );
    Screen {
        saved,
        rows,
        cursor,
        replies,
    }
}

// ----- xterm's side -------------------------------------------------------------------------

/// Applies one SGR sequence as xterm's media copy writes it (`0;1;31`, `38:5:196`,
/// `38:2::r:g:b`).
fn apply_sgr(attrs: &mut Attrs, params: &str) {
    for group in params.split(';') {
        let parts: Vec<&str> = group.split(':').collect();
        let code: u16 = parts[0].parse().unwrap_or(0);
        match code {
            0 => *attrs = Attrs::default(),
            1 => attrs.bold = true,
            2 => attrs.dim = true,
            3 => attrs.italic = true,
            4 | 21 => attrs.underline = true,
            5 | 6 => attrs.blink = true,
            7 => attrs.inverse = true,
            9 => attrs.strike = true,
            30..=37 => attrs.fg = Colour::Index((code - 30) as u8),
            39 => attrs.fg = Colour::Default,
            40..=47 => attrs.bg = Colour::Index((code - 40) as u8),
            49 => attrs.bg = Colour::Default,
            90..=97 => attrs.fg = Colour::Index((code - 90 + 8) as u8),
            100..=107 => attrs.bg = Colour::Index((code - 100 + 8) as u8),
            38 | 48 => {
                let number = |i: usize| parts.get(i).and_then(|p| p.parse::<u8>().ok());
                let value = match parts.get(1).copied() {
                    Some("5") => number(2).map(Colour::Index),
                    Some("2") => match (number(3), number(4), number(5)) {
                        (Some(r), Some(g), Some(b)) => Some(Colour::Rgb(r, g, b)),
                        _ => None,
                    },
                    _ => None,
                };
                let value = value.unwrap_or_else(|| panic!("xterm printed SGR {group:?}"));
                if code == 38 {
                    attrs.fg = value;
                } else {
                    attrs.bg = value;
                }
            }
            other => panic!("xterm printed an SGR code this test does not know: {other}"),
        }
    }
}

/// Parses xterm's media copy: one line per row, `ESC # n` line sizes, SGR sequences, text,
/// U+FFFF for the right half of a wide character. Returns the saved lines and the screen
/// (its last [`HEIGHT`] lines).
fn parse_print(output: &str) -> (Vec<Row>, Vec<Row>) {
    let mut rows = Vec::new();
    let lines = output.strip_suffix("\r\n").unwrap_or(output);
    for line in lines.split("\r\n") {
        let mut size = 5;
        let mut attrs = Attrs::default();
        let mut cells = Vec::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\x1b' => match chars.next() {
                    Some('#') => {
                        size = chars.next().and_then(|d| d.to_digit(10)).unwrap_or(5) as u8;
                    }
                    Some('[') => {
                        let mut params = String::new();
                        for p in chars.by_ref() {
                            if p == 'm' {
                                break;
                            }
                            params.push(p);
                        }
                        apply_sgr(&mut attrs, &params);
                    }
                    other => panic!("unexpected escape in xterm's print: {other:?}"),
                },
                '\u{ffff}' => cells.push(Cell {
                    text: String::new(),
                    attrs,
                }),
                _ => cells.push(Cell {
                    text: c.to_string(),
                    attrs,
                }),
            }
        }
        rows.push(Row {
            size,
            cells: trimmed(cells),
        });
    }
    // xterm prints no line size for an empty row.
    for row in &mut rows {
        if row.cells.is_empty() {
            row.size = 5;
        }
    }
    let screen = rows.split_off(rows.len().saturating_sub(HEIGHT));
    (rows, screen)
}

/// A private Xvfb display, ended when dropped.
struct Display {
    server: Child,
    number: String,
}

impl Display {
    fn start() -> Display {
        let mut server = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-nolisten",
                "tcp",
                "-screen",
                "0",
                "1280x1024x24",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts (Debian package xvfb)");
        let mut line = String::new();
        BufReader::new(server.stdout.take().expect("Xvfb's stdout"))
            .read_line(&mut line)
            .expect("Xvfb says its display");
        let number = line.trim().to_owned();
        assert!(!number.is_empty(), "Xvfb gave no display number");
        Display { server, number }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// Runs one case in a fresh xterm and reads back its screen.
fn xterm_screen(display: &Display, dir: &Path, index: usize, bytes: &[u8]) -> Screen {
    let case = dir.join(format!("case{index}.bin"));
    let cursor_file = dir.join(format!("cursor{index}.txt"));
    let replies_file = dir.join(format!("replies{index}.bin"));
    let print = dir.join(format!("print{index}.txt"));
    let printed = dir.join(format!("print{index}.done"));
    let stderr_file = dir.join(format!("xterm{index}.err"));
    std::fs::write(&case, bytes).expect("case written");
    let helper = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/xterm_case.py");
    let resource = |r: &str| ["-xrm".to_owned(), r.to_owned()];
    let mut xterm = Command::new("xterm");
    xterm
        .args(["-display", &format!(":{}", display.number)])
        .args(["-u8", "-geometry", &format!("{WIDTH}x{HEIGHT}")])
        .args(resource(&format!(
            "XTerm*printerCommand: cat > {} && touch {}",
            print.display(),
            printed.display()
        )))
        .args(resource("XTerm*printAttributes: 2"))
        .args(resource("XTerm*printerAutoClose: true"))
        // Without jump scrolling: with it, xterm applies a burst of scrolls late, and an
        // ED 3 among them may leave lines it should have erased.
        .args(resource("XTerm*jumpScroll: false"))
        // The whole screen, not just the scroll region.
        .args(resource("XTerm*printerExtent: true"))
        // A soft-wrapped row would end without a line feed otherwise.
        .args(resource("XTerm*printerNewLine: true"))
        // Bold bright colours are printed as their normal colours otherwise.
        .args(resource("XTerm*boldColors: false"))
        // xterm answers window reports (`CSI 18 t`) only when allowed.
        .args(resource("XTerm*allowWindowOps: true"))
        // Nor XTGETTCAP (this xterm disallows it by default); its name is the TERM shotty's
        // programs get, which XTGETTCAP reports.
        .args(resource("XTerm*disallowedTcapOps: SetTcap"))
        .args(["-tn", shotty::term::TERM_NAME])
        .arg("-e")
        .arg("python3")
        .arg(&helper)
        .arg(&case)
        .arg(&replies_file)
        .arg(&cursor_file)
        .env("LC_ALL", "C.UTF-8")
        .env("HOME", dir)
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    // Xvfb has been seen to refuse a connection now and then while four xterms connect at
    // once ("Can't open display"): the X server's hiccup, not the case's, so it is retried.
    let mut attempts = 0;
    let status = loop {
        attempts += 1;
        // A file rather than a pipe: xterm's child would inherit a pipe and hold it open.
        xterm.stderr(std::fs::File::create(&stderr_file).expect("xterm's stderr file"));
        let status = xterm.status().expect("xterm runs (Debian package xterm)");
        let refused = || {
            std::fs::read_to_string(&stderr_file).is_ok_and(|e| e.contains("Can't open display"))
        };
        if status.success() || attempts == 3 || !refused() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        status.success(),
        "xterm failed: {status} ({attempts} attempts); its stderr: {:?}; the helper's error: \
         {:?}; it got as far as: replies {}, cursor {}",
        std::fs::read_to_string(&stderr_file).unwrap_or_default(),
        std::fs::read_to_string(case.with_extension("bin.err")).unwrap_or_default(),
        replies_file.exists(),
        cursor_file.exists(),
    );
    // The printer is a pipe to `cat`, closed after the print: wait until it has finished.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !printed.exists() {
        assert!(
            Instant::now() < deadline,
            "xterm printed no screen; the helper's error: {:?}",
            std::fs::read_to_string(case.with_extension("bin.err")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = std::fs::read_to_string(&print).expect("xterm's print");
    let cursor = std::fs::read_to_string(&cursor_file).expect("cursor report");
    let mut numbers = cursor
        .split_whitespace()
        .map(|n| n.parse::<usize>().expect("number"));
    let cursor = (
        numbers.next().expect("row"),
        numbers.next().expect("column"),
    );
    let (saved, rows) = parse_print(&output);
    assert_eq!(
        rows.len(),
        HEIGHT,
        "xterm printed {} screen rows",
        rows.len()
    );
    Screen {
        saved,
        rows,
        cursor,
        replies: std::fs::read(&replies_file).expect("replies"),
    }
}

/// The first difference between the two screens, described.
fn difference(xterm: &Screen, shotty: &Screen) -> Option<String> {
    if xterm.replies != shotty.replies {
        return Some(format!(
            "replies: xterm {}, shotty {}",
            escape_bytes(&xterm.replies),
            escape_bytes(&shotty.replies)
        ));
    }
    if xterm.cursor != shotty.cursor {
        return Some(format!(
            "cursor: xterm {:?}, shotty {:?}",
            xterm.cursor, shotty.cursor
        ));
    }
    if xterm.saved.len() != shotty.saved.len() {
        return Some(format!(
            "scrollback: xterm {} lines, shotty {}",
            xterm.saved.len(),
            shotty.saved.len()
        ));
    }
    let saved = xterm
        .saved
        .iter()
        .zip(&shotty.saved)
        .map(|r| (r, "saved line"));
    let screen = xterm.rows.iter().zip(&shotty.rows).map(|r| (r, "row"));
    for (i, ((x, s), what)) in saved.chain(screen).enumerate() {
        if x == s {
            continue;
        }
        let i = if what == "row" {
            i - xterm.saved.len()
        } else {
            i
        };
        let column = x
            .cells
            .iter()
            .zip(&s.cells)
            .position(|(a, b)| a != b)
            .unwrap_or(x.cells.len().min(s.cells.len()));
        return Some(format!(
            "{what} {} col {}: xterm {:?}, shotty {:?}\n  xterm  {x}\n  shotty {s}",
            i + 1,
            column + 1,
            x.cells.get(column),
            s.cells.get(column)
        ));
    }
    None
}

/// Whether xterm and Xvfb are there to compare with.
fn tools_present() -> bool {
    needs::program("xterm").is_some() && needs::program("Xvfb").is_some()
}

#[test]
fn shotty_agrees_with_real_xterm() {
    if !tools_present() {
        return;
    }
    let only = std::env::var("XTERM_CASE").ok();
    let display = Display::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let cases: Vec<(usize, &str, &[u8])> = all_cases()
        .enumerate()
        .filter(|(_, (name, _))| only.as_deref().is_none_or(|o| o == *name))
        .map(|(i, (name, bytes))| (i, name, bytes))
        .collect();
    assert!(!cases.is_empty(), "no case named {only:?}");
    let failures = Mutex::new(Vec::new());
    let next = Mutex::new(cases.iter());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                loop {
                    let Some(&(index, name, bytes)) = next.lock().expect("queue").next() else {
                        break;
                    };
                    let xterm = xterm_screen(&display, dir.path(), index, bytes);
                    let shotty = shotty_screen(bytes);
                    let known = KNOWN.iter().find(|(n, _)| *n == name).map(|(_, why)| *why);
                    let failure = match (difference(&xterm, &shotty), known) {
                        (None, None) | (Some(_), Some(_)) => None,
                        (Some(diff), None) => {
                            Some(format!("{name}: {}\n  {diff}", escape_bytes(bytes)))
                        }
                        (None, Some(why)) => Some(format!(
                            "{name}: now agrees with xterm; remove it from KNOWN ({why})"
                        )),
                    };
                    if let Some(f) = failure {
                        failures.lock().expect("failures").push(f);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().expect("failures");
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from xterm:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_known_difference_names_a_case() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/KNOWN_DIFFERENCES.md"),
    )
    .expect("KNOWN_DIFFERENCES.md");
    let (_, xterm_part) = doc
        .split_once("# Known differences between shotty and real xterm")
        .expect("the xterm part of KNOWN_DIFFERENCES.md");
    let documented: Vec<&str> = xterm_part
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .collect();
    for (name, _) in KNOWN {
        assert!(
            all_cases().any(|(n, _)| n == *name),
            "KNOWN names no case: {name}"
        );
        assert!(
            documented.contains(name),
            "not in KNOWN_DIFFERENCES.md: {name}"
        );
    }
    for name in &documented {
        assert!(
            KNOWN.iter().any(|(n, _)| n == name),
            "KNOWN_DIFFERENCES.md documents {name}, which the test does not know"
        );
    }
}

/// The parser reads what xterm prints (a recorded sample), so a failure above is about the
/// screens, not the harness.
#[test]
fn xterm_print_format_parses() {
    let sample = "\x1b#5\x1b[0mab\x1b[0;1;31mc\x1b[0;38:5:196;48:2::1:2:3md\x1b[0m\r\n\
                  \x1b#6\x1b[0m\u{65e5}\u{ffff}x\x1b[0m\r\n\r\n";
    let (saved, rows) = parse_print(sample);
    assert!(saved.is_empty());
    assert_eq!(rows.len(), 3, "the sample's three lines");
    let text = |row: &Row| -> String { row.cells.iter().map(|c| c.text.as_str()).collect() };
    assert_eq!(text(&rows[0]), "abcd");
    assert!(rows[0].cells[2].attrs.bold);
    assert_eq!(rows[0].cells[2].attrs.fg, Colour::Index(1));
    assert_eq!(rows[0].cells[3].attrs.fg, Colour::Index(196));
    assert_eq!(rows[0].cells[3].attrs.bg, Colour::Rgb(1, 2, 3));
    assert_eq!(rows[1].size, 6);
    assert_eq!(rows[1].cells[1].text, "");
    assert_eq!(text(&rows[1]), "\u{65e5}x");
    assert!(rows[2].cells.is_empty());
}
