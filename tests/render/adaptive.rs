//! Light/dark adaptive output through the real binary: `--theme auto`, `--dark-theme`,
//! `--light-theme` and `--scheme`. (The browser test in `browser.rs` shows the SVG following
//! an emulated `prefers-color-scheme` both ways.)

use shotty::render::Theme;
use shotty::render::svg::hex;

use crate::cli_render::shotty;
use crate::support::golden_inputs::{attributes, input_bytes, sample};

const CAST: &str = r#"{"version": 2, "width": 16, "height": 3}
[0.1, "o", "\u001b[31mred\u001b[0m \u001b[42m ok \u001b[0m\r\n"]
[0.6, "o", "\u001b[1;34mblue\u001b[0m"]
"#;

fn render(args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut all = vec!["render", "--width", "60", "--height", "8"];
    all.extend_from_slice(args);
    let out = shotty(&all, input);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn theme(id: &str) -> Theme {
    Theme::builtin(id).expect("a built-in theme")
}

/// A raster cannot follow its viewer: it is drawn, byte for byte, as the theme its scheme picks
/// would draw it alone; a lone theme ignores `--scheme`.
#[test]
fn rasters_draw_the_theme_their_scheme_picks() {
    let screen = input_bytes(&sample());
    for (format, input) in [("png", &screen[..]), ("gif", CAST.as_bytes())] {
        let draw = |args: &[&str]| {
            let mut all = vec!["--format", format, "-d", "macos", "--title", "t"];
            all.extend_from_slice(args);
            render(&all, input)
        };
        // Compared by bytes; a failure names the options, not the bytes.
        let same = |a: &[&str], b: &[&str]| {
            assert!(
                draw(a) == draw(b),
                "{format}: {a:?} draws other bytes than {b:?}"
            );
        };
        let (dark, light) = (["--theme", "shotty-dark"], ["--theme", "shotty-light"]);
        assert!(draw(&dark) != draw(&light), "{format}");
        same(&["--theme", "auto"], &dark);
        // The default theme is the pair's dark one.
        same(&[], &dark);
        same(&["--theme", "auto", "--scheme", "light"], &light);
        let pair = ["--dark-theme", "dracula", "--light-theme", "github-light"];
        same(
            &[&pair[..], &["--scheme", "dark"]].concat(),
            &["--theme", "dracula"],
        );
        same(
            &[&pair[..], &["--scheme", "light"]].concat(),
            &["--theme", "github-light"],
        );
        // --light-theme pairs with --theme; --dark-theme takes its place.
        let nord = ["--theme", "nord"];
        same(
            &[&nord[..], &["--light-theme", "solarized-light"]].concat(),
            &nord,
        );
        same(
            &[&nord[..], &["--dark-theme", "dracula"]].concat(),
            &["--theme", "dracula"],
        );
        same(&[&nord[..], &["--scheme", "light"]].concat(), &nord);
    }
}

/// The `prefers-color-scheme: light` rules of an SVG's style sheet, by selector.
fn light_rules(svg: &str) -> Vec<(String, String)> {
    let block = svg
        .split("@media (prefers-color-scheme:light){")
        .nth(1)
        .expect("a prefers-color-scheme block");
    let mut rules = Vec::new();
    let mut rest = block;
    while let Some((selector, after)) = rest.split_once('{') {
        if !selector.starts_with('.') {
            break;
        }
        let (body, after) = after.split_once('}').expect("a closed rule");
        rules.push((selector[1..].to_owned(), body.to_owned()));
        rest = after;
    }
    rules
}

/// The opening tags of `svg` whose `attribute` is `value`.
fn tags_with<'a>(svg: &'a str, attribute: &str, value: &str) -> Vec<&'a str> {
    let needle = format!(" {attribute}=\"{value}\"");
    svg.match_indices(&needle)
        .map(|(i, _)| {
            let start = svg[..i].rfind('<').expect("a tag");
            let end = i + svg[i..].find('>').expect("a closed tag");
            &svg[start..=end]
        })
        .collect()
}

