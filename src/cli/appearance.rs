//! The appearance options every rendering command shares (one definition, flattened into
//! `render`, `capture`, the pipe mode and the session commands).

use std::path::PathBuf;

use clap::Args;

use shotty::render::mask::Mask;
use shotty::render::theme::parse_hex_color;
use shotty::render::{
    AUTO_THEME, Antialiasing, Appearance, Backdrop, ColorScheme, Crop, CropEdge,
    DEFAULT_LIGHT_THEME, DEFAULT_THEME, PngCompression, Theme, WindowStyle,
};

/// Options that change how a screenshot looks (names follow console2svg).
#[derive(Debug, Clone, Args)]
pub struct AppearanceArgs {
    /// Window decorations: none, transparent, macos, windows, macos-pc, windows-pc, or VHS's
    /// bars colorful, colorful-right, rings, rings-right (a bare -d means macos).
    #[arg(short = 'd', long = "window", value_name = "STYLE", num_args = 0..=1, default_missing_value = "macos", default_value = "none")]
    window: String,
    /// Colour theme: a built-in name (see `shotty themes`), a path to a .json scheme, or `auto`:
    /// an SVG in shotty-dark that turns shotty-light for viewers who prefer light.
    #[arg(short = 't', long, value_name = "NAME|PATH|auto", default_value = DEFAULT_THEME)]
    theme: String,
    /// The dark theme of an SVG that follows its viewer's light/dark preference (in place of
    /// --theme; the light one is --light-theme, else shotty-light).
    #[arg(long, value_name = "NAME|PATH")]
    dark_theme: Option<String>,
    /// The light theme of an SVG that follows its viewer's light/dark preference (the dark one
    /// is --dark-theme, else --theme).
    #[arg(long, value_name = "NAME|PATH")]
    light_theme: Option<String>,
    /// Which theme of a light/dark pair PNG, GIF and APNG draw: dark or light.
    #[arg(long, value_name = "dark|light", default_value = "dark", value_parser = str::parse::<ColorScheme>)]
    scheme: ColorScheme,
    /// Default text colour (#rrggbb), overriding the theme's.
    #[arg(long, value_name = "COLOR")]
    forecolor: Option<String>,
    /// Default background colour (#rrggbb), overriding the theme's.
    #[arg(long, value_name = "COLOR")]
    backcolor: Option<String>,
    /// Canvas behind the window: a colour, two colours (diagonal gradient) or an image file.
    #[arg(long, value_name = "COLOR [COLOR2]|IMAGE", num_args = 1..=2)]
    background: Vec<String>,
    /// Opacity of the terminal background (0–1).
    #[arg(long, default_value_t = 1.0)]
    opacity: f64,
    /// Font family for the SVG (the bundled JetBrains Mono follows it).
    #[arg(long, value_name = "FAMILY")]
    font: Option<String>,
    /// Extra font file (TTF/OTF/TTC), e.g. rare CJK or colour emoji; may be repeated. Used for PNG
    /// output, before the bundled fallback fonts for the characters it covers.
    #[arg(long = "font-file", value_name = "PATH")]
    font_file: Vec<PathBuf>,
    /// Font size in px.
    #[arg(long, alias = "font-size", default_value_t = 14.0)]
    fontsize: f64,
    /// Row height as a multiple of the font size.
    #[arg(long, default_value_t = 1.286)]
    line_height: f64,
    /// Space between the window edge and the text, in px.
    #[arg(long, default_value_t = 8.0)]
    padding: f64,
    /// Space around everything, in px.
    #[arg(long, default_value_t = 0.0)]
    margin: f64,
    /// Desktop space around the window of the -pc styles, in px.
    #[arg(long, default_value_t = 20.0)]
    pc_padding: f64,
    /// Window title (default: the command line, or the title the program set).
    #[arg(long, allow_hyphen_values = true)]
    title: Option<String>,
    /// Do not draw the cursor.
    #[arg(long)]
    no_cursor: bool,
    /// Draw bold text in colours 0–7 in those colours, not in their bright versions 8–15
    /// (xterm's default, which shotty follows).
    #[arg(long)]
    no_bold_bright: bool,
    /// Embed a subset of the fonts in the SVG so it looks the same everywhere.
    #[arg(long)]
    embed_font: bool,
    /// Mask text matching this regular expression (repeatable): `*` in its place in every
    /// output (SVG text and metadata, PNG, JSON, text, animations), hatched; a group named
    /// `secret` masks only that group.
    #[arg(long = "mask", value_name = "REGEX", allow_hyphen_values = true)]
    mask: Vec<String>,
    /// Mask common credentials: cloud keys, GitHub/GitLab/Slack/OpenAI-style tokens, JWTs,
    /// private-key blocks, `password=`-style values.
    #[arg(long)]
    mask_auto: bool,
    /// Leave the structured snapshot out of the SVG.
    #[arg(long)]
    no_metadata: bool,
    /// Outer size in px: WxH, Wx* or *xH.
    #[arg(long, value_name = "WxH")]
    size: Option<String>,
    /// Crop from the top: Nch, Npx or a text pattern (TEXT or TEXT:±N rows).
    #[arg(long, value_name = "EDGE", allow_hyphen_values = true)]
    crop_top: Option<String>,
    /// Crop from the bottom: Nch, Npx or a text pattern (TEXT or TEXT:±N rows).
    #[arg(long, value_name = "EDGE", allow_hyphen_values = true)]
    crop_bottom: Option<String>,
    /// Crop from the left: Nch or Npx.
    #[arg(long, value_name = "EDGE")]
    crop_left: Option<String>,
    /// Crop from the right: Nch or Npx.
    #[arg(long, value_name = "EDGE")]
    crop_right: Option<String>,
    /// PNG scale factor.
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Compress PNGs faster (several times quicker to write, somewhat larger files, the same
    /// pixels).
    #[arg(long)]
    png_fast: bool,
    /// Shades of antialiased edges in PNG, GIF and APNG: auto (6 in a GIF, every shade
    /// otherwise), full, off, or a number from 2 (fewer shades, smaller GIFs).
    #[arg(long, value_name = "auto|full|off|N", default_value = "auto", value_parser = str::parse::<Antialiasing>)]
    antialiasing: Antialiasing,
}

fn color(name: &str, value: &str) -> Result<shotty::term::Rgb, String> {
    parse_hex_color(value).ok_or_else(|| format!("{name}: {value:?} is not a #rrggbb colour"))
}

fn crop_edge(value: &str) -> Result<CropEdge, String> {
    if let Some(n) = value
        .strip_suffix("ch")
        .and_then(|n| n.parse::<usize>().ok())
    {
        return Ok(CropEdge::Cells(n));
    }
    if let Some(p) = value.strip_suffix("px").and_then(|n| n.parse::<f64>().ok()) {
        if !(p.is_finite() && p >= 0.0) {
            return Err(format!(
                "crop {value:?}: pixels must be a non-negative number"
            ));
        }
        return Ok(CropEdge::Pixels(p));
    }
    if value.is_empty() {
        return Err("crop pattern is empty".into());
    }
    // TEXT:+N / TEXT:-N shifts the edge by N rows; a colon not followed by a signed number is
    // part of the text.
    if let Some((text, offset)) = value.rsplit_once(':')
        && let Some(n) = offset
            .strip_prefix('+')
            .or_else(|| offset.starts_with('-').then_some(offset))
            .and_then(|n| n.parse::<i64>().ok())
        && !text.is_empty()
    {
        return Ok(CropEdge::Text {
            text: text.to_owned(),
            offset: n,
        });
    }
    Ok(CropEdge::Text {
        text: value.to_owned(),
        offset: 0,
    })
}

fn size(value: &str) -> Result<(Option<f64>, Option<f64>), String> {
    let bad = || format!("--size {value:?}: expected WxH, Wx* or *xH");
    let (w, h) = value.split_once('x').ok_or_else(bad)?;
    let dim = |s: &str| -> Result<Option<f64>, String> {
        if s == "*" {
            return Ok(None);
        }
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 1.0 => Ok(Some(v)),
            _ => Err(bad()),
        }
    };
    let (w, h) = (dim(w)?, dim(h)?);
    if w.is_none() && h.is_none() {
        return Err(bad());
    }
    Ok((w, h))
}

