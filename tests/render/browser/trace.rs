//! A failed scenario's `trace.html` in Chromium: it loads from the file alone (no network),
//! names the failed step, has one filmstrip frame per step with every screen's picture
//! decoded, plays the recording, and its cell inspector reads the cell under a click.

use std::process::Command;

use super::{Browser, chromium, file_url, workdir};

/// A scenario that prints a coloured word, then waits for text that never comes.
const SCENARIO: &str = r#"$version: 1
options:
  terminal: {width: 30, height: 4}
  # A window: the grid is offset by the title bar and the padding.
  appearance: {window: macos, padding: 20}
scenario:
  launch: {executable: sh, args: [-c, "printf 'hi \\033[1;31mred\\033[0m\\n'; sleep 30"]}
  execute:
    - {type: wait, args: {text: red}}
    - {type: mark, args: {label: before}}
    - {type: wait, args: {text: never, timeout: 200ms}}
    - {type: send, inputs: [{text: x}]}
"#;

#[test]
fn the_failure_trace_shows_the_failed_step_its_screens_and_cells_in_chromium() {
    let Some(chromium) = chromium() else { return };
    let (dir, _keep) = workdir("trace");
    std::fs::write(dir.join("t.scenario.yaml"), SCENARIO).expect("scenario written");
    let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .args(["scenario", "run", "t.scenario.yaml", "--report", "report"])
        .current_dir(&dir)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .env_remove("CI")
        .output()
        .expect("shotty runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("summary");
    let steps = summary["steps"].as_array().expect("steps").len();
    assert_eq!(steps, 6, "launch, wait, mark, wait, send, exit");
    let report = dir.join("report");
    for file in [
        "failure.md",
        "trace.html",
        "recording.cast",
        "screens/step-03.svg",
    ] {
        assert!(report.join(file).is_file(), "{file} is in the report");
    }
    let md = std::fs::read_to_string(report.join("failure.md")).expect("failure.md");
    assert!(
        md.contains("Step 3 (`wait`, execute phase, line 11)"),
        "{md}"
    );
    assert!(md.contains("hi red"), "the screen's text: {md}");
    let html = std::fs::read_to_string(report.join("trace.html")).expect("trace.html");
    for attribute in ["src=\"http", "href=\"http", "src=\"//", "@import"] {
        assert!(
            !html.contains(attribute),
            "the page loads nothing: {attribute}"
        );
    }

    let mut browser = Browser::launch(&chromium, &[]);
    let mut page = browser.open(&file_url(&report.join("trace.html")), 1200, 900);
    let seen = page.evaluate(
        "(async () => {
           const imgs = [...document.querySelectorAll('img')];
           await Promise.all(imgs.map(i => i.decode().catch(() => null)));
           const frames = [...document.querySelectorAll('.filmstrip figure.frame')];
           const failed = document.querySelector('#failure h2');
           const shot = document.querySelector('#frame-3 img');
           const box = shot.getBoundingClientRect();
           // Row 0, column 4: the 'e' of 'red' (cells of 30 columns over the picture's grid).
           const geo = JSON.parse(document.getElementById('data').textContent)
             .geometry.find(g => g.step === 3).geometry;
           const scale = shot.clientWidth / shot.naturalWidth;
           const x = (geo.left + 4.5 * geo.cellWidth) * scale, y = (geo.top + 0.5 * geo.cellHeight) * scale;
           shot.dispatchEvent(new MouseEvent('click', {clientX: box.left + x, clientY: box.top + y, bubbles: true}));
           return {
             frames: frames.length,
             steps: [...frames].map(f => +f.dataset.step),
             failedFrames: frames.filter(f => f.classList.contains('failed')).length,
             pictures: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
             images: imgs.length,
             failed: failed ? failed.textContent : null,
             inspector: document.getElementById('inspector').textContent,
             recording: !!document.querySelector('#recording img'),
             failedScreenWidth: (document.querySelector('#failure figure.large img') || {clientWidth: 0}).clientWidth,
             thumbnailWidth: document.querySelector('.filmstrip figure.frame img').clientWidth,
             resources: performance.getEntriesByType('resource').map(r => r.name)
               .filter(n => !n.startsWith('data:')),
           };
         })()",
    );
    assert_eq!(seen["frames"], steps, "one frame per step: {seen:#}");
    assert_eq!(
        seen["steps"],
        serde_json::json!([0, 1, 2, 3, 4, 5]),
        "{seen:#}"
    );
    assert_eq!(seen["failedFrames"], 1, "{seen:#}");
    assert_eq!(
        seen["pictures"], seen["images"],
        "every picture decodes: {seen:#}"
    );
    // Four screens (launch, wait, mark, the failed wait), the failed one again large at the top,
    // and the recording; the skipped send has none.
    assert_eq!(seen["images"], 6, "{seen:#}");
    let (large, thumbnail) = (
        seen["failedScreenWidth"].as_f64().expect("a width"),
        seen["thumbnailWidth"].as_f64().expect("a width"),
    );
    assert!(large >= 1.5 * thumbnail, "{seen:#}");
    assert_eq!(seen["failed"], "Step 3 (wait, line 11) failed", "{seen:#}");
    assert!(seen["recording"].as_bool().expect("bool"), "{seen:#}");
    assert_eq!(seen["resources"], serde_json::json!([]), "{seen:#}");
    let inspector = seen["inspector"].as_str().expect("inspector text");
    assert!(inspector.contains("row 0, column 4"), "{inspector}");
    assert!(inspector.contains("character: \"e\""), "{inspector}");
    assert!(
        inspector.contains("\"bold\":true") && inspector.contains("\"fg\":1"),
        "{inspector}"
    );
}
