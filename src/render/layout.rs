//! Placing everything once: the geometry both the SVG writer and (through it) the PNG
//! rasteriser use.

use rustc_hash::FxHashMap;

use crate::term::{Color, LineSize, Rgb, Snapshot, Style, StyleSnapshot};

use super::boxdraw::{self, Fill, Stroke};
use super::font::{self, CellMetrics};
use super::number::push_f;
use super::{Appearance, Backdrop, CropEdge, RenderError, WindowStyle};

/// An axis-aligned rectangle in px.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// A colour of the drawing: one for every viewer, or one per colour scheme when the layout
/// follows its viewer's light/dark preference ([`Appearance::light_theme`]). Every decision the
/// layout makes by colour (merging backgrounds, joining runs, grouping shapes) compares both,
/// so what is one element in one scheme is one in the other too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Paint {
    /// The colour unless the viewer prefers light: the dark theme's, or the only theme's.
    pub base: Rgb,
    /// The colour for a viewer who prefers light: `base` again where nothing adapts.
    pub light: Rgb,
}

impl Paint {
    /// The same colour for every viewer.
    pub const fn solid(c: Rgb) -> Paint {
        Paint { base: c, light: c }
    }

    /// Whether the colour differs between the colour schemes.
    pub fn adapts(self) -> bool {
        self.base != self.light
    }

    /// `self` moved towards `other` by `t` (0: `self`, 1: `other`), in each scheme.
    fn mix(self, other: Paint, t: f64) -> Paint {
        Paint {
            base: mix(self.base, other.base, t),
            light: mix(self.light, other.light, t),
        }
    }
}

/// The themes colours resolve in: `base` and `light` are one theme unless the layout adapts.
struct Themes<'a> {
    base: &'a super::Theme,
    light: &'a super::Theme,
    /// The default colours, the appearance's overrides applied.
    foreground: Paint,
    background: Paint,
}

impl<'a> Themes<'a> {
    fn new(a: &'a Appearance) -> Themes<'a> {
        let base = &a.theme;
        let light = a.light_theme.as_ref().unwrap_or(base);
        Themes {
            base,
            light,
            foreground: Paint {
                base: a.foreground.unwrap_or(base.foreground),
                light: a.foreground.unwrap_or(light.foreground),
            },
            background: Paint {
                base: a.background.unwrap_or(base.background),
                light: a.background.unwrap_or(light.background),
            },
        }
    }

    /// A cell colour; `Default` is the default foreground or background.
    fn resolve(&self, c: Color, foreground: bool) -> Paint {
        match c {
            Color::Default if foreground => self.foreground,
            Color::Default => self.background,
            c => Paint {
                base: self.base.resolve(c, foreground),
                light: self.light.resolve(c, foreground),
            },
        }
    }

    fn cursor(&self) -> Paint {
        Paint {
            base: self.base.cursor,
            light: self.light.cursor,
        }
    }
}

/// A text style as a CSS class: colour and face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextClass {
    /// Text colour.
    pub fill: Paint,
    /// Bold face.
    pub bold: bool,
    /// Italic face.
    pub italic: bool,
}

/// How a run's characters are positioned.
#[derive(Clone, Debug, PartialEq)]
pub enum RunX {
    /// Characters of the primary font, one cell each, starting here (its advance is the cell
    /// width, so they stay on the grid).
    Start(f64),
    /// One centre per character (`text-anchor: middle`): fallback-font and wide characters,
    /// each centred on its cells so its own advance never shifts anything else.
    Centers(Vec<f64>),
    /// One character centred on its cells, that the bundled face drawing it draws wider than
    /// them: where the bundled faces draw the text (a raster, embedded fonts) it is narrowed
    /// by `scale` about its centre, as a terminal keeps every glyph to its cells
    /// (its ink within them); elsewhere it is centred like [`RunX::Centers`].
    Narrowed {
        /// The centre of its cells.
        centre: f64,
        /// Its width, as a share of its face's (below 1).
        scale: f64,
    },
}

/// Whether a run centred character by character ([`RunX::Centers`]), `text` with `centres`
/// centres, can take more characters: only if each of its characters has a centre of its own
/// (a mark or joiner without one would take the next character's) and none is outside the
/// Basic Multilingual Plane. Browsers hand out an `x` list's values differently — Chromium
/// one a character, Firefox one a UTF-16 code unit — and agree only up to the first
/// character that takes two units.
pub(crate) fn centres_can_follow(text: &str, centres: usize) -> bool {
    let mut count = 0;
    text.chars().all(|c| {
        count += 1;
        c < '\u{10000}'
    }) && count == centres
}

/// A run of text in one class.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Horizontal placement.
    pub x: RunX,
    /// Baseline.
    pub y: f64,
    /// The characters.
    pub text: String,
    /// How many cells the run covers (its spaces included).
    pub cells: usize,
    /// Index into [`Layout::classes`].
    pub class: usize,
    /// Index into [`Layout::links`].
    pub link: Option<usize>,
}

/// Filled geometry of one colour: box drawing, block elements, text decorations.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// Fill colour.
    pub fill: Paint,
    /// Fill opacity (shades are partial).
    pub alpha: f32,
    /// SVG path data: closed subpaths of one winding, filled as one union (no seams).
    pub path: String,
}

/// A stroked line of one colour (curly underlines).
#[derive(Clone, Debug, PartialEq)]
pub struct Stroke1 {
    /// Stroke colour.
    pub color: Paint,
    /// Stroke width.
    pub width: f64,
    /// SVG path data.
    pub path: String,
}

/// A caption of typed keys: white text on a dark rounded box in the screen's bottom-right
/// corner.
#[derive(Clone, Debug, PartialEq)]
pub struct Caption {
    /// The box.
    pub rect: Rect,
    /// Its corner radius.
    pub radius: f64,
    /// The text, centred on `x` with its baseline at `y`.
    pub text: String,
    /// Centre of the text.
    pub x: f64,
    /// Baseline of the text.
    pub y: f64,
}

/// The height of the band kept for a caption: its box (a row and a cell's width of padding)
/// with half a cell's width above and below.
fn caption_height(m: CellMetrics) -> f64 {
    m.height + 2.0 * m.width
}

