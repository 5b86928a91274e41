//! Writing a [`Layout`] as SVG.
//!
//! The document is written straight into one string (no element tree): elements in a fixed
//! order, attributes in alphabetical order, text and attribute values escaped as XML needs.
//! Determinism: every number goes through one formatter (two decimals), classes and links
//! are numbered in order of first use — the same snapshot and options always give the same
//! bytes.

use std::collections::{BTreeSet, HashSet};
use std::fmt::Write;

use crate::term::{Rgb, Snapshot};

use super::font::{self, PRIMARY_FAMILY};
use super::layout::{self, Frame, Layout, Paint, Rect, Run, RunX, Shape, Stroke1, TextClass};
use super::number::{f, push_f};
use super::path_data;
use super::{Appearance, Backdrop, RenderError, WindowStyle};

/// `#rrggbb`.
pub fn hex(c: Rgb) -> String {
    let mut s = String::with_capacity(7);
    push_hex(&mut s, c);
    s
}

fn push_hex(out: &mut String, c: Rgb) {
    out.push('#');
    push_hex_digits(out, c);
}

/// `rrggbb`.
fn push_hex_digits(out: &mut String, c: Rgb) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for v in [c.0, c.1, c.2] {
        out.push(DIGITS[(v >> 4) as usize] as char);
        out.push(DIGITS[(v & 15) as usize] as char);
    }
}

/// Whether the document may carry `c` as it is. XML 1.0's `Char` production forbids the C0
/// controls other than tab, LF and CR, the surrogates (which a `str` cannot hold) and U+FFFE
/// and U+FFFF. DEL and the C1 controls are excluded too: XML 1.0 only discourages them, but
/// XML 1.1 forbids them raw, no font draws them and a terminal executes rather than prints
/// them, so a cell holding one came from a hand-made snapshot and is better shown as U+FFFD.
/// The other noncharacters (U+FDD0…, U+1FFFE …) are `Char`s and pass unchanged.
pub(crate) fn is_xml_safe(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        || c >= '\u{10000}'
}

/// The character the document shows for `c`: `c` itself, or U+FFFD where it cannot carry it.
/// The font subsetter asks too, so an embedded font has the glyph that is actually drawn.
#[cfg(feature = "embed-font")]
fn drawn_char(c: char) -> char {
    if is_xml_safe(c) { c } else { '\u{fffd}' }
}

/// Where escaped text goes, which decides what a character the document cannot carry as it
/// is becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    /// Character data: U+FFFD. Tab and LF stay (`xml:space="preserve"` draws them as
    /// spaces, in their cell like any other character); CR is written `&#13;`, as canonical
    /// XML does, since a parser turns a raw CR (and CR LF) into LF.
    Text,
    /// An attribute value: U+FFFD; tab, LF and CR as character references, which survive
    /// the attribute-value normalisation that would turn them into spaces.
    Value,
    /// A URI attribute value: the character's UTF-8 bytes percent-encoded (tab, LF and CR
    /// included, being controls), as a browser would encode them, so the link still points
    /// where the program said.
    Uri,
    /// JSON in character data: a `\uXXXX` escape, so the embedded snapshot decodes to exactly
    /// the original strings. Sound because serde_json writes non-ASCII only inside strings
    /// and already escapes the C0 controls, and every unsafe character is in the BMP.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    Json,
}

/// `s` as XML (or HTML) character data: `&` and `<` escaped (and `>` where it would end a
/// `]]>`), characters XML cannot carry replaced by U+FFFD. For documents around shotty's
/// images (reports, JUnit XML).
pub fn xml_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_text(&mut out, s);
    out
}

/// `s` as an XML (or HTML) attribute value, quotes escaped too (see [`xml_text`]).
pub fn xml_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_value(&mut out, s);
    out
}

/// Appends XML character data: `&` and `<` escaped (and `>` after `]]`), unsafe characters
/// replaced.
fn push_text(out: &mut String, s: &str) {
    push_escaped(out, s, Escape::Text);
}

/// Appends an attribute value: `&`, `<`, `>`, `"` and `'` escaped, unsafe characters replaced.
fn push_value(out: &mut String, s: &str) {
    push_escaped(out, s, Escape::Value);
}

/// The one escaping routine every piece of outside text goes through. It scans bytes: only
/// markup characters and the lead bytes of unsafe characters (C0, DEL, 0xC2 for C1, 0xEF for
/// U+FFFE/U+FFFF) need a closer look, so ordinary text is copied in slices as before.
fn push_escaped(out: &mut String, s: &str, how: Escape) {
    let attribute = matches!(how, Escape::Value | Escape::Uri);
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            // Character data may hold `>` except after `]]` (XML 1.0, section 2.4), which the
            // text written so far can end with: a `>` is written out to the end of `out` first.
            b'>' if !attribute => {
                out.push_str(&s[start..i]);
                out.push_str(if out.ends_with("]]") { "&gt;" } else { ">" });
                start = i + 1;
                continue;
            }
            b'>' => "&gt;",
            b'"' if attribute => "&quot;",
            b'\'' if attribute => "&apos;",
            0x00..=0x1f | 0x7f | 0xc2 | 0xef => {
                // `i` is a character boundary: these are ASCII or lead bytes.
                let Some(c) = s[i..].chars().next() else {
                    continue;
                };
                let normalised = match c {
                    '\r' => true,
                    '\t' | '\n' => attribute,
                    _ => false,
                };
                if is_xml_safe(c) && !normalised {
                    continue;
                }
                out.push_str(&s[start..i]);
                push_unsafe(out, c, how);
                start = i + c.len_utf8();
                continue;
            }
            _ => continue,
        };
        out.push_str(&s[start..i]);
        out.push_str(entity);
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// Writes `c`, which the document cannot carry as it is, the way `how` wants.
fn push_unsafe(out: &mut String, c: char, how: Escape) {
    match how {
        Escape::Text | Escape::Value if matches!(c, '\t' | '\n' | '\r') => {
            let _ = write!(out, "&#{};", c as u32);
        }
        Escape::Text | Escape::Value => out.push('\u{fffd}'),
        Escape::Uri => {
            let mut utf8 = [0; 4];
            for b in c.encode_utf8(&mut utf8).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        }
        Escape::Json => {
            let mut utf16 = [0; 2];
            for unit in c.encode_utf16(&mut utf16) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
}

/// ` name="value"`, the value escaped.
fn attr(out: &mut String, name: &str, value: &str) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    push_value(out, value);
    out.push('"');
}

/// ` name="number"`.
pub(crate) fn num(out: &mut String, name: &str, v: f64) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    push_f(out, v);
    out.push('"');
}

/// ` name="number"` for a coordinate, nothing when it is 0 (the attribute's default).
pub(crate) fn coordinate(out: &mut String, name: &str, v: f64) {
    if v != 0.0 {
        num(out, name, v);
    }
}

/// ` name="#rrggbb"`.
fn color(out: &mut String, name: &str, c: Rgb) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    push_hex(out, c);
    out.push('"');
}

/// ` name="#rrggbb"`: the colour `p` has unless the viewer prefers light (what a viewer without
/// CSS, or without media queries, draws).
fn paint(out: &mut String, name: &str, p: Paint) {
    color(out, name, p.base);
}

/// How a colour that adapts is named in the style sheet's `prefers-color-scheme: light` block
/// ([`LightColours`]): `f<rrggbb>` sets the fill and `s<rrggbb>` the stroke to that light colour.
/// The class names the light colour alone (the element's attribute has the other), so no table
/// is needed to write an element, and an animation's frames name a colour alike.
fn push_light_class(out: &mut String, prefix: char, light: Rgb) {
    out.push(prefix);
    push_hex_digits(out, light);
}

/// ` class="f<rrggbb>"` (or `s…`) for a colour that adapts.
fn light_class(out: &mut String, prefix: char, p: Paint) {
    if p.adapts() {
        out.push_str(" class=\"");
        push_light_class(out, prefix, p.light);
        out.push('"');
    }
}

