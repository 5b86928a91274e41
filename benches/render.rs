//! Rendering speed: snapshot → layout, snapshot → SVG string, snapshot → PNG bytes (end to
//! end), and the PNG path's stages on their own (SVG → pixels, pixels → PNG at the default
//! and the fast compression, and a first image, its glyphs not yet cached), for a dense,
//! styled 80×24 and 200×50 screen.
//!
//! `cargo bench --bench render`; `python3 benches/render_report.py` turns criterion's results
//! into the table in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use shotty::render::{self, Appearance, Format, PngCompression};
use shotty::term::{Snapshot, Terminal};

/// A tiny xorshift generator so the screens need no dependency and never change.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x % n
    }
}

const WORDS: &[&str] = &[
    "render",
    "every",
    "cell",
    "of",
    "the",
    "screen",
    "shotty",
    "cargo",
    "--release",
    "ok",
    "warning:",
    "src/main.rs:42",
    "fn",
    "main()",
    "{",
    "}",
    "=>",
    "0x1f",
    "λ",
    "±",
];
const BOX: &[char] = &[
    '─', '│', '┌', '┐', '└', '┘', '├', '┤', '┼', '━', '═', '║', '╭', '╯',
];
const BLOCKS: &[char] = &['█', '▀', '▄', '░', '▒', '▓', '▌'];
const WIDE: &[char] = &['中', '文', '日', '本', '語', '한', '국'];

/// A random SGR: 16-colour, 256-colour or truecolour foreground, sometimes a background,
/// sometimes attributes (bold, dim, italic, underline styles, inverse, strike, overline).
fn sgr(rng: &mut Rng, out: &mut String) {
    out.push_str("\x1b[0");
    match rng.below(3) {
        0 => out.push_str(&format!(";{}", 30 + rng.below(8) + 60 * rng.below(2))),
        1 => out.push_str(&format!(";38;5;{}", rng.below(256))),
        _ => out.push_str(&format!(
            ";38;2;{};{};{}",
            rng.below(256),
            rng.below(256),
            rng.below(256)
        )),
    }
    if rng.below(3) == 0 {
        match rng.below(2) {
            0 => out.push_str(&format!(";{}", 40 + rng.below(8))),
            _ => out.push_str(&format!(";48;5;{}", rng.below(256))),
        }
    }
    for (attr, one_in) in [
        ("1", 3),
        ("2", 12),
        ("3", 6),
        ("4", 8),
        ("4:3", 30),
        ("7", 15),
        ("9", 20),
        ("53", 40),
    ] {
        if rng.below(one_in) == 0 {
            out.push(';');
            out.push_str(attr);
        }
    }
    out.push('m');
}

/// Every cell filled: words in changing styles, box-drawing borders and rules, block
/// elements and a few wide characters; each row placed with CUP so nothing scrolls.
pub fn dense_screen(width: usize, height: usize) -> Vec<u8> {
    let mut rng = Rng(0x5eed_cafe_f00d);
    let mut out = String::new();
    for row in 0..height {
        out.push_str(&format!("\x1b[{};1H", row + 1));
        let mut col = 0;
        let border = row == 0 || row + 1 == height;
        while col < width {
            sgr(&mut rng, &mut out);
            let remaining = width - col;
            if border || col == 0 || col + 1 == width {
                let c = BOX[rng.below(BOX.len() as u64) as usize];
                let n = if border { remaining.min(12) } else { 1 };
                out.extend(std::iter::repeat_n(c, n));
                col += n;
                continue;
            }
            match rng.below(12) {
                0 if remaining > 3 => {
                    let n = (1 + rng.below(3) as usize).min((remaining - 1) / 2);
                    for _ in 0..n {
                        out.push(WIDE[rng.below(WIDE.len() as u64) as usize]);
                    }
                    col += 2 * n;
                }
                1 => {
                    let n = (1 + rng.below(6) as usize).min(remaining - 1);
                    let c = BLOCKS[rng.below(BLOCKS.len() as u64) as usize];
                    out.extend(std::iter::repeat_n(c, n));
                    col += n;
                }
                2 => {
                    let n = (2 + rng.below(10) as usize).min(remaining - 1);
                    out.extend(std::iter::repeat_n('─', n));
                    col += n;
                }
                _ => {
                    let word = WORDS[rng.below(WORDS.len() as u64) as usize];
                    for c in word.chars().chain(std::iter::once(' ')) {
                        if col + 1 >= width {
                            break;
                        }
                        out.push(c);
                        col += 1;
                    }
                }
            }
        }
    }
    out.push_str("\x1b[0m");
    out.into_bytes()
}