/// The window frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Window style (never `None`/`Transparent`).
    pub style: WindowStyle,
    /// Outer window rectangle.
    pub rect: Rect,
    /// Corner radius.
    pub radius: f64,
    /// Title bar height.
    pub bar_height: f64,
    /// Title bar colour.
    pub bar_fill: Paint,
    /// Title and caption-button colour.
    pub ink: Paint,
    /// Title text and its anchor point (`middle` for macOS, `start` for Windows).
    pub title: Option<(String, f64, f64)>,
    /// Draw a drop shadow.
    pub shadow: bool,
}

/// A double-width or double-height row (DECDWL, DECDHL). It is laid out like any row, in a
/// space of its own where its columns are one cell wide, and drawn through [`transform`]
/// (twice as wide; for double height also twice as tall, showing the top or the bottom half)
/// clipped to [`clip`], so its glyphs, boxes and decorations are the single-size ones scaled,
/// as a terminal draws them.
///
/// [`transform`]: ScaledRow::transform
/// [`clip`]: ScaledRow::clip
#[derive(Clone, Debug, PartialEq)]
pub struct ScaledRow {
    /// The row's size (never [`LineSize::Single`]).
    pub size: LineSize,
    /// The row's visible cells on the canvas.
    pub clip: Rect,
    /// `[a, d, e, f]` of the map `x' = a·x + e`, `y' = d·y + f` from the row's space onto
    /// the canvas.
    pub transform: [f64; 4],
    /// Cell backgrounds, in the row's space.
    pub backgrounds: Vec<(Rect, Paint)>,
    /// Text runs, in the row's space.
    pub runs: Vec<Run>,
    /// Box drawing, blocks and decorations, in the row's space.
    pub shapes: Vec<Shape>,
    /// Curly underlines, in the row's space.
    pub strokes: Vec<Stroke1>,
}

/// Everything placed, in canvas pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The visible part of the canvas (the viewBox; pixel crops shrink it).
    pub view: Rect,
    /// Output size (width/height attributes), after `--size`.
    pub out_size: (f64, f64),
    /// Canvas fill.
    pub backdrop: Backdrop,
    /// Window frame, if any.
    pub frame: Option<Frame>,
    /// The terminal area (inside the frame), its fill and opacity.
    pub screen: Rect,
    /// Terminal background fill, `None` for the transparent style.
    pub screen_fill: Option<Paint>,
    /// Opacity of the terminal background.
    pub opacity: f64,
    /// Cell geometry.
    pub metrics: CellMetrics,
    /// Cell backgrounds that differ from the screen's, merged.
    pub backgrounds: Vec<(Rect, Paint)>,
    /// Text classes in order of first use.
    pub classes: Vec<TextClass>,
    /// Text runs.
    pub runs: Vec<Run>,
    /// Box drawing, blocks and decorations.
    pub shapes: Vec<Shape>,
    /// Curly underlines.
    pub strokes: Vec<Stroke1>,
    /// Double-width and double-height rows, drawn apart from the others.
    pub scaled_rows: Vec<ScaledRow>,
    /// The cursor (drawn under the text).
    pub cursor: Option<(Rect, Paint)>,
    /// Hyperlink targets (http, https and file only).
    pub links: Vec<String>,
    /// Cells marked by `shotty diff`, drawn on top.
    pub highlights: Vec<Rect>,
    /// Masked secrets (runs of cells of a row), drawn hatched on top of the text.
    pub masked: Vec<Rect>,
    /// The keys being typed (`--show-keys`), drawn on top of everything.
    pub caption: Option<Caption>,
    /// The band below the last row kept for the caption ([`Appearance::caption_band`]).
    pub caption_band: Option<Rect>,
    /// The drawn grid: where its cells are.
    grid: Grid,
}

/// The drawn rectangles of the masked cells, one per run of them in a row.
fn masked_runs(snapshot: &Snapshot, grid: &Grid, m: CellMetrics) -> Vec<Rect> {
    let mut runs: Vec<Rect> = Vec::new();
    for (r, row) in snapshot.rows.iter().enumerate() {
        let mut open: Option<Rect> = None;
        for (c, cell) in row.cells.iter().enumerate() {
            let rect = cell.m.then(|| grid.cell_rect(r, c, m)).flatten();
            open = match (open, rect) {
                (Some(run), Some(next)) if (run.x + run.w - next.x).abs() < 1e-6 => Some(Rect {
                    w: run.w + next.w,
                    ..run
                }),
                (run, next) => {
                    runs.extend(run);
                    next
                }
            };
        }
        runs.extend(open);
    }
    runs
}

/// Where the drawn cells are on the canvas.
#[derive(Clone, Debug, PartialEq)]
struct Grid {
    /// The snapshot's rows drawn.
    rows: Span,
    /// The snapshot's columns drawn.
    cols: Span,
    /// Where cell (first row, first column) is.
    origin: (f64, f64),
    /// The size of each drawn row.
    sizes: Vec<LineSize>,
    /// The bottom-right corner of the cell area.
    end: (f64, f64),
}

impl Grid {
    /// The canvas rectangle of the snapshot's cell (`row`, `col`), `None` where it is not
    /// drawn. A cell of a double-size row is two cells wide.
    fn cell_rect(&self, row: usize, col: usize, m: CellMetrics) -> Option<Rect> {
        let size = *self.sizes.get(row.checked_sub(self.rows.start)?)?;
        let (scale, first) = if size.is_double() {
            (2.0, self.cols.start as f64 / 2.0)
        } else {
            (1.0, self.cols.start as f64)
        };
        let rect = Rect {
            x: self.origin.0 + (col as f64 - first) * scale * m.width,
            y: self.origin.1 + (row - self.rows.start) as f64 * m.height,
            w: scale * m.width,
            h: m.height,
        };
        let drawn = rect.x >= self.origin.0 - 1e-6 && rect.x < self.end.0 - 1e-6;
        drawn.then_some(rect)
    }
}

