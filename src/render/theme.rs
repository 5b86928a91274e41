//! Colour themes in the Windows Terminal scheme format, and resolving cell colours with them.

use crate::term::{Color, Rgb, indexed_color};

use super::RenderError;
pub use super::scheme::{SchemeColors, parse_hex_color};

include!(concat!(env!("OUT_DIR"), "/themes.rs"));

/// The theme used when none is asked for.
pub const DEFAULT_THEME: &str = "shotty-dark";

/// What `--theme auto` stands for: an SVG in [`DEFAULT_THEME`] that turns into this theme for
/// viewers who prefer light.
pub const DEFAULT_LIGHT_THEME: &str = "shotty-light";

/// The `--theme` that makes an SVG follow its viewer: [`DEFAULT_THEME`] by default and
/// [`DEFAULT_LIGHT_THEME`] for viewers who prefer light.
pub const AUTO_THEME: &str = "auto";

/// A viewer's colour scheme (CSS `prefers-color-scheme`): which theme of a light/dark pair is
/// drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorScheme {
    /// The dark theme (also the only theme of an appearance without a light one).
    #[default]
    Dark,
    /// The light theme.
    Light,
}

impl std::str::FromStr for ColorScheme {
    type Err = String;

    /// `dark` or `light`.
    fn from_str(s: &str) -> Result<ColorScheme, String> {
        match s {
            "dark" => Ok(ColorScheme::Dark),
            "light" => Ok(ColorScheme::Light),
            _ => Err(format!("the colour scheme is dark or light, not {s:?}")),
        }
    }
}

/// A colour scheme: default colours, cursor and the 16 ANSI colours. Palette entries 16–255
/// are computed (colour cube and grey ramp); true colours pass through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Display name.
    pub name: String,
    /// Default background.
    pub background: Rgb,
    /// Default foreground.
    pub foreground: Rgb,
    /// Cursor colour.
    pub cursor: Rgb,
    /// Selection background (kept for completeness; screenshots have no selection).
    pub selection_background: Rgb,
    /// ANSI colours 0–15.
    pub ansi: [Rgb; 16],
}

impl Theme {
    fn from_scheme(name: &str, colors: SchemeColors) -> Theme {
        Theme {
            name: name.to_owned(),
            background: colors.background,
            foreground: colors.foreground,
            cursor: colors.cursor,
            selection_background: colors.selection_background,
            ansi: colors.ansi,
        }
    }

    /// Parses a scheme in the Windows Terminal format.
    #[cfg(feature = "serde")]
    pub fn from_json(json: &str) -> Result<Theme, String> {
        use serde_json::{Map, Value};
        let map: Map<String, Value> = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let (name, colors) = super::scheme::read_scheme(|key| match map.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(format!("{key}: not a string")),
        })?;
        Ok(Theme::from_scheme(name, colors))
    }

    /// The built-in themes as (id, theme), sorted by id (the files of `themes/`, read when
    /// shotty was built).
    pub fn builtins() -> impl Iterator<Item = (&'static str, Theme)> {
        BUILTIN_THEMES
            .iter()
            .map(|(id, name, colors)| (*id, Theme::from_scheme(name, *colors)))
    }

    /// Whether the background is dark (its luminance below half).
    pub fn is_dark(&self) -> bool {
        let (r, g, b) = self.background;
        let luminance = 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b);
        luminance < 128.0
    }

    /// A built-in theme by id (`shotty themes` lists them).
    pub fn builtin(id: &str) -> Option<Theme> {
        let (_, name, colors) = BUILTIN_THEMES.iter().find(|(i, _, _)| *i == id)?;
        Some(Theme::from_scheme(name, *colors))
    }

    /// A theme of VHS's list (`themes/vhs/`, from VHS's `themes.json`) by its name, as a VHS
    /// tape's `Set Theme "Catppuccin Mocha"` gives it. The name must match exactly, case
    /// included, as in VHS. These themes are not built-in themes: [`Theme::builtin`] and
    /// `shotty themes` do not know them.
    pub fn vhs(name: &str) -> Option<Theme> {
        let (_, name, colors) = VHS_THEMES.iter().find(|(_, n, _)| *n == name)?;
        Some(Theme::from_scheme(name, *colors))
    }

    /// The names of VHS's themes, in the order `vhs themes` lists them: by lowercased name
    /// (then by name, for names that differ only in case).
    pub fn vhs_names() -> impl Iterator<Item = &'static str> {
        VHS_THEMES.iter().map(|(_, name, _)| *name)
    }

    /// The VHS themes that VHS suggests for a name it does not know, in [`Theme::vhs_names`]
    /// order: each theme whose lowercased name is at most 2 edits from the lowercased `name`
    /// (Levenshtein distance in characters), or that the lowercased `name` starts with
    /// (`"Dracula Pro"` suggests `Dracula`). Lowercasing maps each character to one, as Go's
    /// `strings.ToLower` does.
    pub fn vhs_suggestions(name: &str) -> Vec<&'static str> {
        let wanted = go_lowercase(name);
        let wanted_chars: Vec<char> = wanted.chars().collect();
        Theme::vhs_names()
            .filter(|theme| {
                let theme = go_lowercase(theme);
                let theme_chars: Vec<char> = theme.chars().collect();
                wanted.starts_with(&theme) || levenshtein(&wanted_chars, &theme_chars) <= 2
            })
            .collect()
    }

    /// A built-in theme by id, or a theme file by path (anything containing `/` or ending
    /// in `.json`).
    pub fn load(name_or_path: &str) -> Result<Theme, RenderError> {
        if name_or_path.contains('/') || name_or_path.ends_with(".json") {
            #[cfg(feature = "serde")]
            {
                let json = std::fs::read_to_string(name_or_path).map_err(|e| {
                    RenderError::new(format!("cannot read theme {name_or_path}: {e}"))
                })?;
                return Theme::from_json(&json)
                    .map_err(|e| RenderError::new(format!("theme {name_or_path}: {e}")));
            }
            #[cfg(not(feature = "serde"))]
            return Err(RenderError::new(format!(
                "cannot read theme {name_or_path}: theme files need shotty's `serde` feature"
            )));
        }
        Theme::builtin(name_or_path).ok_or_else(|| {
            RenderError::new(format!(
                "unknown theme {name_or_path:?} (see `shotty themes`; a path must end in .json)"
            ))
        })
    }

    /// The RGB value of a cell colour; `Default` resolves to the foreground or background.
    pub fn resolve(&self, color: Color, foreground: bool) -> Rgb {
        match color {
            Color::Default => {
                if foreground {
                    self.foreground
                } else {
                    self.background
                }
            }
            Color::Indexed(i) => indexed_color(i, &self.ansi),
            Color::Rgb(r, g, b) => (r, g, b),
        }
    }
}

