//! Animated SVG: one self-contained document that plays in browsers without script.
//!
//! Each distinct row of text that more than one screen shows is drawn once, in `<defs>`, at its own
//! origin, and placed with `<use>` wherever and whenever it appears (a scrolling shell reuses every
//! line); a short row only one screen shows (a line being typed) is written in place, where an id
//! and a reference would cost more than they save. A row's box drawing, blocks and decorations are
//! drawn once at its origin and placed the same way (a row of them that stays, a finished progress
//! bar, costs a reference). Each distinct screen is a nested `<svg>` in a *strip*: the screens side
//! by side in a grid whose pitch is the strip's `font-size`, so a screen's place is a small number
//! of `em` (written twice: on the screen and in its keyframe), clipped to the terminal area; one
//! CSS animation moves the strip so the screen of the moment sits under the clip (`step-end`:
//! frames switch, never slide). Cell backgrounds and the cursor stay in each screen's own group,
//! merged as the still renderer merges them, so the grid is exactly the still's. The strip's own
//! `transform` shows the last screen, which is what a viewer that does not animate (or a reader who
//! asked for reduced motion) sees. The window chrome is drawn once, from the last screen (its title
//! included).

use std::collections::BTreeMap;
use std::fmt::Write;

use rustc_hash::FxHashMap;

use super::AnimationWriter;
use crate::recording::frames::Timing;
use crate::render::layout::{self, Layout, Paint, Rect, Shape, TextClass};
use crate::render::number::{hundredths, push_f, push_hundredths};
use crate::render::path_data;
use crate::render::svg::{self as still, Baseline, FontSubsets, LightColours, TextStyle};
use crate::render::{Appearance, RenderError};

/// Screens side by side in one row of the strip, before the next row starts. The strip stays
/// within about a hundred thousand pixels either way for tens of thousands of screens, where
/// browsers' single-precision transforms still place glyphs to a hundredth of a pixel.
const STRIP_COLUMNS: usize = 64;

/// The longest drawing of a row that one screen shows which is written in place rather than
/// defined and used. A short row (a line being typed) costs less in place than its id and
/// reference; a long one (a frame of an animated scene) compresses better among the other
/// definitions, beside the rows it shares most of its markup with. Measured on
/// `docs/demo.cast`, agg's demo and a recording of `python -m rich.progress` (rows running
/// to the grid's right edge): 256 and 512 give `docs/demo.cast` the same size, 128 7 % more;
/// 512 gives the rich recording 9 % less than 256 and agg's demo 0.2 % more.
const IN_PLACE_MAX: usize = 512;

/// The strip's pitch is a multiple of this many pixels: a whole number, so every screen's
/// place in pixels is exact.
const STRIP_PITCH: f64 = 100.0;

/// Appends an SVG translation's arguments: `x y`, or `x` alone when `y` is 0.
fn push_translation(out: &mut String, x: f64, y: f64) {
    push_f(out, x);
    if y != 0.0 {
        out.push(' ');
        push_f(out, y);
    }
}

/// Appends `-n` em, or `0` when `n` is 0: a keyframe's offset of the strip.
fn push_strip_offset(out: &mut String, n: usize) {
    if n == 0 {
        out.push('0');
    } else {
        let _ = write!(out, "-{n}em");
    }
}

/// Where a screen is in the strip, in pitches (the strip's `em`).
#[derive(Clone, Copy)]
struct StripPlace {
    column: usize,
    row: usize,
}

impl StripPlace {
    fn of(screen: usize) -> StripPlace {
        StripPlace {
            column: screen % STRIP_COLUMNS,
            row: screen / STRIP_COLUMNS,
        }
    }
}

/// A piece of a screen's markup.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Piece {
    Markup(String),
    /// Row `id` of [`SvgAnimation::rows`], its top at `y` hundredths of a pixel.
    Row {
        id: usize,
        y: i64,
    },
}

/// A distinct row of text.
struct RowDrawing {
    /// Drawn at the row's own origin, for `<defs>`.
    at_origin: String,
    /// Drawn where the first screen that shows it has it.
    in_place: String,
    /// How many times the distinct screens show it.
    uses: usize,
}

