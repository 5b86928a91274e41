//! Terminal input for the golden cases (`tests/render/golden.rs`), shared with the browser
//! check (`tests/render/browser.rs`) so both render exactly the same screens.

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Input bytes for a case.
pub enum Input {
    Bytes(Vec<u8>),
    /// A recorded fixture, cut just before its last alternate-screen exit when `alt`.
    Fixture {
        name: &'static str,
        alt: bool,
    },
}

pub fn bytes(s: &str) -> Input {
    Input::Bytes(s.as_bytes().to_vec())
}

/// A small colourful shell session used for chrome and theme cases.
pub fn sample() -> Input {
    bytes(concat!(
        "\x1b[1;32m~/shotty\x1b[0m on \x1b[35m main\x1b[0m \x1b[1;33m❯\x1b[0m cargo test\r\n",
        "   \x1b[1;32mCompiling\x1b[0m shotty v0.1.0\r\n",
        "    \x1b[1;32mFinished\x1b[0m `test` profile in 4.2s\r\n",
        "test term::wrap ... \x1b[32mok\x1b[0m\r\n",
        "test term::wide ... \x1b[31mFAILED\x1b[0m\r\n",
        "\x1b[1mtest result:\x1b[0m \x1b[31mFAILED\x1b[0m. 1 passed; 1 failed\r\n",
        "\x1b[1;32m~/shotty\x1b[0m \x1b[1;33m❯\x1b[0m ",
    ))
}

pub fn palette() -> Input {
    let mut s = String::new();
    for i in 0..16 {
        s.push_str(&format!("\x1b[48;5;{i}m  "));
    }
    s.push_str("\x1b[0m\r\n");
    for row in 0..6 {
        for i in 0..36 {
            s.push_str(&format!("\x1b[48;5;{}m ", 16 + row * 36 + i));
        }
        s.push_str("\x1b[0m\r\n");
    }
    for i in 232..256 {
        s.push_str(&format!("\x1b[48;5;{i}m "));
    }
    s.push_str("\x1b[0m\r\n");
    for i in 0..48 {
        let v = i * 255 / 47;
        s.push_str(&format!("\x1b[48;2;{v};{};{}m ", 255 - v, (v * 2) % 256));
    }
    s.push_str("\x1b[0m\r\n");
    for i in 0..8 {
        s.push_str(&format!("\x1b[3{i}mfg{i}\x1b[0m \x1b[9{i}mbr{i}\x1b[0m "));
    }
    Input::Bytes(s.into_bytes())
}

pub fn attributes() -> Input {
    bytes(concat!(
        "\x1b[1mbold\x1b[0m \x1b[2mdim\x1b[0m \x1b[3mitalic\x1b[0m \x1b[1;3mbold-italic\x1b[0m ",
        "\x1b[7minverse\x1b[0m \x1b[8mhidden\x1b[0m \x1b[5mblink\x1b[0m\r\n",
        "\x1b[4msingle\x1b[0m \x1b[4:2mdouble\x1b[0m \x1b[4:3mcurly\x1b[0m \x1b[4:4mdotted\x1b[0m ",
        "\x1b[4:5mdashed\x1b[0m\r\n",
        "\x1b[4:3;58;2;255;0;0mred curly\x1b[0m \x1b[4;58;5;33mblue line\x1b[0m ",
        "\x1b[9mstrike\x1b[0m \x1b[53moverline\x1b[0m \x1b[1;4;9;53;31mall\x1b[0m\r\n",
        "\x1b[2;31mdim red\x1b[0m \x1b[7;32minverse green\x1b[0m \x1b[30;47mblack on white\x1b[0m",
    ))
}

pub fn box_drawing() -> Input {
    bytes(concat!(
        "┌─────┬─────┐ ┏━━━━━┳━━━━━┓ ╔═════╦═════╗ ╭─────╮\r\n",
        "│ a   │ b   │ ┃ a   ┃ b   ┃ ║ a   ║ b   ║ │ ╭─╮ │\r\n",
        "├─────┼─────┤ ┣━━━━━╋━━━━━┫ ╠═════╬═════╣ │ ╰─╯ │\r\n",
        "│ c   │ d   │ ┃ c   ┃ d   ┃ ║ c   ║ d   ║ ╰─────╯\r\n",
        "└─────┴─────┘ ┗━━━━━┻━━━━━┛ ╚═════╩═════╝ ┄┄┅┅ ┆┇ ╌╍\r\n",
        "▀▄█▌▐ ▁▂▃▄▅▆▇█ ▏▎▍▌▋▊▉ ░▒▓ ▖▗▘▙▚▛▜▝▞▟ ╱╲╳\r\n",
        "\x1b[36m╭──────────╮\x1b[0m\r\n\x1b[36m│\x1b[0m \x1b[1mcoloured\x1b[0m \x1b[36m│\x1b[0m\r\n\x1b[36m╰──────────╯\x1b[0m",
    ))
}