fn backdrop(values: &[String]) -> Result<Backdrop, String> {
    match values {
        [] => Ok(Backdrop::None),
        [a, b] => Ok(Backdrop::Gradient(
            color("--background", a)?,
            color("--background", b)?,
        )),
        [one] if one.starts_with('#') => Ok(Backdrop::Solid(color("--background", one)?)),
        [path] => {
            let data = std::fs::read(path)
                .map_err(|e| format!("cannot read background image {path}: {e}"))?;
            let mime = if data.starts_with(b"\x89PNG\r\n\x1a\n") {
                "image/png"
            } else if data.starts_with(&[0xff, 0xd8, 0xff]) {
                "image/jpeg"
            } else {
                return Err(format!("background image {path} is neither PNG nor JPEG"));
            };
            Ok(Backdrop::Image { mime, data })
        }
        _ => Err("--background takes one colour, two colours or one image".into()),
    }
}

impl AppearanceArgs {
    /// The `--title` given, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The theme, and the light one when the SVG follows its viewer's colour scheme: `--theme
    /// auto` or either of `--dark-theme` and `--light-theme` asks for a pair, whose other half
    /// is the default one.
    fn themes(&self) -> Result<(Theme, Option<Theme>), String> {
        let load = |name: &str| Theme::load(name).map_err(|e| e.to_string());
        let auto = self.theme == AUTO_THEME;
        let dark = match &self.dark_theme {
            Some(name) => load(name)?,
            None if auto => load(DEFAULT_THEME)?,
            None => load(&self.theme)?,
        };
        let light = match &self.light_theme {
            Some(name) => Some(load(name)?),
            None if auto || self.dark_theme.is_some() => Some(load(DEFAULT_LIGHT_THEME)?),
            None => None,
        };
        Ok((dark, light))
    }

