//! Animated SVGs in Chromium: the animation paused at a moment looks like the still of the
//! recording at that moment (`render --at`), both drawn by Chromium; a viewer that does not
//! animate sees the last screen.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::webkit::{self, WebKit};
use super::{Browser, Rgb8, chromium, decode, file_url, page, svg_size, workdir};
use crate::support::needs;

/// A recording with colour, backgrounds, box drawing, wide characters, a progress bar that
/// rewrites its line, a clear screen and a counter that ticks for 7 s (screens enough to fill
/// more than one row of the animation's strip); no pause reaches the idle limit.
fn recording() -> String {
    let mut events: Vec<(f64, String)> = vec![
        (0.0, "\x1b[1;32m$\x1b[0m ls --color\r\n".into()),
        (
            0.5,
            "\x1b[1;34mdir\x1b[0m  file.txt  \x1b[31mred\x1b[0m\r\n┌──────┐\r\n│ box  │\r\n└──────┘\r\n"
                .into(),
        ),
    ];
    for i in 1..=5 {
        let bar = " ".repeat(i * 3);
        events.push((
            0.8 + 0.2 * i as f64,
            format!("\r\x1b[33mfetch\x1b[0m {:3}% \x1b[42m{bar}\x1b[0m", i * 20),
        ));
    }
    events.push((2.5, "\x1b[2J\x1b[Hdone ✓ 日本語\r\n".into()));
    events.push((3.0, "\x1b[7m inverse \x1b[0m end\r\n".into()));
    for i in 0..70 {
        let t = 3.2 + 0.1 * f64::from(i);
        events.push((t, format!("\r\x1b[36mtick\x1b[0m {i:2}")));
    }
    let mut cast = String::from("{\"version\":2,\"width\":40,\"height\":8}\n");
    for (t, data) in events {
        let data = serde_json::to_string(&data).expect("JSON string");
        cast.push_str(&format!("[{t}, \"o\", {data}]\n"));
    }
    cast
}

fn shotty(args: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .args(args)
        .status()
        .expect("shotty runs");
    assert!(status.success(), "shotty {args:?} failed");
}

/// Chromium's picture of `svg`, with the page's animations paused at `at_ms` (none: the
/// animations switched off, as a viewer that does not animate shows it).
fn screenshot(
    browser: &mut Browser,
    svg: &str,
    at_ms: Option<u32>,
    dir: &Path,
    name: &str,
) -> Rgb8 {
    let style = if at_ms.is_none() {
        "<style>.strip{animation:none!important}</style>"
    } else {
        ""
    };
    let html = dir.join(format!("{name}.html"));
    std::fs::write(&html, page(svg, style)).expect("page written");
    let (width, height) = svg_size(svg);
    let mut page = browser.open(&file_url(&html), width, height);
    if let Some(ms) = at_ms {
        let count = page.evaluate(&format!(
            "(async () => {{ const all = document.getAnimations(); \
             for (const a of all) {{ a.pause(); a.currentTime = {ms}; }} \
             await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); \
             return all.length; }})()"
        ));
        assert_eq!(count, 1, "{name}: the animated SVG has one animation");
    }
    let shot = page.screenshot(width, height);
    drop(page);
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, &shot).expect("screenshot written");
    decode(&path)
}

/// The share of pixels that differ by more than a faint antialiasing difference.
fn differing(a: &Rgb8, b: &Rgb8) -> f64 {
    assert_eq!((a.width, a.height), (b.width, b.height), "image sizes");
    let far = a
        .pixels
        .iter()
        .zip(&b.pixels)
        .filter(|(p, q)| (0..3).any(|i| p[i].abs_diff(q[i]) > 40))
        .count();
    far as f64 / a.pixels.len() as f64
}

/// Moments of [`recording`] inside frame intervals: at the start, with the box drawn, mid-way
/// through the progress bar, and during the final sleep (the last screen). The recording's
/// times equal the animation's (speed 1, no pause cut).
const MOMENTS: [(f64, u32); 5] = [
    (0.25, 250),
    (0.75, 750),
    (1.45, 1450),
    (3.65, 3650),
    (10.5, 10500),
];