/// The light colours a document's elements are classed by ([`light_class`]), for the style
/// sheet's rules. Adaptive SVGs use classes and a media query rather than CSS custom
/// properties: resvg, for one, draws `fill:var(--x)` black even over a `fill` attribute, where
/// it ignores a media query and draws the attribute's (dark) colour.
#[derive(Clone, Debug, Default)]
pub(crate) struct LightColours {
    fills: BTreeSet<Rgb>,
    strokes: BTreeSet<Rgb>,
}

impl LightColours {
    /// Adds the colours of `layout`'s areas and strokes that adapt (text classes have rules of
    /// their own; see [`add_fill`](Self::add_fill)).
    pub(crate) fn add_layout(&mut self, layout: &Layout) {
        let light = |p: Paint| p.adapts().then_some(p.light);
        self.fills.extend(layout.area_fills().filter_map(light));
        self.strokes
            .extend(layout.stroke_colours().filter_map(light));
    }

    /// Adds a fill colour (of text styled in place), if it adapts.
    fn add_fill(&mut self, p: Paint) {
        if p.adapts() {
            self.fills.insert(p.light);
        }
    }

    fn rules(&self, css: &mut String) {
        for (prefix, property, colours) in
            [('f', "fill", &self.fills), ('s', "stroke", &self.strokes)]
        {
            for &c in colours {
                css.push('.');
                push_light_class(css, prefix, c);
                css.push('{');
                css.push_str(property);
                css.push(':');
                push_hex(css, c);
                css.push('}');
            }
        }
    }
}

/// What fills a shape.
#[derive(Clone, Copy)]
enum Fill<'a> {
    Colour(Paint),
    Url(&'a str),
}

/// The optional attributes of a `<rect>`.
#[derive(Clone, Copy, Default)]
struct RectStyle<'a> {
    fill: Option<Fill<'a>>,
    fill_opacity: Option<f64>,
    filter: Option<&'a str>,
    rx: Option<f64>,
}

/// `\n<rect …/>`.
fn rect(out: &mut String, r: Rect, style: RectStyle) {
    out.push_str("\n<rect");
    if let Some(Fill::Colour(c)) = style.fill {
        light_class(out, 'f', c);
    }
    match style.fill {
        Some(Fill::Colour(c)) => paint(out, "fill", c),
        Some(Fill::Url(u)) => attr(out, "fill", u),
        None => {}
    }
    if let Some(o) = style.fill_opacity {
        num(out, "fill-opacity", o);
    }
    if let Some(filter) = style.filter {
        attr(out, "filter", filter);
    }
    num(out, "height", r.h);
    if let Some(rx) = style.rx {
        num(out, "rx", rx);
    }
    num(out, "width", r.w);
    coordinate(out, "x", r.x);
    coordinate(out, "y", r.y);
    out.push_str("/>");
}

/// `\n<rect …/>` without paint (a clip path's shape).
pub(crate) fn plain_rect(out: &mut String, r: Rect) {
    rect(out, r, RectStyle::default());
}

/// A filled rectangle, translucent when the layout's opacity is below 1.
fn screen_rect(out: &mut String, r: Rect, fill: Paint, opacity: f64) {
    rect(
        out,
        r,
        RectStyle {
            fill: Some(Fill::Colour(fill)),
            fill_opacity: (opacity < 1.0).then_some(opacity),
            ..RectStyle::default()
        },
    );
}

/// How a `<tspan>` gets its colour and face.
#[derive(Clone, Copy)]
pub(crate) enum TextStyle {
    /// Inherited (the window title).
    Inherit,
    /// The CSS class `c<index>`.
    Class(usize),
    /// The same as presentation attributes.
    Inline(TextClass),
}

/// How a start-positioned run keeps to the cell grid.
#[derive(Clone, Copy)]
pub(crate) enum Fit {
    /// By its start alone: the font drawn is the one the cells were measured in (an embedded
    /// face, or resvg's bundled ones), or the text is not on the grid (title, caption).
    Start,
    /// In whatever monospace font the viewer has: the run covers `cells` cells of `width` px.
    Cells { cells: usize, width: f64 },
}

/// Where a `<tspan>`'s characters go.
#[derive(Clone, Copy)]
enum Place<'a> {
    /// From `x`, each at the font's own advance.
    Start(f64),
    /// From `x`, stretched to `length` (`textLength`; glyphs and spacing scaled alike, so each
    /// glyph of a font with one advance starts on its cell whatever that advance is).
    Stretched { x: f64, length: f64 },
    /// One character a cell of `width`, from `x`: each starts on its own cell.
    Cells { x: f64, width: f64, count: usize },
    /// Centred on these (class `m`), one per character.
    Centers(&'a [f64]),
}

/// The `<tspan>`s of a run's text. A run fitted to its [`Fit::Cells`] is cut where its
/// characters change between those every monospace font has ([`font::substitutes_cover`]),
/// which are stretched to their cells, and the others, which get a position each: a glyph from
/// a fallback font of another width then moves nothing after it.
fn run_tspans(out: &mut String, style: TextStyle, x: &RunX, y: Option<f64>, text: &str, fit: Fit) {
    // Only runs of one character a cell are longer than a cell (see `Run::cells`).
    let (x, cells, width) = match (x, fit) {
        (RunX::Centers(xs), _) => return tspan(out, style, Place::Centers(xs), y, text),
        (RunX::Narrowed { centre, .. }, _) => {
            let place = Place::Centers(std::slice::from_ref(centre));
            return tspan(out, style, place, y, text);
        }
        (RunX::Start(x), Fit::Cells { cells, width })
            if cells > 1 && text.chars().count() == cells =>
        {
            (*x, cells, width)
        }
        (RunX::Start(x), _) => return tspan(out, style, Place::Start(*x), y, text),
    };
    let piece = |out: &mut String, text: &str, first: usize, count: usize, covered: bool| {
        let x = x + first as f64 * width;
        let place = match (count, covered) {
            (1, _) => Place::Start(x),
            (_, true) => Place::Stretched {
                x,
                length: count as f64 * width,
            },
            (_, false) => Place::Cells { x, width, count },
        };
        tspan(out, style, place, y, text);
    };
    let (mut from, mut first) = (0, 0);
    let mut covered = None;
    for (cell, (i, c)) in text.char_indices().enumerate() {
        let here = font::substitutes_cover(c);
        if let Some(before) = covered.filter(|&before| before != here) {
            piece(out, &text[from..i], first, cell - first, before);
            (from, first) = (i, cell);
        }
        covered = Some(here);
    }
    piece(
        out,
        &text[from..],
        first,
        cells - first,
        covered.unwrap_or(true),
    );
}

/// `<tspan class=… x=… y=…>text</tspan>` (`y` optional); centred runs get class `m`. The
/// enclosing `<text>` carries `xml:space="preserve"`, which the tspans inherit.
fn tspan(out: &mut String, style: TextStyle, place: Place, y: Option<f64>, text: &str) {
    placed(out, "tspan", style, place, y, text);
}