    /// The appearance these options describe; `default_title` is used when `--title` is not
    /// given (for example the command line of a capture).
    pub fn to_appearance(&self, default_title: Option<String>) -> Result<Appearance, String> {
        let (theme, light_theme) = self.themes()?;
        let backdrop = match backdrop(&self.background)? {
            // The -pc styles sit on a desktop; give them one unless the user chose.
            Backdrop::None if WindowStyle::parse(&self.window).is_ok_and(WindowStyle::is_pc) => {
                Backdrop::Gradient((0x5b, 0x6b, 0xc0), (0xc0, 0x6c, 0x84))
            }
            b => b,
        };
        Ok(Appearance {
            window: WindowStyle::parse(&self.window).map_err(|e| e.to_string())?,
            theme,
            light_theme,
            scheme: self.scheme,
            foreground: self
                .forecolor
                .as_deref()
                .map(|c| color("--forecolor", c))
                .transpose()?,
            background: self
                .backcolor
                .as_deref()
                .map(|c| color("--backcolor", c))
                .transpose()?,
            backdrop,
            opacity: self.opacity,
            font_family: self.font.clone(),
            font_size: self.fontsize,
            line_height: self.line_height,
            padding: self.padding,
            letter_spacing: 0.0,
            content_size: None,
            window_bar_size: None,
            corner_radius: None,
            margin: self.margin,
            pc_padding: self.pc_padding,
            title: self.title.clone().or(default_title),
            cursor: !self.no_cursor,
            bold_is_bright: !self.no_bold_bright,
            embed_font: self.embed_font,
            metadata: !self.no_metadata,
            size: self
                .size
                .as_deref()
                .map(size)
                .transpose()?
                .unwrap_or((None, None)),
            mask: Mask::new(&self.mask, self.mask_auto)?,
            crop: Crop {
                top: self.crop_top.as_deref().map(crop_edge).transpose()?,
                bottom: self.crop_bottom.as_deref().map(crop_edge).transpose()?,
                left: self.crop_left.as_deref().map(crop_edge).transpose()?,
                right: self.crop_right.as_deref().map(crop_edge).transpose()?,
            },
            scale: self.scale,
            font_files: self.font_file.clone(),
            png_compression: if self.png_fast {
                PngCompression::Fast
            } else {
                PngCompression::Default
            },
            antialiasing: self.antialiasing,
            // Set by the animation of a recording that captions the keys.
            caption_band: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crop_edges_parse() {
        assert_eq!(crop_edge("3ch"), Ok(CropEdge::Cells(3)));
        assert_eq!(crop_edge("12.5px"), Ok(CropEdge::Pixels(12.5)));
        assert_eq!(
            crop_edge("$ ls:+1"),
            Ok(CropEdge::Text {
                text: "$ ls".into(),
                offset: 1
            })
        );
        assert_eq!(
            crop_edge("error:-2"),
            Ok(CropEdge::Text {
                text: "error".into(),
                offset: -2
            })
        );
        assert_eq!(
            crop_edge("http://x"),
            Ok(CropEdge::Text {
                text: "http://x".into(),
                offset: 0
            })
        );
        assert!(crop_edge("").is_err());
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(size("800x600"), Ok((Some(800.0), Some(600.0))));
        assert_eq!(size("800x*"), Ok((Some(800.0), None)));
        assert_eq!(size("*x600"), Ok((None, Some(600.0))));
        assert!(size("*x*").is_err());
        assert!(size("0x10").is_err());
        assert!(size("800").is_err());
    }
}