/// `s` lowercased character by character, each character to one (Unicode's simple lowercase
/// mapping, as Go's `strings.ToLower`): `İ` becomes `i`, and `Σ` always `σ`.
fn go_lowercase(s: &str) -> String {
    s.chars()
        .map(|c| c.to_lowercase().next().unwrap_or(c))
        .collect()
}

/// The Levenshtein distance between `a` and `b`: the fewest insertions, deletions and
/// substitutions of one character that turn `a` into `b`.
fn levenshtein(a: &[char], b: &[char]) -> usize {
    // `row[j]` is the distance between the first `i` characters of `a` and the first `j` of
    // `b`, for the `i` reached so far.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "serde")]
    fn builtin_themes_are_their_files_and_the_default_exists() {
        assert!(BUILTIN_THEMES.len() >= 20);
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
        for (id, theme) in Theme::builtins() {
            let path = dir.join(format!("{id}.json"));
            assert_eq!(Theme::load(&path.display().to_string()), Ok(theme), "{id}");
        }
        assert!(Theme::builtin(DEFAULT_THEME).is_some());
    }

    #[test]
    fn the_vhs_table_is_vhs_list_with_unique_ids_and_names() {
        // VHS's themes.json holds 348 themes (its `"name"` also names the credits' authors).
        assert_eq!(VHS_THEMES.len(), 348);
        let ids: std::collections::HashSet<_> = VHS_THEMES.iter().map(|(id, _, _)| id).collect();
        let names: std::collections::HashSet<_> = Theme::vhs_names().collect();
        assert_eq!(ids.len(), VHS_THEMES.len());
        assert_eq!(names.len(), VHS_THEMES.len());
        let keys: Vec<(String, &str)> = Theme::vhs_names().map(|n| (go_lowercase(n), n)).collect();
        assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "sorted as VHS lists them"
        );
        // The VHS themes are not built-in themes; VHS's default theme is one.
        assert_eq!(Theme::builtins().count(), BUILTIN_THEMES.len());
        assert!(Theme::builtin("catppuccin-mocha-2").is_none());
        assert!(Theme::vhs("Dracula").is_some() && Theme::builtin("Dracula").is_none());
        let default = Theme::builtin("vhs-default").expect("VHS's default theme");
        assert_eq!(
            (default.name.as_str(), default.background),
            ("VHS Default", (0x17, 0x17, 0x17))
        );
    }

    #[test]
    fn a_vhs_theme_is_found_by_its_exact_name() {
        let mocha = Theme::vhs("Catppuccin Mocha").expect("Catppuccin Mocha");
        assert_eq!(mocha.name, "Catppuccin Mocha");
        #[cfg(feature = "serde")]
        {
            let file = format!(
                "{}/themes/vhs/catppuccin-mocha-2.json",
                env!("CARGO_MANIFEST_DIR")
            );
            assert_eq!(Theme::load(&file), Ok(mocha.clone()));
        }
        // Values read from VHS's themes.json.
        assert_eq!(mocha.background, (0x1e, 0x1e, 0x2e));
        assert_eq!(mocha.cursor, (0xf5, 0xe0, 0xdc));
        assert_eq!(mocha.ansi[5], (0xf5, 0xc2, 0xe7), "magenta");
        assert_eq!(mocha.ansi[15], (0xa6, 0xad, 0xc8), "brightWhite");
        // VHS writes some themes in uppercase hex (Bubbles: "#161D38").
        assert_eq!(
            Theme::vhs("Bubbles").expect("Bubbles").background,
            (0x16, 0x1d, 0x38)
        );
        // A theme without a cursor gets what VHS's xterm.js draws: white.
        assert_eq!(
            Theme::vhs("Rose Pine").expect("Rose Pine").cursor,
            (255, 255, 255)
        );
        assert_eq!(Theme::vhs("catppuccin mocha"), None);
        assert_eq!(Theme::vhs("Catppuccin Mocha "), None);
        assert!(Theme::vhs("catppuccin-mocha").is_some());
    }

    #[test]
    fn unknown_vhs_names_get_vhs_suggestions() {
        assert!(Theme::vhs("Draculla").is_none());
        assert!(Theme::vhs_suggestions("Draculla").contains(&"Dracula"));
        assert!(Theme::vhs_suggestions("DRACULA PRO").contains(&"Dracula"));
        assert!(Theme::vhs_suggestions("tokyonight").starts_with(&["TokyoNight", "tokyonight"]));
        assert_eq!(
            Theme::vhs_suggestions("no such theme at all"),
            Vec::<&str>::new()
        );
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(levenshtein(&chars("kitten"), &chars("sitting")), 3);
        assert_eq!(levenshtein(&chars(""), &chars("abc")), 3);
        assert_eq!(levenshtein(&chars("rosé"), &chars("rose")), 1);
        assert_eq!(levenshtein(&chars("abc"), &chars("abc")), 0);
        assert_eq!(go_lowercase("İΣ"), "iσ");
    }

    #[test]
    #[cfg(feature = "serde")]
    fn vhs_themes_are_their_files() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("themes/vhs");
        let mut files = 0;
        for entry in std::fs::read_dir(&dir).expect("themes/vhs") {
            let path = entry.expect("directory entry").path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            files += 1;
            let id = path.file_stem().and_then(|s| s.to_str()).expect("UTF-8 id");
            let json = std::fs::read_to_string(&path).expect("theme file");
            let theme = Theme::from_json(&json).unwrap_or_else(|e| panic!("{id}: {e}"));
            let (_, name, colors) = VHS_THEMES
                .iter()
                .find(|(i, _, _)| *i == id)
                .unwrap_or_else(|| panic!("{id} is not in the table"));
            assert_eq!(theme, Theme::from_scheme(name, *colors), "{id}");
            assert_eq!(Theme::vhs(name), Some(theme), "{id}");
        }
        assert_eq!(files, VHS_THEMES.len());
    }

    #[test]
    fn colours_resolve_through_the_theme() {
        let t = Theme::builtin("xterm").expect("xterm theme");
        assert_eq!(t.resolve(Color::Indexed(1), true), t.ansi[1]);
        assert_eq!(t.resolve(Color::Indexed(196), true), (255, 0, 0));
        assert_eq!(t.resolve(Color::Indexed(244), true), (128, 128, 128));
        assert_eq!(t.resolve(Color::Rgb(1, 2, 3), false), (1, 2, 3));
        assert_eq!(t.resolve(Color::Default, false), t.background);
    }

    #[test]
    #[cfg(feature = "serde")]
    fn bad_theme_files_name_the_problem() {
        let err = Theme::from_json("{\"name\":\"x\"}").unwrap_err();
        assert!(err.contains("missing field"), "{err}");
        let file = format!("{}/themes/{DEFAULT_THEME}.json", env!("CARGO_MANIFEST_DIR"));
        let json = std::fs::read_to_string(file).expect("theme file");
        let json = json.replacen("#", "#zz", 1);
        assert!(
            Theme::from_json(&json)
                .unwrap_err()
                .contains("is not a #rrggbb colour")
        );
        assert!(Theme::load("no-such-theme").is_err());
        assert!(Theme::load("/nonexistent/theme.json").is_err());
    }

    #[test]
    fn hex_colours() {
        assert_eq!(parse_hex_color("#ff8000"), Some((255, 128, 0)));
        assert_eq!(parse_hex_color("#f80"), Some((255, 136, 0)));
        assert_eq!(parse_hex_color("ff8000"), None);
        assert_eq!(parse_hex_color("#ff80"), None);
    }
}
