//! Colour themes in the Windows Terminal scheme format, and resolving cell colours with them.

use serde::Deserialize;

use crate::term::{Color, Rgb, indexed_color};

use super::RenderError;

include!(concat!(env!("OUT_DIR"), "/themes.rs"));

/// The theme used when none is asked for.
pub const DEFAULT_THEME: &str = "shotty-dark";

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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SchemeFile {
    name: String,
    background: String,
    foreground: String,
    cursor_color: Option<String>,
    selection_background: Option<String>,
    black: String,
    red: String,
    green: String,
    yellow: String,
    blue: String,
    purple: String,
    cyan: String,
    white: String,
    bright_black: String,
    bright_red: String,
    bright_green: String,
    bright_yellow: String,
    bright_blue: String,
    bright_purple: String,
    bright_cyan: String,
    bright_white: String,
}

/// Parses `#rgb` or `#rrggbb`.
pub fn parse_hex_color(s: &str) -> Option<Rgb> {
    let hex = s.trim().strip_prefix('#')?;
    let digit = |i: usize, n: usize| u8::from_str_radix(hex.get(i..i + n)?, 16).ok();
    match hex.len() {
        3 => Some((digit(0, 1)? * 17, digit(1, 1)? * 17, digit(2, 1)? * 17)),
        6 => Some((digit(0, 2)?, digit(2, 2)?, digit(4, 2)?)),
        _ => None,
    }
}

impl Theme {
    /// Parses a scheme in the Windows Terminal format.
    pub fn from_json(json: &str) -> Result<Theme, String> {
        let f: SchemeFile = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let color = |field: &str, value: &str| {
            parse_hex_color(value)
                .ok_or_else(|| format!("{field}: {value:?} is not a #rrggbb colour"))
        };
        let foreground = color("foreground", &f.foreground)?;
        let background = color("background", &f.background)?;
        let ansi = [
            color("black", &f.black)?,
            color("red", &f.red)?,
            color("green", &f.green)?,
            color("yellow", &f.yellow)?,
            color("blue", &f.blue)?,
            color("purple", &f.purple)?,
            color("cyan", &f.cyan)?,
            color("white", &f.white)?,
            color("brightBlack", &f.bright_black)?,
            color("brightRed", &f.bright_red)?,
            color("brightGreen", &f.bright_green)?,
            color("brightYellow", &f.bright_yellow)?,
            color("brightBlue", &f.bright_blue)?,
            color("brightPurple", &f.bright_purple)?,
            color("brightCyan", &f.bright_cyan)?,
            color("brightWhite", &f.bright_white)?,
        ];
        Ok(Theme {
            name: f.name,
            background,
            foreground,
            cursor: match &f.cursor_color {
                Some(c) => color("cursorColor", c)?,
                None => foreground,
            },
            selection_background: match &f.selection_background {
                Some(c) => color("selectionBackground", c)?,
                None => foreground,
            },
            ansi,
        })
    }

    /// A built-in theme by id (`shotty themes` lists them).
    pub fn builtin(id: &str) -> Option<Theme> {
        let (_, json) = BUILTIN_THEMES.iter().find(|(i, _)| *i == id)?;
        Theme::from_json(json).ok()
    }

    /// A built-in theme by id, or a theme file by path (anything containing `/` or ending
    /// in `.json`).
    pub fn load(name_or_path: &str) -> Result<Theme, RenderError> {
        if name_or_path.contains('/') || name_or_path.ends_with(".json") {
            let json = std::fs::read_to_string(name_or_path)
                .map_err(|e| RenderError::new(format!("cannot read theme {name_or_path}: {e}")))?;
            return Theme::from_json(&json)
                .map_err(|e| RenderError::new(format!("theme {name_or_path}: {e}")));
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
    fn every_builtin_theme_parses_and_the_default_exists() {
        assert!(BUILTIN_THEMES.len() >= 20);
        for (id, json) in BUILTIN_THEMES {
            let theme = Theme::from_json(json).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert!(!theme.name.is_empty(), "{id}");
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
    fn bad_theme_files_name_the_problem() {
        let err = Theme::from_json("{\"name\":\"x\"}").unwrap_err();
        assert!(err.contains("missing field"), "{err}");
        let json = BUILTIN_THEMES[0].1.replacen("#", "#zz", 1);
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