/// Writes a drawing into `defs` under the id `name`: one element takes the id itself;
/// several are grouped.
fn push_definition(defs: &mut String, name: &str, drawing: &str) {
    let single = drawing.matches("\n<").count() == 1;
    let tag = ["text", "rect"]
        .into_iter()
        .find(|tag| single && drawing.starts_with(&format!("\n<{tag} ")));
    match tag {
        Some(tag) => {
            let rest = &drawing[tag.len() + 3..];
            let _ = write!(defs, "\n<{tag} id=\"{name}\" {rest}");
        }
        None => {
            let _ = write!(defs, "\n<g id=\"{name}\">{drawing}\n</g>");
        }
    }
}

/// Appends `n` × 10^-`decimals`, without trailing zeros.
fn push_fraction(out: &mut String, n: u128, decimals: u32) {
    let unit = 10u128.pow(decimals);
    let _ = write!(out, "{}", n / unit);
    let fraction = n % unit;
    if fraction != 0 {
        let digits = format!("{fraction:0width$}", width = decimals as usize);
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
}

/// The animated SVG writer (see the [module documentation](self)).
pub struct SvgAnimation {
    appearance: Appearance,
    fps: u32,
    looped: bool,
    /// Text classes of every frame, in order of first use.
    classes: Vec<TextClass>,
    class_ids: FxHashMap<TextClass, usize>,
    /// Shape sets and rectangles already in `defs`, with their ids.
    drawn: FxHashMap<String, usize>,
    defs: String,
    /// Distinct rows of text, and their ids by their drawing at the origin.
    rows: Vec<RowDrawing>,
    row_ids: FxHashMap<String, usize>,
    /// Distinct screens, each the body of its strip group, and where each one is.
    screens: Vec<Vec<Piece>>,
    screen_ids: FxHashMap<Vec<Piece>, usize>,
    /// When each frame starts (grid index) and which screen it shows.
    timeline: Vec<(u64, usize)>,
    /// Distinct window titles (`None`: no title), and when each takes over.
    titles: Vec<Option<String>>,
    title_timeline: Vec<(u64, usize)>,
    /// The largest screen area seen: the strip's cell.
    cell: (f64, f64),
    fonts: FontSubsets,
    /// The newest frame's layout, whose chrome the document shows.
    last: Option<Layout>,
    /// Clip paths of scaled rows written so far (their ids are numbered).
    clips: usize,
    /// The hatch of masked secrets is in `defs`.
    hatch_defined: bool,
    /// Whether any screen has centred runs (the style sheet then needs their class).
    centred: bool,
    /// The colours of every frame that adapt to the viewer's colour scheme.
    light: LightColours,
}

impl SvgAnimation {
    /// A writer for `appearance`, at `timing`'s frame rate and looping.
    pub fn new(appearance: &Appearance, timing: &Timing) -> Result<SvgAnimation, RenderError> {
        timing.validate().map_err(RenderError::new)?;
        Ok(SvgAnimation {
            appearance: appearance.clone(),
            fps: timing.fps,
            looped: timing.looped,
            classes: Vec::new(),
            class_ids: FxHashMap::default(),
            drawn: FxHashMap::default(),
            defs: String::new(),
            rows: Vec::new(),
            row_ids: FxHashMap::default(),
            screens: Vec::new(),
            screen_ids: FxHashMap::default(),
            timeline: Vec::new(),
            titles: Vec::new(),
            title_timeline: Vec::new(),
            cell: (0.0, 0.0),
            fonts: FontSubsets::default(),
            last: None,
            clips: 0,
            hatch_defined: false,
            centred: false,
            light: LightColours::default(),
        })
    }

    /// The id of a drawing in `<defs>` (`prefix` + number), adding it when it is new.
    fn define(&mut self, prefix: char, drawing: String) -> usize {
        if let Some(&id) = self.drawn.get(&drawing) {
            return id;
        }
        let id = self.drawn.len();
        push_definition(&mut self.defs, &format!("{prefix}{id}"), &drawing);
        self.drawn.insert(drawing, id);
        id
    }

    /// Places a filled rectangle (a cell background, the cursor): each size and colour is
    /// drawn once at the origin and placed with `<use>`, as the cursor and highlighted cells
    /// move from screen to screen.
    fn place_rect(&mut self, body: &mut String, r: Rect, colour: Paint) {
        let mut block = String::new();
        still::fill_rect(
            &mut block,
            Rect {
                x: 0.0,
                y: 0.0,
                ..r
            },
            colour,
        );
        let id = self.define('b', block);
        let _ = write!(body, "\n<use href=\"#b{id}\"");
        still::coordinate(body, "x", r.x);
        still::coordinate(body, "y", r.y);
        body.push_str("/>");
    }

    /// Places the screen's box drawing, blocks and decorations row by row: each row's drawn
    /// once at the origin and placed with `<use>`, as rows of text are, so a row that stays
    /// (a finished progress bar, a table's rules) costs a reference on each later screen.
    /// Curly underlines, and shapes that cannot be split into rows, are drawn for the screen.
    fn place_shapes(&mut self, body: &mut String, layout: &Layout) {
        let (top, height) = (
            hundredths(layout.grid_top()),
            hundredths(layout.metrics.height),
        );
        let mut rows: BTreeMap<i64, Vec<Shape>> = BTreeMap::new();
        let mut whole: Vec<Shape> = Vec::new();
        for shape in &layout.shapes {
            let Some(bands) = path_data::split_into_bands(&shape.path, top, height) else {
                whole.push(shape.clone());
                continue;
            };
            for (band, path) in bands {
                rows.entry(band).or_default().push(Shape { path, ..*shape });
            }
        }
        for (band, shapes) in &rows {
            let row_top = top.saturating_add(band.saturating_mul(height));
            let mut drawing = String::new();
            still::shapes_from(&mut drawing, shapes, row_top);
            let id = self.define('s', drawing);
            let _ = write!(body, "\n<use href=\"#s{id}\" y=\"");
            push_hundredths(body, row_top);
            body.push_str("\"/>");
        }
        let mut rest = String::new();
        still::shapes_and_strokes(&mut rest, &whole, &layout.strokes);
        if !rest.is_empty() {
            let id = self.define('s', rest);
            let _ = write!(body, "\n<use href=\"#s{id}\"/>");
        }
    }

    /// The animation's class number of each of the layout's text classes.
    fn class_numbers(&mut self, layout: &Layout) -> Vec<usize> {
        layout
            .classes
            .iter()
            .map(|class| {
                *self.class_ids.entry(*class).or_insert_with(|| {
                    self.classes.push(*class);
                    self.classes.len() - 1
                })
            })
            .collect()
    }

    /// The id of a row of text, drawn at its origin, adding it when it is new; `place` draws
    /// it where it is.
    fn row_id(&mut self, at_origin: String, place: impl FnOnce() -> String) -> usize {
        if let Some(&id) = self.row_ids.get(&at_origin) {
            return id;
        }
        let id = self.rows.len();
        self.rows.push(RowDrawing {
            at_origin: at_origin.clone(),
            in_place: place(),
            uses: 0,
        });
        self.row_ids.insert(at_origin, id);
        id
    }

    /// The body of a screen's strip group: what differs from screen to screen.
    fn screen(&mut self, layout: &Layout) -> Vec<Piece> {
        let numbers = self.class_numbers(layout);
        let text_style = |class: usize| TextStyle::Class(numbers.get(class).copied().unwrap_or(0));
        let mut body = String::new();
        for &(r, colour) in &layout.backgrounds {
            self.place_rect(&mut body, r, colour);
        }
        let clip_id = format!("z{}-", self.clips);
        self.clips += usize::from(!layout.scaled_rows.is_empty());
        let fit = still::text_fit(layout, &self.appearance, false);
        still::scaled_rows(&mut body, layout, &mut self.defs, &clip_id, fit, text_style);
        if let Some((r, colour)) = layout.cursor {
            self.place_rect(&mut body, r, colour);
        }
        self.place_shapes(&mut body, layout);
        let mut pieces = vec![Piece::Markup(body)];
        // Runs come row by row.
        let baseline = layout.metrics.baseline;
        for row in layout.runs.chunk_by(|a, b| a.y == b.y) {
            let first = &row[0];
            let draw = |baseline: f64| {
                let mut drawing = String::new();
                still::text(
                    &mut drawing,
                    layout,
                    row,
                    Baseline::Row(baseline),
                    fit,
                    text_style,
                );
                drawing
            };
            let id = self.row_id(draw(baseline), || draw(first.y));
            // In the hundredths the document writes numbers in, so that the row's baseline
            // plus its place is exactly the still's baseline.
            let y = hundredths(first.y) - hundredths(baseline);
            pieces.push(Piece::Row { id, y });
        }
        if !layout.masked.is_empty() {
            if !std::mem::replace(&mut self.hatch_defined, true) {
                self.defs.push_str(still::MASK_PATTERN);
            }
            let mut hatch = String::new();
            still::masked(&mut hatch, layout);
            pieces.push(Piece::Markup(hatch));
        }
        let mut caption = String::new();
        still::caption(&mut caption, layout);
        if !caption.is_empty() {
            pieces.push(Piece::Markup(caption));
        }
        pieces
    }

    /// Writes a screen's pieces: each row placed with `<use>` when it is defined (`row_names`),
    /// or written in place.
    fn write_screen(&self, out: &mut String, pieces: &[Piece], row_names: &[Option<usize>]) {
        for piece in pieces {
            match piece {
                Piece::Markup(markup) => out.push_str(markup),
                Piece::Row { id, y } => match row_names[*id] {
                    Some(name) => {
                        let _ = write!(out, "\n<use href=\"#r{name}\" y=\"");
                        push_hundredths(out, *y);
                        out.push_str("\"/>");
                    }
                    None => out.push_str(&self.rows[*id].in_place),
                },
            }
        }
    }

    /// The style sheet's animations: the strip moves screen by screen, and the strip of
    /// window titles title by title when the title changes.
    fn animation_css(&self, end: u64) -> String {
        let mut css = String::new();
        let mut names = Vec::new();
        for (class, timeline) in [("strip", &self.timeline), ("titles", &self.title_timeline)] {
            if end == 0 || timeline.len() < 2 {
                continue;
            }
            self.keyframes(&mut css, class, timeline, end);
            names.push(format!(".{class}"));
        }
        if !names.is_empty() {
            let _ = write!(
                css,
                "@media (prefers-reduced-motion:reduce){{{}{{animation:none}}}}",
                names.join(",")
            );
        }
        css
    }

    /// The animation of the strip of class `class` through `timeline` (grid index, place in
    /// the strip), `end` frames long.
    fn keyframes(&self, css: &mut String, class: &str, timeline: &[(u64, usize)], end: u64) {
        let millis = (end * 1000).div_ceil(u64::from(self.fps));
        // The screens' animation keeps the name it always had.
        let name = if class == "strip" { "play" } else { class };
        let _ = write!(
            css,
            ".{class}{{animation:{name} {millis}ms step-end {}}}@keyframes {name}{{",
            if self.looped { "infinite" } else { "forwards" }
        );
        // Percentages with as many decimals as keep every keyframe within a quarter of a
        // frame of its time (rounded to the nearest step of a 10^-decimals per cent).
        let decimals = (0..=6u32).find(|&d| 10u64.pow(d) * 50 >= end).unwrap_or(6);
        let scale = 100 * u128::from(10u64.pow(decimals));
        let last = timeline.last().map(|&(_, place)| (end, place));
        let mut keyframes: Vec<(u128, usize)> = Vec::with_capacity(timeline.len() + 1);
        for (i, &(index, place)) in timeline.iter().chain(last.iter()).enumerate() {
            // The first keyframe is at 0 whatever its index, the last at 100%.
            let index = if i == 0 { 0 } else { index.min(end) };
            let at = (u128::from(index) * scale + u128::from(end) / 2) / u128::from(end);
            // Of frames that round to one step, the latest is what shows after it.
            if keyframes
                .last()
                .is_some_and(|&(previous, _)| previous == at)
            {
                keyframes.pop();
            }
            keyframes.push((at, place));
        }
        for (at, place) in keyframes {
            push_fraction(css, at, decimals);
            css.push_str("%{transform:translate(");
            let place = StripPlace::of(place);
            push_strip_offset(css, place.column);
            if place.row != 0 {
                css.push(',');
                push_strip_offset(css, place.row);
            }
            css.push_str(")}");
        }
        css.push('}');
    }
}

/// Appends a strip of class `class`, whose pitch (its `em`) is `pitch`, showing the item at
/// `shown`: each item a nested `<svg>` at its place.
fn push_strip<'a>(
    body: &mut String,
    class: &str,
    pitch: f64,
    shown: usize,
    items: impl Iterator<Item = &'a str>,
) {
    // The strip's own transform (in pixels: an attribute has no units) shows `shown`;
    // `font-size` makes its `em` one pitch.
    let shown = StripPlace::of(shown);
    let _ = write!(body, "\n<g class=\"{class}\" font-size=\"");
    push_f(body, pitch);
    body.push_str("\" transform=\"translate(");
    push_translation(
        body,
        -(shown.column as f64) * pitch,
        -(shown.row as f64) * pitch,
    );
    body.push_str(")\">");
    for (i, item) in items.enumerate() {
        let place = StripPlace::of(i);
        body.push_str("\n<svg");
        if place.column != 0 {
            let _ = write!(body, " x=\"{}em\"", place.column);
        }
        if place.row != 0 {
            let _ = write!(body, " y=\"{}em\"", place.row);
        }
        body.push('>');
        body.push_str(item);
        body.push_str("\n</svg>");
    }
    body.push_str("\n</g>");
}