/// `<name class=… x=… y=…>text</name>`: a [`tspan`], or a `<text>` of its own.
fn placed(
    out: &mut String,
    name: &str,
    style: TextStyle,
    place: Place,
    y: Option<f64>,
    text: &str,
) {
    out.push('<');
    out.push_str(name);
    style_attributes(out, style, matches!(place, Place::Centers(_)));
    out.push_str(" x=\"");
    match place {
        Place::Start(x) | Place::Stretched { x, .. } => push_f(out, x),
        Place::Cells { x, width, count } => {
            push_list(out, (0..count).map(|k| x + k as f64 * width));
        }
        Place::Centers(xs) => push_list(out, xs.iter().copied()),
    }
    out.push('"');
    if let Place::Stretched { length, .. } = place {
        stretch(out, length);
    }
    if let Some(y) = y {
        num(out, "y", y);
    }
    if name == "text" && text.contains([' ', '\t', '\n']) {
        out.push_str(" xml:space=\"preserve\"");
    }
    out.push('>');
    push_text(out, text);
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

/// The colour and face of a text element (` class=…` or presentation attributes); a centred
/// one gets class `m`.
fn style_attributes(out: &mut String, style: TextStyle, centred: bool) {
    match style {
        TextStyle::Inherit => {}
        TextStyle::Class(class) => {
            let _ = write!(out, " class=\"c{class}");
            if centred {
                out.push_str(" m");
            }
            out.push('"');
        }
        TextStyle::Inline(class) => {
            let adapts = class.fill.adapts();
            if centred || adapts {
                out.push_str(" class=\"");
                if adapts {
                    push_light_class(out, 'f', class.fill.light);
                }
                if centred {
                    out.push_str(if adapts { " m" } else { "m" });
                }
                out.push('"');
            }
            paint(out, "fill", class.fill);
            if class.italic {
                out.push_str(" font-style=\"italic\"");
            }
            if class.bold {
                out.push_str(" font-weight=\"bold\"");
            }
        }
    }
}

/// Where a run starts, if it is placed by its start and can be part of its row's stretched
/// text ([`row_text`]): one character a cell, each one every monospace font has, no link.
fn row_text_start(run: &Run) -> Option<f64> {
    let RunX::Start(x) = run.x else { return None };
    let fits = run.link.is_none()
        && run.text.chars().count() == run.cells
        && run.text.chars().all(font::substitutes_cover);
    fits.then_some(x)
}

/// The runs of a row [`row_text`] writes: those with a [`row_text_start`], on the baseline `y`,
/// in cells `width` wide, ending at `end` if given (see [`TextFit::Grid`]).
struct RowText<'a> {
    runs: &'a [&'a Run],
    y: f64,
    width: f64,
    end: Option<f64>,
}

/// The runs of one row that have a [`row_text_start`] as one `<text>` from the first run's
/// start: a `<tspan>` for each stretch of cells in one style (the cells up to the next run
/// written as spaces), the whole `<text>` stretched to its cells (`textLength`, glyphs and
/// spacing scaled alike): the characters every monospace font has are of one advance in one
/// font, bold or not, so a viewer's font of any advance puts every glyph on its cell. The
/// row's most common plain style is the `<text>`'s. A row costs one position and one stretch
/// instead of one of each a run.
fn row_text(
    out: &mut String,
    row: &RowText,
    classes: &[TextClass],
    text_style: &impl Fn(usize) -> TextStyle,
) {
    let &RowText {
        runs,
        y,
        width,
        end: row_end,
    } = row;
    let Some(x0) = runs.first().and_then(|r| row_text_start(r)) else {
        return;
    };
    let column = |run: &Run| row_text_start(run).map_or(0, |x| ((x - x0) / width).round() as usize);
    // Stretches of one style: (class, text, cells).
    let mut stretches: Vec<(usize, String, usize)> = Vec::new();
    let mut end = 0;
    for run in runs {
        let gap = column(run).saturating_sub(end);
        match stretches.last_mut() {
            Some((class, text, cells)) if *class == run.class => {
                text.extend(std::iter::repeat_n(' ', gap));
                text.push_str(&run.text);
                *cells += gap + run.cells;
            }
            Some((_, text, cells)) => {
                text.extend(std::iter::repeat_n(' ', gap));
                *cells += gap;
                stretches.push((run.class, run.text.clone(), run.cells));
            }
            None => stretches.push((run.class, run.text.clone(), run.cells)),
        }
        end = column(run) + run.cells;
    }
    if let (Some(row_end), Some((_, text, cells))) = (row_end, stretches.last_mut()) {
        let spaces = (((row_end - x0) / width).round() as usize).saturating_sub(end);
        text.extend(std::iter::repeat_n(' ', spaces));
        *cells += spaces;
    }
    // The plain style (neither bold nor italic, which a tspan would inherit) of the most
    // cells; the first used on a tie, so the choice is deterministic.
    let plain = |class: usize| classes.get(class).is_some_and(|c| !c.bold && !c.italic);
    let mut cells_of: Vec<(usize, usize)> = Vec::new();
    for &(class, _, cells) in stretches.iter().filter(|s| plain(s.0)) {
        match cells_of.iter_mut().find(|(c, _)| *c == class) {
            Some((_, n)) => *n += cells,
            None => cells_of.push((class, cells)),
        }
    }
    // `max_by_key` keeps the last of equals: reversed, the first used.
    let base = cells_of
        .iter()
        .rev()
        .max_by_key(|&&(_, n)| n)
        .map(|&(class, _)| class);
    // A row in one style is its text alone.
    let single = match stretches.as_slice() {
        [(class, text, _)] => Some((*class, text)),
        _ => None,
    };
    out.push_str("\n<text");
    // The style first, whichever it is, so that rows read alike up to their coordinates.
    if let Some(class) = base.or(single.map(|(class, _)| class)) {
        style_attributes(out, text_style(class), false);
    }
    num(out, "x", x0);
    num(out, "y", y);
    let cells: usize = stretches.iter().map(|s| s.2).sum();
    stretch(out, cells as f64 * width);
    out.push_str(" xml:space=\"preserve\">");
    if let Some((_, text)) = single {
        push_text(out, text);
        out.push_str("</text>");
        return;
    }
    for (class, text, _) in &stretches {
        out.push_str("<tspan");
        if Some(*class) != base {
            style_attributes(out, text_style(*class), false);
        }
        out.push('>');
        push_text(out, text);
        out.push_str("</tspan>");
    }
    out.push_str("</text>");
}

/// ` textLength=… lengthAdjust="spacingAndGlyphs"`: the element's glyphs and spacing scaled
/// alike to `length`.
fn stretch(out: &mut String, length: f64) {
    num(out, "textLength", length);
    out.push_str(" lengthAdjust=\"spacingAndGlyphs\"");
}

/// Numbers separated by spaces.
fn push_list(out: &mut String, values: impl Iterator<Item = f64>) {
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(' ');
        }
        push_f(out, v);
    }
}

/// The CSS font-family list: the user's choice first, the bundled family always last but one,
/// so browsers without either still get a monospace font.
fn font_stack(a: &Appearance, embedded: &str) -> String {
    let mut families = Vec::new();
    if !embedded.is_empty() {
        families.push(embedded.to_owned());
    }
    if let Some(user) = &a.font_family {
        families.push(user.clone());
    }
    families.push(format!("'{PRIMARY_FAMILY}'"));
    families.push("monospace".into());
    families.join(",")
}