/// The columns of a double-size row that cover the screen columns `cols` of a `width`-column
/// snapshot: half as many, and only the first half of the row's cells exist on screen.
fn half_columns(cols: &Span, width: usize) -> Span {
    let end = cols.end.div_ceil(2).min(width / 2);
    (cols.start / 2).min(end)..end
}

/// Colours of one cell after inverse, dim, cursor and defaults.
struct CellColors {
    fg: Paint,
    bg: Paint,
    /// The background is the screen's own (nothing to paint).
    bg_is_screen: bool,
}

fn mix(a: Rgb, b: Rgb, t: f64) -> Rgb {
    let m = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * t).round() as u8;
    (m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

type Span = std::ops::Range<usize>;

fn crop_rows(snapshot: &Snapshot, appearance: &Appearance) -> Result<Span, RenderError> {
    let h = snapshot.rows.len();
    let texts: Vec<String> = snapshot
        .rows
        .iter()
        .map(|r| r.cells.iter().map(|c| &*c.t).collect())
        .collect();
    let find = |text: &str, last: bool| -> Result<usize, RenderError> {
        let mut hits = texts.iter().enumerate().filter(|(_, t)| t.contains(text));
        let hit = if last { hits.next_back() } else { hits.next() };
        hit.map(|(i, _)| i)
            .ok_or_else(|| RenderError::new(format!("crop pattern {text:?} matches no row")))
    };
    let shift = |row: usize, offset: i64| (row as i64 + offset).clamp(0, h as i64) as usize;
    let top = match &appearance.crop.top {
        Some(CropEdge::Cells(n)) => *n,
        Some(CropEdge::Text { text, offset }) => shift(find(text, false)?, *offset),
        Some(CropEdge::Pixels(_)) | None => 0,
    };
    let bottom = match &appearance.crop.bottom {
        Some(CropEdge::Cells(n)) => h.saturating_sub(*n),
        Some(CropEdge::Text { text, offset }) => shift(find(text, true)?, *offset) + 1,
        Some(CropEdge::Pixels(_)) | None => h,
    }
    .min(h);
    if top >= bottom {
        return Err(RenderError::new(format!(
            "the crop leaves no rows (top edge at row {top}, bottom edge at row {bottom})"
        )));
    }
    Ok(top..bottom)
}

fn crop_cols(width: usize, appearance: &Appearance) -> Result<Span, RenderError> {
    let edge = |e: &Option<CropEdge>, side: &str| match e {
        Some(CropEdge::Cells(n)) => Ok(*n),
        Some(CropEdge::Pixels(_)) | None => Ok(0),
        Some(CropEdge::Text { .. }) => Err(RenderError::new(format!(
            "--crop-{side} takes Nch or Npx, not a text pattern"
        ))),
    };
    let left = edge(&appearance.crop.left, "left")?;
    let right = width.saturating_sub(edge(&appearance.crop.right, "right")?);
    if left >= right {
        return Err(RenderError::new("the crop leaves no columns"));
    }
    Ok(left..right)
}

fn crop_pixels(e: &Option<CropEdge>) -> f64 {
    match e {
        Some(CropEdge::Pixels(p)) => *p,
        _ => 0.0,
    }
}

fn is_link_scheme_allowed(uri: &str) -> bool {
    let lower = uri.to_ascii_lowercase();
    ["http://", "https://", "file://"]
        .iter()
        .any(|p| lower.starts_with(p))
}

/// Cells that can share a run positioned by its start: the primary font has them, they are
/// one cell wide and carry no combining characters.
fn is_simple(text: &str, width: u8) -> bool {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => width == 1 && font::primary_covers(c),
        _ => false,
    }
}

fn check_range(name: &str, value: f64, min: f64, max: f64) -> Result<(), RenderError> {
    if value.is_finite() && (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(RenderError::new(format!(
            "{name} {value} is outside {min}–{max}"
        )))
    }
}

/// Spaces a run may absorb between two pieces of text in the same class.
const MAX_JOINED_SPACES: usize = 8;

/// The run being built on the current row.
struct OpenRun {
    run: Run,
    /// Column after the run's last text cell.
    end_col: usize,
    simple: bool,
    /// Centred runs of single characters may grow; a cell with combining marks may not.
    extendable: bool,
}

/// The variation selector asking for a character's emoji (colour) presentation.
const EMOJI_PRESENTATION: char = '\u{fe0f}';

struct Builder<'a> {
    snapshot: &'a Snapshot,
    /// `snapshot.styles`, each resolved once.
    styles: Vec<Style>,
    /// Stands in for a style index the snapshot lacks.
    default_style: &'a StyleSnapshot,
    themes: Themes<'a>,
    bold_is_bright: bool,
    /// Leave out emoji presentation selectors (U+FE0F): the text is drawn in embedded faces
    /// without colour glyphs, and the selector would send a browser to its colour emoji font
    /// for that one character.
    text_presentation: bool,
    /// [`font::ink_fit`] of each (character, bold, italic, cells) met so far.
    ink_fits: FxHashMap<(char, bool, bool, usize), f64>,
    m: CellMetrics,
    stroke: Stroke,
    classes: Vec<TextClass>,
    class_index: FxHashMap<TextClass, usize>,
    runs: Vec<Run>,
    shapes: Vec<Shape>,
    /// (fill, alpha bits) → index into `shapes`.
    shape_index: FxHashMap<(Paint, u32), usize>,
    strokes: Vec<Stroke1>,
    backgrounds: Vec<(Rect, Paint)>,
    /// Background spans of the previous row: (columns, colour, index into `backgrounds`).
    previous_spans: Vec<(Span, Paint, usize)>,
    link_ids: Vec<Option<Option<usize>>>,
    links: Vec<String>,
    /// Reused buffer for one cell's box-drawing path.
    scratch: String,
}