impl AnimationWriter for SvgAnimation {
    fn push(&mut self, layout: &Layout, index: u64) -> Result<(), RenderError> {
        self.fonts.add_layout(layout);
        let body = self.screen(layout);
        let screen = match self.screen_ids.get(&body) {
            Some(&id) => id,
            None => {
                let id = self.screens.len();
                for piece in &body {
                    if let Piece::Row { id, .. } = piece {
                        self.rows[*id].uses += 1;
                    }
                }
                self.screens.push(body.clone());
                self.screen_ids.insert(body, id);
                id
            }
        };
        if self.timeline.last().map(|&(_, s)| s) != Some(screen) {
            self.timeline.push((index, screen));
        }
        let title = layout
            .frame
            .as_ref()
            .and_then(|f| f.title.as_ref())
            .map(|(t, _, _)| t);
        let title = match self.titles.iter().position(|t| t.as_ref() == title) {
            Some(id) => id,
            None => {
                self.titles.push(title.cloned());
                self.titles.len() - 1
            }
        };
        if self.title_timeline.last().map(|&(_, t)| t) != Some(title) {
            self.title_timeline.push((index, title));
        }
        self.cell.0 = self.cell.0.max(layout.screen.w);
        self.cell.1 = self.cell.1.max(layout.screen.h);
        self.centred |= layout.has_centred_runs();
        self.light.add_layout(layout);
        self.last = Some(layout.clone());
        Ok(())
    }

