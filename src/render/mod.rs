//! Snapshots → screenshots.
//!
//! The pipeline: [`layout::Layout`] places everything once (cells, runs, backgrounds,
//! box-drawing geometry, decorations, cursor, window chrome) from a [`Snapshot`] and an
//! [`Appearance`]; [`svg`] writes that layout as SVG; `png` (feature `png`) rasterises the SVG
//! with resvg and the bundled fonts. The PNG is therefore the SVG, rasterised (written for the
//! rasteriser without the metadata and with text colours as attributes instead of CSS classes
//! — the same drawing, parsed faster), except that the text of the bundled monospace faces is
//! blended from glyphs rasterised once and cached (`glyphs`), between what resvg draws under it
//! and over it: the same glyphs, to within a supersample at some edges, in a third of the time.

pub mod animation;
pub(crate) mod boxdraw;
pub mod font;
#[cfg(feature = "png")]
mod glyphs;
pub mod layout;
pub mod mask;
pub(crate) mod number;
mod path_data;
#[cfg(feature = "png")]
pub mod png;
#[cfg(feature = "embed-font")]
mod sfnt;
#[cfg(feature = "embed-font")]
mod woff2;
// Theme files are read with it only with serde; build.rs reads the built-in themes with it.
#[cfg_attr(not(feature = "serde"), allow(dead_code))]
mod scheme;
#[cfg(feature = "png")]
pub mod shades;
pub mod svg;
pub mod theme;

use std::fmt;
use std::path::PathBuf;

pub use font::CellMetrics;
pub use theme::{AUTO_THEME, ColorScheme, DEFAULT_LIGHT_THEME, DEFAULT_THEME, Theme};

use crate::term::{Rgb, Snapshot};

/// A rendering error: a one-line message naming the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError(String);

impl RenderError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> RenderError {
        RenderError(message.into())
    }
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RenderError {}

/// Window decorations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WindowStyle {
    /// The terminal area only, on the theme background.
    #[default]
    None,
    /// Text and cell backgrounds only, on a transparent canvas.
    Transparent,
    /// A macOS window: rounded corners, traffic-light buttons, centred title.
    Macos,
    /// A Windows window: square corners, caption buttons on the right, title on the left.
    Windows,
    /// A macOS window with a shadow on a desktop background.
    MacosPc,
    /// A Windows window with a shadow on a desktop background.
    WindowsPc,
    /// VHS's bar: red, yellow and green dots on the left, the bar in the terminal's colour.
    Colorful,
    /// VHS's bar with the dots on the right.
    ColorfulRight,
    /// VHS's bar of three grey rings on the left.
    Rings,
    /// VHS's bar with the rings on the right.
    RingsRight,
}

impl WindowStyle {
    /// Every style with its command-line name.
    pub const ALL: [(&'static str, WindowStyle); 10] = [
        ("none", WindowStyle::None),
        ("transparent", WindowStyle::Transparent),
        ("macos", WindowStyle::Macos),
        ("windows", WindowStyle::Windows),
        ("macos-pc", WindowStyle::MacosPc),
        ("windows-pc", WindowStyle::WindowsPc),
        ("colorful", WindowStyle::Colorful),
        ("colorful-right", WindowStyle::ColorfulRight),
        ("rings", WindowStyle::Rings),
        ("rings-right", WindowStyle::RingsRight),
    ];

    /// Parses a command-line name.
    pub fn parse(name: &str) -> Result<WindowStyle, RenderError> {
        WindowStyle::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                let names: Vec<&str> = WindowStyle::ALL.iter().map(|(n, _)| *n).collect();
                RenderError::new(format!(
                    "unknown window style {name:?} (one of: {})",
                    names.join(", ")
                ))
            })
    }

    /// Whether this style draws a shadowed window on a desktop background.
    pub fn is_pc(self) -> bool {
        matches!(self, WindowStyle::MacosPc | WindowStyle::WindowsPc)
    }

    /// Whether this is one of VHS's bars (no title; the bar in the terminal's background).
    pub fn is_vhs(self) -> bool {
        matches!(
            self,
            WindowStyle::Colorful
                | WindowStyle::ColorfulRight
                | WindowStyle::Rings
                | WindowStyle::RingsRight
        )
    }

    /// The title bar's height in px unless the appearance gives one (none for `none` and
    /// `transparent`).
    pub fn bar_height(self) -> f64 {
        match self {
            WindowStyle::None | WindowStyle::Transparent => 0.0,
            WindowStyle::Macos | WindowStyle::MacosPc => 28.0,
            WindowStyle::Windows | WindowStyle::WindowsPc => 30.0,
            WindowStyle::Colorful
            | WindowStyle::ColorfulRight
            | WindowStyle::Rings
            | WindowStyle::RingsRight => 30.0,
        }
    }
}