impl Builder<'_> {
    fn colors(&self, style: &StyleSnapshot, resolved: Style, block_cursor: bool) -> CellColors {
        let fg = match resolved.fg {
            Color::Indexed(n) if n < 8 && style.bold && self.bold_is_bright => {
                Color::Indexed(n + 8)
            }
            fg => fg,
        };
        let mut fg = self.themes.resolve(fg, true);
        let mut bg = self.themes.resolve(resolved.bg, false);
        let mut bg_is_screen = resolved.bg == Color::Default;
        if style.inverse {
            std::mem::swap(&mut fg, &mut bg);
            bg_is_screen = false;
        }
        if block_cursor {
            fg = self.themes.background;
            bg = self.themes.cursor();
            bg_is_screen = false;
        }
        if style.dim {
            fg = fg.mix(bg, 0.5);
        }
        CellColors {
            fg,
            bg,
            bg_is_screen: bg_is_screen || bg == self.themes.background,
        }
    }

    fn class(&mut self, class: TextClass) -> usize {
        let classes = &mut self.classes;
        *self.class_index.entry(class).or_insert_with(|| {
            classes.push(class);
            classes.len() - 1
        })
    }

    fn shape(&mut self, fill: Paint, alpha: f32) -> &mut String {
        let shapes = &mut self.shapes;
        let i = *self
            .shape_index
            .entry((fill, alpha.to_bits()))
            .or_insert_with(|| {
                shapes.push(Shape {
                    fill,
                    alpha,
                    path: String::new(),
                });
                shapes.len() - 1
            });
        &mut self.shapes[i].path
    }

    fn link(&mut self, l: Option<u32>) -> Option<usize> {
        let l = l? as usize;
        if let Some(Some(known)) = self.link_ids.get(l) {
            return *known;
        }
        let id = self
            .snapshot
            .links
            .get(l)
            .filter(|link| is_link_scheme_allowed(&link.uri))
            .map(
                |link| match self.links.iter().position(|u| *u == link.uri) {
                    Some(i) => i,
                    None => {
                        self.links.push(link.uri.clone());
                        self.links.len() - 1
                    }
                },
            );
        if self.link_ids.len() <= l {
            self.link_ids.resize(l + 1, None);
        }
        self.link_ids[l] = Some(id);
        id
    }

    fn decorations(&mut self, style: &StyleSnapshot, fg: Paint, x: f64, y: f64, w: f64) {
        let m = self.m;
        let s = m.stroke;
        if let Some(kind) = style.underline.as_deref() {
            let color = style
                .underline_color
                .as_ref()
                .map(|c| c.to_color())
                .filter(|c| *c != Color::Default)
                .map_or(fg, |c| self.themes.resolve(c, true));
            let top = y + m.underline;
            match kind {
                "double" => {
                    let p = self.shape(color, 1.0);
                    rect_path(p, x, top - s, w, s);
                    rect_path(p, x, top + s, w, s);
                }
                "curly" => {
                    // One full wave per cell, so neighbouring cells join into one line.
                    let mid = top + s / 2.0;
                    let half = w / 2.0;
                    let mut path = String::with_capacity(40);
                    path.push('M');
                    push_f(&mut path, x);
                    path.push(' ');
                    push_f(&mut path, mid);
                    path.push('q');
                    push_f(&mut path, half / 2.0);
                    path.push(' ');
                    push_f(&mut path, -s * 1.5);
                    path.push(' ');
                    push_f(&mut path, half);
                    path.push_str(" 0t");
                    push_f(&mut path, half);
                    path.push_str(" 0");
                    self.strokes.push(Stroke1 {
                        color,
                        width: s,
                        path,
                    });
                }
                "dotted" => {
                    let p = self.shape(color, 1.0);
                    let mut dx = 0.0;
                    while dx + s <= w + 1e-9 {
                        rect_path(p, x + dx, top, s, s);
                        dx += 2.0 * s;
                    }
                }
                "dashed" => rect_path(self.shape(color, 1.0), x + w * 0.1, top, w * 0.6, s),
                _ => rect_path(self.shape(color, 1.0), x, top, w, s),
            }
        }
        if style.strike {
            rect_path(self.shape(fg, 1.0), x, y + m.strike - s / 2.0, w, s);
        }
        if style.overline {
            rect_path(self.shape(fg, 1.0), x, y, w, s);
        }
    }

    /// Records this row's background spans, extending identical spans of the previous row
    /// downwards (one rectangle, so no seam between rows).
    fn backgrounds_for_row(
        &mut self,
        spans: Vec<(Span, Paint)>,
        origin: (f64, f64),
        first_col: usize,
        y: f64,
    ) {
        let (cw, ch) = (self.m.width, self.m.height);
        let mut next = Vec::with_capacity(spans.len());
        for (cols, color) in spans {
            let existing = self
                .previous_spans
                .iter()
                .find(|(c, col, _)| *c == cols && *col == color)
                .map(|(_, _, i)| *i);
            let index = match existing {
                Some(i) => {
                    self.backgrounds[i].0.h += ch;
                    i
                }
                None => {
                    self.backgrounds.push((
                        Rect {
                            x: origin.0 + (cols.start - first_col) as f64 * cw,
                            y,
                            w: cols.len() as f64 * cw,
                            h: ch,
                        },
                        color,
                    ));
                    self.backgrounds.len() - 1
                }
            };
            next.push((cols, color, index));
        }
        self.previous_spans = next;
    }

    /// Lays out row `r` of size `size` in its own space (see [`ScaledRow`]); `y` is the row's
    /// top on the canvas.
    fn scaled_row(
        &mut self,
        r: usize,
        size: LineSize,
        cols: &Span,
        origin: (f64, f64),
        y: f64,
        cursor: Option<usize>,
    ) -> ScaledRow {
        let (cw, ch) = (self.m.width, self.m.height);
        // The canvas x of column 0 stays where it is; everything right of it doubles.
        let x0 = origin.0 - cols.start as f64 * cw;
        let half = half_columns(cols, self.snapshot.width as usize);
        let outer = (
            std::mem::take(&mut self.runs),
            std::mem::take(&mut self.shapes),
            std::mem::take(&mut self.shape_index),
            std::mem::take(&mut self.strokes),
            std::mem::take(&mut self.backgrounds),
        );
        self.previous_spans.clear();
        let cursor = cursor.filter(|c| half.contains(c));
        self.row(r, &half, (x0 + half.start as f64 * cw, origin.1), y, cursor);
        // The rows after this one merge nothing with the rows before it.
        self.previous_spans.clear();
        let (d, f) = match size {
            LineSize::DoubleHeightTop => (2.0, -y),
            LineSize::DoubleHeightBottom => (2.0, -y - ch),
            LineSize::Single | LineSize::DoubleWidth => (1.0, 0.0),
        };
        self.shape_index = outer.2;
        ScaledRow {
            size,
            clip: Rect {
                x: origin.0,
                y,
                w: cols.len() as f64 * cw,
                h: ch,
            },
            transform: [2.0, d, -x0, f],
            runs: std::mem::replace(&mut self.runs, outer.0),
            shapes: std::mem::replace(&mut self.shapes, outer.1),
            strokes: std::mem::replace(&mut self.strokes, outer.3),
            backgrounds: std::mem::replace(&mut self.backgrounds, outer.4),
        }
    }

    fn flush(&mut self, open: &mut Option<OpenRun>) {
        if let Some(o) = open.take() {
            self.runs.push(o.run);
        }
    }

    fn row(&mut self, r: usize, cols: &Span, origin: (f64, f64), y: f64, cursor: Option<usize>) {
        let (cw, ch) = (self.m.width, self.m.height);
        let snapshot = self.snapshot;
        let Some(row) = snapshot.rows.get(r) else {
            return;
        };
        let baseline = y + self.m.baseline;
        let mut spans: Vec<(Span, Paint)> = Vec::new();
        let mut open: Option<OpenRun> = None;
        let mut spaces = 0usize;
        for c in cols.clone() {
            let Some(cell) = row.cells.get(c) else {
                break;
            };
            if cell.w == 0 {
                continue;
            }
            let width = (cell.w as usize).min(cols.end - c);
            let x = origin.0 + (c - cols.start) as f64 * cw;
            let w = width as f64 * cw;
            let (style, resolved) = match snapshot.styles.get(cell.s as usize) {
                Some(style) => (style, self.styles[cell.s as usize]),
                None => (self.default_style, Style::default()),
            };
            let colors = self.colors(style, resolved, cursor == Some(c));
            if !colors.bg_is_screen {
                match spans.last_mut() {
                    Some((span, color)) if span.end == c && *color == colors.bg => {
                        span.end = c + width;
                    }
                    _ => spans.push((c..c + width, colors.bg)),
                }
            }
            self.decorations(style, colors.fg, x, y, w);

            let presented;
            let text = if self.text_presentation && cell.t.contains(EMOJI_PRESENTATION) {
                presented = cell.t.replace(EMOJI_PRESENTATION, "");
                &presented
            } else {
                &*cell.t
            };
            if text == " " || text.is_empty() || style.hidden {
                spaces += width;
                continue;
            }
            let mut chars = text.chars();
            let first = chars.next().unwrap_or(' ');
            let single = chars.next().is_none();
            if single && boxdraw::is_drawn(first) {
                let stroke = self.stroke;
                let mut path = std::mem::take(&mut self.scratch);
                path.clear();
                if let Some(fill) = boxdraw::cell_path(first, x, y, w, ch, stroke, &mut path) {
                    let alpha = match fill {
                        Fill::Solid => 1.0,
                        Fill::Alpha(a) => a,
                    };
                    // Joined with its neighbours where the SVG is written
                    // (`path_data::push_relative_from`).
                    self.shape(colors.fg, alpha).push_str(&path);
                }
                self.scratch = path;
                spaces += width;
                continue;
            }
            let class = self.class(TextClass {
                fill: colors.fg,
                bold: style.bold,
                italic: style.italic,
            });
            let link = self.link(cell.l);
            let simple = is_simple(text, cell.w);
            // A primary-font base with combining marks starts at its cell like any primary
            // glyph (the font positions the marks); centring would count the marks' advances.
            let starts = simple || (cell.w == 1 && font::primary_covers(first));
            // A glyph wider than its cells is a run of its own, to be narrowed where it is drawn.
            let scale = if single && !starts {
                *self
                    .ink_fits
                    .entry((first, style.bold, style.italic, width))
                    .or_insert_with(|| font::ink_fit(first, style.bold, style.italic, width))
            } else {
                1.0
            };
            if scale < 1.0 {
                self.flush(&mut open);
                self.runs.push(Run {
                    x: RunX::Narrowed {
                        centre: x + w / 2.0,
                        scale,
                    },
                    y: baseline,
                    text: text.to_owned(),
                    cells: width,
                    class,
                    link,
                });
                spaces = 0;
                continue;
            }
            let joins = open.as_ref().is_some_and(|o| {
                o.run.class == class
                    && o.run.link == link
                    && o.simple == simple
                    && o.extendable
                    && match &o.run.x {
                        RunX::Centers(xs) => centres_can_follow(&o.run.text, xs.len()),
                        _ => true,
                    }
                    && o.end_col + spaces == c
                    && spaces <= if simple { MAX_JOINED_SPACES } else { 0 }
            });
            if joins {
                if let Some(o) = open.as_mut() {
                    o.run.text.extend(std::iter::repeat_n(' ', spaces));
                    o.run.text.push_str(text);
                    o.run.cells += spaces + width;
                    o.end_col = c + width;
                    if let RunX::Centers(xs) = &mut o.run.x {
                        xs.push(x + w / 2.0);
                    }
                }
            } else {
                self.flush(&mut open);
                open = Some(OpenRun {
                    run: Run {
                        x: if starts {
                            RunX::Start(x)
                        } else {
                            RunX::Centers(vec![x + w / 2.0])
                        },
                        y: baseline,
                        text: text.to_owned(),
                        cells: width,
                        class,
                        link,
                    },
                    end_col: c + width,
                    simple,
                    extendable: simple || (single && !starts),
                });
            }
            spaces = 0;
        }
        self.flush(&mut open);
        self.backgrounds_for_row(spans, origin, cols.start, y);
    }
}

