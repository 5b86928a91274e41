//! Animated SVGs in Chromium: the animation paused at a moment looks like the still of the
//! recording at that moment (`render --at`), both drawn by Chromium; a viewer that does not
//! animate sees the last screen.

use std::path::Path;
use std::process::Command;

use super::{Browser, Rgb8, chromium, decode, file_url, page, svg_size, workdir};

/// A recording with colour, backgrounds, box drawing, wide characters, a progress bar that
/// rewrites its line and a clear screen; no pause reaches the idle limit.
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
    events.push((3.0, "\x1b[7m inverse \x1b[0m end".into()));
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

#[test]
fn the_animation_shows_the_recordings_screen_at_each_moment_in_chromium() {
    let Some(chromium) = chromium() else { return };
    let (dir, _keep) = workdir("animation");
    let cast = dir.join("run.cast");
    std::fs::write(&cast, recording()).expect("recording written");
    let cast_arg = cast.to_str().expect("UTF-8 path");
    let animated = dir.join("run.svg");
    let common = [
        "--embed-font",
        "-d",
        "macos",
        "--title",
        "demo",
        "--fps",
        "10",
    ];
    let mut args = vec!["render", cast_arg, "--video", "-o"];
    args.push(animated.to_str().expect("UTF-8 path"));
    args.extend(common);
    shotty(&args);
    let svg = std::fs::read_to_string(&animated).expect("animation readable");

    let mut browser = Browser::launch(&chromium, &[]);
    // Moments inside frame intervals: at the start, with the box drawn, mid-way through the
    // progress bar, and during the final sleep (the last screen). The recording's times equal
    // the animation's (speed 1, no pause cut).
    let moments = [(0.25, 250), (0.75, 750), (1.45, 1450), (3.6, 3600)];
    let mut stills = Vec::new();
    for (at, ms) in moments {
        let still = dir.join(format!("still-{ms}.svg"));
        let at = at.to_string();
        let mut args = vec!["render", cast_arg, "--at", &at, "-o"];
        args.push(still.to_str().expect("UTF-8 path"));
        args.extend(common.iter().filter(|a| !["--fps", "10"].contains(a)));
        shotty(&args);
        let still = std::fs::read_to_string(&still).expect("still readable");
        stills.push(screenshot(
            &mut browser,
            &still,
            None,
            &dir,
            &format!("still-{ms}"),
        ));
    }
    let mut failures = Vec::new();
    for (i, &(_, ms)) in moments.iter().enumerate() {
        let shot = screenshot(
            &mut browser,
            &svg,
            Some(ms),
            &dir,
            &format!("animated-{ms}"),
        );
        for (j, still) in stills.iter().enumerate() {
            let d = differing(&shot, still);
            eprintln!(
                "animation at {ms} ms vs still at {} ms: {:.4}% differ",
                moments[j].1,
                100.0 * d
            );
            // The same moment looks the same; any other moment looks different (so the
            // comparison can tell moments apart at all).
            if (i == j) != (d < 0.0002) {
                failures.push(format!(
                    "animation at {ms} ms vs still at {} ms: {:.4}% of pixels differ",
                    moments[j].1,
                    100.0 * d
                ));
            }
        }
    }
    let static_view = screenshot(&mut browser, &svg, None, &dir, "static");
    let last = stills.last().expect("stills");
    let d = differing(&static_view, last);
    if d >= 0.0002 {
        failures.push(format!(
            "not animated, it shows something else than the last screen ({:.4}% differ)",
            100.0 * d
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
