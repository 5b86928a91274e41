//! GIF and APNG animations read back by an independent decoder, Python's Pillow: frame count,
//! each frame's duration, looping, and the final composited picture against the still PNG.
//!
//! Needs Pillow (`tests/install-deps` installs it; without, these tests are skipped outside
//! CI).

use std::path::Path;
use std::process::Command;

use shotty::recording::frames::Timing;
use shotty::render::animation::AnimationWriter;
use shotty::render::animation::raster::{RasterAnimation, RasterFormat};
use shotty::render::layout::Layout;
use shotty::render::shades::Shades;
use shotty::render::{Appearance, GIF_SHADES, WindowStyle};
use shotty::term::{Snapshot, Terminal};

use crate::support::needs;

/// Reads an animation with Pillow: prints a JSON summary and writes the last frame, composited
/// and converted to RGBA, to the second argument.
const READ_ANIMATION: &str = r#"
import json, sys
from PIL import Image

im = Image.open(sys.argv[1])
durations = []
for i in range(im.n_frames):
    im.seek(i)
    durations.append(im.info.get("duration"))
last = im.convert("RGBA")
with open(sys.argv[2], "wb") as f:
    f.write(last.tobytes())
print(json.dumps({
    "format": im.format,
    "frames": im.n_frames,
    "durations": durations,
    "loop": im.info.get("loop"),
    "size": list(last.size),
}))
"#;

/// What Pillow read.
struct Read {
    format: String,
    frames: usize,
    /// Milliseconds.
    durations: Vec<f64>,
    looped: Option<u64>,
    size: (u32, u32),
    last: Vec<u8>,
}

fn read_with_pillow(python: &Path, dir: &Path, name: &str, data: &[u8]) -> Read {
    let file = dir.join(name);
    let last = dir.join(format!("{name}.rgba"));
    std::fs::write(&file, data).expect("write the animation");
    let script = dir.join("read_animation.py");
    std::fs::write(&script, READ_ANIMATION).expect("write the script");
    let out = Command::new(python)
        .arg(&script)
        .arg(&file)
        .arg(&last)
        .output()
        .expect("Python runs");
    assert!(
        out.status.success(),
        "Pillow cannot read {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the script's JSON");
    Read {
        format: json["format"].as_str().expect("format").to_owned(),
        frames: json["frames"].as_u64().expect("frames") as usize,
        durations: json["durations"]
            .as_array()
            .expect("durations")
            .iter()
            .map(|d| d.as_f64().expect("a duration"))
            .collect(),
        looped: json["loop"].as_u64(),
        size: (
            json["size"][0].as_u64().expect("width") as u32,
            json["size"][1].as_u64().expect("height") as u32,
        ),
        last: std::fs::read(&last).expect("the last frame"),
    }
}