impl Layout {
    /// The x of the cell grid's right edge.
    pub(crate) fn grid_right(&self) -> f64 {
        self.grid.end.0
    }

    /// The y of the cell grid's top edge.
    pub(crate) fn grid_top(&self) -> f64 {
        self.grid.origin.1
    }

    /// Lays out `snapshot` with `appearance` (masked first when it asks to mask secrets).
    pub fn new(snapshot: &Snapshot, appearance: &Appearance) -> Result<Layout, RenderError> {
        let snapshot = &*super::mask::masked(snapshot, &appearance.mask);
        let a = appearance;
        check_range("font size", a.font_size, 4.0, 200.0)?;
        check_range("line height", a.line_height, 0.5, 5.0)?;
        check_range("padding", a.padding, 0.0, 1000.0)?;
        check_range("margin", a.margin, 0.0, 1000.0)?;
        check_range("pc padding", a.pc_padding, 0.0, 1000.0)?;
        check_range("opacity", a.opacity, 0.0, 1.0)?;
        check_range("scale", a.scale, 0.1, 10.0)?;
        if snapshot.rows.is_empty() || snapshot.width == 0 {
            return Err(RenderError::new("the snapshot has no cells"));
        }
        check_range(
            "letter spacing",
            a.letter_spacing,
            -a.font_size / 2.0,
            100.0,
        )?;
        let mut m = CellMetrics::new(a.font_size, a.line_height);
        m.width += a.letter_spacing;
        let rows = crop_rows(snapshot, a)?;
        let cols = crop_cols(snapshot.width as usize, a)?;
        let themes = Themes::new(a);
        let (default_fg, default_bg) = (themes.foreground, themes.background);

        let band_h = if a.caption_band {
            caption_height(m)
        } else {
            0.0
        };
        let cells_w = cols.len() as f64 * m.width + 2.0 * a.padding;
        let cells_h = rows.len() as f64 * m.height + 2.0 * a.padding + band_h;
        // A larger content box than the cells need has them centred in it.
        let (content_w, content_h) = match a.content_size {
            Some((w, h)) => (w.max(cells_w), h.max(cells_h)),
            None => (cells_w, cells_h),
        };
        let centring = ((content_w - cells_w) / 2.0, (content_h - cells_h) / 2.0);
        let bar = match a.window {
            WindowStyle::None | WindowStyle::Transparent => 0.0,
            style => a.window_bar_size.unwrap_or(style.bar_height()),
        };
        let inset = a.margin + if a.window.is_pc() { a.pc_padding } else { 0.0 };
        let canvas_w = content_w + 2.0 * inset;
        let canvas_h = content_h + bar + 2.0 * inset;
        let title = a
            .title
            .clone()
            .or_else(|| (!snapshot.title.is_empty()).then(|| snapshot.title.clone()));
        let rounded = a.corner_radius.is_some_and(|r| r > 0.0);
        let frame = (bar > 0.0 || rounded).then(|| {
            let rect = Rect {
                x: inset,
                y: inset,
                w: content_w,
                h: content_h + bar,
            };
            let mac = matches!(a.window, WindowStyle::Macos | WindowStyle::MacosPc);
            let title_y = inset + bar / 2.0 + 4.5;
            Frame {
                style: a.window,
                rect,
                radius: a.corner_radius.unwrap_or(if mac { 10.0 } else { 0.0 }),
                bar_height: bar,
                bar_fill: if a.window.is_vhs() {
                    default_bg
                } else {
                    default_bg.mix(default_fg, 0.08)
                },
                ink: default_fg.mix(default_bg, 0.25),
                title: title.filter(|_| !a.window.is_vhs()).map(|t| {
                    if mac {
                        (t, inset + content_w / 2.0, title_y)
                    } else {
                        (t, inset + 12.0, title_y)
                    }
                }),
                shadow: a.window.is_pc(),
            }
        });
        let screen = Rect {
            x: inset,
            y: inset + bar,
            w: content_w,
            h: content_h,
        };
        let origin = (
            screen.x + a.padding + centring.0,
            screen.y + a.padding + centring.1,
        );

        let (px_top, px_bottom) = (crop_pixels(&a.crop.top), crop_pixels(&a.crop.bottom));
        let (px_left, px_right) = (crop_pixels(&a.crop.left), crop_pixels(&a.crop.right));
        let view = Rect {
            x: px_left,
            y: px_top,
            w: canvas_w - px_left - px_right,
            h: canvas_h - px_top - px_bottom,
        };
        if view.w < 1.0 || view.h < 1.0 {
            return Err(RenderError::new("the pixel crop leaves nothing to show"));
        }
        let out_size = match a.size {
            (Some(w), Some(h)) => (w, h),
            (Some(w), None) => (w, w * view.h / view.w),
            (None, Some(h)) => (h * view.w / view.h, h),
            (None, None) => (view.w, view.h),
        };
        check_range("output width", out_size.0, 1.0, 20000.0)?;
        check_range("output height", out_size.1, 1.0, 20000.0)?;

        let default_style = StyleSnapshot::default();
        let mut b = Builder {
            snapshot,
            styles: snapshot
                .styles
                .iter()
                .map(StyleSnapshot::to_style)
                .collect(),
            default_style: &default_style,
            themes,
            bold_is_bright: a.bold_is_bright,
            text_presentation: a.embed_font,
            ink_fits: FxHashMap::default(),
            m,
            stroke: Stroke::for_font_size(a.font_size),
            classes: Vec::new(),
            class_index: FxHashMap::default(),
            runs: Vec::new(),
            shapes: Vec::new(),
            shape_index: FxHashMap::default(),
            strokes: Vec::new(),
            backgrounds: Vec::new(),
            previous_spans: Vec::new(),
            link_ids: Vec::new(),
            links: Vec::new(),
            scratch: String::new(),
        };
        let cur = &snapshot.cursor;
        let cursor_visible = a.cursor && cur.visible;
        let cursor_cell = (cursor_visible
            && rows.contains(&(cur.row as usize))
            && cols.contains(&(cur.col as usize)))
        .then_some((cur.row as usize, cur.col as usize));
        let block = cur.shape == "block";
        let sizes: Vec<LineSize> = rows
            .clone()
            .map(|r| {
                snapshot.rows[r]
                    .size
                    .as_deref()
                    .and_then(LineSize::from_name)
                    .unwrap_or_default()
            })
            .collect();
        let mut scaled_rows = Vec::new();
        for ((i, r), &size) in rows.clone().enumerate().zip(&sizes) {
            let y = origin.1 + i as f64 * m.height;
            let block_col = cursor_cell
                .filter(|(cr, _)| block && *cr == r)
                .map(|(_, c)| c);
            if size.is_double() {
                scaled_rows.push(b.scaled_row(r, size, &cols, origin, y, block_col));
            } else {
                b.row(r, &cols, origin, y, block_col);
            }
        }
        let grid = Grid {
            rows: rows.clone(),
            cols: cols.clone(),
            origin,
            sizes,
            end: (
                origin.0 + cols.len() as f64 * m.width,
                origin.1 + rows.len() as f64 * m.height,
            ),
        };
        let cursor_paint = b.themes.cursor();
        let cursor = cursor_cell
            .filter(|_| !block)
            .and_then(|(r, c)| grid.cell_rect(r, c, m))
            .map(|cell| {
                let thick = (m.font_size / 7.0).max(1.0);
                let rect = if cur.shape == "bar" {
                    Rect { w: thick, ..cell }
                } else {
                    Rect {
                        y: cell.y + cell.h - thick,
                        h: thick,
                        ..cell
                    }
                };
                (rect, cursor_paint)
            });

        let masked = masked_runs(snapshot, &grid, m);
        Ok(Layout {
            masked,
            view,
            out_size,
            backdrop: a.backdrop.clone(),
            frame,
            screen,
            screen_fill: (a.window != WindowStyle::Transparent).then_some(default_bg),
            opacity: a.opacity,
            metrics: m,
            backgrounds: b.backgrounds,
            classes: b.classes,
            runs: b.runs,
            shapes: b.shapes,
            strokes: b.strokes,
            scaled_rows,
            cursor,
            links: b.links,
            highlights: Vec::new(),
            caption: None,
            caption_band: (band_h > 0.0).then_some(Rect {
                x: screen.x,
                y: grid.end.1,
                w: screen.w,
                h: band_h,
            }),
            grid,
        })
    }