fn snapshot(width: usize, height: usize) -> Snapshot {
    let mut term = Terminal::new(width, height);
    term.advance(&dense_screen(width, height));
    let snapshot = term.snapshot();
    // The screen really is dense: no blank cell left.
    let blank = snapshot
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .filter(|c| c.t == " " || c.t.is_empty())
        .count();
    assert!(
        blank * 5 < width * height,
        "{blank} blank cells of {}",
        width * height
    );
    snapshot
}

fn bench_render(c: &mut Criterion) {
    let appearance = Appearance::default();
    for (width, height) in [(80usize, 24usize), (200, 50)] {
        let snap = snapshot(width, height);
        let size = format!("{width}x{height}");
        let mut group = c.benchmark_group(format!("render/{size}"));
        group.sample_size(30);

        group.bench_function(BenchmarkId::new("layout", ""), |b| {
            b.iter(|| render::layout::Layout::new(black_box(&snap), &appearance).unwrap())
        });
        group.bench_function(BenchmarkId::new("svg", ""), |b| {
            b.iter(|| render::to_svg(black_box(&snap), &appearance).unwrap())
        });
        let no_meta = Appearance {
            metadata: false,
            ..Appearance::default()
        };
        group.bench_function(BenchmarkId::new("svg_no_metadata", ""), |b| {
            b.iter(|| render::to_svg(black_box(&snap), &no_meta).unwrap())
        });
        group.bench_function(BenchmarkId::new("png", ""), |b| {
            b.iter(|| render::encode(black_box(&snap), Format::Png, &appearance).unwrap())
        });
        // A process's first image: every glyph rasterised, none from the cache.
        group.bench_function(BenchmarkId::new("png_first", ""), |b| {
            b.iter(|| {
                render::png::forget_glyphs();
                render::encode(black_box(&snap), Format::Png, &appearance).unwrap()
            })
        });
        let fast = Appearance {
            png_compression: PngCompression::Fast,
            ..Appearance::default()
        };
        group.bench_function(BenchmarkId::new("png_fast", ""), |b| {
            b.iter(|| render::encode(black_box(&snap), Format::Png, &fast).unwrap())
        });

        // The PNG path's stages: layout → pixels (resvg under and over the text, the text from
        // cached glyphs) → PNG; and, to compare, the whole SVG drawn by resvg.
        let layout = render::layout::Layout::new(&snap, &appearance).unwrap();
        group.bench_function(BenchmarkId::new("rasterize", ""), |b| {
            b.iter(|| render::png::render_layout(black_box(&layout), &appearance, None).unwrap())
        });
        let svg = render::svg::write_for_raster(&layout, &appearance).unwrap();
        group.bench_function(BenchmarkId::new("rasterize_resvg", ""), |b| {
            b.iter(|| render::png::render_pixmap(black_box(&svg), &appearance).unwrap())
        });
        let pixmap = render::png::render_layout(&layout, &appearance, None).unwrap();
        let encoded = |c| render::png::encode(&pixmap, c).unwrap().len();
        eprintln!(
            "render/{size}: SVG {} bytes ({} without metadata), PNG {} bytes (fast: {})",
            render::to_svg(&snap, &appearance).unwrap().len(),
            render::to_svg(&snap, &no_meta).unwrap().len(),
            encoded(PngCompression::Default),
            encoded(PngCompression::Fast),
        );
        group.bench_function(BenchmarkId::new("encode_default", ""), |b| {
            b.iter(|| render::png::encode(black_box(&pixmap), PngCompression::Default).unwrap())
        });
        group.bench_function(BenchmarkId::new("encode_fast", ""), |b| {
            b.iter(|| render::png::encode(black_box(&pixmap), PngCompression::Fast).unwrap())
        });
        group.finish();
    }
}

criterion_group!(benches, bench_render);
criterion_main!(benches);