fn class_of(tag: &str) -> Option<&str> {
    tag.split(" class=\"").nth(1)?.split('"').next()
}

/// Each element that adapts carries its dark colour as its attribute and a class whose light
/// rule has its light colour; nothing else changes between the schemes.
#[test]
fn an_adaptive_svg_carries_both_themes() {
    let (dark, light) = (theme("shotty-dark"), theme("shotty-light"));
    let svg = |args: &[&str]| {
        let mut all = vec!["--no-metadata", "-d", "windows", "--title", "t"];
        all.extend_from_slice(args);
        String::from_utf8(render(&all, &input_bytes(&attributes()))).expect("UTF-8")
    };
    let auto = svg(&["--theme", "auto"]);
    let rules = light_rules(&auto);
    let rule = |class: &str| {
        rules
            .iter()
            .find(|(selector, _)| selector == class)
            .map(|(_, body)| body.clone())
    };
    // The screen: dark background attribute, light background rule.
    let screens = tags_with(&auto, "fill", &hex(dark.background));
    let screen = screens
        .iter()
        .find(|t| t.starts_with("<rect"))
        .expect("the screen's rectangle");
    let class = class_of(screen).expect("the screen's class");
    assert_eq!(rule(class), Some(format!("fill:{}", hex(light.background))));
    // Every element coloured with a theme's colour names its light colour.
    let mut checked = 0;
    for (i, (d, l)) in dark.ansi.iter().zip(&light.ansi).enumerate() {
        for tag in tags_with(&auto, "fill", &hex(*d)) {
            let Some(class) = class_of(tag).and_then(|c| c.split(' ').next()) else {
                panic!("colour {i} without a light class: {tag}");
            };
            assert_eq!(rule(class), Some(format!("fill:{}", hex(*l))), "{tag}");
            checked += 1;
        }
    }
    assert!(checked >= 3, "{checked} coloured elements in\n{auto}");
    // The window's ink (title and caption buttons) adapts too.
    assert!(rules.iter().any(|(s, _)| s == "t"), "{rules:?}");
    assert!(rules.iter().any(|(s, _)| s.starts_with('s')), "{rules:?}");

    // One theme: no light rules, no classes of them.
    let nord = svg(&["--theme", "nord"]);
    assert!(
        !nord.contains("@media") && !nord.contains(" class=\"f"),
        "{nord}"
    );
    // The pair's dark half alone is the same drawing without its light half.
    let dark_only = svg(&["--theme", "shotty-dark"]);
    assert!(auto.len() > dark_only.len());
}

#[test]
fn an_animated_svg_follows_its_viewer_too() {
    let out = render(
        &["--format", "svg", "--video", "--theme", "auto"],
        CAST.as_bytes(),
    );
    let svg = String::from_utf8(out).expect("UTF-8");
    let light = theme("shotty-light");
    let rules = light_rules(&svg);
    // The blue text shows only in the second frame.
    let blue = format!("fill:{}", hex(light.ansi[12]));
    assert!(rules.iter().any(|(_, body)| *body == blue), "{rules:?}");
    let green = format!("fill:{}", hex(light.ansi[2]));
    assert!(rules.iter().any(|(_, body)| *body == green), "{rules:?}");
}

#[test]
fn bad_theme_options_name_the_problem() {
    for (args, expected) in [
        (&["--light-theme", "no-such"][..], "no-such"),
        (
            &["--dark-theme", "/nonexistent/t.json"][..],
            "/nonexistent/t.json",
        ),
        (&["--scheme", "dim"][..], "dark or light"),
    ] {
        let mut all = vec!["render", "--width", "10", "--height", "1"];
        all.extend_from_slice(args);
        let out = shotty(&all, b"x");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(expected),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}
