//! A tape's settings with VHS's defaults: checked all together before anything runs, and
//! turned into what shotty needs — the shell's command line, the terminal's columns and rows
//! (as VHS's browser terminal fits them into the pixel size), the timing of the animation
//! and the [`Appearance`] of its frames.

use std::path::PathBuf;
use std::time::Duration;

use super::parser::{Location, Setting, TapeError};
use crate::recording::frames::MAX_FPS;
use crate::render::theme::parse_hex_color;
use crate::render::{Appearance, Backdrop, Theme, WindowStyle};

/// VHS's default font size, in px.
pub const DEFAULT_FONT_SIZE: f64 = 22.0;
/// VHS's default picture size, in px.
pub const DEFAULT_SIZE: (u32, u32) = (1200, 600);
/// VHS's default padding around the terminal, in px.
pub const DEFAULT_PADDING: u32 = 60;
/// VHS's default window bar height, in px.
pub const DEFAULT_WINDOW_BAR_SIZE: u32 = 30;
/// VHS's default frame rate.
pub const DEFAULT_FRAMERATE: u32 = 50;
/// VHS's default pause after each typed character.
pub const DEFAULT_TYPING_SPEED: Duration = Duration::from_millis(50);
/// VHS's default `Wait` timeout.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(15);
/// VHS's default `Wait` pattern: a line ending in its prompt's `>`.
pub const DEFAULT_WAIT_PATTERN: &str = ">$";
/// The name of VHS's default theme in shotty's built-in themes.
pub const DEFAULT_THEME: &str = "vhs-default";

/// The largest picture side accepted, in px.
const MAX_SIDE: u32 = 20_000;
/// ttyd's padding around its terminal, both sides together, px.
const TTYD_PADDING: f64 = 10.0;
/// The scroll bar xterm.js leaves room for, px.
const SCROLL_BAR: f64 = 15.0;

/// Every setting's value (VHS's defaults until a `Set` changes it).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The shell (`Shell`): one of [`SHELLS`].
    pub shell: String,
    /// `FontFamily` (the SVG's font list; pictures draw the bundled fonts).
    pub font_family: Option<String>,
    /// `FontSize`, px.
    pub font_size: f64,
    /// `LetterSpacing`, px added to each cell.
    pub letter_spacing: f64,
    /// `LineHeight`, a multiple of the font's own height.
    pub line_height: f64,
    /// `Theme`.
    pub theme: Theme,
    /// `Width` and `Height` of the picture, px.
    pub size: (u32, u32),
    /// `Padding`, px.
    pub padding: u32,
    /// `Margin`, px.
    pub margin: u32,
    /// `MarginFill`: a `#rrggbb` colour or an image file; `None` is the theme's background.
    pub margin_fill: Option<String>,
    /// `WindowBar` style, if any.
    pub window_bar: Option<String>,
    /// `WindowBarSize`, px.
    pub window_bar_size: u32,
    /// `BorderRadius`, px.
    pub border_radius: u32,
    /// `Framerate`.
    pub framerate: u32,
    /// `PlaybackSpeed`.
    pub playback_speed: f64,
    /// `LoopOffset`, percent of the animation.
    pub loop_offset: f64,
    /// `TypingSpeed`.
    pub typing_speed: Duration,
    /// `CursorBlink` (frames show the cursor steady either way).
    pub cursor_blink: bool,
    /// `WaitTimeout`.
    pub wait_timeout: Duration,
    /// `WaitPattern`.
    pub wait_pattern: String,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            shell: "bash".into(),
            font_family: None,
            font_size: DEFAULT_FONT_SIZE,
            letter_spacing: 1.0,
            line_height: 1.0,
            theme: Theme::builtin(DEFAULT_THEME).unwrap_or_else(|| Appearance::default().theme),
            size: DEFAULT_SIZE,
            padding: DEFAULT_PADDING,
            margin: 0,
            margin_fill: None,
            window_bar: None,
            window_bar_size: DEFAULT_WINDOW_BAR_SIZE,
            border_radius: 0,
            framerate: DEFAULT_FRAMERATE,
            playback_speed: 1.0,
            loop_offset: 0.0,
            typing_speed: DEFAULT_TYPING_SPEED,
            cursor_blink: true,
            wait_timeout: DEFAULT_WAIT_TIMEOUT,
            wait_pattern: DEFAULT_WAIT_PATTERN.into(),
        }
    }
}