    /// Marks cells (row, column of the snapshot); cells cropped away are ignored.
    pub fn highlight(&mut self, cells: &[(usize, usize)]) {
        for &(r, c) in cells {
            if let Some(rect) = self.grid.cell_rect(r, c, self.metrics) {
                self.highlights.push(rect);
            }
        }
    }

    /// Shows `text` as a caption of typed keys (see [`Caption`]), as wide as it is, at the
    /// right: in the band kept for it ([`Appearance::caption_band`]), else over the screen's
    /// bottom-right corner.
    pub fn set_caption(&mut self, text: &str) {
        use unicode_width::UnicodeWidthChar;
        let m = self.metrics;
        let cells: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
        let pad = m.width;
        let w = (cells as f64 * m.width + 2.0 * pad).min(self.screen.w - 2.0 * pad);
        let h = m.height + pad;
        let bottom = self
            .caption_band
            .map_or(self.screen.y + self.screen.h, |band| band.y + band.h);
        let rect = Rect {
            x: self.screen.x + self.screen.w - pad - w,
            y: bottom - pad / 2.0 - h,
            w,
            h,
        };
        self.caption = Some(Caption {
            rect,
            radius: pad * 0.75,
            text: text.to_owned(),
            x: rect.x + w / 2.0,
            y: rect.y + pad / 2.0 + m.baseline,
        });
    }

