//! The size of the default SVG: the gzipped median of thirteen real program screens rendered with
//! `--no-metadata` (what a page serves) must not grow. `benches/svg_size.py` compares the same
//! screens with termtosvg, rich and termsnap; this pins shotty's own figure, so a change that
//! makes every screenshot bigger fails here rather than in a benchmark nobody reran.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::golden_inputs::{Input, input_bytes};

/// The median of the thirteen screens below, gzipped at level 9 (`gzip -9 -n`), in bytes. Lower it
/// when a change makes the screens smaller; never raise it to let a change pass.
const MEDIAN_LIMIT: usize = 1147;

/// The screens of `benches/svg_size.py`: fixture, cut before its last alternate-screen exit,
/// terminal size.
const SCREENS: [(&str, bool, u16, u16); 13] = [
    ("ls_color", false, 100, 30),
    ("git_log_graph", false, 100, 30),
    ("rich_table", false, 100, 30),
    ("emoji_cjk", false, 80, 24),
    ("htop", true, 100, 30),
    ("vim_split_number", true, 80, 24),
    ("dialog_menu", true, 80, 24),
    ("colors_256", false, 100, 36),
    ("less_search", true, 80, 24),
    ("top", false, 100, 30),
    ("bash_line_editing", false, 80, 24),
    ("bash_wrap_40", false, 40, 10),
    ("python_repl", false, 80, 24),
];

fn gzipped_len(data: &[u8]) -> usize {
    let mut gzip = Command::new("gzip")
        .args(["-9", "-n", "-c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip runs");
    let mut stdin = gzip.stdin.take().expect("gzip's stdin");
    let data = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = gzip.wait_with_output().expect("gzip finishes");
    writer.join().expect("writer").expect("gzip read its input");
    assert!(out.status.success(), "gzip failed");
    out.stdout.len()
}

#[test]
fn the_gzipped_median_of_the_real_screens_does_not_grow() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut sizes: Vec<(usize, &str)> = SCREENS
        .iter()
        .map(|&(name, alt, width, height)| {
            let input = tmp.path().join(format!("{name}.bin"));
            std::fs::write(&input, input_bytes(&Input::Fixture { name, alt })).expect("input");
            let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
                .env("XDG_CONFIG_HOME", "/nonexistent")
                .args(["render", "--no-metadata", "--width", &width.to_string()])
                .args(["--height", &height.to_string()])
                .arg(&input)
                .output()
                .expect("shotty runs");
            assert!(out.status.success(), "{name}: shotty render failed");
            (gzipped_len(&out.stdout), name)
        })
        .collect();
    sizes.sort();
    let median = sizes[SCREENS.len() / 2].0;
    eprintln!("gzipped --no-metadata SVGs: {sizes:?}; median {median} bytes");
    assert!(
        median <= MEDIAN_LIMIT,
        "the gzipped median of the screens grew to {median} bytes (limit {MEDIAN_LIMIT}): \
         {sizes:?}"
    );
}