/// How VHS starts a shell: its command line and the variables it adds, so the prompt is
/// VHS's `> ` in its indigo.
pub struct ShellStart {
    /// VHS's name for it (`Set Shell NAME`).
    pub name: &'static str,
    /// The program and its arguments.
    pub command: &'static [&'static str],
    /// Variables set for it.
    pub env: &'static [(&'static str, &'static str)],
}

/// The shells VHS knows (its `Set Shell` names), started as VHS starts them.
pub const SHELLS: &[ShellStart] = &[
    ShellStart {
        name: "bash",
        command: &["bash", "--noprofile", "--norc", "--login", "+o", "history"],
        env: &[
            ("PS1", "\\[\\e[38;2;90;86;224m\\]> \\[\\e[0m\\]"),
            ("BASH_SILENCE_DEPRECATION_WARNING", "1"),
        ],
    },
    ShellStart {
        name: "zsh",
        command: &["zsh", "--histnostore", "--no-rcs"],
        env: &[("PROMPT", "%F{#5B56E0}> %F{reset_color}")],
    },
    ShellStart {
        name: "fish",
        command: &[
            "fish",
            "--login",
            "--no-config",
            "--private",
            "-C",
            "function fish_greeting; end",
            "-C",
            "function fish_prompt; set_color 5B56E0; echo -n \"> \"; set_color normal; end",
        ],
        env: &[],
    },
    ShellStart {
        name: "powershell",
        command: &[
            "powershell",
            "-NoLogo",
            "-NoExit",
            "-NoProfile",
            "-Command",
            "Set-PSReadLineOption -HistorySaveStyle SaveNothing; function prompt { Write-Host '>' -NoNewLine -ForegroundColor Blue; return ' ' }",
        ],
        env: &[],
    },
    ShellStart {
        name: "pwsh",
        command: &[
            "pwsh",
            "-Login",
            "-NoLogo",
            "-NoExit",
            "-NoProfile",
            "-Command",
            "Set-PSReadLineOption -HistorySaveStyle SaveNothing; Function prompt { Write-Host -ForegroundColor Blue -NoNewLine '>'; return ' ' }",
        ],
        env: &[],
    },
    ShellStart {
        name: "cmd",
        command: &["cmd.exe", "/k", "prompt=^> "],
        env: &[],
    },
    ShellStart {
        name: "nu",
        command: &[
            "nu",
            "--execute",
            "$env.PROMPT_COMMAND = {'\u{1b}[;38;2;91;86;224m>\u{1b}[m '}; $env.PROMPT_COMMAND_RIGHT = {''}",
        ],
        env: &[],
    },
    ShellStart {
        name: "osh",
        command: &["osh", "--norc"],
        env: &[("PS1", "\\[\\e[38;2;90;86;224m\\]> \\[\\e[0m\\]")],
    },
    ShellStart {
        name: "xonsh",
        command: &[
            "xonsh",
            "--no-rc",
            "-D",
            "PROMPT=\u{1b}[;38;2;91;86;224m>\u{1b}[m ",
        ],
        env: &[],
    },
];