/// The style sheet: the `c<index>` rules of `text_classes` (index and class), the centring
/// class `m` if there are `centred` runs or a centred title, and for the colours that adapt a
/// `prefers-color-scheme: light` block with their light colours (`light`, and the text classes
/// and title that adapt). `fitted` is whether the text is fitted to the grid
/// ([`TextFit::Grid`]).
pub(crate) fn css(
    text_classes: impl IntoIterator<Item = (usize, TextClass)>,
    frame: Option<&Frame>,
    a: &Appearance,
    (font_faces, embedded_families): (&str, &str),
    centred: bool,
    light: &LightColours,
    fitted: bool,
) -> String {
    let mut css = String::new();
    css.push_str(font_faces);
    // font-variant-ligatures:none turns off contextual alternates (calt) as well as ligatures.
    // geometricPrecision, unless every run is fitted to its cells: Chromium otherwise lays
    // text out with a slightly smaller font whenever the viewBox-to-viewport scale is not
    // exactly 1 (it snaps fractional SVG sizes to 1/64 px), and runs placed by their starts
    // drift off the grid (0.65 px after 70 columns).
    // font-synthesis: the embedded faces are all the PNG draws with, and resvg draws a fallback
    // face's glyph (CJK, symbols) in a bold or italic run as the face has it; a browser would
    // thicken or slant it, and the SVG would no longer look like the PNG.
    let _ = write!(
        css,
        "text{{font-family:{};font-size:{}px;font-variant-ligatures:none",
        font_stack(a, embedded_families),
        f(a.font_size),
    );
    if !fitted {
        css.push_str(";text-rendering:geometricPrecision");
    }
    if !embedded_families.is_empty() {
        css.push_str(";font-synthesis:none");
    }
    css.push('}');
    if centred || frame.is_some_and(|f| f.title.is_some() && title_centred(f)) {
        css.push_str(".m{text-anchor:middle}");
    }
    let mut light_rules = String::new();
    for (i, class) in text_classes {
        let _ = write!(css, ".c{i}{{fill:{}", hex(class.fill.base));
        if class.fill.adapts() {
            let _ = write!(light_rules, ".c{i}{{fill:{}}}", hex(class.fill.light));
        }
        if class.bold {
            css.push_str(";font-weight:bold");
        }
        if class.italic {
            css.push_str(";font-style:italic");
        }
        css.push('}');
    }
    if let Some(frame) = frame {
        let _ = write!(
            css,
            ".t{{fill:{};font-size:{}px}}",
            hex(frame.ink.base),
            f((a.font_size * 0.93).round())
        );
        if frame.ink.adapts() {
            let _ = write!(light_rules, ".t{{fill:{}}}", hex(frame.ink.light));
        }
    }
    light.rules(&mut light_rules);
    if !light_rules.is_empty() {
        let _ = write!(css, "@media (prefers-color-scheme:light){{{light_rules}}}");
    }
    css
}

/// The canvas fill (written to `out`, a gradient to `defs`).
fn backdrop(out: &mut String, layout: &Layout, defs: &mut String) {
    let canvas = Rect {
        x: 0.0,
        y: 0.0,
        w: layout.view.x + layout.view.w,
        h: layout.view.y + layout.view.h,
    };
    match &layout.backdrop {
        Backdrop::None => {}
        Backdrop::Solid(c) => {
            let fill = Some(Fill::Colour(Paint::solid(*c)));
            rect(
                out,
                canvas,
                RectStyle {
                    fill,
                    ..RectStyle::default()
                },
            );
        }
        Backdrop::Gradient(a, b) => {
            defs.push_str(
                "\n<linearGradient id=\"backdrop\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"1\">\n<stop offset=\"0\"",
            );
            color(defs, "stop-color", *a);
            defs.push_str("/>\n<stop offset=\"1\"");
            color(defs, "stop-color", *b);
            defs.push_str("/>\n</linearGradient>");
            let fill = Some(Fill::Url("url(#backdrop)"));
            rect(
                out,
                canvas,
                RectStyle {
                    fill,
                    ..RectStyle::default()
                },
            );
        }
        Backdrop::Image { mime, data } => {
            use base64::Engine;
            out.push_str("\n<image");
            num(out, "height", canvas.h);
            out.push_str(" href=\"data:");
            push_value(out, mime);
            out.push_str(";base64,");
            base64::engine::general_purpose::STANDARD.encode_string(data, out);
            out.push_str("\" preserveAspectRatio=\"xMidYMid slice\"");
            num(out, "width", canvas.w);
            out.push_str(" x=\"0\" y=\"0\"/>");
        }
    }
}

/// The window frame group (written to `out`, its shadow filter and clip path to `defs`).
fn frame(out: &mut String, frame: &Frame, layout: &Layout, defs: &mut String) {
    let r = frame.rect;
    out.push_str("\n<g>");
    if frame.shadow {
        defs.push_str(concat!(
            "\n<filter height=\"140%\" id=\"shadow\" width=\"140%\" x=\"-20%\" y=\"-20%\">",
            "\n<feDropShadow dx=\"0\" dy=\"8\" flood-color=\"#000\" flood-opacity=\"0.45\" ",
            "stdDeviation=\"10\"/>\n</filter>"
        ));
        let style = RectStyle {
            fill: Some(Fill::Colour(frame.bar_fill)),
            filter: Some("url(#shadow)"),
            rx: Some(frame.radius),
            ..RectStyle::default()
        };
        rect(out, r, style);
    }
    defs.push_str("\n<clipPath id=\"window\">");
    let clip = RectStyle {
        rx: Some(frame.radius),
        ..RectStyle::default()
    };
    rect(defs, r, clip);
    defs.push_str("\n</clipPath>");
    out.push_str("\n<g clip-path=\"url(#window)\">");
    let bar = Rect {
        h: frame.bar_height,
        ..r
    };
    screen_rect(out, bar, frame.bar_fill, layout.opacity);
    if let Some(fill) = layout.screen_fill {
        screen_rect(out, layout.screen, fill, layout.opacity);
    }
    out.push_str("\n</g>");
    let cy = r.y + frame.bar_height / 2.0;
    match frame.style {
        WindowStyle::Macos | WindowStyle::MacosPc => {
            for (i, fill) in ["#ff5f57", "#febc2e", "#28c840"].iter().enumerate() {
                out.push_str("\n<circle");
                num(out, "cx", r.x + 18.0 + 20.0 * i as f64);
                num(out, "cy", cy);
                attr(out, "fill", fill);
                out.push_str(" r=\"6\"/>");
            }
        }
        WindowStyle::Colorful | WindowStyle::ColorfulRight => {
            vhs_buttons(out, frame, ["#ff4f4d", "#febb00", "#00cc1d"], false);
        }
        WindowStyle::Rings | WindowStyle::RingsRight => {
            vhs_buttons(out, frame, ["#333333"; 3], true);
        }
        WindowStyle::None | WindowStyle::Transparent => {}
        WindowStyle::Windows | WindowStyle::WindowsPc => {
            // Minimise, maximise and close, right-aligned like Windows caption buttons.
            let right = r.x + r.w;
            let s = 5.0;
            let mut d = String::new();
            let _ = write!(d, "M{} {}h{}", f(right - 115.0 - s), f(cy), f(2.0 * s));
            let _ = write!(
                d,
                "M{} {}h{}v{}h{}z",
                f(right - 69.0 - s),
                f(cy - s),
                f(2.0 * s),
                f(2.0 * s),
                f(-2.0 * s)
            );
            let _ = write!(
                d,
                "M{} {}l{} {}m0 {}l{} {}",
                f(right - 23.0 - s),
                f(cy - s),
                f(2.0 * s),
                f(2.0 * s),
                f(-2.0 * s),
                f(-2.0 * s),
                f(2.0 * s)
            );
            out.push_str("\n<path");
            light_class(out, 's', frame.ink);
            attr(out, "d", &d);
            out.push_str(" fill=\"none\"");
            paint(out, "stroke", frame.ink);
            out.push_str(" stroke-width=\"1\"/>");
        }
    }
    title(out, frame);
    out.push_str("\n</g>");
}