    fn finish(mut self: Box<Self>, end: u64) -> Result<Vec<u8>, RenderError> {
        let last = self
            .last
            .take()
            .ok_or_else(|| RenderError::new("an animation needs at least one frame"))?;
        let fonts = std::mem::take(&mut self.fonts);
        let (font_faces, families) = still::font_faces(&self.appearance, |f| *f = fonts)?;
        // Screens are a little apart, so no glyph that overhangs its cell reaches into the
        // screen next to it in the strip.
        let gap = 2.0 * last.metrics.width.max(last.metrics.height);
        let pitch = ((self.cell.0.max(self.cell.1) + gap) / STRIP_PITCH).ceil() * STRIP_PITCH;
        let mut css = still::css(
            self.classes.iter().copied().enumerate(),
            last.frame.as_ref(),
            &self.appearance,
            (&font_faces, &families),
            self.centred,
            &self.light,
            still::text_fit(&last, &self.appearance, false)
                .grid()
                .is_some(),
        );
        css.push_str(&self.animation_css(end));

        let mut out = String::with_capacity(
            self.defs.len() + self.rows.iter().map(|r| r.at_origin.len()).sum::<usize>(),
        );
        still::open_svg(&mut out, &last);
        still::style_sheet(&mut out, &css);
        let mut defs = std::mem::take(&mut self.defs);
        // Rows shown more than once, or long, are defined, numbered in order.
        let mut row_names = Vec::with_capacity(self.rows.len());
        let mut defined = 0;
        for row in &self.rows {
            if row.uses > 1 || row.at_origin.len() > IN_PLACE_MAX {
                push_definition(&mut defs, &format!("r{defined}"), &row.at_origin);
                row_names.push(Some(defined));
                defined += 1;
            } else {
                row_names.push(None);
            }
        }
        let mut body = String::new();
        // A title that changes is a strip of its own over the title bar, animated like the
        // screens; the chrome is drawn without it.
        let mut chrome = std::borrow::Cow::Borrowed(&last);
        let mut title_strip = String::new();
        if let (true, Some(frame)) = (self.titles.len() > 1, &last.frame) {
            let mut without = last.clone();
            if let Some(f) = &mut without.frame {
                f.title = None;
            }
            chrome = std::borrow::Cow::Owned(without);
            let titles: Vec<String> = self
                .titles
                .iter()
                .map(|title| {
                    let mut drawing = String::new();
                    let frame = layout::Frame {
                        title: title
                            .clone()
                            .zip(frame.title.as_ref())
                            .map(|(t, &(_, x, y))| (t, x, y)),
                        ..frame.clone()
                    };
                    still::title(&mut drawing, &frame);
                    drawing
                })
                .collect();
            let bar = Rect {
                h: frame.bar_height,
                ..frame.rect
            };
            defs.push_str("\n<clipPath id=\"titlebar\">");
            still::plain_rect(&mut defs, bar);
            defs.push_str("\n</clipPath>");
            let title_pitch = ((bar.w.max(bar.h) + gap) / STRIP_PITCH).ceil() * STRIP_PITCH;
            let shown = self.title_timeline.last().map_or(0, |&(_, t)| t);
            title_strip.push_str("\n<g clip-path=\"url(#titlebar)\">");
            let titles = titles.iter().map(String::as_str);
            push_strip(&mut title_strip, "titles", title_pitch, shown, titles);
            title_strip.push_str("\n</g>");
        }
        still::chrome(&mut body, &chrome, &mut defs);
        body.push_str(&title_strip);
        defs.push_str("\n<clipPath id=\"screen\">");
        still::plain_rect(&mut defs, last.screen);
        defs.push_str("\n</clipPath>");

        let screens: Vec<String> = self
            .screens
            .iter()
            .map(|pieces| {
                let mut screen = String::new();
                self.write_screen(&mut screen, pieces, &row_names);
                screen
            })
            .collect();
        let shown = self.timeline.last().map_or(0, |&(_, s)| s);
        body.push_str("\n<g clip-path=\"url(#screen)\">");
        push_strip(
            &mut body,
            "strip",
            pitch,
            shown,
            screens.iter().map(String::as_str),
        );
        body.push_str("\n</g>");
        still::close_svg(out, &defs, &body).map(String::into_bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::recording::frames::Timing;
    use crate::recording::{Event, Timeline};
    use crate::render::animation::{AnimationFormat, animate};

    /// A shell that prints one numbered line every 100 ms, scrolling a 30×4 screen.
    fn scrolling() -> Timeline {
        let mut timeline = Timeline::new(30, 4, 1 << 20);
        for i in 0..12u64 {
            let line = format!("\x1b[32mline\x1b[0m {i}\r\n");
            timeline.push(
                Duration::from_millis(100 * i),
                Event::Output(line.into_bytes()),
            );
        }
        timeline
    }

    fn svg(timeline: &Timeline, timing: Timing, a: &Appearance) -> String {
        let mut frames = timeline.frames(timing);
        let bytes = animate(&mut frames, AnimationFormat::Svg, a).expect("animation");
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn each_distinct_row_is_drawn_once() {
        let doc = svg(&scrolling(), Timing::default(), &Appearance::default());
        // Each row runs to the grid's right edge: "line " and the number in 25 cells.
        for i in 0..12 {
            let row = format!(">{i:<25}</");
            assert_eq!(doc.matches(&row).count(), 1, "line {i}:\n{doc}");
        }
        // 13 screens (the blank first one too), each its own group of the strip; 12 keyframes
        // of change plus the end.
        assert_eq!(
            doc.matches("%{transform:translate(").count(),
            12 + 1,
            "{doc}"
        );
        assert!(doc.contains("step-end infinite"), "{doc}");
        assert_eq!(
            doc,
            svg(&scrolling(), Timing::default(), &Appearance::default())
        );
    }

    #[test]
    fn box_drawing_is_drawn_row_by_row_and_a_row_that_stays_once() {
        // A progress bar that grows under a rule that stays.
        let mut timeline = Timeline::new(20, 3, 1 << 20);
        timeline.push(
            Duration::ZERO,
            Event::Output("──────\r\n".as_bytes().to_vec()),
        );
        for i in 1..=4u64 {
            let bar = format!("\r{}", "━".repeat(i as usize));
            timeline.push(
                Duration::from_millis(200 * i),
                Event::Output(bar.into_bytes()),
            );
        }
        let doc = svg(&timeline, Timing::default(), &Appearance::default());
        let (defs, strip) = doc.split_once("</defs>").expect("defs");
        // The rule (1.16 px light line) is defined once and placed on all five screens at
        // its row's top; each length of bar (2.34 px heavy line) once, on the second row.
        let rule = defs.matches("v-1.16h50.4v1.16z").count();
        assert_eq!(rule, 1, "{doc}");
        let rule_id = defs
            .split("<g id=\"")
            .find(|group| group.contains("v-1.16h50.4v1.16z"))
            .and_then(|group| group.split('"').next())
            .expect("the rule's group");
        assert_eq!(
            strip
                .matches(&format!("<use href=\"#{rule_id}\" y=\"8\"/>"))
                .count(),
            5,
            "{doc}"
        );
        for cells in 1..=4 {
            let bar = format!("h{}v", crate::render::number::f(8.4 * cells as f64));
            assert_eq!(defs.matches(&bar).count(), 1, "{bar}: {doc}");
        }
        let bars_placed = strip
            .lines()
            .filter(|l| l.starts_with("<use href=\"#s") && l.ends_with(" y=\"26\"/>"))
            .count();
        assert_eq!(bars_placed, 4, "{doc}");
    }

    #[test]
    fn a_row_only_one_screen_shows_is_written_in_place() {
        // A command typed a letter at a time under a line every screen shows.
        let mut timeline = Timeline::new(20, 3, 1 << 20);
        timeline.push(Duration::ZERO, Event::Output(b"banner\r\n$ ".to_vec()));
        for (i, c) in "ls".bytes().enumerate() {
            let at = Duration::from_millis(200 * (i as u64 + 1));
            timeline.push(at, Event::Output(vec![c]));
        }
        let doc = svg(&timeline, Timing::default(), &Appearance::default());
        let (defs, strip) = doc.split_once("</defs>").expect("defs");
        // The banner, on every screen, is defined once and used three times.
        // Rows run to the grid's right edge, 20 cells.
        assert_eq!(
            defs.matches(">banner              </text>").count(),
            1,
            "{doc}"
        );
        assert_eq!(strip.matches("<use href=\"#r0\"").count(), 3, "{doc}");
        // Each typed line is on one screen only: drawn there, at the row's baseline.
        for typed in ["$", "$ l", "$ ls"] {
            let text = format!(">{typed:<20}</text>");
            assert_eq!(defs.matches(&text).count(), 0, "{typed}: {doc}");
            assert_eq!(strip.matches(&text).count(), 1, "{typed}: {doc}");
        }
        assert!(!doc.contains("#r1"), "{doc}");
    }

    #[test]
    fn keyframes_follow_the_frame_grid_and_the_loop_options() {
        let timing = Timing {
            fps: 10,
            sleep: 0.8,
            looped: false,
            ..Timing::default()
        };
        let doc = svg(&scrolling(), timing, &Appearance::default());
        // 12 lines 100 ms apart (1.1 s) and the 0.8 s sleep.
        assert!(
            doc.contains("animation:play 1900ms step-end forwards"),
            "{doc}"
        );
        // Line 5 arrives at 0.5 s of 1.9 s.
        assert!(doc.contains("}26%{transform"), "{doc}");
        assert!(doc.contains("}100%{transform"), "{doc}");
    }

    #[test]
    fn show_keys_captions_the_input_in_the_frames_it_happens() {
        let mut timeline = Timeline::new(30, 3, 1 << 20);
        timeline.push(Duration::ZERO, Event::Output(b"$ ".to_vec()));
        timeline.push(Duration::from_millis(500), Event::Input(b":wq\r".to_vec()));
        timeline.push(Duration::from_millis(600), Event::Output(b"bye".to_vec()));
        let timing = Timing {
            show_keys: true,
            ..Timing::default()
        };
        let doc = svg(&timeline, timing, &Appearance::default());
        // Shown with the input (0.5 s), still with the output (0.6 s), gone 1 s later.
        assert_eq!(doc.matches(">:wq⏎</tspan>").count(), 2, "{doc}");
        assert_eq!(doc.matches("%{transform").count(), 5, "{doc}");
        let plain = svg(&timeline, Timing::default(), &Appearance::default());
        assert!(!plain.contains("wq"), "{plain}");
    }

    #[test]
    fn one_screen_is_a_still_without_animation() {
        let mut timeline = Timeline::new(10, 2, 1 << 20);
        timeline.push(Duration::ZERO, Event::Output(b"hi".to_vec()));
        let doc = svg(&timeline, Timing::default(), &Appearance::default());
        assert!(!doc.contains("@keyframes"), "{doc}");
    }

    /// Asserts that resvg, which ignores CSS animations, draws `timeline`'s animated SVG as
    /// the still of its last frame.
    #[cfg(feature = "png")]
    fn assert_shows_the_last_screen_still(timeline: &Timeline, a: &Appearance) {
        use crate::render::png;
        use crate::render::svg::write_for_raster;

        let doc = svg(timeline, Timing::default(), a);
        let mut frames = timeline.frames(Timing::default());
        let last = frames
            .by_ref()
            .last()
            .expect("frames")
            .unwrap_or_else(|e| match e {});
        let layout = Layout::new(&last.snapshot, a).expect("layout");
        let still = write_for_raster(&layout, a).expect("still");
        let animated = png::render_pixmap(&doc, a).expect("animated");
        let still = png::render_pixmap(&still, a).expect("still");
        assert_eq!(
            (animated.width(), animated.height()),
            (still.width(), still.height())
        );
        let worst = animated
            .pixels()
            .iter()
            .zip(still.pixels())
            .map(|(p, q)| {
                [
                    p.red().abs_diff(q.red()),
                    p.green().abs_diff(q.green()),
                    p.blue().abs_diff(q.blue()),
                ]
                .into_iter()
                .max()
                .unwrap_or(0)
            })
            .max();
        // resvg composes the strip's translations in single precision: a glyph's edge may
        // come out one level of 255 apart. Any other screen differs by far more.
        assert!(worst <= Some(1), "the pixels differ by up to {worst:?}");
    }

    #[cfg(feature = "png")]
    #[test]
    fn a_viewer_that_does_not_animate_shows_the_last_screen() {
        let a = Appearance {
            window: crate::render::WindowStyle::Macos,
            title: Some("scroll".into()),
            ..Appearance::default()
        };
        assert_shows_the_last_screen_still(&scrolling(), &a);
    }

    /// A program that names its window twice (OSC 2) while it prints.
    fn retitled() -> Timeline {
        let mut timeline = Timeline::new(30, 3, 1 << 20);
        timeline.push(
            Duration::ZERO,
            Event::Output(b"\x1b]2;first\x07one".to_vec()),
        );
        let second = b"\x1b]2;second title\x07 two".to_vec();
        timeline.push(Duration::from_millis(500), Event::Output(second));
        timeline.push(
            Duration::from_millis(900),
            Event::Output(b" three".to_vec()),
        );
        timeline
    }

    #[test]
    fn a_title_that_changes_is_animated_over_the_title_bar() {
        let a = Appearance {
            window: crate::render::WindowStyle::Macos,
            ..Appearance::default()
        };
        let doc = svg(&retitled(), Timing::default(), &a);
        for title in [">first</tspan>", ">second title</tspan>"] {
            assert_eq!(doc.matches(title).count(), 1, "{title}: {doc}");
        }
        // Two titles, changing once: two keyframes and the end; the screens have three.
        let (_, titles) = doc
            .split_once("@keyframes titles{")
            .expect("titles animated");
        let titles = &titles[..titles.find("}}").expect("keyframes end")];
        assert_eq!(titles.matches("%{").count(), 3, "{titles}");
        assert!(doc.contains("{.strip,.titles{animation:none}}"), "{doc}");
        // With one title (or `--title`), nothing of it is animated.
        let fixed = Appearance {
            title: Some("fixed".into()),
            ..a
        };
        let doc = svg(&retitled(), Timing::default(), &fixed);
        assert!(!doc.contains("titles"), "{doc}");
        assert_eq!(doc.matches(">fixed</tspan>").count(), 1, "{doc}");
    }

    #[cfg(feature = "png")]
    #[test]
    fn a_viewer_that_does_not_animate_shows_the_last_title() {
        let a = Appearance {
            window: crate::render::WindowStyle::Macos,
            ..Appearance::default()
        };
        assert_shows_the_last_screen_still(&retitled(), &a);
    }
}