impl Settings {
    /// Applies one `Set`, checking its value's range; `at` names it in the error, and in the
    /// warning returned when part of the value is ignored (an inline theme's unknown keys).
    pub fn apply(&mut self, setting: &Setting, at: &Location) -> Result<Option<String>, TapeError> {
        let range = |name: &str, value: f64, min: f64, max: f64| {
            if value.is_finite() && (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(at.error(format!("{name} is {min}–{max}, not {value}")))
            }
        };
        match setting {
            Setting::Shell(name) => {
                let known = SHELLS.iter().any(|s| s.name == name);
                if !known {
                    let names: Vec<&str> = SHELLS.iter().map(|s| s.name).collect();
                    return Err(at.error(format!(
                        "unknown shell {name:?} (one of: {})",
                        names.join(", ")
                    )));
                }
                self.shell = name.clone();
            }
            Setting::FontFamily(family) => self.font_family = Some(family.clone()),
            Setting::FontSize(size) => {
                range("FontSize", *size, 4.0, 200.0)?;
                self.font_size = *size;
            }
            Setting::LetterSpacing(spacing) => {
                range("LetterSpacing", *spacing, -10.0, 100.0)?;
                self.letter_spacing = *spacing;
            }
            Setting::LineHeight(height) => {
                range("LineHeight", *height, 0.5, 5.0)?;
                self.line_height = *height;
            }
            Setting::Theme(value) => {
                let (theme, ignored) = theme(value).map_err(|m| at.error(m))?;
                self.theme = theme;
                return Ok(ignored_keys(&ignored).map(|w| at.error(w).to_string()));
            }
            Setting::Width(width) => {
                range("Width", f64::from(*width), 1.0, f64::from(MAX_SIDE))?;
                self.size.0 = *width;
            }
            Setting::Height(height) => {
                range("Height", f64::from(*height), 1.0, f64::from(MAX_SIDE))?;
                self.size.1 = *height;
            }
            Setting::Padding(p) => {
                range("Padding", f64::from(*p), 0.0, 1000.0)?;
                self.padding = *p;
            }
            Setting::Margin(m) => {
                range("Margin", f64::from(*m), 0.0, 1000.0)?;
                self.margin = *m;
            }
            Setting::MarginFill(fill) => {
                if fill.starts_with('#') {
                    if fill.len() != 7 || parse_hex_color(fill).is_none() {
                        return Err(at.error(format!("{fill:?} is not a #rrggbb colour")));
                    }
                } else if !std::path::Path::new(fill).is_file() {
                    return Err(at.error(format!(
                        "MarginFill is a #rrggbb colour or an image file; {fill:?} is neither"
                    )));
                }
                self.margin_fill = Some(fill.clone());
            }
            Setting::WindowBar(style) => self.window_bar = Some(style.clone()),
            Setting::WindowBarSize(size) => {
                range("WindowBarSize", f64::from(*size), 0.0, 1000.0)?;
                self.window_bar_size = *size;
            }
            Setting::BorderRadius(radius) => {
                range("BorderRadius", f64::from(*radius), 0.0, 1000.0)?;
                self.border_radius = *radius;
            }
            Setting::Framerate(fps) => {
                range("Framerate", f64::from(*fps), 1.0, f64::from(MAX_FPS))?;
                self.framerate = *fps;
            }
            Setting::PlaybackSpeed(speed) => {
                range("PlaybackSpeed", *speed, 0.01, 100.0)?;
                self.playback_speed = *speed;
            }
            Setting::LoopOffset(percent) => {
                range("LoopOffset", *percent, 0.0, 1e6)?;
                self.loop_offset = *percent;
            }
            Setting::TypingSpeed(speed) => self.typing_speed = *speed,
            Setting::CursorBlink(blink) => self.cursor_blink = *blink,
            Setting::WaitTimeout(timeout) => {
                if timeout.is_zero() {
                    return Err(at.error("WaitTimeout must be positive"));
                }
                self.wait_timeout = *timeout;
            }
            Setting::WaitPattern(pattern) => self.wait_pattern = pattern.clone(),
        }
        Ok(None)
    }

