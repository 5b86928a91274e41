//! Memory bounds measured on the real process (its own test binary, so nothing else runs).
//!
//! Keep it out of the grouped test binaries (`tests/term/` and the others): it measures the
//! resident set of the whole test process, which any test running beside it in the same
//! process would inflate.

use shotty::term::{Terminal, TerminalOptions};

/// Resident set size of this process in bytes (Linux `/proc/self/statm`).
fn rss_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("procfs is mounted");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("statm has a resident field");
    pages * 4096
}

#[test]
fn full_scrollback_of_10000_lines_at_200_columns_stays_under_40_mb() {
    let before = rss_bytes();
    let mut term = Terminal::with_options(
        200,
        50,
        TerminalOptions {
            scrollback: 10_000,
            ..Default::default()
        },
    );
    // Full-width styled lines, twice the scrollback's capacity, so every row is written and
    // the ring recycles.
    let line: String = (0..200)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    for i in 0..20_000 {
        term.advance(format!("\x1b[3{}m{line}\r\n", i % 8).as_bytes());
    }
    assert_eq!(term.screen().scrollback().len(), 10_000);
    // 20,000 line feeds: 49 move the cursor to the bottom row, the rest scroll.
    assert_eq!(term.screen().scrollback().dropped(), 20_000 - 49 - 10_000);
    let used = rss_bytes().saturating_sub(before);
    eprintln!(
        "10,000 lines of scrollback at 200 columns: {:.1} MB",
        used as f64 / 1e6
    );
    assert!(used < 40_000_000, "{used} bytes");
    drop(term);
}
