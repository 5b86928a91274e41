//! Emulator throughput: shotty against alacritty_terminal 0.26 and vt100 0.18 on identical
//! deterministic streams, at 80×24 and 200×50 with 10,000 lines of scrollback.
//!
//! `cargo bench --bench emulator`; `python3 benches/report.py` turns criterion's results into
//! the ratio table in BENCHMARKS.md.

use std::hint::black_box;
use std::num::NonZeroU16;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::Processor;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

#[path = "support/streams.rs"]
mod streams;

const SCROLLBACK: usize = 10_000;
const STREAM_BYTES: usize = 1 << 20;

fn bench_emulators(c: &mut Criterion) {
    for (width, height) in [(80usize, 24usize), (200, 50)] {
        for (name, bytes) in streams::all(STREAM_BYTES, width, height) {
            let mut group = c.benchmark_group(format!("{name}/{width}x{height}"));
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            group.sample_size(20);

            let mut shotty_term = shotty::term::Terminal::with_options(
                width,
                height,
                shotty::term::TerminalOptions {
                    scrollback: SCROLLBACK,
                    ..Default::default()
                },
            );
            group.bench_function(BenchmarkId::new("shotty", ""), |b| {
                b.iter(|| {
                    shotty_term.advance(black_box(&bytes));
                    black_box(shotty_term.screen().cursor());
                })
            });

            let config = Config {
                scrolling_history: SCROLLBACK,
                ..Config::default()
            };
            let mut alacritty = Term::new(config, &TermSize::new(width, height), VoidListener);
            let mut processor: Processor = Processor::new();
            group.bench_function(BenchmarkId::new("alacritty", ""), |b| {
                b.iter(|| {
                    processor.advance(&mut alacritty, black_box(&bytes));
                    black_box(alacritty.grid().cursor.point);
                })
            });

            let rows = NonZeroU16::new(height as u16).expect("non-zero height");
            let cols = NonZeroU16::new(width as u16).expect("non-zero width");
            let mut vt = vt100::Parser::new(rows, cols, SCROLLBACK);
            group.bench_function(BenchmarkId::new("vt100", ""), |b| {
                b.iter(|| {
                    vt.process(black_box(&bytes));
                    black_box(vt.screen().cursor_position());
                })
            });
            group.finish();
        }
    }
}

criterion_group!(benches, bench_emulators);
criterion_main!(benches);