    /// How VHS starts the shell.
    pub fn shell_start(&self) -> &'static ShellStart {
        SHELLS
            .iter()
            .find(|s| s.name == self.shell)
            .unwrap_or(&SHELLS[0])
    }

    /// The height of the window bar, px (0 without one).
    fn bar(&self) -> u32 {
        if self.window_bar.is_some() {
            self.window_bar_size
        } else {
            0
        }
    }

    /// The smallest picture the padding, margin and bar leave room in (VHS's check).
    pub fn minimum_size(&self) -> (u32, u32) {
        let inset = 2 * self.padding + 2 * self.margin;
        (inset, inset + self.bar())
    }

    /// The terminal area in px: the picture less the margin, the bar and the padding.
    fn terminal_area(&self) -> (f64, f64) {
        let (min_w, min_h) = self.minimum_size();
        (
            f64::from(self.size.0.saturating_sub(min_w)),
            f64::from(self.size.1.saturating_sub(min_h)),
        )
    }

    /// A cell as VHS's browser terminal (xterm.js 5 in ttyd, in headless Chromium) sizes it
    /// for JetBrains Mono, in px: the glyph's advance rounded down, plus the letter spacing
    /// rounded; the font's ascent and descent each rounded, times the line height, rounded
    /// down.
    pub fn cell(&self) -> (f64, f64) {
        let size = self.font_size;
        let font = crate::render::CellMetrics::new(size, 1.0);
        let advance = font.width;
        // Chromium measures an advance that is a whole number of px at these sizes a hair
        // under it (fixed-point scaling), so xterm.js's floor takes one px off: measured for
        // 6–80 px (20, 30, … 80 px lose one; 10 px does not).
        let whole = (advance - advance.round()).abs() < 1e-9;
        let char_width = if whole && size >= 20.0 && size % 10.0 == 0.0 {
            advance.round() - 1.0
        } else {
            (advance + 1e-9).floor()
        };
        let char_height = (font.ascent + 0.5).floor() + (font.descent + 0.5).floor();
        let width = (char_width + self.letter_spacing.round()).max(1.0);
        let height = (char_height * self.line_height).floor().max(1.0);
        (width, height)
    }

    /// The terminal's columns and rows, as xterm.js's fit add-on makes them in the terminal
    /// area: less ttyd's 5 px padding on each side and (across) a 15 px scroll bar, as many
    /// whole cells as fit, at least 2 columns and 1 row.
    pub fn terminal_size(&self) -> (u16, u16) {
        let (area_w, area_h) = self.terminal_area();
        let (cell_w, cell_h) = self.cell();
        let fit = |room: f64, cell: f64, min: f64| {
            let max = f64::from(crate::session::instance::MAX_SIZE);
            (room.max(0.0) / cell).floor().clamp(min, max) as u16
        };
        (
            fit(area_w - TTYD_PADDING - SCROLL_BAR, cell_w, 2.0),
            fit(area_h - TTYD_PADDING, cell_h, 1.0),
        )
    }

    /// The smallest picture (`Width`, `Height`) whose terminal has `cols × rows` cells
    /// ([`Settings::terminal_size`] turned round).
    pub fn size_for(&self, cols: u16, rows: u16) -> (u32, u32) {
        let (cell_w, cell_h) = self.cell();
        let (min_w, min_h) = self.minimum_size();
        let side = |cells: u16, cell: f64, room: f64, inset: u32| {
            (f64::from(cells) * cell + room).ceil() as u32 + inset
        };
        (
            side(cols, cell_w, TTYD_PADDING + SCROLL_BAR, min_w),
            side(rows, cell_h, TTYD_PADDING, min_h),
        )
    }

    /// The appearance of the frames: the picture is the tape's `Width × Height`, the terminal
    /// scaled to fill the area inside the padding (as VHS scales its browser's canvas) and
    /// centred in it, the bar, corners and margin drawn around.
    pub fn appearance(&self) -> Appearance {
        let (cols, rows) = self.terminal_size();
        let (cell_w, cell_h) = self.cell();
        let (area_w, area_h) = self.terminal_area();
        let grid = (f64::from(cols) * cell_w, f64::from(rows) * cell_h);
        let scale = (area_w / grid.0).min(area_h / grid.1).max(0.01);
        let font_size = self.font_size * scale;
        let natural = crate::render::CellMetrics::new(font_size, 1.0);
        let padding = f64::from(self.padding);
        let backdrop = match self.margin_fill.as_deref() {
            Some(fill) if fill.starts_with('#') => parse_hex_color(fill)
                .map(Backdrop::Solid)
                .unwrap_or(Backdrop::None),
            Some(file) => image_backdrop(file).unwrap_or(Backdrop::None),
            None => Backdrop::Solid(self.theme.background),
        };
        let window = match self.window_bar.as_deref() {
            Some("Colorful") => WindowStyle::Colorful,
            Some("ColorfulRight") => WindowStyle::ColorfulRight,
            Some("Rings") => WindowStyle::Rings,
            Some("RingsRight") => WindowStyle::RingsRight,
            _ => WindowStyle::None,
        };
        Appearance {
            theme: self.theme.clone(),
            font_family: self.font_family.clone(),
            font_size,
            line_height: cell_h / self.font_size,
            letter_spacing: cell_w * scale - natural.width,
            padding,
            margin: f64::from(self.margin),
            backdrop,
            window,
            window_bar_size: Some(f64::from(self.window_bar_size)),
            corner_radius: Some(f64::from(self.border_radius)),
            content_size: Some((area_w + 2.0 * padding, area_h + 2.0 * padding)),
            title: Some(String::new()),
            ..Appearance::default()
        }
    }
}

