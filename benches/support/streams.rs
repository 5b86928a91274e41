//! Deterministic byte streams shared by the emulator benchmarks: the same input for every
//! emulator measured in a run — in process (`benches/emulator.rs`) and whole process
//! (`examples/bench_stream.rs` writes them to files for `benches/emulator_process.py`).

// Each target that includes this file uses its own part of it.
#![allow(dead_code)]

/// A tiny xorshift generator so the streams need no dependency and never change.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

const WORDS: &[&str] = &[
    "the",
    "terminal",
    "renders",
    "every",
    "cell",
    "exactly",
    "where",
    "programs",
    "expect",
    "it",
    "scrollback",
    "keeps",
    "history",
    "while",
    "alternate",
    "screens",
    "hold",
    "editors",
    "cargo",
    "build",
    "--release",
    "src/main.rs",
    "warning:",
    "unused",
    "variable",
    "ok",
];

fn words(rng: &mut Rng, out: &mut String, n: usize) {
    for i in 0..n {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
}

/// Plain ASCII lines of varying length, some longer than 80 columns.
pub fn ascii(size: usize) -> Vec<u8> {
    let mut rng = Rng::new(1);
    let mut s = String::with_capacity(size + 256);
    while s.len() < size {
        let n = 3 + rng.below(25) as usize;
        words(&mut rng, &mut s, n);
        s.push_str("\r\n");
    }
    s.into_bytes()
}

/// Nearly every word in its own colour and attributes (16, 256 and true colour).
pub fn sgr_heavy(size: usize) -> Vec<u8> {
    let mut rng = Rng::new(2);
    let mut s = String::with_capacity(size + 256);
    while s.len() < size {
        for _ in 0..8 {
            match rng.below(4) {
                0 => s.push_str(&format!("\x1b[{}m", 30 + rng.below(8))),
                1 => s.push_str(&format!("\x1b[1;38;5;{}m", rng.below(256))),
                2 => s.push_str(&format!(
                    "\x1b[38;2;{};{};{};48;2;{};{};{}m",
                    rng.below(256),
                    rng.below(256),
                    rng.below(256),
                    rng.below(64),
                    rng.below(64),
                    rng.below(64)
                )),
                _ => s.push_str("\x1b[3;4m"),
            }
            words(&mut rng, &mut s, 1);
            s.push_str("\x1b[0m ");
        }
        s.push_str("\r\n");
    }
    s.into_bytes()
}

/// What `ls -la --color=always` prints: columns of metadata and coloured names.
pub fn ls_color(size: usize) -> Vec<u8> {
    let mut rng = Rng::new(3);
    let colors = ["01;34", "01;32", "01;36", "00", "01;31", "40;33;01"];
    let mut s = String::with_capacity(size + 256);
    while s.len() < size {
        let color = colors[rng.below(colors.len() as u64) as usize];
        s.push_str(&format!(
            "-rw-r--r-- 1 user user {:>8} Jan {:>2} 12:{:02} \x1b[{}m",
            rng.below(1_000_000),
            1 + rng.below(28),
            rng.below(60),
            color
        ));
        words(&mut rng, &mut s, 1);
        s.push_str(".txt\x1b[0m\r\n");
    }
    s.into_bytes()
}

/// A full-screen TUI redrawing: cursor addressing, erases, reverse-video status lines.
pub fn tui_redraw(size: usize, width: usize, height: usize) -> Vec<u8> {
    let mut rng = Rng::new(4);
    let mut s = String::with_capacity(size + 4096);
    s.push_str("\x1b[?1049h\x1b[H\x1b[2J");
    while s.len() < size {
        for row in 1..=height {
            s.push_str(&format!("\x1b[{row};1H"));
            if row == 1 || row == height {
                s.push_str("\x1b[7m");
                let mut line = String::new();
                words(&mut rng, &mut line, 6);
                line.truncate(width);
                s.push_str(&format!("{line:<width$}"));
                s.push_str("\x1b[0m");
            } else {
                s.push_str(&format!("\x1b[38;5;{}m{:>4} \x1b[0m", 240 + row % 8, row));
                let mut line = String::new();
                let n = 1 + rng.below(10) as usize;
                words(&mut rng, &mut line, n);
                line.truncate(width.saturating_sub(6));
                s.push_str(&line);
                s.push_str("\x1b[K");
            }
        }
        s.push_str(&format!(
            "\x1b[{};{}H",
            1 + rng.below(height as u64),
            1 + rng.below(width as u64)
        ));
    }
    s.push_str("\x1b[?1049l");
    s.into_bytes()
}

/// Output scrolling inside a scroll region (a pager or log pane under a fixed header).
pub fn scroll_region(size: usize, height: usize) -> Vec<u8> {
    let mut rng = Rng::new(5);
    let mut s = String::with_capacity(size + 256);
    s.push_str(&format!("\x1b[2;{}r\x1b[{};1H", height - 1, height - 1));
    while s.len() < size {
        let n = 2 + rng.below(12) as usize;
        words(&mut rng, &mut s, n);
        s.push_str("\r\n");
        if rng.below(8) == 0 {
            s.push_str("\x1b[2;1H\x1bM\x1b[");
            s.push_str(&format!("{};1H", height - 1));
        }
    }
    s.push_str("\x1b[r");
    s.into_bytes()
}

/// CJK text, emoji (with modifiers, ZWJ and VS16) and combining marks.
pub fn unicode(size: usize) -> Vec<u8> {
    let mut rng = Rng::new(6);
    let pieces = [
        "日本語の文章",
        "中文字符",
        "한국어",
        "😀",
        "👍🏽",
        "❤\u{fe0f}",
        "👨\u{200d}👩\u{200d}👧",
        "e\u{301}",
        "naïve",
        "café",
        "─│┌┐",
        "ＡＢＣ",
        "🇺🇸",
        "text",
    ];
    let mut s = String::with_capacity(size + 256);
    while s.len() < size {
        for _ in 0..1 + rng.below(10) {
            s.push_str(pieces[rng.below(pieces.len() as u64) as usize]);
            s.push(' ');
        }
        s.push_str("\r\n");
    }
    s.into_bytes()
}

/// A mix in the proportions of a typical session: logs, coloured listings, a TUI, unicode.
pub fn mixed(size: usize, width: usize, height: usize) -> Vec<u8> {
    let part = size / 8;
    let mut out = Vec::with_capacity(size + 8192);
    out.extend(ascii(part * 2));
    out.extend(sgr_heavy(part));
    out.extend(ls_color(part));
    out.extend(tui_redraw(part * 2, width, height));
    out.extend(scroll_region(part, height));
    out.extend(unicode(part));
    out
}

/// Equal parts of the five kinds that tell emulators apart: plain text, SGR colour runs (many
/// true-colour pairs), `ls`-style listings, a TUI's cursor movement and Unicode (wide,
/// combining), one after another.
pub fn synthetic(size: usize, width: usize, height: usize) -> Vec<u8> {
    let part = size / 5;
    let mut out = Vec::with_capacity(size + 8192);
    out.extend(ascii(part));
    out.extend(sgr_heavy(part));
    out.extend(ls_color(part));
    out.extend(tui_redraw(part, width, height));
    out.extend(unicode(part));
    out
}

/// The streams' names, in the order of [`all`].
pub const NAMES: [&str; 8] = [
    "mixed",
    "synthetic",
    "ascii",
    "sgr",
    "ls_color",
    "tui_redraw",
    "scroll_region",
    "unicode",
];

/// The stream called `name` (one of [`NAMES`]) of about `size` bytes.
pub fn by_name(name: &str, size: usize, width: usize, height: usize) -> Option<Vec<u8>> {
    Some(match name {
        "mixed" => mixed(size, width, height),
        "synthetic" => synthetic(size, width, height),
        "ascii" => ascii(size),
        "sgr" => sgr_heavy(size),
        "ls_color" => ls_color(size),
        "tui_redraw" => tui_redraw(size, width, height),
        "scroll_region" => scroll_region(size, height),
        "unicode" => unicode(size),
        _ => return None,
    })
}

/// Every stream at a size, with its name.
pub fn all(size: usize, width: usize, height: usize) -> Vec<(&'static str, Vec<u8>)> {
    NAMES
        .iter()
        .filter_map(|&name| Some((name, by_name(name, size, width, height)?)))
        .collect()
}
