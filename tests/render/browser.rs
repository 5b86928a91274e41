//! The SVGs in a real browser: headless Chromium opens SVGs rendered with `--embed-font` and
//! checks that every glyph is drawn by an embedded face and sits on its cell, then compares
//! Chromium's screenshot of the SVG with resvg's PNG of it. An SVG that follows its viewer's
//! light/dark preference is shot with `prefers-color-scheme` emulated each way and compared with
//! the PNG of that scheme.
//!
//! Chromium is driven over the DevTools protocol (`browser/devtools.rs`): the page script
//! (`tests/browser_page.js`) measures every glyph, `CSS.getPlatformFontsForNode` names the
//! fonts that drew each `<tspan>`, `Page.captureScreenshot` shoots the page.
//!
//! Needs Chromium (`tests/install-deps` installs Debian's; without, the tests are skipped outside
//! CI). `SHOTTY_CHROMIUM` points at another binary, and `SHOTTY_BROWSER_ARTIFACTS=DIR` keeps the pages, the SVGs and both images of every
//! case.

mod animation;
// Shared with the frontends' test of `shotty web`, which presses keys in a page.
#[allow(dead_code)]
#[path = "../support/devtools.rs"]
mod devtools;
mod trace;
mod webkit;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::needs;
use devtools::Browser;

use crate::support::golden_inputs::{
    Input, attributes, box_drawing, cjk, input_bytes, line_sizes, sample, unicode,
};

/// One screen to check: golden-case input, terminal size and extra `render` options.
struct Case {
    name: &'static str,
    input: Input,
    size: (u16, u16),
    args: &'static [&'static str],
    /// Whether `--embed-font` is added (all of [`cases`]; see [`default_svgs_in_chromium`]).
    embed_font: bool,
}

fn cases() -> Vec<Case> {
    let c = |name, input, size, args| Case {
        name,
        input,
        size,
        args,
        embed_font: true,
    };
    vec![
        // Plain coloured shell output (regular and bold faces, the powerline branch glyph).
        c("sample", sample(), (60, 8), &[]),
        // The same in a macOS frame: the grid is offset by the title bar.
        c(
            "sample-macos",
            sample(),
            (60, 8),
            &["-d", "macos", "--title", "cargo test"],
        ),
        // Bold, italic, bold italic, dim, inverse, decorations.
        c("attributes", attributes(), (72, 4), &[]),
        // CJK and full-width, emoji (ZWJ sequences, skin tones, flags), combining marks,
        // braille and symbols from the fallback faces, a row of 41 wide characters.
        c("unicode", unicode(), (90, 6), &[]),
        // Each bundled CJK repertoire, regular and bold, and common emoji.
        c("cjk", cjk(), (60, 6), &[]),
        c(
            "fixture-vim",
            Input::Fixture {
                name: "vim_split_number",
                alt: true,
            },
            (80, 24),
            &["-d", "macos"],
        ),
        c(
            "fixture-htop",
            Input::Fixture {
                name: "htop",
                alt: true,
            },
            (100, 30),
            &[],
        ),
        c(
            "fixture-emoji-cjk",
            Input::Fixture {
                name: "emoji_cjk",
                alt: false,
            },
            (80, 24),
            &[],
        ),
        // Real programs with long runs of spaces inside one text run, where a space of
        // another width would slide everything after it.
        c(
            "fixture-colors-256",
            Input::Fixture {
                name: "colors_256",
                alt: false,
            },
            (100, 36),
            &[],
        ),
        c(
            "fixture-ls-la",
            Input::Fixture {
                name: "ls_color",
                alt: false,
            },
            (100, 30),
            &[],
        ),
        c("font-size-20", sample(), (60, 8), &["--fontsize", "20"]),
        // Double-width and double-height rows: laid out at single size, drawn scaled.
        c("line-sizes", line_sizes(), (34, 5), &[]),
        c(
            "box-drawing-line-height-2",
            box_drawing(),
            (56, 9),
            &["--line-height", "2"],
        ),
    ]
}

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The browser: `SHOTTY_CHROMIUM`, else Chromium or Chrome on PATH; `None` when there is none
/// (the test is then skipped, outside CI).
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SHOTTY_CHROMIUM") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "SHOTTY_CHROMIUM={} is not a file",
            path.display()
        );
        return Some(path);
    }
    let dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    ["chromium-browser", "google-chrome", "google-chrome-stable"]
        .iter()
        .flat_map(|n| dirs.iter().map(move |d| d.join(n)))
        .find(|p| p.is_file())
        .or_else(|| needs::program("chromium"))
}

/// Renders a case through the real binary to `out` (SVG or PNG by extension).
fn render(case: &Case, input: &Path, out: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_shotty"))
        // No config file of the machine's: only what the test gives.
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .arg("render")
        .arg(input)
        .args(["--width", &case.size.0.to_string()])
        .args(["--height", &case.size.1.to_string()])
        .args(case.embed_font.then_some("--embed-font"))
        .args(case.args)
        .arg("-o")
        .arg(out)
        .status()
        .expect("shotty runs");
    assert!(status.success(), "{}: shotty render failed", case.name);
}