/// A `MarginFill` image as a backdrop (PNG or JPEG).
fn image_backdrop(path: &str) -> Option<Backdrop> {
    let data = std::fs::read(PathBuf::from(path)).ok()?;
    let mime = if data.starts_with(b"\x89PNG") {
        "image/png"
    } else if data.starts_with(&[0xff, 0xd8]) {
        "image/jpeg"
    } else {
        return None;
    };
    Some(Backdrop::Image { mime, data })
}

/// A `Theme` value: a name from VHS's list, or inline JSON whose missing colours are
/// xterm.js's defaults; with the inline theme's keys that were ignored (none for a name).
pub fn theme(value: &str) -> Result<(Theme, Vec<String>), String> {
    let value = value.trim();
    if value.is_empty() {
        return Theme::builtin(DEFAULT_THEME)
            .map(|t| (t, Vec::new()))
            .ok_or_else(|| "no default theme".into());
    }
    if value.starts_with('{') {
        return json_theme(value);
    }
    let named = Theme::vhs(value).map(|t| (t, Vec::new()));
    named.ok_or_else(|| {
        let suggestions = Theme::vhs_suggestions(value);
        if suggestions.is_empty() {
            format!("unknown theme {value:?} (VHS's theme names; see `vhs themes`)")
        } else {
            format!(
                "unknown theme {value:?}; did you mean {}?",
                suggestions
                    .iter()
                    .map(|s| format!("{s:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    })
}

/// xterm.js's default colours, for what an inline theme leaves out: its foreground,
/// background and cursor, and the Tango palette.
const XTERM_JS_DEFAULTS: [(&str, &str); 19] = [
    ("foreground", "#ffffff"),
    ("background", "#000000"),
    ("cursor", "#ffffff"),
    ("black", "#2e3436"),
    ("red", "#cc0000"),
    ("green", "#4e9a06"),
    ("yellow", "#c4a000"),
    ("blue", "#3465a4"),
    ("magenta", "#75507b"),
    ("cyan", "#06989a"),
    ("white", "#d3d7cf"),
    ("brightBlack", "#555753"),
    ("brightRed", "#ef2929"),
    ("brightGreen", "#8ae234"),
    ("brightYellow", "#fce94f"),
    ("brightBlue", "#729fcf"),
    ("brightMagenta", "#ad7fa8"),
    ("brightCyan", "#34e2e2"),
    ("brightWhite", "#eeeeec"),
];

/// Windows Terminal's names for xterm.js theme keys, which VHS's own example tapes use in
/// inline themes (alias, key).
const THEME_KEY_ALIASES: [(&str, &str); 3] = [
    ("purple", "magenta"),
    ("brightPurple", "brightMagenta"),
    ("cursorColor", "cursor"),
];

/// Keys an inline theme may have that draw nothing in a screenshot.
const IGNORED_THEME_KEYS: [&str; 7] = [
    "name",
    "selection",
    "selectionBackground",
    "selectionForeground",
    "selectionInactiveBackground",
    "cursorAccent",
    "meta",
];

/// Every key an inline theme is read for, or may have without a warning.
fn known_theme_keys() -> Vec<&'static str> {
    XTERM_JS_DEFAULTS
        .iter()
        .map(|(k, _)| *k)
        .chain(THEME_KEY_ALIASES.iter().map(|(alias, _)| *alias))
        .chain(IGNORED_THEME_KEYS)
        .collect()
}

/// The warning for an inline theme's unknown keys, if any: they are ignored, as VHS's JSON
/// decoding ignores them (so tapes VHS runs run here too), but a misspelt colour is named.
fn ignored_keys(keys: &[String]) -> Option<String> {
    let (noun, verb) = match keys.len() {
        0 => return None,
        1 => ("key", "is"),
        _ => ("keys", "are"),
    };
    let names: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
    Some(format!(
        "the theme's {noun} {} {verb} ignored, as VHS ignores unknown keys (its keys: {})",
        names.join(", "),
        known_theme_keys().join(", ")
    ))
}

/// An inline `Theme {…}` in VHS's (xterm.js's) keys, or Windows Terminal's; with the keys
/// that are neither, which are ignored.
fn json_theme(json: &str) -> Result<(Theme, Vec<String>), String> {
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(json).map_err(|e| format!("the theme is not a JSON object: {e}"))?;
    let known = known_theme_keys();
    let ignored: Vec<String> = map
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .cloned()
        .collect();
    let colour = |key: &str| -> Result<(u8, u8, u8), String> {
        let default = XTERM_JS_DEFAULTS
            .iter()
            .find(|(k, _)| *k == key)
            .map_or("#000000", |(_, v)| *v);
        let alias = THEME_KEY_ALIASES
            .iter()
            .find(|(_, k)| *k == key)
            .and_then(|(alias, _)| map.get(*alias));
        let text = match map.get(key).or(alias) {
            None => default,
            Some(serde_json::Value::String(s)) if s.is_empty() => default,
            Some(serde_json::Value::String(s)) => s.as_str(),
            Some(other) => return Err(format!("the theme's {key} is not a colour: {other}")),
        };
        parse_hex_color(text)
            .ok_or_else(|| format!("the theme's {key} is not a #rrggbb colour: {text:?}"))
    };
    let mut ansi = [(0, 0, 0); 16];
    for (slot, key) in ansi
        .iter_mut()
        .zip(XTERM_JS_DEFAULTS[3..].iter().map(|(k, _)| *k))
    {
        *slot = colour(key)?;
    }
    let background = colour("background")?;
    let theme = Theme {
        name: map
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or("inline")
            .to_owned(),
        background,
        foreground: colour("foreground")?,
        cursor: colour("cursor")?,
        selection_background: background,
        ansi,
    };
    Ok((theme, ignored))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_themes_take_xterm_js_defaults_for_what_they_leave_out() {
        let (t, ignored) =
            theme(r##"{"background": "#171717", "red": "#ff0000"}"##).expect("a theme");
        assert!(ignored.is_empty());
        assert_eq!(t.background, (0x17, 0x17, 0x17));
        assert_eq!(t.ansi[1], (0xff, 0, 0));
        assert_eq!(t.foreground, (0xff, 0xff, 0xff));
        assert_eq!(t.ansi[4], (0x34, 0x65, 0xa4));
        assert!(theme(r#"{"red": "crimson"}"#).unwrap_err().contains("red"));
        let (wt, _) =
            theme(r##"{"purple": "#aa7ff0", "cursorColor": "#b3b0d6"}"##).expect("a theme");
        assert_eq!(
            (wt.ansi[5], wt.cursor),
            ((0xaa, 0x7f, 0xf0), (0xb3, 0xb0, 0xd6))
        );
    }

    /// VHS decodes an inline theme with Go's `json.Unmarshal`, which drops unknown keys, so a
    /// tape with one runs there: it runs here too, the keys named in a warning.
    #[test]
    fn an_inline_themes_unknown_keys_are_ignored_with_a_warning() {
        let at = Location {
            path: "t.tape".into(),
            line: 2,
        };
        let json =
            r##"{"bakground": "#000000", "scrollbarSliderBackground": "#1", "red": "#ff0000"}"##;
        let mut settings = Settings::default();
        let warning = settings
            .apply(&Setting::Theme(json.into()), &at)
            .expect("the theme is taken")
            .expect("a warning");
        assert!(
            warning.starts_with(
                "t.tape:2: the theme's keys \"bakground\", \"scrollbarSliderBackground\" are \
                 ignored, as VHS ignores unknown keys (its keys: foreground, background,"
            ),
            "{warning}"
        );
        assert_eq!(settings.theme.ansi[1], (0xff, 0, 0));
        assert_eq!(settings.theme.background, (0, 0, 0), "xterm.js's default");
        let known = Setting::Theme(r##"{"name": "x", "red": "#ff0000"}"##.into());
        assert_eq!(settings.apply(&known, &at), Ok(None));
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    fn sized(font: f64, (w, h): (u32, u32), padding: u32, spacing: f64) -> (u16, u16) {
        let settings = Settings {
            font_size: font,
            size: (w, h),
            padding,
            letter_spacing: spacing,
            ..Settings::default()
        };
        settings.terminal_size()
    }

    /// Columns and rows as VHS's browser terminal fits them, measured in ttyd's own page in
    /// headless Chromium (xterm.js 5.5, JetBrains Mono), and as VHS's goldens show them.
    #[test]
    fn pixel_sizes_give_vhs_columns_and_rows() {
        // Today's defaults: 1200×600, padding 60, letter spacing 1, 22 px.
        assert_eq!(Settings::default().terminal_size(), (75, 16));
        assert_eq!(sized(20.0, (1200, 600), 60, 1.0), (87, 18));
        assert_eq!(sized(40.0, (1200, 600), 60, 1.0), (43, 8));
        // The 2022 goldens (padding 72, no letter spacing): examples/shell's 15 rows,
        // cli-ui/text-prompt's 8, glow-simple's 63×30 and glow's 110×30.
        assert_eq!(sized(22.0, (1200, 600), 72, 0.0).1, 15);
        assert_eq!(sized(32.0, (2200, 500), 72, 0.0).1, 8);
        assert_eq!(sized(22.0, (1000, 1050), 72, 0.0), (63, 30));
        assert_eq!(sized(22.0, (1600, 1040), 72, 0.0), (110, 30));
    }

    #[test]
    fn a_size_in_cells_turns_into_pixels_that_give_it_back() {
        let settings = Settings::default();
        for (cols, rows) in [(80, 24), (2, 1), (120, 40), (75, 16)] {
            let (width, height) = settings.size_for(cols, rows);
            let back = Settings {
                size: (width, height),
                ..Settings::default()
            };
            assert_eq!(back.terminal_size(), (cols, rows), "{width}×{height}");
        }
    }

    #[test]
    fn the_picture_is_the_tapes_size_with_the_cells_filling_the_padded_area() {
        let settings = Settings::default();
        let a = settings.appearance();
        let (w, h) = a.content_size.expect("a content size");
        assert_eq!((w, h), (1200.0, 600.0));
        let (cols, rows) = settings.terminal_size();
        let cell = crate::render::CellMetrics::new(a.font_size, a.line_height);
        let grid_w = f64::from(cols) * (cell.width + a.letter_spacing);
        let grid_h = f64::from(rows) * cell.height;
        let fits = |grid: f64, room: f64| grid <= room + 1e-6;
        assert!(
            fits(grid_w, 1080.0) && fits(grid_h, 480.0),
            "{grid_w}×{grid_h}"
        );
        assert!(
            (grid_w - 1080.0).abs() < 1e-6 || (grid_h - 480.0).abs() < 1e-6,
            "one side fills its room, as VHS scales its canvas: {grid_w}×{grid_h}"
        );
    }
}