/// The still PNG of `snapshot`, decoded: size and RGBA.
fn still(snapshot: &Snapshot, a: &Appearance) -> ((u32, u32), Vec<u8>) {
    let data = shotty::render::to_png(snapshot, a).expect("still PNG");
    let mut reader = png::Decoder::new(std::io::Cursor::new(data))
        .read_info()
        .expect("PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut pixels).expect("PNG frame");
    pixels.truncate(info.buffer_size());
    assert_eq!(info.color_type, png::ColorType::Rgba);
    ((info.width, info.height), pixels)
}

/// The last screen as a GIF draws it by default: antialiased edges in `GIF_SHADES` shades, a
/// colour keeping the shade it was given in the first screen that had it (so each screen is
/// rasterised in turn through one `Shades`), demultiplied RGBA.
fn gif_still(shots: &[Snapshot], a: &Appearance) -> Vec<u8> {
    let mut shades = Shades::new(GIF_SHADES);
    let mut last = Vec::new();
    for shot in shots {
        let layout = Layout::new(shot, a).expect("layout");
        last = shotty::render::png::render_layout(&layout, a, Some(&mut shades))
            .expect("raster")
            .take_demultiplied();
    }
    last
}

/// A progress bar with a coloured counter drawn at grid indices `INDICES`; the last step
/// erases the word "working" (its pixels turn transparent in the transparent style).
const INDICES: [u64; 5] = [0, 4, 9, 20, 33];

fn screens() -> Vec<Snapshot> {
    let mut term = Terminal::new(40, 4);
    let steps = [
        "\x1b[1mworking\x1b[0m on \x1b[36mbuild\x1b[0m\r\n\x1b[32m[          ]\x1b[0m   0%",
        "\r\x1b[32m[###       ]\x1b[0m \x1b[33m 30%\x1b[0m",
        "\r\x1b[32m[######    ]\x1b[0m \x1b[33m 60%\x1b[0m",
        "\r\x1b[32m[##########]\x1b[0m \x1b[1;32m100%\x1b[0m",
        "\x1b[A\r\x1b[7C\x1b[1K\r\n\x1b[44;97m done \x1b[0m",
    ];
    steps
        .iter()
        .map(|s| {
            term.advance(s.as_bytes());
            term.snapshot()
        })
        .collect()
}

fn animate(format: RasterFormat, a: &Appearance, timing: &Timing, shots: &[Snapshot]) -> Vec<u8> {
    let mut writer = Box::new(RasterAnimation::new(format, a, timing).expect("writer"));
    for (shot, &index) in shots.iter().zip(&INDICES) {
        let layout = Layout::new(shot, a).expect("layout");
        writer.push(&layout, index).expect("push");
    }
    writer.finish(end(timing)).expect("finish")
}

fn end(timing: &Timing) -> u64 {
    INDICES[INDICES.len() - 1] + timing.sleep_frames()
}

/// The grid times of the frames and the end, each as `f` says.
fn boundaries(timing: &Timing, f: impl Fn(u64) -> f64) -> Vec<f64> {
    let times: Vec<u64> = INDICES.iter().copied().chain([end(timing)]).collect();
    times.windows(2).map(|w| f(w[1]) - f(w[0])).collect()
}

/// The still's pixels as a GIF shows them: opaque at half opacity and above, else clear.
fn as_gif_shows(rgba: &[u8]) -> Vec<u8> {
    rgba.chunks_exact(4)
        .flat_map(|p| {
            if p[3] < 128 {
                [0, 0, 0, 0]
            } else {
                [p[0], p[1], p[2], 255]
            }
        })
        .collect()
}

/// Pillow's transparent pixels keep the palette colour of the transparent index: clear them.
fn clear_transparent(rgba: &[u8]) -> Vec<u8> {
    rgba.chunks_exact(4)
        .flat_map(|p| {
            if p[3] == 0 {
                [0, 0, 0, 0]
            } else {
                [p[0], p[1], p[2], p[3]]
            }
        })
        .collect()
}

fn colour_count(rgba: &[u8]) -> usize {
    let mut colours: Vec<&[u8]> = rgba.chunks_exact(4).collect();
    colours.sort_unstable();
    colours.dedup();
    colours.len()
}

fn check(python: &Path, window: WindowStyle, looped: bool) {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = Appearance {
        window,
        ..Appearance::default()
    };
    let timing = Timing {
        looped,
        ..Timing::default()
    };
    let shots = screens();
    let (size, still_png) = still(&shots[shots.len() - 1], &a);
    let gif_still = gif_still(&shots, &a);
    assert!(
        colour_count(&gif_still) < colour_count(&still_png),
        "{window:?}: fewer shades, fewer colours ({} vs {})",
        colour_count(&gif_still),
        colour_count(&still_png)
    );
    let fps = f64::from(timing.fps);

    let gif = read_with_pillow(
        python,
        dir.path(),
        "a.gif",
        &animate(RasterFormat::Gif, &a, &timing, &shots),
    );
    assert_eq!(gif.format, "GIF");
    assert_eq!(gif.frames, INDICES.len(), "{window:?}");
    // Centiseconds rounded on the grid, in milliseconds.
    let cs = |i: u64| (i as f64 * 100.0 / fps).round() * 10.0;
    assert_eq!(gif.durations, boundaries(&timing, cs), "{window:?}");
    assert_eq!(gif.looped, looped.then_some(0), "{window:?}");
    assert_eq!(gif.size, size);
    let shown = as_gif_shows(&gif_still);
    assert!(
        colour_count(&shown) <= 256,
        "the test's screen fits a palette"
    );
    assert!(
        clear_transparent(&gif.last) == shown,
        "{window:?}: the GIF's last frame differs from the still"
    );

    let apng = read_with_pillow(
        python,
        dir.path(),
        "a.apng",
        &animate(RasterFormat::Apng, &a, &timing, &shots),
    );
    assert_eq!(apng.format, "PNG");
    assert_eq!(apng.frames, INDICES.len(), "{window:?}");
    let ms = |i: u64| i as f64 * 1000.0 / fps;
    let want = boundaries(&timing, ms);
    assert_eq!(apng.durations.len(), want.len());
    for (got, want) in apng.durations.iter().zip(&want) {
        assert!(
            (got - want).abs() < 1e-6,
            "{window:?}: {got} ms for {want} ms"
        );
    }
    assert_eq!(apng.looped, Some(if looped { 0 } else { 1 }), "{window:?}");
    assert_eq!(apng.size, size);
    assert!(
        apng.last == still_png,
        "{window:?}: the APNG's last frame differs from the still"
    );
}

#[test]
fn pillow_reads_looped_animations_of_the_default_look() {
    if let Some(python) = needs::python("PIL") {
        check(&python, WindowStyle::None, true);
    }
}

#[test]
fn pillow_reads_transparent_animations_played_once() {
    if let Some(python) = needs::python("PIL") {
        check(&python, WindowStyle::Transparent, false);
    }
}

#[test]
fn pillow_reads_animations_in_a_window() {
    if let Some(python) = needs::python("PIL") {
        check(&python, WindowStyle::Macos, true);
    }
}
