//! The whole-process counterpart of `shotty render FILE --format txt` for the emulators shotty
//! is measured against (`benches/emulator_process.py`): streams FILE into alacritty_terminal 0.26
//! or vt100 0.18 in 64 KiB reads, with shotty's 10,000 lines of scrollback, and prints the final
//! screen as text. Both peers are dev-dependencies, so this is an example:
//!
//! ```sh
//! cargo build --release --example feed_peer
//! target/release/examples/feed_peer alacritty stream.bin 200 50 > /dev/null
//! ```

use std::io::Read;
use std::num::NonZeroU16;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::Processor;

const SCROLLBACK: usize = 10_000;
const READ: usize = 64 * 1024;
const NEW_LINE_MODE: &[u8] = b"\x1b[20h";

fn usage() -> ! {
    eprintln!("usage: feed_peer alacritty|vt100 FILE WIDTH HEIGHT");
    std::process::exit(2);
}

/// Calls `feed` with each read of `path`.
fn stream(path: &str, mut feed: impl FnMut(&[u8])) -> std::io::Result<()> {
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0; READ];
    loop {
        match file.read(&mut buf)? {
            0 => return Ok(()),
            n => feed(&buf[..n]),
        }
    }
}

fn alacritty(path: &str, width: usize, height: usize) -> std::io::Result<String> {
    let config = Config {
        scrolling_history: SCROLLBACK,
        ..Config::default()
    };
    let mut term = Term::new(config, &TermSize::new(width, height), VoidListener);
    let mut processor: Processor = Processor::new();
    // As `shotty render` does for a raw stream: a line feed also returns the carriage.
    processor.advance(&mut term, NEW_LINE_MODE);
    stream(path, |bytes| processor.advance(&mut term, bytes))?;
    let grid = term.grid();
    let mut text = String::new();
    for line in 0..grid.screen_lines() {
        let row = &grid[Line(line as i32)];
        let cells = (0..grid.columns()).map(|c| row[Column(c)].c);
        text.extend(cells);
        text.truncate(text.trim_end().len());
        text.push('\n');
    }
    Ok(text)
}

fn vt100(path: &str, width: usize, height: usize) -> std::io::Result<String> {
    let size =
        |n: usize| NonZeroU16::new(u16::try_from(n).unwrap_or(u16::MAX)).unwrap_or_else(|| usage());
    let mut parser = vt100::Parser::new(size(height), size(width), SCROLLBACK);
    parser.process(NEW_LINE_MODE);
    stream(path, |bytes| parser.process(bytes))?;
    Ok(parser.screen().contents())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [emulator, path, width, height] = args.as_slice() else {
        usage()
    };
    let (Ok(width), Ok(height)) = (width.parse::<usize>(), height.parse::<usize>()) else {
        usage()
    };
    let text = match emulator.as_str() {
        "alacritty" => alacritty(path, width, height),
        "vt100" => vt100(path, width, height),
        _ => usage(),
    };
    match text {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("feed_peer: {path}: {e}");
            std::process::exit(1);
        }
    }
}