/// The cell backgrounds, one `<rect>` each. For a raster of `pixels_per_unit`, a top or
/// bottom edge that meets a rectangle of the same colour (the rows of one colour above each
/// other, of other widths so not merged) is moved to the nearest pixel boundary: where a row
/// boundary falls inside a pixel, each would cover that pixel in part, and their antialiased
/// edges together would leave a seam of the colour below. Other edges are blended as a
/// browser blends them.
pub(crate) fn backgrounds(
    out: &mut String,
    backgrounds: &[(Rect, Paint)],
    pixels_per_unit: Option<f64>,
) {
    let Some(scale) = pixels_per_unit else {
        for &(r, c) in backgrounds {
            fill_rect(out, r, c);
        }
        return;
    };
    // Edges compared in 1/1024 units: a rectangle's bottom is summed row by row.
    let edge = |v: f64| (v * 1024.0).round() as i64;
    let tops: HashSet<(Paint, i64)> = backgrounds.iter().map(|(r, c)| (*c, edge(r.y))).collect();
    let bottoms: HashSet<(Paint, i64)> = backgrounds
        .iter()
        .map(|(r, c)| (*c, edge(r.y + r.h)))
        .collect();
    let snap = |v: f64| (v * scale).round() / scale;
    for &(r, c) in backgrounds {
        let (top, bottom) = (r.y, r.y + r.h);
        let top = if bottoms.contains(&(c, edge(top))) {
            snap(top)
        } else {
            top
        };
        let bottom = if tops.contains(&(c, edge(bottom))) {
            snap(bottom)
        } else {
            bottom
        };
        let r = Rect {
            y: top,
            h: bottom - top,
            ..r
        };
        fill_rect(out, r, c);
    }
}

/// The shapes, then the strokes, then the text, of the screen or of one scaled row.
fn drawing(
    out: &mut String,
    layout: &Layout,
    shapes: &[Shape],
    strokes: &[Stroke1],
    runs: &[Run],
    fit: TextFit,
    text_style: impl Fn(usize) -> TextStyle,
) {
    shapes_and_strokes(out, shapes, strokes);
    text(out, layout, runs, Baseline::PerRun, fit, text_style);
}

/// ` d="…"`: the layout's path data, relative ([`path_data::push_relative_from`]) for a
/// drawing whose origin is at `top` (hundredths) unless it holds something that cannot be.
fn path_data(out: &mut String, d: &str, top: i64) {
    out.push_str(" d=\"");
    if !path_data::push_relative_from(out, d, top) {
        push_value(out, d);
    }
    out.push('"');
}

/// Box drawing, blocks and decorations, then curly underlines: one `<path>` each.
pub(crate) fn shapes_and_strokes(out: &mut String, shapes: &[Shape], strokes: &[Stroke1]) {
    shapes_from(out, shapes, 0);
    for s in strokes {
        out.push_str("\n<path");
        light_class(out, 's', s.color);
        path_data(out, &s.path, 0);
        out.push_str(" fill=\"none\"");
        paint(out, "stroke", s.color);
        num(out, "stroke-width", s.width);
        out.push_str("/>");
    }
}

/// The `<path>`s of `shapes` for a drawing whose origin is at `top` (hundredths) on the page:
/// placed with `<use y>` at `top`, they are where the layout put them.
pub(crate) fn shapes_from(out: &mut String, shapes: &[Shape], top: i64) {
    for shape in shapes {
        out.push_str("\n<path");
        light_class(out, 'f', shape.fill);
        path_data(out, &shape.path, top);
        paint(out, "fill", shape.fill);
        if shape.alpha < 1.0 {
            num(out, "fill-opacity", shape.alpha as f64);
        }
        out.push_str("/>");
    }
}

/// Where the baselines of [`text`] are written.
#[derive(Clone, Copy)]
pub(crate) enum Baseline {
    /// On each `<tspan>`, at its run's own baseline (runs of several rows in one `<text>`).
    PerRun,
    /// Once on the `<text>`, this value, for runs of one row drawn at its own origin (rows
    /// drawn once and placed with `<use>`).
    Row(f64),
}

/// Text runs: one `<text>` for the runs without a link, with nothing between its
/// `<tspan>`s (see the title in [`frame`]); one `<a><text>` per linked run. `xml:space` on the
/// `<text>`, once, rather than on every tspan: there is no other character data for it to
/// apply to. `fit` is how the runs keep to their cells; in the bundled faces, a glyph wider
/// than its cells ([`RunX::Narrowed`]) is a `<text>` of its own after them, narrowed.
pub(crate) fn text(
    out: &mut String,
    layout: &Layout,
    runs: &[Run],
    baseline: Baseline,
    fit: TextFit,
    text_style: impl Fn(usize) -> TextStyle,
) {
    let grid = fit.grid();
    let open = |out: &mut String, transform: Option<(f64, f64)>| {
        out.push_str("\n<text xml:space=\"preserve\"");
        if let Some((scale, centre)) = transform {
            // Narrower by `scale` about the glyph's centre, which stays where it is.
            out.push_str(" transform=\"matrix(");
            push_f(out, scale);
            out.push_str(" 0 0 1 ");
            push_f(out, centre * (1.0 - scale));
            out.push_str(" 0)\"");
        }
        if let Baseline::Row(y) = baseline {
            num(out, "y", y);
        }
        out.push('>');
    };
    let y = |run: &Run| match baseline {
        Baseline::PerRun => Some(run.y),
        Baseline::Row(_) => None,
    };
    let cells = |run: &Run| match grid {
        Some(width) => Fit::Cells {
            cells: run.cells,
            width,
        },
        None => Fit::Start,
    };
    let tspans = |out: &mut String, run: &Run| {
        run_tspans(
            out,
            text_style(run.class),
            &run.x,
            y(run),
            &run.text,
            cells(run),
        );
    };
    // A run drawn narrowed: a <text> of its own.
    let narrowed = |run: &Run| match (fit, &run.x) {
        (TextFit::Bundled, &RunX::Narrowed { centre, scale }) => Some((scale, centre)),
        _ => None,
    };
    let apart = |out: &mut String, run: &Run| {
        open(out, narrowed(run));
        tspans(out, run);
        out.push_str("</text>");
    };
    // Fitted to the grid, the runs of a row that can be are one stretched text.
    let in_row_text = |run: &Run| grid.is_some() && row_text_start(run).is_some();
    if let Some(width) = grid {
        for row in runs.chunk_by(|a, b| a.y == b.y) {
            let joined: Vec<&Run> = row.iter().filter(|r| in_row_text(r)).collect();
            let baseline = match baseline {
                Baseline::PerRun => row[0].y,
                Baseline::Row(y) => y,
            };
            let row = RowText {
                runs: &joined,
                y: baseline,
                width,
                end: match fit {
                    TextFit::Grid { row_end, .. } => row_end,
                    TextFit::Bundled | TextFit::Placed => None,
                },
            };
            row_text(out, &row, &layout.classes, &text_style);
        }
    }
    let unlinked = |r: &&Run| r.link.is_none() && !in_row_text(r);
    let shared = join_centred(runs.iter().filter(|r| unlinked(r) && narrowed(r).is_none()));
    match shared.as_slice() {
        [] => {}
        // One run centred character by character: a `<text>` of its own, without a tspan.
        [
            Run {
                x: RunX::Centers(centres),
                ..
            },
        ] => {
            let run = &shared[0];
            out.push('\n');
            let place = Place::Centers(centres);
            let y = match baseline {
                Baseline::PerRun => run.y,
                Baseline::Row(y) => y,
            };
            placed(
                out,
                "text",
                text_style(run.class),
                place,
                Some(y),
                &run.text,
            );
        }
        _ => {
            open(out, None);
            for run in &shared {
                tspans(out, run);
            }
            out.push_str("</text>");
        }
    }
    for run in runs.iter().filter(|r| unlinked(r) && narrowed(r).is_some()) {
        apart(out, run);
    }
    for run in runs {
        let Some(l) = run.link else { continue };
        out.push_str("\n<a href=\"");
        push_escaped(out, &layout.links[l], Escape::Uri);
        out.push_str("\">");
        apart(out, run);
        out.push_str("\n</a>");
    }
}