pub fn unicode() -> Input {
    bytes(concat!(
        "CJK: 中文 日本語 한국어 ＡＢＣ\r\n",
        "emoji: 😀 👍🏽 ❤\u{fe0f} 👨\u{200d}👩\u{200d}👧 🇺🇸 ✨\r\n",
        "marks: e\u{301} a\u{308} n\u{303} | café | naïve\r\n",
        "braille: ⣿⣷⣯⣟⡿⢿ arrows: ← ↑ → ↓ ⇒ symbols: ✓ ✗ ★ ☂ ♥\r\n",
        "x全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全全\r\n",
    ))
}

/// Text of each bundled CJK repertoire (GB2312, Big5 level 1, JIS X 0208 with kana, KS X
/// 1001 Hangul), in regular and bold, and common emoji.
pub fn cjk() -> Input {
    bytes(concat!(
        "简体：这是一个测试。\x1b[1m粗体字\x1b[0m 中文\r\n",
        "繁體：這是一個測試。\x1b[1m粗體字\x1b[0m 臺灣\r\n",
        "日本語：ひらがなとカタカナの「漢字」、ｶﾀｶﾅ\r\n",
        "한국어: 안녕하세요, \x1b[1m한글\x1b[0m 텍스트가 보입니다.\r\n",
        "ＡＢＣ１２３ ㄅㄆㄇ ㄱㄴㄷ 〒〜\r\n",
        "emoji: 😀 😂 👍 ❤ ✨ 🎉 🚀 🔥 ✅ ❌ ⚠ 🦀 💡 📦 🙏 👀 🤔",
    ))
}

/// DECDWL, DECDHL top/bottom and a single-width line: rows drawn at double size.
pub fn line_sizes() -> Input {
    bytes(concat!(
        "\x1b#6\x1b[31;4mDWL red\x1b[0m ──│\r\n",
        "\x1b#3\x1b[32mDHL ab top\x1b[0m\r\n",
        "\x1b#4\x1b[32mDHL ab top\x1b[0m\r\n",
        "single line here\r\n",
        "\x1b#6\x1b[44mblue bg DWL\x1b[0m \x1b[7mX\x1b[0m",
    ))
}

pub fn powerline() -> Input {
    bytes(concat!(
        "\x1b[30;44m user \x1b[34;42m\u{e0b0}\x1b[30;42m ~/src/shotty \x1b[32;45m\u{e0b0}",
        "\x1b[30;45m  main \x1b[35;49m\u{e0b0}\x1b[0m \u{e0b1} ok\r\n",
        "\x1b[33m\u{e0b2}\x1b[30;43m 12:00 \x1b[0m\x1b[33m\u{e0b0}\x1b[0m",
    ))
}

pub fn links() -> Input {
    bytes(concat!(
        "docs: \x1b]8;;https://example.com/docs\x1b\\\x1b[4;34mexample.com/docs\x1b[0m\x1b]8;;\x1b\\\r\n",
        "file: \x1b]8;id=f;file:///etc/hosts\x1b\\/etc/hosts\x1b]8;;\x1b\\ ",
        "unsafe: \x1b]8;;javascript:alert(1)\x1b\\not a link\x1b]8;;\x1b\\\r\n",
    ))
}

pub fn tall() -> Input {
    let mut s = String::from("$ cargo build\r\n");
    for i in 1..=14 {
        s.push_str(&format!("   Compiling crate-{i:02} v0.{i}.0\r\n"));
    }
    s.push_str("error[E0308]: mismatched types\r\n --> src/main.rs:4:5\r\n");
    s.push_str("    Finished with 1 error\r\n$ ");
    Input::Bytes(s.into_bytes())
}

pub fn cursor(shape: u8) -> Input {
    Input::Bytes(format!("\x1b[{shape} q$ echo cursor\r\ncursor\r\n$ ").into_bytes())
}

pub fn input_bytes(input: &Input) -> Vec<u8> {
    match input {
        Input::Bytes(b) => b.clone(),
        Input::Fixture { name, alt } => {
            let path = Path::new(ROOT)
                .join("tests/fixtures")
                .join(format!("{name}.bin"));
            let data = std::fs::read(&path).expect("fixture readable");
            if !alt {
                return data;
            }
            let exits: [&[u8]; 3] = [b"\x1b[?1049l", b"\x1b[?1047l", b"\x1b[?47l"];
            let cut = exits
                .iter()
                .filter_map(|pat| data.windows(pat.len()).rposition(|w| w == *pat))
                .max()
                .expect("fixture leaves the alternate screen");
            data[..cut].to_vec()
        }
    }
}