    /// Every colour the layout paints with from its theme(s), in no particular order and with
    /// repeats (the backdrop, the diff highlights, the masking hatch and the key caption have
    /// fixed colours).
    pub fn paints(&self) -> impl Iterator<Item = Paint> + '_ {
        self.area_fills()
            .chain(self.classes.iter().map(|c| c.fill))
            .chain(self.stroke_colours())
    }

    /// The colours of filled areas: the screen, cell backgrounds, the cursor, shapes and the
    /// title bar (not text).
    pub fn area_fills(&self) -> impl Iterator<Item = Paint> + '_ {
        let rows = self.scaled_rows.iter().flat_map(|row| {
            let backgrounds = row.backgrounds.iter().map(|(_, c)| *c);
            backgrounds.chain(row.shapes.iter().map(|s| s.fill))
        });
        self.screen_fill
            .into_iter()
            .chain(self.backgrounds.iter().map(|(_, c)| *c))
            .chain(self.shapes.iter().map(|s| s.fill))
            .chain(self.cursor.map(|(_, c)| c))
            .chain(rows)
            .chain(self.frame.as_ref().map(|f| f.bar_fill))
    }

    /// The colours of stroked lines: curly underlines and the window's ink (its caption
    /// buttons, and its title).
    pub fn stroke_colours(&self) -> impl Iterator<Item = Paint> + '_ {
        self.strokes
            .iter()
            .chain(self.scaled_rows.iter().flat_map(|r| &r.strokes))
            .map(|s| s.color)
            .chain(self.frame.as_ref().map(|f| f.ink))
    }

    /// Whether any colour differs between the colour schemes (the layout follows its viewer's
    /// light/dark preference).
    pub fn adapts(&self) -> bool {
        self.paints().any(Paint::adapts)
    }

    /// Whether any run is centred on its cells ([`RunX::Centers`]).
    pub fn has_centred_runs(&self) -> bool {
        self.all_runs()
            .any(|r| matches!(r.x, RunX::Centers(_) | RunX::Narrowed { .. }))
    }

    /// Every text run, those of the scaled rows included.
    pub fn all_runs(&self) -> impl Iterator<Item = &Run> {
        self.runs
            .iter()
            .chain(self.scaled_rows.iter().flat_map(|r| &r.runs))
    }

    /// Leaves the characters of `blank` out of the text, their cells blank: what a raster
    /// draws of characters no font has, rather than a missing-glyph box. Only centred runs
    /// ([`RunX::Centers`]) can hold them; the others are of the primary face.
    #[cfg(feature = "png")]
    pub(crate) fn blank_out(&mut self, blank: &[char]) {
        let runs = self
            .runs
            .iter_mut()
            .chain(self.scaled_rows.iter_mut().flat_map(|r| &mut r.runs));
        for run in runs {
            let RunX::Centers(xs) = &mut run.x else {
                continue;
            };
            if !run.text.chars().any(|c| blank.contains(&c)) {
                continue;
            }
            // One centre a character, or one cluster (a base and its marks) at one centre.
            if xs.len() == run.text.chars().count() {
                let (text, centres): (String, Vec<f64>) = run
                    .text
                    .chars()
                    .zip(xs.iter())
                    .filter(|(c, _)| !blank.contains(c))
                    .unzip();
                run.text = text;
                *xs = centres;
            } else {
                run.text.retain(|c| !blank.contains(&c));
            }
        }
        self.runs.retain(|r| !r.text.is_empty());
        for row in &mut self.scaled_rows {
            row.runs.retain(|r| !r.text.is_empty());
        }
    }
}