/// `runs` with each run centred character by character joined to the one before it if that
/// one is of the same class and row and can take more ([`layout::centres_can_follow`]: a
/// centre for each of its characters, none outside the BMP), so every centre stays with its
/// character in every browser: one `<tspan>` for the wide characters of a row instead of one
/// for each stretch of them. Runs drawn narrowed are centred here (the grid's fit).
fn join_centred<'a>(runs: impl Iterator<Item = &'a Run>) -> Vec<Run> {
    let mut joined: Vec<Run> = Vec::new();
    for run in runs {
        let mut run = run.clone();
        if let RunX::Narrowed { centre, .. } = run.x {
            run.x = RunX::Centers(vec![centre]);
        }
        if let (
            Some(Run {
                x: RunX::Centers(before),
                y,
                class,
                text,
                cells,
                ..
            }),
            RunX::Centers(centres),
        ) = (joined.last_mut(), &run.x)
            && *y == run.y
            && *class == run.class
            && layout::centres_can_follow(text, before.len())
        {
            before.extend_from_slice(centres);
            text.push_str(&run.text);
            *cells += run.cells;
            continue;
        }
        joined.push(run);
    }
    joined
}

/// Writes the layout as an SVG document. The structured snapshot goes into `<metadata>`
/// unless the appearance turns it off.
pub fn write(layout: &Layout, snapshot: &Snapshot, a: &Appearance) -> Result<String, RenderError> {
    document(
        layout,
        a.metadata.then_some(snapshot),
        a,
        false,
        Content::whole(layout),
    )
}

/// Writes the layout as the SVG document the PNG path rasterises: what [`write()`] writes,
/// drawing the same pixels, without the metadata and with each run's colour and face as
/// attributes rather than CSS classes (usvg matches every CSS rule against every element,
/// which costs milliseconds on a screen of many colours).
pub fn write_for_raster(layout: &Layout, a: &Appearance) -> Result<String, RenderError> {
    document(layout, None, a, true, Content::whole(layout))
}

/// The documents [`write_for_raster`] splits into when the rasteriser draws most text itself,
/// from cached glyphs: what lies under the text, with only the runs `drawn` leaves out as
/// text, and what lies over the text (masks, highlights, the caption), if anything does.
#[cfg(feature = "png")]
pub(crate) fn write_for_raster_around_text(
    layout: &Layout,
    a: &Appearance,
    drawn: &[bool],
) -> Result<(String, Option<String>), RenderError> {
    let left: Vec<Run> = layout
        .runs
        .iter()
        .zip(drawn.iter().chain(std::iter::repeat(&false)))
        .filter(|(_, drawn)| !**drawn)
        .map(|(run, _)| run.clone())
        .collect();
    let under = Content {
        under_text: true,
        runs: &left,
        over_text: false,
    };
    let over = Content {
        under_text: false,
        runs: &[],
        over_text: true,
    };
    let has_over =
        !layout.masked.is_empty() || !layout.highlights.is_empty() || layout.caption.is_some();
    Ok((
        document(layout, None, a, true, under)?,
        has_over
            .then(|| document(layout, None, a, true, over))
            .transpose()?,
    ))
}

/// What of a layout a document draws, bottom to top.
#[derive(Clone, Copy)]
struct Content<'a> {
    /// The chrome, the backgrounds, the scaled rows, the cursor, the shapes and the strokes.
    under_text: bool,
    /// The text runs (of the screen's rows; the scaled rows' are under the text).
    runs: &'a [Run],
    /// The masks, the highlights and the caption.
    over_text: bool,
}

impl Content<'_> {
    fn whole(layout: &Layout) -> Content<'_> {
        Content {
            under_text: true,
            runs: &layout.runs,
            over_text: true,
        }
    }
}

/// How a document's text keeps to the cell grid, by the faces that draw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum TextFit {
    /// The viewer's fonts: runs stretched to cells `width` wide ([`Fit::Cells`]). With
    /// `row_end`, each row's text runs on in spaces to that x, the grid's right edge, as a
    /// terminal's row does: every row from the same column then has the same `textLength`,
    /// which gzip stores once, and an animation's rows are its stills' to the pixel.
    Grid { width: f64, row_end: Option<f64> },
    /// The bundled faces (embedded, or the raster's): runs placed by their starts, and a
    /// fallback glyph wider than its cells narrowed into them ([`font::ink_fit`]).
    Bundled,
    /// Faces of the user's besides the bundled ones (a raster's font family or files):
    /// runs placed by their starts, glyphs as those faces draw them.
    Placed,
}

impl TextFit {
    /// The cell width runs are stretched to, if they are.
    pub(crate) fn grid(self) -> Option<f64> {
        match self {
            TextFit::Grid { width, .. } => Some(width),
            TextFit::Bundled | TextFit::Placed => None,
        }
    }

    /// The fit in a row's own space (a double-size row's), where the grid's edge is not.
    fn in_row_space(self) -> TextFit {
        match self {
            TextFit::Grid { width, .. } => TextFit::Grid {
                width,
                row_end: None,
            },
            other => other,
        }
    }
}

/// How the text of a document is fitted to its cells: to a grid for viewers, unless the
/// faces it is measured in are embedded; `raster` for the document resvg draws.
pub(crate) fn text_fit(layout: &Layout, a: &Appearance, raster: bool) -> TextFit {
    if raster && a.adds_faces() {
        TextFit::Placed
    } else if raster || a.embed_font {
        TextFit::Bundled
    } else {
        TextFit::Grid {
            width: layout.metrics.width,
            row_end: Some(layout.grid_right()),
        }
    }
}

fn document(
    layout: &Layout,
    metadata: Option<&Snapshot>,
    a: &Appearance,
    inline_styles: bool,
    content: Content<'_>,
) -> Result<String, RenderError> {
    let (font_faces, families) = font_faces(a, |subsets| subsets.add_layout(layout))?;
    // A style of one run is written on it: a rule of its own and a reference to it cost more.
    let mut runs_of = vec![0usize; layout.classes.len()];
    for run in layout.all_runs() {
        if let Some(n) = runs_of.get_mut(run.class) {
            *n += 1;
        }
    }
    let in_sheet = |class: usize| !inline_styles && runs_of.get(class).is_some_and(|&n| n > 1);
    let classes = layout
        .classes
        .iter()
        .copied()
        .enumerate()
        .filter(|&(i, _)| in_sheet(i));
    let centred = layout.has_centred_runs();
    let mut light_colours = LightColours::default();
    light_colours.add_layout(layout);
    for (i, class) in layout.classes.iter().enumerate() {
        if !in_sheet(i) {
            light_colours.add_fill(class.fill);
        }
    }
    let fit = text_fit(layout, a, inline_styles);
    let css = css(
        classes,
        layout.frame.as_ref(),
        a,
        (&font_faces, &families),
        centred,
        &light_colours,
        fit.grid().is_some(),
    );
    let text_style = |class: usize| match layout.classes.get(class) {
        Some(c) if !in_sheet(class) => TextStyle::Inline(*c),
        _ => TextStyle::Class(class),
    };
    let text_bytes: usize = layout.all_runs().map(|r| r.text.len() + 64).sum();
    let shape_bytes: usize = layout.shapes.iter().map(|s| s.path.len() + 40).sum();
    let mut out = String::with_capacity(
        1024 + css.len() + text_bytes + shape_bytes + 64 * layout.backgrounds.len(),
    );

    open_svg(&mut out, layout);
    // Without serde there is no JSON to embed: such a build writes no metadata.
    #[cfg(not(feature = "serde"))]
    let _ = metadata;
    #[cfg(feature = "serde")]
    if let Some(snapshot) = metadata {
        let json = serde_json::to_string(snapshot)
            .map_err(|e| RenderError::new(format!("cannot encode the snapshot: {e}")))?;
        out.push_str("\n<metadata>");
        push_escaped(&mut out, &json, Escape::Json);
        out.push_str("</metadata>");
    }
    style_sheet(&mut out, &css);

    // The body goes after <defs>, which the backdrop and the frame add to.
    let mut defs = String::new();
    let mut body = String::with_capacity(out.capacity() - out.len());
    if content.under_text {
        chrome(&mut body, layout, &mut defs);
    }

    if content.under_text {
        // The raster is drawn at the appearance's scale from the document's origin.
        let pixels_per_unit = inline_styles.then_some(a.scale);
        backgrounds(&mut body, &layout.backgrounds, pixels_per_unit);
        scaled_rows(&mut body, layout, &mut defs, "row", fit, text_style);
        cursor(&mut body, layout);
        shapes_and_strokes(&mut body, &layout.shapes, &layout.strokes);
    }
    text(
        &mut body,
        layout,
        content.runs,
        Baseline::PerRun,
        fit,
        text_style,
    );
    if !content.over_text {
        return close_svg(out, &defs, &body);
    }
    if !layout.masked.is_empty() {
        defs.push_str(MASK_PATTERN);
        masked(&mut body, layout);
    }
    if !layout.highlights.is_empty() {
        body.push_str(
            "\n<g fill=\"#ff2d55\" fill-opacity=\"0.35\" stroke=\"#ff2d55\" stroke-width=\"1\">",
        );
        for r in &layout.highlights {
            rect(&mut body, *r, RectStyle::default());
        }
        body.push_str("\n</g>");
    }
    caption(&mut body, layout);
    close_svg(out, &defs, &body)
}