/// What fills the canvas behind the window (the desktop of `-pc` styles, and the margin).
#[derive(Clone, Debug, PartialEq)]
pub enum Backdrop {
    /// Nothing: transparent.
    None,
    /// One colour.
    Solid(Rgb),
    /// A diagonal gradient, top-left to bottom-right.
    Gradient(Rgb, Rgb),
    /// An image (PNG or JPEG bytes), scaled to cover the canvas.
    Image {
        /// MIME type.
        mime: &'static str,
        /// File contents.
        data: Vec<u8>,
    },
}

/// Where a crop edge is.
#[derive(Clone, Debug, PartialEq)]
pub enum CropEdge {
    /// A number of cells (`Nch`).
    Cells(usize),
    /// A number of pixels (`Npx`).
    Pixels(f64),
    /// The first (top edge) or last (bottom edge) row containing the text, shifted by `offset`
    /// rows (`TEXT:±N`).
    Text {
        /// Literal text to look for.
        text: String,
        /// Rows to move the edge by.
        offset: i64,
    },
}

/// Crop edges; each removes from its side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Crop {
    /// From the top.
    pub top: Option<CropEdge>,
    /// From the bottom.
    pub bottom: Option<CropEdge>,
    /// From the left.
    pub left: Option<CropEdge>,
    /// From the right.
    pub right: Option<CropEdge>,
}

/// How many shades a raster draws antialiased edges in (of glyphs, curves and diagonals):
/// fewer shades, smaller GIFs. The `shades` module (feature `png`) says what is changed and
/// what never is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Antialiasing {
    /// The format's choice: [`GIF_SHADES`] shades for GIF, every shade otherwise.
    #[default]
    Auto,
    /// Every shade the rasteriser draws.
    Full,
    /// Blends of two colours in this many evenly spaced shades, both colours included (at
    /// least 2: no antialiasing).
    Shades(u8),
}

/// The fewest shades a blend may have: both ends only, no antialiasing at all.
pub const MIN_SHADES: u8 = 2;

/// The shades of an antialiased edge in a GIF by default: the edges of glyphs look the same at
/// 1× and a frame of text needs a quarter of the colours (agg draws six too).
pub const GIF_SHADES: u8 = 6;

impl Antialiasing {
    /// The number of shades to reduce blends to in a raster of `format` (`None`: keep every
    /// shade).
    pub fn shades(self, format: RasterKind) -> Option<u8> {
        match (self, format) {
            (Antialiasing::Auto, RasterKind::Gif) => Some(GIF_SHADES),
            (Antialiasing::Auto | Antialiasing::Full, _) => None,
            (Antialiasing::Shades(n), _) => Some(n),
        }
    }
}

impl std::str::FromStr for Antialiasing {
    type Err = String;

    /// `auto`, `full`, `off` (2 shades) or a number of shades from 2 to 255.
    fn from_str(s: &str) -> Result<Antialiasing, String> {
        match s {
            "auto" => Ok(Antialiasing::Auto),
            "full" => Ok(Antialiasing::Full),
            "off" => Ok(Antialiasing::Shades(MIN_SHADES)),
            n => match n.parse::<u8>() {
                Ok(n) if n >= MIN_SHADES => Ok(Antialiasing::Shades(n)),
                _ => Err(format!(
                    "antialiasing is auto, full, off or a number of shades from {} to 255, not {s:?}",
                    MIN_SHADES
                )),
            },
        }
    }
}

/// The kinds of raster whose defaults differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RasterKind {
    /// A still PNG.
    Png,
    /// An animated PNG.
    Apng,
    /// A GIF.
    Gif,
}

/// How hard the PNG encoder compresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PngCompression {
    /// Unfiltered rows at zlib level 4: for terminal screens smaller than the `png` crate's
    /// balanced setting, in half its time.
    #[default]
    Default,
    /// The `png` crate's fast mode (fdeflate): several times faster, somewhat larger files,
    /// the same pixels.
    Fast,
}