/// An HTML page holding the SVG inline, with nothing around it.
fn page(svg: &str, script: &str) -> String {
    let svg = svg.trim_start_matches(|c| c != '<');
    let svg = if svg.starts_with("<?xml") {
        &svg[svg.find("?>").map_or(0, |i| i + 2)..]
    } else {
        svg
    };
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><style>\
         html,body{{margin:0;padding:0;background:#fff;overflow:hidden}}svg{{display:block}}\
         </style></head><body>{svg}{script}</body></html>\n"
    )
}

/// The page script, to be inlined after the SVG.
fn page_script() -> String {
    let js = std::fs::read_to_string(Path::new(ROOT).join("tests/browser_page.js"))
        .expect("tests/browser_page.js readable");
    format!("<script>{js}</script>")
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// Work directory for one case: a temporary one, or a kept one under
/// `SHOTTY_BROWSER_ARTIFACTS`.
fn workdir(case: &str) -> (PathBuf, Option<tempfile::TempDir>) {
    match std::env::var_os("SHOTTY_BROWSER_ARTIFACTS") {
        Some(dir) => {
            let dir = PathBuf::from(dir).join(case);
            std::fs::create_dir_all(&dir).expect("artifact dir");
            (dir, None)
        }
        None => {
            let tmp = tempfile::tempdir().expect("temp dir");
            (tmp.path().to_path_buf(), Some(tmp))
        }
    }
}

fn render_case(case: &Case, dir: &Path, ext: &str) -> PathBuf {
    let input = dir.join("input.bin");
    std::fs::write(&input, input_bytes(&case.input)).expect("input written");
    let out = dir.join(format!("{}.{ext}", case.name));
    render(case, &input, &out);
    out
}

/// What Chromium made of one SVG.
struct Measured {
    /// The report of `browser_page.js`.
    report: serde_json::Value,
    /// The platform fonts that drew each `<tspan>`, in document order.
    fonts: Vec<Vec<serde_json::Value>>,
    /// The same for each `<text>`'s own characters (a row text's, outside its tspans).
    text_fonts: Vec<Vec<serde_json::Value>>,
}

/// The SVG of a case and what Chromium made of it.
fn measure(browser: &mut Browser, case: &Case) -> (String, Measured) {
    let (dir, _keep) = workdir(case.name);
    let svg_path = render_case(case, &dir, "svg");
    let svg = std::fs::read_to_string(&svg_path).expect("svg readable");
    let measured = measure_svg(browser, &svg, &dir);
    (svg, measured)
}

/// The `width` and `height` attributes of the root `<svg>`, rounded up to whole pixels.
fn svg_size(svg: &str) -> (u32, u32) {
    let tag = between(svg, "<svg", ">").expect("an <svg> element");
    let dim = |name: &str| -> u32 {
        let v: f64 = between(tag, &format!(" {name}=\""), "\"")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("the <svg> has no numeric {name}"));
        v.ceil() as u32
    };
    (dim("width"), dim("height"))
}

/// Loads `svg` in a page with `browser_page.js`, runs the script and asks which fonts drew
/// every `<tspan>`.
fn measure_svg(browser: &mut Browser, svg: &str, dir: &Path) -> Measured {
    let html = dir.join("measure.html");
    std::fs::write(&html, page(svg, &page_script())).expect("page written");
    let (width, height) = svg_size(svg);
    let mut page = browser.open(&file_url(&html), width, height);
    let report = page.evaluate("shottyMeasure()");
    let fonts = page.platform_fonts("svg tspan");
    let text_fonts = page.platform_fonts("svg text");
    Measured {
        report,
        fonts,
        text_fonts,
    }
}

/// The `<tspan>`s that the machine's fonts drew more glyphs of than the characters no
/// bundled face has can explain: a covered character drawn by a font of the machine (an
/// emoji-presentation selector would send the browser to its colour emoji font; the SVG
/// leaves it out).
fn drawn_by_the_machine(svg: &str, fonts: &[Vec<serde_json::Value>]) -> Vec<String> {
    let spans = tspans(svg);
    assert_eq!(
        spans.len(),
        fonts.len(),
        "Chromium found {} <tspan>s, the SVG has {}",
        fonts.len(),
        spans.len()
    );
    let mut found = Vec::new();
    for (span, fonts) in spans.iter().zip(fonts) {
        let chars: Vec<char> = span.text.chars().collect();
        let foreign = chars
            .iter()
            .filter(|&&c| !invisible(c) && !bundled_covers(c))
            .count() as u64;
        let machine: Vec<&serde_json::Value> =
            fonts.iter().filter(|f| f["isCustomFont"] != true).collect();
        let drawn: u64 = machine
            .iter()
            .filter_map(|f| f["glyphCount"].as_u64())
            .sum();
        if drawn > foreign {
            let names: Vec<String> = machine
                .iter()
                .map(|f| format!("{} ({} glyphs)", f["familyName"], f["glyphCount"]))
                .collect();
            found.push(format!(
                "{:?}: {drawn} glyph(s) from the machine's {} where only {foreign} character(s) \
                 have no bundled face",
                span.text,
                names.join(", ")
            ));
        }
    }
    found
}

/// The checks of one page: the page script's problems, the embedded subsets, and which fonts
/// drew the glyphs. Prints the case's figures; returns its failures.
fn check_page(name: &str, svg: &str, m: &Measured) -> Vec<String> {
    let mut failures = Vec::new();
    let r = &m.report;
    for missing in missing_from_embedded_fonts(svg) {
        failures.push(format!("{name}: {missing}"));
    }
    for drawn in drawn_by_the_machine(svg, &m.fonts) {
        failures.push(format!("{name}: {drawn}"));
    }
    if let Some(err) = r["error"].as_str() {
        failures.push(format!("{name}: the page script failed: {err}"));
        return failures;
    }
    let glyphs = r["glyphs"].as_u64().unwrap_or(0);
    let max = r["maxDelta"].as_f64().unwrap_or(f64::NAN);
    let cell = r["cellWidth"].as_f64().unwrap_or(f64::NAN);
    let fonts: Vec<String> = r["fonts"]
        .as_array()
        .map(|fs| {
            fs.iter()
                .map(|f| {
                    format!(
                        "{} {} {} ({})",
                        f["family"].as_str().unwrap_or("?"),
                        f["weight"].as_str().unwrap_or("?"),
                        f["style"].as_str().unwrap_or("?"),
                        f["status"].as_str().unwrap_or("?")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    eprintln!(
        "{name}: {glyphs} glyphs, max offset {max:+.3} px ({:+.4} cell) at {}; {} stretches of \
         spaces, largest advance error {:+.4} px a space; fonts: {}",
        max / cell,
        r["worst"],
        r["spaceStretches"],
        r["maxSpaceDelta"].as_f64().unwrap_or(f64::NAN),
        fonts.join(", ")
    );
    if glyphs == 0 {
        failures.push(format!("{name}: no glyph was measured"));
    }
    // The scale check cannot pass by finding nothing to check: a screen with double-size
    // rows has text drawn through their transforms.
    let sized_rows = svg.matches("\"size\":\"double").count();
    let scaled = r["scaled"].as_u64().unwrap_or(0);
    if sized_rows > 0 && scaled == 0 {
        failures.push(format!(
            "{name}: {sized_rows} double-size row(s) in the snapshot, no text drawn scaled"
        ));
    }
    if fonts.is_empty() {
        failures.push(format!("{name}: the page has no embedded font"));
    }
    let problems = r["problems"].as_array().cloned().unwrap_or_default();
    if !problems.is_empty() {
        let lines: Vec<String> = problems.iter().take(40).map(|p| format!("  {p}")).collect();
        failures.push(format!(
            "{name}: {} problem(s) (glyphs over 0.06 cell off, spaces not one cell wide, fonts \
             not loaded, text off the snapshot's grid, or a row scaled wrongly):\n{}",
            problems.len(),
            lines.join("\n")
        ));
    }
    failures
}

/// Every glyph drawn by an embedded face (unless no bundled face has it) and within 0.06 cell
/// of its cell, every space one cell wide.
#[test]
fn glyphs_are_embedded_and_sit_on_the_grid_in_chromium() {
    let Some(chromium) = chromium() else { return };
    let mut browser = Browser::launch(&chromium, &[]);
    let mut failures = Vec::new();
    for case in cases() {
        let (svg, measured) = measure(&mut browser, &case);
        failures.extend(check_page(case.name, &svg, &measured));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A monospace font a viewer may have in place of JetBrains Mono.
struct Substitute {
    family: &'static str,
    /// Regular and bold.
    files: [PathBuf; 2],
}

/// The Debian font packages the substitutes come from, each named by one file of it in
/// `tests/dependencies.txt`.
const SUBSTITUTE_PACKAGES: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationMono-Bold.ttf",
];

/// A file of a font package that [`SUBSTITUTE_PACKAGES`] found installed.
fn system_font(path: &str) -> PathBuf {
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "{} is missing from its package",
        path.display()
    );
    path
}

/// The substitutes the default SVGs are checked in: DejaVu Sans Mono (602/1000 em, what Linux
/// browsers pick), Liberation Mono (Courier New's metrics, 1229/2048 em) and Liberation Mono
/// narrowed to 0.55 em (Consolas's advance, what Windows browsers pick; made by
/// `tests/support/narrow_font.py`, which needs fontTools).
fn substitutes(dir: &Path, python: &Path) -> Vec<Substitute> {
    let dejavu = |f: &str| system_font(&format!("/usr/share/fonts/truetype/dejavu/{f}"));
    let liberation = |f: &str| system_font(&format!("/usr/share/fonts/truetype/liberation/{f}"));
    let narrow = |source: PathBuf| {
        let out = dir
            .join(source.file_name().expect("a file name"))
            .with_extension("narrow.ttf");
        let status = Command::new(python)
            .arg(Path::new(ROOT).join("tests/support/narrow_font.py"))
            .arg(&source)
            .arg(&out)
            .arg("Narrow Test Mono")
            .status()
            .expect("Python runs");
        assert!(status.success(), "narrow_font.py failed");
        out
    };
    vec![
        Substitute {
            family: "DejaVu Sans Mono",
            files: [
                dejavu("DejaVuSansMono.ttf"),
                dejavu("DejaVuSansMono-Bold.ttf"),
            ],
        },
        Substitute {
            family: "Liberation Mono",
            files: [
                liberation("LiberationMono-Regular.ttf"),
                liberation("LiberationMono-Bold.ttf"),
            ],
        },
        Substitute {
            family: "Narrow Test Mono",
            files: [
                narrow(liberation("LiberationMono-Regular.ttf")),
                narrow(liberation("LiberationMono-Bold.ttf")),
            ],
        },
    ]
}

/// A fontconfig file under `dir` that knows no font but `substitute`'s, and makes it the
/// `monospace` family.
fn fontconfig_with_only(substitute: &Substitute, dir: &Path) -> PathBuf {
    let fonts = dir.join("fonts");
    std::fs::create_dir_all(&fonts).expect("font dir");
    for file in &substitute.files {
        std::fs::copy(file, fonts.join(file.file_name().expect("a file name")))
            .expect("font copied");
    }
    let conf = dir.join("fonts.conf");
    std::fs::write(
        &conf,
        format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n<fontconfig>\n\
             <dir>{}</dir>\n<cachedir>{}</cachedir>\n\
             <alias><family>monospace</family><prefer><family>{}</family></prefer></alias>\n\
             </fontconfig>\n",
            fonts.display(),
            dir.join("cache").display(),
            substitute.family
        ),
    )
    .expect("fonts.conf written");
    conf
}

/// The default SVG (no `--embed-font`) in browsers that have none of its fonts and only one
/// monospace font each: every glyph still starts on its cell (or is centred on its cells)
/// within 0.06 cell, spaces are one cell wide, and the text is the snapshot's, on its grid and
/// baselines — whatever the substitute's advance.
#[test]
fn default_svgs_are_on_the_grid_in_substitute_fonts() {
    let Some(chromium) = chromium() else { return };
    let Some(python) = needs::python("fontTools") else {
        return;
    };
    if !SUBSTITUTE_PACKAGES.into_iter().all(needs::file) {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    for substitute in substitutes(tmp.path(), &python) {
        let dir = tmp.path().join(substitute.family.replace(' ', "-"));
        let conf = fontconfig_with_only(&substitute, &dir);
        let mut browser = Browser::launch_with_env(&chromium, &[], &[("FONTCONFIG_FILE", &conf)]);
        for case in cases() {
            let case = Case {
                embed_font: false,
                ..case
            };
            let name = format!("{} in {}", case.name, substitute.family);
            let (svg, m) = measure(&mut browser, &case);
            assert!(!svg.contains("@font-face"), "{name}: a font is embedded");
            let r = &m.report;
            if let Some(err) = r["error"].as_str() {
                failures.push(format!("{name}: the page script failed: {err}"));
                continue;
            }
            let max = r["maxDelta"].as_f64().unwrap_or(f64::NAN);
            // Row texts hold characters of their own besides their tspans.
            let drawn = drawn_by(m.fonts.iter().chain(&m.text_fonts));
            eprintln!(
                "{name}: {} glyphs, max offset {max:+.3} px ({:+.4} cell); drawn by {drawn:?}",
                r["glyphs"],
                max / r["cellWidth"].as_f64().unwrap_or(f64::NAN),
            );
            if r["glyphs"].as_u64().unwrap_or(0) == 0 {
                failures.push(format!("{name}: no glyph was measured"));
            }
            // The browser must really have drawn with the substitute, or nothing was shown.
            if drawn.first().map(|(family, _)| family.as_str()) != Some(substitute.family) {
                failures.push(format!(
                    "{name}: most glyphs were not drawn by {}: {drawn:?}",
                    substitute.family
                ));
            }
            // The bundled family is absent by design; everything else must hold.
            let problems: Vec<String> = r["problems"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["kind"] != "font")
                .take(40)
                .map(|p| format!("  {p}"))
                .collect();
            if !problems.is_empty() {
                failures.push(format!(
                    "{name}: glyphs off their cells, spaces not one cell wide, or text off the \
                     snapshot's grid or baselines:\n{}",
                    problems.join("\n")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The fonts that drew a page's `<tspan>`s with their glyph counts, most glyphs first.
fn drawn_by<'a>(fonts: impl Iterator<Item = &'a Vec<serde_json::Value>>) -> Vec<(String, u64)> {
    let mut counts: Vec<(String, u64)> = Vec::new();
    for f in fonts.flatten() {
        let family = f["familyName"].as_str().unwrap_or("?").to_owned();
        let glyphs = f["glyphCount"].as_u64().unwrap_or(0);
        match counts.iter_mut().find(|(name, _)| *name == family) {
            Some((_, n)) => *n += glyphs,
            None => counts.push((family, glyphs)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts
}

/// The SVG of the first case with the data of its first embedded face replaced.
fn sample_svg_with_broken_font(dir: &Path) -> String {
    let cases = cases();
    let svg = std::fs::read_to_string(render_case(&cases[0], dir, "svg")).expect("svg readable");
    let start = svg.find("base64,").expect("an embedded font") + "base64,".len();
    let end = start + svg[start..].find(')').expect("end of the data URI");
    format!("{}AAAAAAAA{}", &svg[..start], &svg[end..])
}

/// The checks must notice when the browser is not drawing with the embedded fonts: a font
/// that fails to load is reported (the machine may have JetBrains Mono installed, so the
/// positions alone could still look right).
#[test]
fn a_font_that_does_not_load_is_reported() {
    let Some(chromium) = chromium() else { return };
    let (dir, _keep) = workdir("broken-font");
    let svg = sample_svg_with_broken_font(&dir);
    let mut browser = Browser::launch(&chromium, &[]);
    let r = measure_svg(&mut browser, &svg, &dir).report;
    let problems = r["problems"].as_array().cloned().unwrap_or_default();
    assert!(
        problems.iter().any(|p| p["kind"] == "font"),
        "a broken embedded font went unnoticed: {r}"
    );
}

/// The embedded-subset check notices a character whose face was left out.
#[test]
fn a_character_missing_from_the_subsets_is_reported() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cases = cases();
    let svg = std::fs::read_to_string(render_case(&cases[0], tmp.path(), "svg")).expect("svg");
    assert_eq!(missing_from_embedded_fonts(&svg), Vec::<String>::new());
    // Drop the bold face: the bold prompt's characters are then in no embedded font.
    let bold = svg
        .split("@font-face{")
        .find(|r| r.contains("font-weight:bold"))
        .and_then(|r| r.split_once('}'))
        .map(|(rule, _)| format!("@font-face{{{rule}}}"))
        .expect("a bold face");
    let missing = missing_from_embedded_fonts(&svg.replace(&bold, ""));
    assert!(
        missing.iter().any(|m| m.contains("bold true")),
        "{missing:?}"
    );
}

/// Nothing but `<tspan>`s inside `<text>`: browsers turn whitespace there into a space that
/// joins the previous run's last text chunk and pushes centred glyphs half a space left.
/// (Checked without a browser, so it holds where there is none too.)
#[test]
fn text_elements_hold_only_tspans() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for case in cases() {
        let svg = std::fs::read_to_string(render_case(&case, tmp.path(), "svg")).expect("svg");
        for text in svg.split("<text").skip(1) {
            let body = text.split_once("</text>").expect("closed <text>").0;
            let body = body.split_once('>').expect("<text> tag").1;
            let outside: String = body
                .split("<tspan")
                .map(|piece| {
                    piece
                        .split_once("</tspan>")
                        .map_or(piece, |(_, after)| after)
                })
                .collect();
            assert!(
                outside.is_empty(),
                "{}: <text> holds {outside:?} besides its tspans",
                case.name
            );
        }
    }
}

/// An RGB image, 8 bits a channel.
struct Rgb8 {
    width: u32,
    height: u32,
    pixels: Vec<[u8; 3]>,
}

impl Rgb8 {
    /// The top-left `width` × `height` pixels.
    fn cropped(self, width: u32, height: u32) -> Rgb8 {
        assert!(
            width <= self.width && height <= self.height,
            "a {}×{} picture has no {width}×{height} corner",
            self.width,
            self.height
        );
        let pixels = self
            .pixels
            .chunks_exact(self.width as usize)
            .take(height as usize)
            .flat_map(|row| &row[..width as usize])
            .copied()
            .collect();
        Rgb8 {
            width,
            height,
            pixels,
        }
    }
}

/// Decodes a PNG, compositing any alpha over white (the screenshot page's background).
fn decode(path: &Path) -> Rgb8 {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("png size")];
    let info = reader.next_frame(&mut buf).expect("png data");
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| match channels {
            4 => {
                let a = p[3] as u32;
                let over = |c: u8| ((c as u32 * a + 255 * (255 - a) + 127) / 255) as u8;
                [over(p[0]), over(p[1]), over(p[2])]
            }
            3 => [p[0], p[1], p[2]],
            2 => {
                let a = p[1] as u32;
                let g = ((p[0] as u32 * a + 255 * (255 - a) + 127) / 255) as u8;
                [g, g, g]
            }
            _ => [p[0], p[0], p[0]],
        })
        .collect();
    Rgb8 {
        width: info.width,
        height: info.height,
        pixels,
    }
}

/// Whether some bundled face has a glyph for `c`.
fn bundled_covers(c: char) -> bool {
    use std::sync::OnceLock;
    static FACES: OnceLock<Vec<ttf_parser::Face<'static>>> = OnceLock::new();
    FACES
        .get_or_init(|| {
            shotty::render::font::BUNDLED
                .iter()
                .filter_map(|f| ttf_parser::Face::parse(f.data, 0).ok())
                .collect()
        })
        .iter()
        .any(|f| f.glyph_index(c).is_some())
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Characters that take no room of their own.
fn invisible(c: char) -> bool {
    matches!(c, '\u{200d}' | '\u{fe0e}' | '\u{fe0f}')
}

/// The text between `from` and the next `to` after it.
fn between<'a>(s: &'a str, from: &str, to: &str) -> Option<&'a str> {
    let (_, rest) = s.split_once(from)?;
    Some(rest.split_once(to)?.0)
}

/// A `<tspan>` of the SVG.
struct Span {
    classes: Vec<String>,
    /// Face set on the element itself (`font-weight="bold"`, `font-style="italic"`), as a
    /// style of one run is.
    inline_face: (bool, bool),
    xs: Vec<f64>,
    y: Option<f64>,
    text: String,
}

fn tspans(svg: &str) -> Vec<Span> {
    svg.split("<tspan")
        .skip(1)
        .filter_map(|piece| {
            let (tag, rest) = piece.split_once('>')?;
            let attr = |name: &str| between(tag, &format!(" {name}=\""), "\"");
            Some(Span {
                inline_face: (
                    attr("font-weight") == Some("bold"),
                    attr("font-style") == Some("italic"),
                ),
                classes: attr("class")
                    .map(|c| c.split(' ').map(str::to_owned).collect())
                    .unwrap_or_default(),
                xs: attr("x")?
                    .split(' ')
                    .map(|x| x.parse().expect("tspan x"))
                    .collect(),
                y: attr("y").map(|y| y.parse().expect("tspan y")),
                text: unescape(rest.split_once("</tspan>").map_or(rest, |(t, _)| t)),
            })
        })
        .collect()
}

/// The TrueType font inside a WOFF2 file of untransformed tables (what `--embed-font` writes),
/// read the way the format defines it, with brotli's own decoder: the tables one after the
/// other behind a new table directory (checksums left zero; nothing here reads them).
fn sfnt_from_woff2(woff2: &[u8]) -> Vec<u8> {
    assert_eq!(&woff2[..4], b"wOF2", "an embedded font that is not WOFF2");
    let be32 = |at: usize| u32::from_be_bytes(woff2[at..at + 4].try_into().expect("4 bytes"));
    let num_tables = u16::from_be_bytes([woff2[12], woff2[13]]);
    let compressed_len = be32(20) as usize;
    let mut at = 48;
    let mut entries = Vec::new();
    for _ in 0..num_tables {
        let flags = woff2[at];
        at += 1;
        let tag: [u8; 4] = if flags & 63 == 63 {
            at += 4;
            woff2[at - 4..at].try_into().expect("a tag")
        } else {
            panic!(
                "a known-table index ({}): not what shotty writes",
                flags & 63
            )
        };
        let mut len = 0u32;
        loop {
            let b = woff2[at];
            at += 1;
            len = (len << 7) | u32::from(b & 0x7f);
            if b & 0x80 == 0 {
                break;
            }
        }
        let transformed = if matches!(&tag, b"glyf" | b"loca") {
            flags >> 6 != 3
        } else {
            flags >> 6 != 0
        };
        assert!(
            !transformed,
            "{tag:?} is transformed: not what shotty writes"
        );
        entries.push((tag, len as usize));
    }
    let mut data = Vec::new();
    brotli::BrotliDecompress(&mut &woff2[at..at + compressed_len], &mut data)
        .expect("the font data decompresses");
    let mut sfnt = woff2[4..8].to_vec();
    sfnt.extend_from_slice(&num_tables.to_be_bytes());
    sfnt.extend_from_slice(&[0; 6]);
    let mut offset = 12 + 16 * entries.len();
    let mut body = Vec::new();
    let mut read = 0;
    for (tag, len) in &entries {
        sfnt.extend_from_slice(tag);
        sfnt.extend_from_slice(&[0; 4]);
        sfnt.extend_from_slice(&(offset as u32).to_be_bytes());
        sfnt.extend_from_slice(&(*len as u32).to_be_bytes());
        body.extend_from_slice(&data[read..read + len]);
        read += len;
        let padded = len.next_multiple_of(4);
        body.resize(body.len() + padded - len, 0);
        offset += padded;
    }
    sfnt.extend_from_slice(&body);
    sfnt
}

/// Every character the SVG draws as text that a bundled face has must be in the embedded
/// subset the browser picks for it: the monospace face of the run's weight and style, or
/// (for characters JetBrains Mono lacks) one of the fallback faces. Otherwise the browser
/// silently draws it with a font of the machine, which may even be an installed JetBrains
/// Mono: then neither the positions nor the pixels would tell.
fn missing_from_embedded_fonts(svg: &str) -> Vec<String> {
    use base64::Engine;
    let style = between(svg, "<style>", "</style>").expect("the SVG's <style>");
    // (family, bold, italic, face data)
    let faces: Vec<(String, bool, bool, Vec<u8>)> = style
        .split("@font-face{")
        .skip(1)
        .map(|rule| {
            let family = between(rule, "font-family:", ";").expect("@font-face family");
            let data = between(rule, "base64,", ")").expect("@font-face data URI");
            let data = base64::engine::general_purpose::STANDARD
                .decode(data)
                .expect("@font-face base64");
            let data = sfnt_from_woff2(&data);
            (
                family.to_owned(),
                rule.contains("font-weight:bold"),
                rule.contains("font-style:italic"),
                data,
            )
        })
        .collect();
    let parsed: Vec<(&str, bool, bool, ttf_parser::Face)> = faces
        .iter()
        .map(|(family, bold, italic, data)| {
            let face = ttf_parser::Face::parse(data, 0)
                .unwrap_or_else(|e| panic!("embedded {family} does not parse: {e}"));
            (family.as_str(), *bold, *italic, face)
        })
        .collect();
    // Text classes: `.cN{fill:…;font-weight:bold;font-style:italic}`.
    let class_face = |class: &str| -> (bool, bool) {
        let rule = between(style, &format!(".{class}{{"), "}").unwrap_or("");
        (
            rule.contains("font-weight:bold"),
            rule.contains("font-style:italic"),
        )
    };
    let primary = ttf_parser::Face::parse(shotty::render::font::BUNDLED[0].data, 0)
        .expect("bundled JetBrains Mono");
    let mut missing = Vec::new();
    for span in tspans(svg) {
        let (bold, italic) = span
            .classes
            .iter()
            .find(|c| c.starts_with('c'))
            .map_or(span.inline_face, |c| class_face(c));
        for c in span.text.chars() {
            let found = if primary.glyph_index(c).is_some() {
                parsed.iter().any(|(family, b, i, face)| {
                    *family == "shotty-mono"
                        && (*b, *i) == (bold, italic)
                        && face.glyph_index(c).is_some()
                })
            } else if bundled_covers(c) {
                parsed.iter().any(|(family, _, _, face)| {
                    *family != "shotty-mono" && face.glyph_index(c).is_some()
                })
            } else {
                continue; // no bundled face has it: nothing to embed
            };
            if !found {
                missing.push(format!(
                    "{c:?} (U+{:04X}, bold {bold}, italic {italic}) of {:?} is in no embedded \
                     font",
                    c as u32, span.text
                ));
            }
        }
    }
    missing
}

/// Boxes (x0, y0, x1, y1) around the characters that the two renderers cannot draw alike:
/// characters no bundled face has (resvg draws the missing-glyph box, Chromium whatever the
/// machine has, e.g. CJK) and emoji presentation sequences (U+FE0F: Chromium prefers a
/// colour emoji font of the machine to the embedded monochrome Symbola). They only occur in
/// centred runs (one x per character, each centred on its one or two cells).
fn foreign_glyph_boxes(svg: &str) -> Vec<(f64, f64, f64, f64)> {
    let font_size: f64 = between(svg, "font-size:", "px")
        .and_then(|n| n.parse().ok())
        .expect("the SVG's text font size");
    let cw = 0.6 * font_size;
    let mut boxes = Vec::new();
    for span in tspans(svg) {
        let Some(y) = span.y else { continue };
        if !span.classes.iter().any(|c| c == "m") {
            continue;
        }
        let chars: Vec<char> = span.text.chars().collect();
        // One x per character; the last x takes what follows (a cell of several characters).
        for (j, x) in span.xs.iter().enumerate() {
            let cell: &[char] = if j + 1 < span.xs.len() {
                chars.get(j..j + 1).unwrap_or(&[])
            } else {
                chars.get(j..).unwrap_or(&[])
            };
            let foreign = cell.contains(&'\u{fe0f}')
                || cell.iter().any(|&c| !invisible(c) && !bundled_covers(c));
            if foreign {
                // Two cells wide and a whole row high, with a pixel to spare.
                boxes.push((
                    x - cw - 1.0,
                    y - 1.25 * font_size,
                    x + cw + 1.0,
                    y + 0.6 * font_size,
                ));
            }
        }
    }
    boxes
}

/// How far apart two images of the same size are, outside `masked` boxes.
struct Agreement {
    /// Mean absolute difference over all channels of the compared pixels, 0–255.
    mean: f64,
    /// Share of compared pixels whose largest channel difference is at most
    /// [`PIXEL_THRESHOLD`].
    within: f64,
    /// Share of compared pixels that differ by more than [`FAR_THRESHOLD`] from every pixel
    /// of the other image within one pixel of them (either way): what anti-aliasing and
    /// hinting cannot explain.
    far: f64,
    /// Largest channel difference anywhere.
    max: u8,
    /// Share of the image left out (the boxes).
    masked: f64,
    /// The cell with the most far pixels: (row, column, far pixels), if any has one.
    worst_cell: Option<(usize, usize, usize)>,
    /// The unmasked cell whose ink differs most: (row, column, share), see [`worst_cell_ink`].
    worst_cell_ink: Option<(usize, usize, f64)>,
}

/// The terminal grid of a screenshot, as the page script found it.
struct Grid {
    x: f64,
    y: f64,
    cell_width: f64,
    cell_height: f64,
    cols: usize,
    rows: usize,
}

impl Grid {
    fn from_report(r: &serde_json::Value) -> Grid {
        let num = |v: &serde_json::Value, what: &str| {
            v.as_f64()
                .unwrap_or_else(|| panic!("the page script reported no {what}: {r}"))
        };
        Grid {
            x: num(&r["grid"]["originX"], "grid origin"),
            y: num(&r["grid"]["originY"], "grid origin"),
            cell_width: num(&r["cellWidth"], "cell width"),
            cell_height: num(&r["grid"]["cellHeight"], "cell height"),
            cols: num(&r["grid"]["cols"], "column count") as usize,
            rows: num(&r["grid"]["rows"], "row count") as usize,
        }
    }

    /// The cell a point lies in.
    fn cell(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let col = ((x - self.x) / self.cell_width).floor();
        let row = ((y - self.y) / self.cell_height).floor();
        (col >= 0.0 && row >= 0.0 && (col as usize) < self.cols && (row as usize) < self.rows)
            .then_some((row as usize, col as usize))
    }
}

fn channel_diff(p: [u8; 3], q: [u8; 3]) -> u8 {
    (0..3).map(|c| p[c].abs_diff(q[c])).max().unwrap_or(0)
}

/// The smallest difference between pixel (x, y) of `a` and the pixels of `b` around it.
fn nearest_diff(a: &Rgb8, b: &Rgb8, x: usize, y: usize) -> u8 {
    let (w, h) = (a.width as usize, a.height as usize);
    let p = a.pixels[y * w + x];
    let mut best = u8::MAX;
    for yy in y.saturating_sub(1)..(y + 2).min(h) {
        for xx in x.saturating_sub(1)..(x + 2).min(w) {
            best = best.min(channel_diff(p, b.pixels[yy * w + xx]));
        }
    }
    best
}

fn compare(a: &Rgb8, b: &Rgb8, masked: &[(f64, f64, f64, f64)], grid: &Grid) -> Agreement {
    let mut sum = 0u64;
    let mut n = 0usize;
    let mut within = 0usize;
    let mut far = 0usize;
    let mut max = 0u8;
    // Far pixels per cell.
    let mut cells = vec![0usize; grid.rows * grid.cols];
    let w = a.width as usize;
    for (i, (p, q)) in a.pixels.iter().zip(&b.pixels).enumerate() {
        let (x, y) = (i % w, i / w);
        let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
        if masked
            .iter()
            .any(|&(x0, y0, x1, y1)| cx >= x0 && cx < x1 && cy >= y0 && cy < y1)
        {
            continue;
        }
        n += 1;
        sum += (0..3).map(|c| p[c].abs_diff(q[c]) as u64).sum::<u64>();
        let d = channel_diff(*p, *q);
        max = max.max(d);
        if d <= PIXEL_THRESHOLD {
            within += 1;
        }
        let is_far = d > FAR_THRESHOLD
            && nearest_diff(a, b, x, y).max(nearest_diff(b, a, x, y)) > FAR_THRESHOLD;
        if is_far {
            far += 1;
        }
        if let Some((row, col)) = grid.cell(cx, cy) {
            cells[row * grid.cols + col] += usize::from(is_far);
        }
    }
    let at = |i: usize| (i / grid.cols, i % grid.cols);
    let worst_cell = (0..cells.len())
        .filter(|&i| cells[i] > 0)
        .max_by_key(|&i| cells[i])
        .map(|i| (at(i).0, at(i).1, cells[i]));
    let worst_cell_ink = worst_cell_ink(a, b, masked, grid);
    let total = a.pixels.len().max(1);
    let share = |k: usize| k as f64 / n.max(1) as f64;
    Agreement {
        mean: sum as f64 / (3 * n.max(1)) as f64,
        within: share(within),
        far: share(far),
        max,
        masked: 1.0 - n as f64 / total as f64,
        worst_cell,
        worst_cell_ink,
    }
}

/// The cell whose ink differs most between `a` and `b`, as a share of the larger ink: 1 for a
/// glyph drawn in one image only, however small. A cell's ink is how far its pixels are from
/// its background (the commonest colour of the cell in `b`), summed. Anti-aliasing and
/// baseline snapping move ink around inside a cell but keep about as much of it. Cells that
/// touch a masked box are left out.
fn worst_cell_ink(
    a: &Rgb8,
    b: &Rgb8,
    masked: &[(f64, f64, f64, f64)],
    grid: &Grid,
) -> Option<(usize, usize, f64)> {
    // Two full pixels of ink: keeps cells with almost nothing in them (a stray
    // anti-aliased pixel) from counting as all different.
    const FLOOR: f64 = 2.0 * 255.0;
    let w = a.width as usize;
    let h = a.height as usize;
    let mut worst: Option<(usize, usize, f64)> = None;
    for row in 0..grid.rows {
        for col in 0..grid.cols {
            let (x0, y0) = (
                grid.x + col as f64 * grid.cell_width,
                grid.y + row as f64 * grid.cell_height,
            );
            let (x1, y1) = (x0 + grid.cell_width, y0 + grid.cell_height);
            if masked
                .iter()
                .any(|&(mx0, my0, mx1, my1)| mx0 < x1 && x0 < mx1 && my0 < y1 && y0 < my1)
            {
                continue;
            }
            // Pixels whose centre lies in the cell.
            let xs = (x0 - 0.5).ceil().max(0.0) as usize..((x1 - 0.5).ceil() as usize).min(w);
            let ys = (y0 - 0.5).ceil().max(0.0) as usize..((y1 - 0.5).ceil() as usize).min(h);
            let pixels = || ys.clone().flat_map(|y| xs.clone().map(move |x| y * w + x));
            let mut counts = std::collections::HashMap::new();
            for i in pixels() {
                *counts.entry(b.pixels[i]).or_insert(0usize) += 1;
            }
            let Some(background) = counts
                .into_iter()
                .max_by_key(|&(colour, n)| (n, colour))
                .map(|(colour, _)| colour)
            else {
                continue;
            };
            let ink = |image: &Rgb8| -> f64 {
                pixels()
                    .map(|i| f64::from(channel_diff(image.pixels[i], background)))
                    .sum()
            };
            let (ink_a, ink_b) = (ink(a), ink(b));
            let share = (ink_a - ink_b).abs() / (ink_a.max(ink_b) + FLOOR);
            if worst.is_none_or(|(_, _, s)| share > s) {
                worst = Some((row, col, share));
            }
        }
    }
    worst
}

// Tolerances for Chromium's screenshot against resvg's PNG of the same SVG.
//
// The two rasterisers never agree exactly: Skia (Chromium) and tiny-skia (resvg) anti-alias
// glyph edges differently, and Chromium puts text baselines on whole pixels while resvg keeps
// the fractional baseline (14.04 px below each row's top at the default size), so a
// horizontal stem that is one crisp row in one image is two half-tone rows in the other.
// Measured with Chromium 156 (Debian 12), after masking the characters no bundled face has
// (see `foreign_glyph_boxes`); "far cell" is the most far pixels in one cell, "ink" the largest
// share by which one cell's ink differs (`worst_cell_ink`):
//
//   case                       mean |Δ|  within 32   far (>64 from 3×3)  max  far cell  ink
//   sample                       0.930    99.368%      0.0024%            75       1    0.17
//   sample-macos                 0.955    99.260%      0.0051%            91       1    0.17
//   attributes                   1.314    99.189%      0.0037%            75       1    0.17
//   unicode (0.5% masked)        1.249    99.373%      0.0000%            77       0    0.16
//   cjk                          1.890    98.573%      0.0031%            74       1    0.28
//   fixture-vim                  1.171    98.988%      0.0027%            82       1    0.23
//   fixture-htop                 1.893    98.228%      0.0048%            80       1    0.29
//   fixture-emoji-cjk (0.15%)    1.182    99.140%      0.0026%            82       1    0.18
//   fixture-colors-256           1.332    98.390%      0.0639%            95       8    0.24
//   fixture-ls-la                1.376    98.764%      0.0040%            84       1    0.28
//   font-size-20                 1.441    98.158%      0.0961%           125      14    0.16
//   box-drawing-line-height-2    0.555    99.944%      0.0000%            59       0    0.31
//
// (font-size-20 is the worst for "far": its 25.72 px rows put some baselines half a pixel
// off the grid, where the two disagree most.) The limits leave about a third of headroom over
// the worst case. For scale: the sample drawn by Chromium in DejaVu Sans Mono instead of the
// embedded JetBrains Mono measures mean 2.649, 96.513% within 32 and 0.238% far — it fails
// all three limits. One missing glyph hides in the averages but not in its cell: without a
// `.` the cell's ink differs by 0.63, without `;` 0.80, `1` or `f` 0.89 (27 far pixels).
const PIXEL_THRESHOLD: u8 = 32;
const MAX_MEAN: f64 = 2.5;
const MIN_WITHIN: f64 = 0.975;
const FAR_THRESHOLD: u8 = 64;
const MAX_FAR: f64 = 0.002;
const MAX_FAR_IN_A_CELL: usize = 24;
const MAX_CELL_INK: f64 = 0.45;

/// What Chromium showed of an SVG.
struct Shot {
    /// The screenshot.
    image: Rgb8,
    /// The terminal grid, as the page script found it.
    grid: Grid,
    /// The value of the page expression asked for (see [`shoot`]).
    probe: serde_json::Value,
}

/// Chromium's screenshot of `svg` in a page the size of `resvg` (resvg's PNG of the SVG the
/// screenshot should look like), with `prefers-color-scheme` emulated as `scheme` if given;
/// `probe`, a page expression, is evaluated before the shot. The screenshot is kept in `dir`.
fn shoot(
    browser: &mut Browser,
    svg: &str,
    resvg: &Rgb8,
    dir: &Path,
    scheme: Option<&str>,
    probe: &str,
) -> Shot {
    let html = dir.join("screenshot.html");
    std::fs::write(&html, page(svg, &page_script())).expect("page written");
    let mut page = browser.open_with_scheme(&file_url(&html), resvg.width, resvg.height, scheme);
    // The script only reads the page; it finds the grid the cells are compared on.
    let grid = Grid::from_report(&page.evaluate("shottyMeasure()"));
    let probe = page.evaluate(probe);
    let shot = page.screenshot(resvg.width, resvg.height);
    drop(page);
    let path = dir.join("chromium.png");
    std::fs::write(&path, &shot).expect("screenshot written");
    Shot {
        image: decode(&path),
        grid,
        probe,
    }
}

/// Chromium's screenshot of `svg` compared with `resvg` (resvg's PNG of the SVG the
/// screenshot should look like); the screenshot is kept in `dir`.
fn screenshot_agreement(browser: &mut Browser, svg: &str, resvg: &Rgb8, dir: &Path) -> Agreement {
    let shot = shoot(browser, svg, resvg, dir, None, "null");
    compare(&shot.image, resvg, &foreign_glyph_boxes(svg), &shot.grid)
}

#[test]
fn chromium_screenshot_matches_resvg_png() {
    let Some(chromium) = chromium() else { return };
    let mut browser = Browser::launch(&chromium, &[]);
    let mut failures = Vec::new();
    for case in cases() {
        let (dir, _keep) = workdir(case.name);
        let svg_path = render_case(&case, &dir, "svg");
        let png_path = render_case(&case, &dir, "png");
        let resvg = decode(&png_path);
        let svg = std::fs::read_to_string(&svg_path).expect("svg readable");
        let a = screenshot_agreement(&mut browser, &svg, &resvg, &dir);
        eprintln!(
            "{}: {}×{} px ({:.2}% masked), mean |Δ| {:.3}, {:.3}% of pixels within \
             {PIXEL_THRESHOLD}, {:.4}% over {FAR_THRESHOLD} from their neighbourhood, max {}; \
             worst cell {:?} far, {:?} ink",
            case.name,
            resvg.width,
            resvg.height,
            100.0 * a.masked,
            a.mean,
            100.0 * a.within,
            100.0 * a.far,
            a.max,
            a.worst_cell,
            a.worst_cell_ink,
        );
        failures.extend(disagreement(case.name, &a));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What makes two images disagree beyond the tolerances, if anything.
fn disagreement(name: &str, a: &Agreement) -> Option<String> {
    let mut why = Vec::new();
    if a.mean > MAX_MEAN || a.within < MIN_WITHIN || a.far > MAX_FAR {
        why.push(format!(
            "mean |Δ| {:.3} (limit {MAX_MEAN}), {:.3}% of pixels within {PIXEL_THRESHOLD} (limit \
             {:.1}%), {:.4}% far (limit {:.2}%)",
            a.mean,
            100.0 * a.within,
            100.0 * MIN_WITHIN,
            100.0 * a.far,
            100.0 * MAX_FAR
        ));
    }
    if let Some((row, col, far)) = a.worst_cell.filter(|c| c.2 > MAX_FAR_IN_A_CELL) {
        why.push(format!(
            "cell {row},{col} has {far} far pixels (limit {MAX_FAR_IN_A_CELL})"
        ));
    }
    if let Some((row, col, share)) = a.worst_cell_ink.filter(|c| c.2 > MAX_CELL_INK) {
        why.push(format!(
            "the ink of cell {row},{col} differs by {:.0}% (limit {:.0}%)",
            100.0 * share,
            100.0 * MAX_CELL_INK
        ));
    }
    (!why.is_empty()).then(|| {
        format!(
            "{name}: Chromium and resvg disagree: {}; rerun with SHOTTY_BROWSER_ARTIFACTS=DIR to \
             keep both images",
            why.join("; ")
        )
    })
}

/// One glyph missing from Chromium's page, however small, fails the comparison: a `.`, `;`,
/// `1` or `f` of the sample's last line, blanked in the SVG the browser gets and kept in
/// resvg's PNG. (Whole-image averages let several missing glyphs pass.)
#[test]
fn one_missing_glyph_fails_the_screenshot_comparison() {
    let Some(chromium) = chromium() else { return };
    let mut browser = Browser::launch(&chromium, &[]);
    let (dir, _keep) = workdir("missing-glyph");
    let case = &cases()[0];
    let svg = std::fs::read_to_string(render_case(case, &dir, "svg")).expect("svg readable");
    let resvg = decode(&render_case(case, &dir, "png"));
    let run = ">. 1 passed; 1 failed</tspan>";
    assert_eq!(svg.matches(run).count(), 1, "the sample's last run");
    for glyph in [";", ".", "1", "f"] {
        let broken = svg.replace(run, &run.replacen(glyph, " ", 1));
        let a = screenshot_agreement(&mut browser, &broken, &resvg, &dir);
        eprintln!(
            "without {glyph:?}: worst cell {:?} far, {:?} ink",
            a.worst_cell, a.worst_cell_ink
        );
        assert!(
            disagreement("missing glyph", &a).is_some(),
            "a missing {glyph:?} went unnoticed"
        );
    }
}

/// A screen rendered as one SVG that follows its viewer's `prefers-color-scheme`, and as a PNG
/// of each scheme (`--scheme`).
struct Adaptive {
    name: &'static str,
    input: fn() -> Input,
    size: (u16, u16),
    /// The `render` options of the SVG and both PNGs: the theme pair, a frame.
    args: &'static [&'static str],
    /// The theme files (`themes/NAME.json`) of the dark and the light scheme.
    themes: [&'static str; 2],
    /// The text of a `<tspan>` and the theme colour (a key of the theme file) it is filled with.
    texts: &'static [(&'static str, &'static str)],
    /// A cell (row, column) and the theme colour of its background: the pixel at its centre.
    cells: &'static [(usize, usize, &'static str)],
    /// A point of the window frame (the title bar, away from the title and the buttons): its
    /// pixel must be the PNG's (no theme file names the title bar's colour).
    frame: Option<(f64, f64)>,
}

fn adaptive_cases() -> Vec<Adaptive> {
    vec![
        // The default pair (shotty-dark, shotty-light) in a macOS frame: the title bar and
        // its title adapt too.
        Adaptive {
            name: "adaptive-sample-macos",
            input: sample,
            size: (60, 8),
            args: &["--theme", "auto", "-d", "macos", "--title", "cargo test"],
            themes: ["shotty-dark", "shotty-light"],
            // Plain SGR 32 and 31 (the sample's bold greens are drawn bright).
            texts: &[("ok", "green"), ("FAILED", "red")],
            cells: &[],
            frame: Some((500.5, 14.5)),
        },
        // Two built-in themes, and coloured cell backgrounds: the last row is `dim red `,
        // `inverse green` (columns 8–20) and `black on white` (columns 22–35).
        Adaptive {
            name: "adaptive-attributes",
            input: attributes,
            size: (72, 4),
            args: &["--dark-theme", "dracula", "--light-theme", "github-light"],
            themes: ["dracula", "github-light"],
            texts: &[("black on white", "black")],
            // The spaces in `inverse green` and in `black on white`: background only.
            cells: &[(3, 15, "green"), (3, 27, "white")],
            frame: None,
        },
    ]
}

/// `#rrggbb`.
fn hex_rgb(hex: &str) -> Option<[u8; 3]> {
    let hex = hex.strip_prefix('#').filter(|h| h.len() == 6)?;
    let channel = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    Some([channel(0)?, channel(2)?, channel(4)?])
}

/// A computed CSS colour as Chromium writes it: `rgb(r, g, b)`.
fn css_rgb(css: &str) -> Option<[u8; 3]> {
    let inner = css.strip_prefix("rgb(")?.strip_suffix(')')?;
    let channels: Vec<u8> = inner
        .split(',')
        .map(|c| c.trim().parse().ok())
        .collect::<Option<_>>()?;
    channels.try_into().ok()
}

fn hex(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// Colour `key` (`background`, `red`, …) of the theme file `themes/NAME.json`.
fn theme_colour(name: &str, key: &str) -> [u8; 3] {
    let path = Path::new(ROOT).join("themes").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let theme: serde_json::Value = serde_json::from_str(&text).expect("theme JSON");
    theme[key]
        .as_str()
        .and_then(hex_rgb)
        .unwrap_or_else(|| panic!("{}: no colour {key:?}", path.display()))
}

/// The pixel a point (in CSS pixels, scale 1) falls on.
fn pixel_at(image: &Rgb8, (x, y): (f64, f64)) -> [u8; 3] {
    image.pixels[y as usize * image.width as usize + x as usize]
}

/// A page expression: whether the page sees `prefers-color-scheme: light`, and the computed
/// `fill` of the first `<tspan>` holding each of `texts` (null for none).
fn colour_probe(texts: &[(&str, &str)]) -> String {
    let texts: Vec<&str> = texts.iter().map(|&(t, _)| t).collect();
    format!(
        "(() => {{ const spans = [...document.querySelectorAll('svg tspan')]; return {{ \
         light: matchMedia('(prefers-color-scheme: light)').matches, \
         fills: {}.map(t => {{ const s = spans.find(s => s.textContent.trimEnd() === t); \
         return s ? getComputedStyle(s).fill : null; }}) }}; }})()",
        serde_json::json!(texts)
    )
}

/// One SVG that follows `prefers-color-scheme`, in Chromium with the scheme emulated dark and
/// then light: each screenshot agrees with the PNG of that scheme (`--scheme dark|light`) as
/// [`chromium_screenshot_matches_resvg_png`] measures it, and exactly: the screen's background
/// (a pixel of the padding) is the scheme's theme `background`, the text and cell colours from
/// the palette are the theme's (`getComputedStyle(tspan).fill`, the pixel at a cell's
/// centre), and the title bar is the PNG's.
#[test]
fn adaptive_svgs_follow_the_emulated_colour_scheme() {
    let Some(chromium) = chromium() else { return };
    let mut browser = Browser::launch(&chromium, &[]);
    let mut failures = Vec::new();
    for a in adaptive_cases() {
        let (dir, _keep) = workdir(a.name);
        let case = |args: &'static [&'static str]| Case {
            name: a.name,
            input: (a.input)(),
            size: a.size,
            args,
            embed_font: true,
        };
        let svg =
            std::fs::read_to_string(render_case(&case(a.args), &dir, "svg")).expect("svg readable");
        if !svg.contains("@media (prefers-color-scheme:light)") {
            failures.push(format!("{}: the SVG has no light scheme", a.name));
        }
        for (scheme, theme) in ["dark", "light"].into_iter().zip(a.themes) {
            let name = format!("{} ({scheme}, {theme})", a.name);
            let dir = dir.join(scheme);
            std::fs::create_dir_all(&dir).expect("scheme dir");
            // `Case::args` is static; a test process can spare these few strings.
            let args = Vec::leak([a.args, &["--scheme", scheme]].concat());
            let png = decode(&render_case(&case(args), &dir, "png"));
            let shot = shoot(
                &mut browser,
                &svg,
                &png,
                &dir,
                Some(scheme),
                &colour_probe(a.texts),
            );
            if shot.probe["light"] != (scheme == "light") {
                failures.push(format!(
                    "{name}: the page does not see the emulated scheme: {}",
                    shot.probe
                ));
                continue;
            }
            let agreement = compare(&shot.image, &png, &foreign_glyph_boxes(&svg), &shot.grid);
            failures.extend(disagreement(&name, &agreement));
            let g = &shot.grid;
            let mut figures = Vec::new();
            // Pixels: Chromium's and the PNG's against the theme's colour (or the PNG's).
            let mut pixel = |what: String, at: (f64, f64), want: Option<[u8; 3]>| {
                let (chromium, resvg) = (pixel_at(&shot.image, at), pixel_at(&png, at));
                let want = want.unwrap_or(resvg);
                figures.push(format!("{what} {}", hex(chromium)));
                if chromium != want || resvg != want {
                    failures.push(format!(
                        "{name}: {what} at ({:.1}, {:.1}) is {} in Chromium and {} in the PNG, \
                         not {}",
                        at.0,
                        at.1,
                        hex(chromium),
                        hex(resvg),
                        hex(want)
                    ));
                }
            };
            // The left padding, halfway down the screen.
            let background = theme_colour(theme, "background");
            pixel(
                format!("background (theme {})", hex(background)),
                (g.x / 2.0, g.y + g.cell_height * g.rows as f64 / 2.0),
                Some(background),
            );
            for &(row, col, key) in a.cells {
                let want = theme_colour(theme, key);
                let centre = (
                    g.x + (col as f64 + 0.5) * g.cell_width,
                    g.y + (row as f64 + 0.5) * g.cell_height,
                );
                pixel(
                    format!("cell {row},{col} (theme {key} {})", hex(want)),
                    centre,
                    Some(want),
                );
            }
            if let Some(at) = a.frame {
                pixel("title bar (as the PNG)".into(), at, None);
            }
            for (&(text, key), fill) in a
                .texts
                .iter()
                .zip(shot.probe["fills"].as_array().into_iter().flatten())
            {
                let want = theme_colour(theme, key);
                let got = fill.as_str().and_then(css_rgb);
                figures.push(format!(
                    "{text:?} fill {} (theme {key} {})",
                    got.map_or_else(|| fill.to_string(), hex),
                    hex(want)
                ));
                if got != Some(want) {
                    failures.push(format!(
                        "{name}: {text:?} is filled {fill} in Chromium, not the theme's {key} {}",
                        hex(want)
                    ));
                }
            }
            eprintln!(
                "{name}: mean |Δ| {:.3}, {:.3}% of pixels within {PIXEL_THRESHOLD}, {:.4}% far, \
                 max {}; worst cell {:?} far, {:?} ink; {}",
                agreement.mean,
                100.0 * agreement.within,
                100.0 * agreement.far,
                agreement.max,
                agreement.worst_cell,
                agreement.worst_cell_ink,
                figures.join(", ")
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