/// What masked secrets are filled with: grey diagonal stripes, visible on dark and light themes
/// alike, over their `*`s. The document's defs hold it once when [`masked`] draws anything.
pub(crate) const MASK_PATTERN: &str = concat!(
    "\n<pattern id=\"masked\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" ",
    "patternTransform=\"rotate(45)\"><rect width=\"3\" height=\"6\" fill=\"#808080\" ",
    "fill-opacity=\"0.6\"/></pattern>"
);

/// The hatch over the layout's masked cells ([`MASK_PATTERN`]).
pub(crate) fn masked(body: &mut String, layout: &Layout) {
    if layout.masked.is_empty() {
        return;
    }
    body.push_str("\n<g fill=\"url(#masked)\">");
    for r in &layout.masked {
        rect(body, *r, RectStyle::default());
    }
    body.push_str("\n</g>");
}

/// `<svg height=… viewBox=… width=… xmlns=…>`.
pub(crate) fn open_svg(out: &mut String, layout: &Layout) {
    let v = layout.view;
    out.push_str("<svg");
    num(out, "height", layout.out_size.1);
    out.push_str(" viewBox=\"");
    for (i, n) in [v.x, v.y, v.w, v.h].into_iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        push_f(out, n);
    }
    out.push('"');
    num(out, "width", layout.out_size.0);
    out.push_str(" xmlns=\"http://www.w3.org/2000/svg\">");
}

/// `<style>` with the style sheet.
pub(crate) fn style_sheet(out: &mut String, css: &str) {
    out.push_str("\n<style>");
    push_text(out, css);
    out.push_str("</style>");
}

/// `<defs>` (if any), the body and the end of the document.
pub(crate) fn close_svg(mut out: String, defs: &str, body: &str) -> Result<String, RenderError> {
    if !defs.is_empty() {
        out.push_str("\n<defs>");
        out.push_str(defs);
        out.push_str("\n</defs>");
    }
    out.push_str(body);
    out.push_str("\n</svg>");
    Ok(out)
}

/// Everything around the cells: the backdrop and the window frame, or the screen's fill.
pub(crate) fn chrome(body: &mut String, layout: &Layout, defs: &mut String) {
    backdrop(body, layout, defs);
    match &layout.frame {
        Some(fr) => frame(body, fr, layout, defs),
        None => {
            if let Some(fill) = layout.screen_fill {
                screen_rect(body, layout.screen, fill, layout.opacity);
            }
        }
    }
}

/// The three dots or (`rings`) rings of VHS's window bars, placed as VHS places them for its
/// bar height: dots of a sixth of the bar, rings of a fifth, from the left or the right.
fn vhs_buttons(out: &mut String, frame: &Frame, fills: [&str; 3], rings: bool) {
    let bar = frame.bar_height.floor();
    let r = frame.rect;
    let sixth = (bar / 6.0).floor();
    let radius = if rings { (bar / 5.0).floor() } else { sixth };
    let space = 2.0 * radius + sixth;
    let gap = ((bar - 2.0 * radius) / 2.0).floor();
    let right = matches!(
        frame.style,
        WindowStyle::ColorfulRight | WindowStyle::RingsRight
    );
    for (i, fill) in fills.iter().enumerate() {
        let offset = gap + radius + i as f64 * space;
        let cx = if right {
            r.x + r.w - offset
        } else {
            r.x + offset
        };
        out.push_str("\n<circle");
        num(out, "cx", cx);
        num(out, "cy", r.y + gap + radius);
        if rings {
            // The outer circle less an inner one of two fifths of its diameter.
            let inner = (4.0 * radius / 5.0).floor();
            out.push_str(" fill=\"none\"");
            num(out, "r", (radius + inner) / 2.0);
            attr(out, "stroke", fill);
            num(out, "stroke-width", radius - inner);
        } else {
            attr(out, "fill", fill);
            num(out, "r", radius);
        }
        out.push_str("/>");
    }
}

/// Whether the frame's title is centred (class `m`): a macOS bar's is.
fn title_centred(frame: &Frame) -> bool {
    matches!(frame.style, WindowStyle::Macos | WindowStyle::MacosPc)
}

/// The window title in the title bar, if the frame has one: centred on macOS, after the
/// caption on Windows, shortened with `…` to what the bar has room for.
pub(crate) fn title(out: &mut String, frame: &Frame) {
    let r = frame.rect;
    let Some((title, x, y)) = &frame.title else {
        return;
    };
    let mac = title_centred(frame);
    let reserved = if mac { 80.0 } else { 140.0 };
    let max_chars = ((r.w - 2.0 * reserved) / 7.5).max(0.0) as usize;
    let shown: String = if title.chars().count() > max_chars {
        let mut t: String = title.chars().take(max_chars.saturating_sub(1)).collect();
        t.push('…');
        t
    } else {
        title.clone()
    };
    // Nothing between <text> and its <tspan>s: a newline there would be laid out as a
    // space joining the previous text chunk, moving centred chunks half a space off
    // their anchor (in browsers and resvg alike).
    out.push_str(if mac {
        "\n<text class=\"t m\" xml:space=\"preserve\""
    } else {
        "\n<text class=\"t\" xml:space=\"preserve\""
    });
    num(out, "y", *y);
    out.push('>');
    tspan(out, TextStyle::Inherit, Place::Start(*x), None, &shown);
    out.push_str("</text>");
}

/// The double-width and double-height rows, each clipped (clip paths `<clip_id><i>` in
/// `defs`) and transformed.
pub(crate) fn scaled_rows(
    body: &mut String,
    layout: &Layout,
    defs: &mut String,
    clip_id: &str,
    fit: TextFit,
    text_style: impl Fn(usize) -> TextStyle + Copy,
) {
    for (i, row) in layout.scaled_rows.iter().enumerate() {
        // The clip is on an untransformed group, so its rectangle is in canvas pixels.
        let _ = write!(defs, "\n<clipPath id=\"{clip_id}{i}\">");
        plain_rect(defs, row.clip);
        defs.push_str("\n</clipPath>");
        let _ = write!(
            body,
            "\n<g clip-path=\"url(#{clip_id}{i})\">\n<g transform=\"matrix("
        );
        let [a, d, e, f] = row.transform;
        for (k, n) in [a, 0.0, 0.0, d, e, f].into_iter().enumerate() {
            if k > 0 {
                body.push(' ');
            }
            push_f(body, n);
        }
        body.push_str(")\">");
        backgrounds(body, &row.backgrounds, None);
        drawing(
            body,
            layout,
            &row.shapes,
            &row.strokes,
            &row.runs,
            fit.in_row_space(),
            text_style,
        );
        body.push_str("\n</g>\n</g>");
    }
}

