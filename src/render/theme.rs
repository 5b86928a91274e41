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