/// vim's split window with line numbers (the fixture's bytes) arriving in six pieces half a
/// second apart, at 80×24: a full screen of rows whose baselines fall at many fractions of a
/// pixel.
fn vim_recording() -> String {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vim_split_number.bin"),
    )
    .expect("the vim fixture");
    let text = String::from_utf8_lossy(&bytes);
    let chars: Vec<char> = text.chars().collect();
    let mut cast = String::from("{\"version\":2,\"width\":80,\"height\":24}\n");
    let pieces = 6;
    for i in 0..pieces {
        let piece: String = chars[i * chars.len() / pieces..(i + 1) * chars.len() / pieces]
            .iter()
            .collect();
        let data = serde_json::to_string(&piece).expect("JSON string");
        cast.push_str(&format!("[{}, \"o\", {data}]\n", 0.1 + 0.5 * i as f64));
    }
    cast.push_str("[4.0, \"o\", \"\"]\n");
    cast
}

/// Moments of [`vim_recording`]: after each of its pieces.
const VIM_MOMENTS: [(f64, u32); 6] = [
    (0.35, 350),
    (0.85, 850),
    (1.35, 1350),
    (1.85, 1850),
    (2.35, 2350),
    (2.85, 2850),
];

/// A recording, its moments, and the appearance options its animation and stills share.
struct Recording {
    cast: String,
    moments: &'static [(f64, u32)],
    options: &'static [&'static str],
}

/// [`recording`] with embedded fonts in a macOS window.
fn demo() -> Recording {
    Recording {
        cast: recording(),
        moments: &MOMENTS,
        options: &["--embed-font", "-d", "macos", "--title", "demo"],
    }
}

/// Renders `recording` animated and as the still of each of its moments into `dir`, has
/// `shoot` draw each (`shoot(svg, at_ms, name)`: the animation paused at `at_ms`, or with
/// animations off for `None`), and returns what does not hold: the animation at a moment
/// looks like that moment's still and unlike every other, and without animation it shows
/// the last screen.
fn check_moments(
    dir: &Path,
    browser: &str,
    recording: &Recording,
    mut shoot: impl FnMut(&str, Option<u32>, &str) -> Rgb8,
) -> Vec<String> {
    let moments = recording.moments;
    let cast = dir.join("run.cast");
    std::fs::write(&cast, &recording.cast).expect("recording written");
    let cast_arg = cast.to_str().expect("UTF-8 path");
    let animated = dir.join("run.svg");
    let mut args = vec!["render", cast_arg, "--video", "--fps", "10", "-o"];
    args.push(animated.to_str().expect("UTF-8 path"));
    args.extend(recording.options);
    shotty(&args);
    let svg = std::fs::read_to_string(&animated).expect("animation readable");

    let mut stills = Vec::new();
    for &(at, ms) in moments {
        let still = dir.join(format!("still-{ms}.svg"));
        let at = at.to_string();
        let mut args = vec!["render", cast_arg, "--at", &at, "-o"];
        args.push(still.to_str().expect("UTF-8 path"));
        args.extend(recording.options);
        shotty(&args);
        let still = std::fs::read_to_string(&still).expect("still readable");
        stills.push(shoot(&still, None, &format!("still-{ms}")));
    }
    let mut failures = Vec::new();
    for (i, &(_, ms)) in moments.iter().enumerate() {
        let shot = shoot(&svg, Some(ms), &format!("animated-{ms}"));
        for (j, still) in stills.iter().enumerate() {
            let d = differing(&shot, still);
            eprintln!(
                "{browser}: animation at {ms} ms vs still at {} ms: {:.4}% differ",
                moments[j].1,
                100.0 * d
            );
            // The same moment looks the same; any other moment looks different (so the
            // comparison can tell moments apart at all).
            if (i == j) != (d < 0.0002) {
                failures.push(format!(
                    "{browser}: animation at {ms} ms vs still at {} ms: {:.4}% of pixels differ",
                    moments[j].1,
                    100.0 * d
                ));
            }
        }
    }
    let static_view = shoot(&svg, None, "static");
    let last = stills.last().expect("stills");
    let d = differing(&static_view, last);
    if d >= 0.0002 {
        failures.push(format!(
            "{browser}: not animated, it shows something else than the last screen ({:.4}% differ)",
            100.0 * d
        ));
    }
    failures
}

