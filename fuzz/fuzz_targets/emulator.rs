//! Coverage-guided fuzzing of the emulator and the renderer: `cargo +nightly fuzz run
//! emulator` (or `cargo fuzz run emulator` where the toolchain supports it). See
//! `fuzz/README.md` for the runs so far.
//!
//! The first two bytes choose the size; the rest is fed in chunks whose boundaries the next
//! bytes choose, with a resize in the middle. Invariants are checked after every chunk. The
//! final screen is rendered to SVG, which must be well-formed XML (roxmltree is the parser
//! usvg uses for the PNG path); one input in 64 is also rasterised through that PNG path.
//!
//! With `SHOTTY_FUZZ_BYTES=1` in the environment the target reports how many inputs and bytes
//! it has executed every 1024 inputs, on stderr: libFuzzer counts runs, not bytes.

#![no_main]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use libfuzzer_sys::fuzz_target;
use shotty::render::{self, Appearance, PngCompression, WindowStyle};
use shotty::term::{Terminal, TerminalOptions};

static RUNS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

fn count(len: usize) {
    static REPORT: OnceLock<bool> = OnceLock::new();
    if !*REPORT.get_or_init(|| std::env::var_os("SHOTTY_FUZZ_BYTES").is_some()) {
        return;
    }
    let runs = RUNS.fetch_add(1, Ordering::Relaxed) + 1;
    let bytes = BYTES.fetch_add(len as u64, Ordering::Relaxed) + len as u64;
    if runs % 1024 == 0 {
        eprintln!("shotty-fuzz: {runs} inputs, {bytes} bytes");
    }
}

fuzz_target!(|data: &[u8]| {
    count(data.len());
    let [w, h, rest @ ..] = data else {
        return;
    };
    let mut term = Terminal::with_options(
        1 + *w as usize % 200,
        1 + *h as usize % 60,
        TerminalOptions {
            scrollback: 100,
            ..Default::default()
        },
    );
    let mid = rest.len() / 2;
    for (i, chunk) in rest.chunks(97).enumerate() {
        term.advance(chunk);
        if i == mid / 97 {
            term.resize(1 + chunk.len() % 150, 1 + chunk.len() % 40);
        }
        let cursor = term.screen().cursor();
        assert!(cursor.row < term.height() && cursor.col < term.width());
        for row in term.screen().grid().rows() {
            assert_eq!(row.len(), term.width());
        }
    }
    let snap = term.snapshot();
    assert_eq!(snap.rows.len(), term.height());
    let _ = term.take_replies();

    // The size bytes also pick the look, so every window style and the embedded font get
    // their share without spending input on it.
    let (_, window) = WindowStyle::ALL[(*w ^ *h) as usize % WindowStyle::ALL.len()];
    let appearance = Appearance {
        window,
        // Subsetting fonts is slow too: one input in 32.
        embed_font: *w % 32 == 1,
        ..Appearance::default()
    };
    let svg = render::to_svg(&snap, &appearance).expect("every snapshot renders");
    if let Err(e) = roxmltree::Document::parse(&svg) {
        panic!("the SVG is not XML: {e}");
    }
    // Rasterising costs more than everything above together, so only now and then; the PNG
    // path also re-parses the SVG with usvg, which has limits of its own.
    if *h % 64 == 0 {
        let appearance = Appearance {
            scale: 0.25,
            png_compression: PngCompression::Fast,
            ..appearance
        };
        render::to_png(&snap, &appearance).expect("every SVG rasterises");
    }
});
