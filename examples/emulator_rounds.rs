//! In-process emulator throughput in interleaved rounds: each round feeds the same stream to
//! shotty, alacritty_terminal 0.26 and vt100 0.18 one after another, so a load swing on a
//! shared machine hits all three alike (criterion measures each emulator's samples after the
//! other's, and its ratios move with the load). The streams are the criterion bench's
//! (`benches/support/streams.rs`); each emulator keeps its terminal across rounds, with 10,000
//! lines of scrollback, as in `benches/emulator.rs`.
//!
//! ```sh
//! cargo build --profile dist --example emulator_rounds
//! target/dist/examples/emulator_rounds [--rounds N] [--size WxH] [--mib N] [STREAM…]
//! ```
//!
//! Prints, per stream, each emulator's median and fastest round in MiB/s and shotty's ratio to
//! each peer: of the medians, and the median of the per-round ratios.

use std::hint::black_box;
use std::num::NonZeroU16;
use std::time::{Duration, Instant};

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::Processor;

#[path = "../benches/support/streams.rs"]
mod streams;

const SCROLLBACK: usize = 10_000;
const PEERS: [&str; 3] = ["shotty", "alacritty", "vt100"];

struct Options {
    rounds: usize,
    width: usize,
    height: usize,
    mib: usize,
    streams: Vec<String>,
}

fn usage() -> ! {
    eprintln!(
        "usage: emulator_rounds [--rounds N] [--size WxH] [--mib N] [STREAM…]\nstreams: {}",
        streams::NAMES.join(" ")
    );
    std::process::exit(2);
}

fn options() -> Options {
    let mut options = Options {
        rounds: 21,
        width: 200,
        height: 50,
        mib: 1,
        streams: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--rounds" => options.rounds = value().parse().unwrap_or_else(|_| usage()),
            "--mib" => options.mib = value().parse().unwrap_or_else(|_| usage()),
            "--size" => {
                let size = value();
                let (w, h) = size.split_once('x').unwrap_or_else(|| usage());
                options.width = w.parse().unwrap_or_else(|_| usage());
                options.height = h.parse().unwrap_or_else(|_| usage());
            }
            name if streams::NAMES.contains(&name) => options.streams.push(name.to_owned()),
            _ => usage(),
        }
    }
    if options.rounds == 0 || options.width == 0 || options.height == 0 || options.mib == 0 {
        usage();
    }
    if options.streams.is_empty() {
        options.streams = streams::NAMES.iter().map(|&s| s.to_owned()).collect();
    }
    options
}

/// The three emulators, each with its terminal kept across rounds.
struct Emulators {
    shotty: shotty::term::Terminal,
    alacritty: (Term<VoidListener>, Processor),
    vt100: vt100::Parser,
}

impl Emulators {
    fn new(width: usize, height: usize) -> Emulators {
        let shotty = shotty::term::Terminal::with_options(
            width,
            height,
            shotty::term::TerminalOptions {
                scrollback: SCROLLBACK,
                ..Default::default()
            },
        );
        let config = Config {
            scrolling_history: SCROLLBACK,
            ..Config::default()
        };
        let alacritty = Term::new(config, &TermSize::new(width, height), VoidListener);
        let rows = NonZeroU16::new(height as u16).unwrap_or(NonZeroU16::MIN);
        let cols = NonZeroU16::new(width as u16).unwrap_or(NonZeroU16::MIN);
        Emulators {
            shotty,
            alacritty: (alacritty, Processor::new()),
            vt100: vt100::Parser::new(rows, cols, SCROLLBACK),
        }
    }

    /// Feeds `bytes` to emulator `which` (an index into [`PEERS`]); returns the time taken.
    fn feed(&mut self, which: usize, bytes: &[u8]) -> Duration {
        let start = Instant::now();
        match which {
            0 => {
                self.shotty.advance(black_box(bytes));
                black_box(self.shotty.screen().cursor());
            }
            1 => {
                let (term, processor) = &mut self.alacritty;
                processor.advance(term, black_box(bytes));
                black_box(term.grid().cursor.point);
            }
            _ => {
                self.vt100.process(black_box(bytes));
                black_box(self.vt100.screen().cursor_position());
            }
        }
        start.elapsed()
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

fn main() {
    let options = options();
    let (width, height) = (options.width, options.height);
    println!(
        "{} MiB streams at {width}x{height}, {} interleaved rounds (one warm-up round first)",
        options.mib, options.rounds
    );
    println!(
        "| stream | shotty MiB/s (median · fastest) | alacritty | vt100 | vs alacritty (medians · per-round median) | vs vt100 |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for name in &options.streams {
        let Some(bytes) = streams::by_name(name, options.mib << 20, width, height) else {
            usage();
        };
        let mib = bytes.len() as f64 / f64::from(1u32 << 20);
        let mut emulators = Emulators::new(width, height);
        for which in 0..PEERS.len() {
            emulators.feed(which, &bytes);
        }
        let mut seconds: [Vec<f64>; 3] = Default::default();
        for _ in 0..options.rounds {
            for (which, times) in seconds.iter_mut().enumerate() {
                times.push(emulators.feed(which, &bytes).as_secs_f64());
            }
        }
        let per_round = |peer: usize| {
            let mut ratios: Vec<f64> = (0..options.rounds)
                .map(|r| seconds[peer][r] / seconds[0][r])
                .collect();
            median(&mut ratios)
        };
        let (vs_alacritty, vs_vt100) = (per_round(1), per_round(2));
        let fastest: Vec<f64> = seconds
            .iter()
            .map(|t| t.iter().copied().fold(f64::INFINITY, f64::min))
            .collect();
        let medians: Vec<f64> = seconds.iter_mut().map(|t| median(t)).collect();
        let speed = |i: usize| format!("{:.0} · {:.0}", mib / medians[i], mib / fastest[i]);
        println!(
            "| {name} | {} | {} | {} | {:.2}× · {vs_alacritty:.2}× | {:.2}× · {vs_vt100:.2}× |",
            speed(0),
            speed(1),
            speed(2),
            medians[1] / medians[0],
            medians[2] / medians[0],
        );
    }
}