#[test]
fn the_animation_shows_the_recordings_screen_at_each_moment_in_chromium() {
    let Some(chromium) = chromium() else { return };
    let (dir, _keep) = workdir("animation");
    let mut browser = Browser::launch(&chromium, &[]);
    let failures = check_moments(&dir, "Chromium", &demo(), |svg, at_ms, name| {
        screenshot(&mut browser, svg, at_ms, &dir, name)
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The default SVG (the viewer's fonts) of a full 80×24 screen: every row of the animation
/// on the still's pixels, at each moment.
#[test]
fn an_80x24_vim_animation_shows_each_moments_still_in_chromium() {
    let Some(chromium) = chromium() else { return };
    let (dir, _keep) = workdir("animation-vim");
    let mut browser = Browser::launch(&chromium, &[]);
    let vim = Recording {
        cast: vim_recording(),
        moments: &VIM_MOMENTS,
        options: &[],
    };
    let failures = check_moments(&dir, "Chromium", &vim, |svg, at_ms, name| {
        screenshot(&mut browser, svg, at_ms, &dir, name)
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Firefox: `SHOTTY_FIREFOX`, else `firefox` or `firefox-esr` on PATH; `None` when there is
/// none (the test is then skipped, outside CI).
fn firefox() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SHOTTY_FIREFOX") {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("firefox"))
                .find(|p| p.is_file())
        })
        .or_else(|| needs::program("firefox-esr"))
}

/// A style sheet that pauses the strip's animation at `at_ms` (none: switches it off).
fn paused_at(at_ms: Option<u32>) -> String {
    match at_ms {
        Some(ms) => format!(
            "<style>.strip{{animation-play-state:paused!important;animation-delay:-{ms}ms!important}}</style>"
        ),
        None => "<style>.strip{animation:none!important}</style>".to_owned(),
    }
}

/// Firefox's picture of `svg` inlined in a page, taken by its own headless `--screenshot`
/// (no script): the animation paused at `at_ms` by a style sheet alone, or switched off.
fn firefox_screenshot(
    firefox: &Path,
    svg: &str,
    at_ms: Option<u32>,
    dir: &Path,
    name: &str,
) -> Rgb8 {
    let html = dir.join(format!("ff-{name}.html"));
    std::fs::write(&html, page(svg, &paused_at(at_ms))).expect("page written");
    let (width, height) = svg_size(svg);
    let png = dir.join(format!("ff-{name}.png"));
    let profile = tempfile::tempdir().expect("profile dir");
    let out = Command::new(firefox)
        .args(["--headless", "--no-remote", "--profile"])
        .arg(profile.path())
        .arg("--screenshot")
        .arg(&png)
        .arg("--window-size")
        .arg(format!("{width},{height}"))
        .arg(file_url(&html))
        .env("HOME", profile.path())
        .env("MOZ_HEADLESS", "1")
        .output()
        .expect("firefox runs");
    assert!(
        png.is_file(),
        "firefox wrote no screenshot: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    decode(&png)
}

#[test]
fn the_animation_shows_the_recordings_screen_at_each_moment_in_firefox() {
    let Some(firefox) = firefox() else { return };
    let (dir, _keep) = workdir("animation-firefox");
    let failures = check_moments(&dir, "Firefox", &demo(), |svg, at_ms, name| {
        firefox_screenshot(&firefox, svg, at_ms, &dir, name)
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The default SVG of the 80×24 vim recording in Firefox, as in Chromium above: its rows run
/// to the grid's right edge in the animation and the stills alike, and land on the same
/// pixels.
#[test]
fn an_80x24_vim_animation_shows_each_moments_still_in_firefox() {
    let Some(firefox) = firefox() else { return };
    let (dir, _keep) = workdir("animation-vim-firefox");
    let vim = Recording {
        cast: vim_recording(),
        moments: &VIM_MOMENTS,
        options: &[],
    };
    let failures = check_moments(&dir, "Firefox", &vim, |svg, at_ms, name| {
        firefox_screenshot(&firefox, svg, at_ms, &dir, name)
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// WebKit's picture of `svg` inlined in a page: the animation paused at `at_ms` by a style
/// sheet alone, or switched off.
fn webkit_screenshot(
    webkit: &mut WebKit,
    svg: &str,
    at_ms: Option<u32>,
    dir: &Path,
    name: &str,
) -> Rgb8 {
    let html = dir.join(format!("wk-{name}.html"));
    std::fs::write(&html, page(svg, &paused_at(at_ms))).expect("page written");
    let (width, height) = svg_size(svg);
    let png = dir.join(format!("wk-{name}.png"));
    std::fs::write(&png, webkit.screenshot(&file_url(&html), width, height))
        .expect("screenshot written");
    decode(&png).cropped(width, height)
}

#[test]
fn the_animation_shows_the_recordings_screen_at_each_moment_in_webkit() {
    let Some((driver, browser)) = webkit::find() else {
        return;
    };
    let (dir, _keep) = workdir("animation-webkit");
    let mut webkit = WebKit::launch(&driver, &browser);
    let failures = check_moments(&dir, "WebKit", &demo(), |svg, at_ms, name| {
        webkit_screenshot(&mut webkit, svg, at_ms, &dir, name)
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