/// Every option that changes how a snapshot looks.
#[derive(Clone, Debug, PartialEq)]
pub struct Appearance {
    /// Window decorations.
    pub window: WindowStyle,
    /// Colour theme: the only one, or the dark one of a light/dark pair.
    pub theme: Theme,
    /// The light theme of a pair: with one, an SVG follows its viewer's `prefers-color-scheme`
    /// (the dark `theme` unless the viewer prefers light), and rasters draw the theme of
    /// [`scheme`](Appearance::scheme).
    pub light_theme: Option<Theme>,
    /// Which theme of a light/dark pair rasters (PNG, GIF, APNG) draw; no effect without
    /// [`light_theme`](Appearance::light_theme).
    pub scheme: ColorScheme,
    /// Overrides the theme's default foreground.
    pub foreground: Option<Rgb>,
    /// Overrides the theme's default background.
    pub background: Option<Rgb>,
    /// Canvas behind the window.
    pub backdrop: Backdrop,
    /// Opacity of the terminal background, 0–1.
    pub opacity: f64,
    /// Font family list for the SVG (the bundled family is always appended).
    pub font_family: Option<String>,
    /// Font size in px.
    pub font_size: f64,
    /// Row height as a multiple of the font size.
    pub line_height: f64,
    /// Space between the window edge and the text.
    pub padding: f64,
    /// Space added to every cell's width, px (VHS's `LetterSpacing`).
    pub letter_spacing: f64,
    /// The terminal area's size with its padding, px, when it is to be larger than the cells
    /// need: the cells are centred in it (a VHS tape's pixel size).
    pub content_size: Option<(f64, f64)>,
    /// The title bar's height, px, instead of the window style's own.
    pub window_bar_size: Option<f64>,
    /// The window's corner radius, px, instead of the window style's own.
    pub corner_radius: Option<f64>,
    /// Space around everything.
    pub margin: f64,
    /// Desktop space around the window of `-pc` styles.
    pub pc_padding: f64,
    /// Window title; `None` uses the terminal's title.
    pub title: Option<String>,
    /// Draw the cursor.
    pub cursor: bool,
    /// Draw bold text in colours 0–7 in the bright colours 8–15, as xterm does by default (its
    /// `boldColors` resource): programs such as dialog draw raised borders bold white on white.
    pub bold_is_bright: bool,
    /// Embed a subset of the fonts in the SVG (needs the `embed-font` feature).
    pub embed_font: bool,
    /// Embed the structured snapshot in the SVG `<metadata>` (a build without the `serde`
    /// feature writes none).
    pub metadata: bool,
    /// Outer size in px: width, height (either may be derived from the other).
    pub size: (Option<f64>, Option<f64>),
    /// Crop edges.
    pub crop: Crop,
    /// Secrets to mask before anything is drawn or written (`--mask`, `--mask-auto`).
    pub mask: mask::Mask,
    /// PNG scale factor.
    pub scale: f64,
    /// Extra font files (rare CJK ideographs, colour emoji …): after the bundled monospace
    /// family and before the bundled fallbacks, for the characters they cover.
    pub font_files: Vec<PathBuf>,
    /// PNG compression level (the pixels are the same at every level).
    pub png_compression: PngCompression,
    /// Shades of antialiased edges in rasters.
    pub antialiasing: Antialiasing,
    /// Keep a band below the screen's last row for the caption of typed keys
    /// ([`layout::Layout::set_caption`]), so that it hides nothing: the animations of
    /// `--show-keys` set it for every frame, with a caption or without.
    pub caption_band: bool,
}

impl Default for Appearance {
    fn default() -> Self {
        Appearance {
            window: WindowStyle::None,
            theme: Theme::builtin(DEFAULT_THEME).unwrap_or_else(|| Theme {
                name: "fallback".into(),
                background: (0, 0, 0),
                foreground: (0xe5, 0xe5, 0xe5),
                cursor: (0xe5, 0xe5, 0xe5),
                selection_background: (0x44, 0x44, 0x44),
                ansi: crate::term::XTERM_ANSI,
            }),
            light_theme: None,
            scheme: ColorScheme::Dark,
            foreground: None,
            background: None,
            backdrop: Backdrop::None,
            opacity: 1.0,
            font_family: None,
            font_size: 14.0,
            line_height: 1.286,
            padding: 8.0,
            letter_spacing: 0.0,
            content_size: None,
            window_bar_size: None,
            corner_radius: None,
            margin: 0.0,
            pc_padding: 20.0,
            title: None,
            cursor: true,
            bold_is_bright: true,
            embed_font: false,
            metadata: true,
            size: (None, None),
            crop: Crop::default(),
            mask: mask::Mask::default(),
            scale: 1.0,
            font_files: Vec::new(),
            png_compression: PngCompression::Default,
            antialiasing: Antialiasing::Auto,
            caption_band: false,
        }
    }
}

impl Appearance {
    /// Whether the user adds faces to the bundled ones (a font family or font files), which a
    /// raster then takes text from first.
    pub(crate) fn adds_faces(&self) -> bool {
        self.font_family.is_some() || !self.font_files.is_empty()
    }