/// Appends a rectangle as a closed clockwise subpath.
pub(crate) fn rect_path(out: &mut String, x: f64, y: f64, w: f64, h: f64) {
    out.push('M');
    push_f(out, x);
    out.push(' ');
    push_f(out, y);
    out.push('h');
    push_f(out, w);
    out.push('v');
    push_f(out, h);
    out.push('h');
    push_f(out, -w);
    out.push('z');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{ColorScheme, Theme};
    use crate::term::Terminal;

    fn snapshot(bytes: &str) -> Snapshot {
        let mut term = Terminal::new(12, 2);
        term.advance(bytes.as_bytes());
        term.snapshot()
    }

    /// A dark theme whose red and green are one colour and whose black is its background, and a
    /// light theme where all three differ.
    fn coinciding_in_the_dark() -> (Theme, Theme) {
        let mut dark = Theme::builtin("shotty-dark").expect("theme");
        dark.ansi[2] = dark.ansi[1];
        dark.ansi[0] = dark.background;
        let light = Theme::builtin("shotty-light").expect("theme");
        assert!(light.ansi[1] != light.ansi[2] && light.ansi[0] != light.background);
        (dark, light)
    }

    #[test]
    fn colours_equal_in_one_scheme_only_are_kept_apart() {
        let (dark, light) = coinciding_in_the_dark();
        // Red then green backgrounds, red then green text, a black background.
        let s = snapshot("\x1b[41m  \x1b[42m  \x1b[0m \x1b[31mab\x1b[32mcd\x1b[0m \x1b[40m  ");
        let one = Appearance {
            theme: dark.clone(),
            cursor: false,
            ..Appearance::default()
        };
        let pair = Appearance {
            light_theme: Some(light.clone()),
            ..one.clone()
        };
        let one = Layout::new(&s, &one).expect("layout");
        let pair = Layout::new(&s, &pair).expect("layout");
        assert!(!one.adapts() && pair.adapts());
        // In the dark theme alone the two backgrounds are one rectangle, the two texts one
        // class and the black cells the screen's own background.
        assert_eq!(one.backgrounds.len(), 1, "{:?}", one.backgrounds);
        assert_eq!(one.classes.len(), 1, "{:?}", one.classes);
        assert_eq!(pair.backgrounds.len(), 3, "{:?}", pair.backgrounds);
        let red = Paint {
            base: dark.ansi[1],
            light: light.ansi[1],
        };
        let green = Paint {
            base: dark.ansi[1],
            light: light.ansi[2],
        };
        let black = Paint {
            base: dark.background,
            light: light.ansi[0],
        };
        let fills: Vec<Paint> = pair.backgrounds.iter().map(|(_, p)| *p).collect();
        assert_eq!(fills, [red, green, black]);
        let text: Vec<Paint> = pair.classes.iter().map(|c| c.fill).collect();
        assert_eq!(text, [red, green]);
        assert_eq!(
            pair.screen_fill,
            Some(Paint {
                base: dark.background,
                light: light.background
            })
        );
    }

    #[test]
    fn a_raster_draws_the_theme_of_its_scheme() {
        let s = snapshot("\x1b[1;31mred\x1b[0m \x1b[44m blue \x1b[0m\r\n\x1b[2mdim");
        let light = Theme::builtin("shotty-light").expect("theme");
        for (scheme, theme) in [
            (ColorScheme::Dark, Appearance::default().theme),
            (ColorScheme::Light, light.clone()),
        ] {
            let pair = Appearance {
                light_theme: Some(light.clone()),
                scheme,
                window: crate::render::WindowStyle::Macos,
                ..Appearance::default()
            };
            let alone = Appearance {
                theme,
                window: crate::render::WindowStyle::Macos,
                ..Appearance::default()
            };
            let raster = Layout::new(&s, &pair.for_raster()).expect("layout");
            assert!(!raster.adapts());
            assert_eq!(
                raster,
                Layout::new(&s, &alone).expect("layout"),
                "{scheme:?}"
            );
        }
    }

    /// With a band kept for it, the caption lies below the last row: the screen grows by the
    /// band and no cell is under the caption. Without one it covers the bottom-right cells.
    #[test]
    fn a_caption_in_its_band_hides_no_cell() {
        let shot = snapshot("first row\r\n  1,1  All");
        let last_row_bottom = |l: &Layout| l.grid.origin.1 + 2.0 * l.metrics.height;
        let plain = Appearance::default();
        let mut over = Layout::new(&shot, &plain).expect("layout");
        over.set_caption(":wq⏎");
        let covering = over.caption.as_ref().expect("a caption").rect;
        assert!(covering.y < last_row_bottom(&over), "{covering:?}");

        let banded = Appearance {
            caption_band: true,
            ..Appearance::default()
        };
        let mut layout = Layout::new(&shot, &banded).expect("layout");
        let band = layout.caption_band.expect("a band");
        assert!(layout.screen.h > over.screen.h);
        assert!((layout.screen.h - over.screen.h - band.h).abs() < 1e-9);
        // The same frame size with a caption or without: animations keep the band throughout.
        let without = layout.view;
        layout.set_caption(":wq⏎");
        let caption = layout.caption.as_ref().expect("a caption").rect;
        assert_eq!(layout.view, without);
        assert!(caption.y >= last_row_bottom(&layout), "{caption:?}");
        assert!(caption.y + caption.h <= band.y + band.h);
        assert!(caption.y + caption.h <= layout.screen.y + layout.screen.h);
    }
}