/// The caption of typed keys, if there is one.
pub(crate) fn caption(body: &mut String, layout: &Layout) {
    let Some(c) = &layout.caption else { return };
    let style = RectStyle {
        fill: Some(Fill::Colour(Paint::solid((0x10, 0x12, 0x16)))),
        fill_opacity: Some(0.8),
        rx: Some(c.radius),
        ..RectStyle::default()
    };
    rect(body, c.rect, style);
    body.push_str("\n<text fill=\"#ffffff\" text-anchor=\"middle\" xml:space=\"preserve\"");
    num(body, "y", c.y);
    body.push('>');
    tspan(body, TextStyle::Inherit, Place::Start(c.x), None, &c.text);
    body.push_str("</text>");
}

/// The cursor's rectangle, if it is drawn.
pub(crate) fn cursor(body: &mut String, layout: &Layout) {
    if let Some((r, c)) = layout.cursor {
        fill_rect(body, r, c);
    }
}

/// A rectangle `r` filled with `c` (a cell background, a cursor).
pub(crate) fn fill_rect(body: &mut String, r: Rect, c: Paint) {
    let fill = Some(Fill::Colour(c));
    rect(
        body,
        r,
        RectStyle {
            fill,
            ..RectStyle::default()
        },
    );
}

/// The `@font-face` rules and family list for `a`: empty unless it embeds fonts, else
/// subsets of what `add` adds.
pub(crate) fn font_faces(
    a: &Appearance,
    add: impl FnOnce(&mut FontSubsets),
) -> Result<(String, String), RenderError> {
    if !a.embed_font {
        return Ok((String::new(), String::new()));
    }
    #[cfg(feature = "embed-font")]
    {
        let mut subsets = FontSubsets::default();
        add(&mut subsets);
        subsets.font_faces()
    }
    #[cfg(not(feature = "embed-font"))]
    {
        let _ = add;
        Err(RenderError::new(
            "embedding fonts needs shotty's `embed-font` feature",
        ))
    }
}

/// Family names the embedded subsets are declared under: the monospace family (four styles)
/// and one per fallback face.
#[cfg(feature = "embed-font")]
const EMBED_MONO: &str = "shotty-mono";

/// The characters each bundled face draws, gathered from layouts, for the `@font-face`
/// rules that embed subsets of exactly those.
#[derive(Default)]
pub(crate) struct FontSubsets {
    #[cfg(feature = "embed-font")]
    per_face: Vec<std::collections::BTreeSet<char>>,
}

impl FontSubsets {
    /// Adds what `layout` draws as text: its runs and the window title.
    pub(crate) fn add_layout(&mut self, layout: &Layout) {
        for run in layout.all_runs() {
            let class = layout.classes.get(run.class).copied();
            let (bold, italic) = class.map_or((false, false), |c| (c.bold, c.italic));
            self.add(&run.text, bold, italic);
        }
        if let Some((title, _, _)) = layout.frame.as_ref().and_then(|f| f.title.as_ref()) {
            self.add(title, false, false);
        }
        if let Some(caption) = &layout.caption {
            self.add(&caption.text, false, false);
        }
    }

    #[cfg_attr(not(feature = "embed-font"), allow(unused_variables))]
    fn add(&mut self, text: &str, bold: bool, italic: bool) {
        #[cfg(feature = "embed-font")]
        {
            if self.per_face.is_empty() {
                self.per_face = vec![Default::default(); font::BUNDLED.len()];
            }
            // The characters as the document writes them (U+FFFD for those it cannot carry),
            // the spaces included: a space the subset lacks is drawn by the viewer's next
            // font, whose advance differs, and everything after it in the run slides.
            for c in text.chars().map(drawn_char) {
                if let Some(i) = font::face_for(c, bold, italic) {
                    self.per_face[i].insert(c);
                }
            }
        }
    }

    /// `@font-face` rules embedding subsets of the bundled faces (WOFF2) for exactly the
    /// characters added, and the family list that puts them first.
    #[cfg(feature = "embed-font")]
    fn font_faces(&self) -> Result<(String, String), RenderError> {
        use base64::Engine;

        let mut css = String::new();
        let mut families = vec![EMBED_MONO.to_owned()];
        for (i, chars) in self.per_face.iter().enumerate() {
            if chars.is_empty() {
                continue;
            }
            let font = &font::BUNDLED[i];
            let data = super::woff2::from_sfnt(&font::subset_face(i, chars)?)?;
            let family = if font.family == PRIMARY_FAMILY {
                EMBED_MONO.to_owned()
            } else {
                let name = format!("shotty-f{i}");
                families.push(name.clone());
                name
            };
            let _ = write!(
                css,
                "@font-face{{font-family:{family};src:url(data:font/woff2;base64,{}) format(\"woff2\");font-weight:{};font-style:{}}}",
                base64::engine::general_purpose::STANDARD.encode(&data),
                if font.bold { "bold" } else { "normal" },
                if font.italic { "italic" } else { "normal" },
            );
        }
        Ok((css, families.join(",")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(s: &str, how: Escape) -> String {
        let mut out = String::new();
        push_escaped(&mut out, s, how);
        out
    }

    #[test]
    fn safe_characters_are_exactly_xml_chars_without_del_and_c1() {
        for u in 0..=0x10ffff_u32 {
            let Some(c) = char::from_u32(u) else { continue };
            let xml_char =
                matches!(u, 0x9 | 0xa | 0xd | 0x20..=0xd7ff | 0xe000..=0xfffd | 0x10000..);
            let discouraged = (0x7f..=0x9f).contains(&u);
            assert_eq!(is_xml_safe(c), xml_char && !discouraged, "U+{u:04X}");
        }
    }

    #[test]
    fn ordinary_text_is_copied_with_markup_escaped() {
        let s = "a <b> & \"c\" 'd' é 日本 😀 \u{fdd0} \u{1fffe}";
        assert_eq!(
            escaped(s, Escape::Text),
            "a &lt;b> &amp; \"c\" 'd' é 日本 😀 \u{fdd0} \u{1fffe}"
        );
        let value = "a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; é 日本 😀 \u{fdd0} \u{1fffe}";
        assert_eq!(escaped(s, Escape::Value), value);
        assert_eq!(escaped(s, Escape::Uri), value);
    }

    /// `]]>` cannot be character data: its `>` is escaped, also when the `]]` came in an
    /// earlier piece of the same text. A parser reads back what went in.
    #[test]
    fn a_greater_than_sign_is_escaped_only_where_it_would_end_a_cdata_end() {
        assert_eq!(escaped("a]]>b ]>c ]] >", Escape::Text), "a]]&gt;b ]>c ]] >");
        let mut out = String::from("<t>");
        push_text(&mut out, "x]]");
        push_text(&mut out, ">>");
        out.push_str("</t>");
        assert_eq!(out, "<t>x]]&gt;></t>");
        let parsed = roxmltree::Document::parse(&out).expect("well-formed");
        assert_eq!(parsed.root_element().text(), Some("x]]>>"));
    }

    #[test]
    fn each_context_writes_unsafe_characters_its_own_way() {
        let s = "\0\t\n\r\u{1f}\u{7f}\u{85}\u{9f}\u{fffe}\u{ffff}\u{fffd}";
        assert_eq!(
            escaped(s, Escape::Text),
            "\u{fffd}\t\n&#13;\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}"
        );
        assert_eq!(
            escaped(s, Escape::Value),
            "\u{fffd}&#9;&#10;&#13;\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}"
        );
        assert_eq!(
            escaped(s, Escape::Uri),
            "%00%09%0A%0D%1F%7F%C2%85%C2%9F%EF%BF%BE%EF%BF%BF\u{fffd}"
        );
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_string(s).expect("JSON");
            let written = escaped(&json, Escape::Json);
            assert!(written.chars().all(is_xml_safe), "{written:?}");
            assert_eq!(serde_json::from_str::<String>(&written).expect("JSON"), s);
        }
    }
}