    /// The appearance a raster is drawn with: one theme, the one [`scheme`](Self::scheme)
    /// picks from a light/dark pair (a raster cannot follow its viewer).
    pub fn for_raster(&self) -> std::borrow::Cow<'_, Appearance> {
        use std::borrow::Cow;
        let Some(light) = &self.light_theme else {
            return Cow::Borrowed(self);
        };
        let theme = match self.scheme {
            ColorScheme::Dark => self.theme.clone(),
            ColorScheme::Light => light.clone(),
        };
        Cow::Owned(Appearance {
            theme,
            light_theme: None,
            ..self.clone()
        })
    }
}

/// Output formats every rendering command offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// SVG image.
    Svg,
    /// PNG image.
    Png,
    /// The screen as plain text.
    Txt,
    /// The structured snapshot (schema version 1).
    Json,
}

impl Format {
    /// Every format with its name (also its file extension).
    pub const ALL: [(&'static str, Format); 4] = [
        ("svg", Format::Svg),
        ("png", Format::Png),
        ("txt", Format::Txt),
        ("json", Format::Json),
    ];

    /// The format a file name's extension asks for.
    pub fn from_path(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Format::ALL.iter().find(|(n, _)| *n == ext).map(|(_, f)| *f)
    }

    /// The format's name.
    pub fn name(self) -> &'static str {
        Format::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("svg", |(n, _)| *n)
    }
}

/// Encodes a snapshot in `format`: the bytes of the file to write.
pub fn encode(
    snapshot: &Snapshot,
    format: Format,
    appearance: &Appearance,
) -> Result<Vec<u8>, RenderError> {
    let snapshot = &*mask::masked(snapshot, &appearance.mask);
    Ok(match format {
        Format::Svg => to_svg(snapshot, appearance)?.into_bytes(),
        #[cfg(feature = "png")]
        Format::Png => to_png(snapshot, appearance)?,
        #[cfg(not(feature = "png"))]
        Format::Png => return Err(RenderError::new("PNG output needs shotty's `png` feature")),
        Format::Txt => {
            let mut text = snapshot.text();
            text.push('\n');
            text.into_bytes()
        }
        #[cfg(not(feature = "serde"))]
        Format::Json => {
            return Err(RenderError::new(
                "JSON output needs shotty's `serde` feature",
            ));
        }
        #[cfg(feature = "serde")]
        Format::Json => {
            let mut json = serde_json::to_vec(snapshot)
                .map_err(|e| RenderError::new(format!("cannot encode the snapshot: {e}")))?;
            json.push(b'\n');
            json
        }
    })
}

/// Encodes a snapshot as an image with the cells at `cells` (row, column) highlighted — the
/// picture `shotty diff -o` draws.
pub fn encode_highlighted(
    snapshot: &Snapshot,
    format: Format,
    appearance: &Appearance,
    cells: &[(usize, usize)],
) -> Result<Vec<u8>, RenderError> {
    let snapshot = &*mask::masked(snapshot, &appearance.mask);
    let appearance = &*match format {
        Format::Png => appearance.for_raster(),
        _ => std::borrow::Cow::Borrowed(appearance),
    };
    let mut layout = layout::Layout::new(snapshot, appearance)?;
    layout.highlight(cells);
    match format {
        #[cfg(feature = "png")]
        Format::Png => png::rasterize(&layout, appearance),
        #[cfg(not(feature = "png"))]
        Format::Png => Err(RenderError::new("PNG output needs shotty's `png` feature")),
        _ => Ok(svg::write(&layout, snapshot, appearance)?.into_bytes()),
    }
}

/// The characters of `snapshot` that a PNG cannot draw: no bundled font and no font of
/// `appearance.font_files` has them, so their cells stay blank. (Box-drawing and block
/// characters are drawn as geometry and never missing.)
#[cfg(feature = "png")]
pub fn missing_glyphs(
    snapshot: &Snapshot,
    appearance: &Appearance,
) -> Result<Vec<char>, RenderError> {
    let db = font::database(&appearance.font_files)?;
    let chars = snapshot
        .rows
        .iter()
        .flat_map(|row| row.cells.iter())
        .flat_map(|cell| cell.t.chars())
        .filter(|&c| !boxdraw::is_drawn(c));
    Ok(font::uncovered(&db, chars))
}

/// Renders a snapshot as an SVG document.
pub fn to_svg(snapshot: &Snapshot, appearance: &Appearance) -> Result<String, RenderError> {
    let snapshot = &*mask::masked(snapshot, &appearance.mask);
    let layout = layout::Layout::new(snapshot, appearance)?;
    svg::write(&layout, snapshot, appearance)
}

/// Renders a snapshot as a PNG image (the SVG, rasterised).
#[cfg(feature = "png")]
pub fn to_png(snapshot: &Snapshot, appearance: &Appearance) -> Result<Vec<u8>, RenderError> {
    let appearance = &*appearance.for_raster();
    let layout = layout::Layout::new(snapshot, appearance)?;
    png::rasterize(&layout, appearance)
}
