//! Box-drawing (U+2500–U+257F), block elements (U+2580–U+259F) and the Powerline glyphs
//! U+E0B0–U+E0B7 as filled geometry instead of font glyphs.
//!
//! A font's glyphs for these characters are designed for the font's own line height. At any
//! other line height or zoom they leave gaps, or overlap and show anti-aliasing seams, between
//! cells. Geometry that runs exactly to the cell edges meets its neighbours without either.
//!
//! # Path conventions
//!
//! - Every subpath is a closed polygon (with cubic curves for arcs) meant to be *filled*;
//!   nothing is stroked. A caller can therefore put all cells of one colour into a single
//!   `<path>`: the rasteriser fills the union, so edges shared by neighbouring cells (or by the
//!   arms of one junction) get no anti-aliasing seam.
//! - **Every subpath winds clockwise on screen**, that is its shoelace area is positive with y
//!   pointing down. Overlapping subpaths, such as the arms of a junction, then add up under
//!   `fill-rule="nonzero"` (the SVG default) rather than cancelling. Do not use `evenodd`.
//! - Commands are absolute (`M`, `L`, `H`, `V`, `C`, `Z`), coordinates are rounded to two
//!   decimals without trailing zeros (`M8.4 9H16.8V10.2H8.4Z`). Relative commands would add
//!   up rounding errors, so a cell's right edge could miss its neighbour's left edge by 0.01.
//!   A shared edge is seamless only if both cells produce the same number, so the caller
//!   should compute a cell's right edge exactly as it computes the next cell's left edge.
//!
//! # Geometry
//!
//! Lines are centred on the cell's centre lines and run exactly to the cell edges, so a line
//! continues into the next cell with no gap and no overlap. A junction is the union of its
//! arms; an arm reaches past the centre by half the width of the perpendicular line so that
//! corners are square. A double line is two `light` lines with a `light` gap between them.
//! Rounded corners are quarter circles joined to straight ends, so they leave the cell
//! exactly where a straight line would. Diagonals are parallelograms cut by the top and bottom
//! cell edges; they overhang the cell sideways by half their horizontal width, which is what
//! makes diagonals in diagonally adjacent cells join without a notch.

use super::number::hundredths;

/// How a character's geometry is filled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fill {
    /// With the foreground colour.
    Solid,
    /// With the foreground colour at this opacity (0..=1); only the shades ░▒▓, whose path is
    /// the whole cell, so they need a path (or `fill-opacity`) of their own.
    Alpha(f32),
}

/// Line thicknesses, in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stroke {
    /// Thickness of light lines; also the gap between the two lines of a double line.
    pub light: f64,
    /// Thickness of heavy lines.
    pub heavy: f64,
}

impl Stroke {
    /// Thicknesses for a font of `px` pixels: light is `px / 12` but at least 1, heavy is
    /// twice light. Not snapped to whole pixels: the caller decides the coordinate grid.
    pub fn for_font_size(px: f64) -> Stroke {
        let light = (px / 12.0).max(1.0);
        Stroke {
            light,
            heavy: 2.0 * light,
        }
    }
}

/// Whether [`cell_path`] draws `c`. Cheap enough for every cell of a screenshot.
pub fn is_drawn(c: char) -> bool {
    matches!(c, '\u{2500}'..='\u{259F}' | '\u{E0B0}'..='\u{E0B7}')
}

/// Appends SVG path data for `c` drawn in the cell whose top-left corner is (`x`, `y`) and
/// whose size is `w` × `h`, and returns how to fill it. Returns `None`, appending nothing, for
/// characters it does not draw (exactly those for which [`is_drawn`] is false).
///
/// See the module documentation for the path conventions (closed subpaths, clockwise winding,
/// fill rule nonzero, absolute commands, two decimals).
pub fn cell_path(
    c: char,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    stroke: Stroke,
    out: &mut String,
) -> Option<Fill> {
    if !is_drawn(c) {
        return None;
    }
    let cell = Cell { x, y, w, h };
    let mut pen = Pen::new(out);
    let fill = match c {
        '\u{2500}'..='\u{257F}' => {
            box_drawing(c, &cell, stroke, &mut pen);
            Fill::Solid
        }
        '\u{2580}'..='\u{259F}' => block(c, &cell, &mut pen),
        _ => {
            powerline(c, &cell, stroke, &mut pen);
            Fill::Solid
        }
    };
    Some(fill)
}

#[derive(Clone, Copy)]
struct Cell {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Cell {
    fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }

    fn cy(&self) -> f64 {
        self.y + self.h / 2.0
    }

    fn right(&self) -> f64 {
        self.x + self.w
    }

    fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

type Point = (f64, f64);

/// Writes path commands, choosing `H`/`V` where a segment is axis-aligned after rounding and
/// dropping segments that round to nothing.
struct Pen<'a> {
    out: &'a mut String,
    at: (i64, i64),
}

impl<'a> Pen<'a> {
    fn new(out: &'a mut String) -> Pen<'a> {
        Pen { out, at: (0, 0) }
    }

    fn num(&mut self, n: i64) {
        super::number::push_hundredths(self.out, n);
    }

    fn point(&mut self, p: (i64, i64)) {
        self.num(p.0);
        self.out.push(' ');
        self.num(p.1);
    }

    fn move_to(&mut self, p: Point) {
        let q = (hundredths(p.0), hundredths(p.1));
        self.out.push('M');
        self.point(q);
        self.at = q;
    }

    fn line_to(&mut self, p: Point) {
        let q = (hundredths(p.0), hundredths(p.1));
        if q == self.at {
            return;
        }
        if q.0 == self.at.0 {
            self.out.push('V');
            self.num(q.1);
        } else if q.1 == self.at.1 {
            self.out.push('H');
            self.num(q.0);
        } else {
            self.out.push('L');
            self.point(q);
        }
        self.at = q;
    }

    fn cubic_to(&mut self, c1: Point, c2: Point, p: Point) {
        let q = (hundredths(p.0), hundredths(p.1));
        self.out.push('C');
        self.point((hundredths(c1.0), hundredths(c1.1)));
        self.out.push(' ');
        self.point((hundredths(c2.0), hundredths(c2.1)));
        self.out.push(' ');
        self.point(q);
        self.at = q;
    }

    fn close(&mut self) {
        self.out.push('Z');
    }

    /// The rectangle x0..x1 × y0..y1, clockwise; nothing if it rounds to zero area.
    fn rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64) {
        if hundredths(x1) <= hundredths(x0) || hundredths(y1) <= hundredths(y0) {
            return;
        }
        self.move_to((x0, y0));
        self.line_to((x1, y0));
        self.line_to((x1, y1));
        self.line_to((x0, y1));
        self.close();
    }
}

#[derive(Clone, Copy)]
enum Seg {
    Line(Point),
    Cubic(Point, Point, Point),
}

/// A closed outline that is built in whichever direction is convenient (mirrored shapes flip
/// it) and reversed on output if needed, so that every subpath comes out clockwise.
struct Outline {
    start: Point,
    segs: Vec<Seg>,
}

/// Control-point distance for a quarter circle drawn as one cubic Bézier.
const KAPPA: f64 = 0.552_284_749_830_793_4;

impl Outline {
    fn new(start: Point) -> Outline {
        Outline {
            start,
            segs: Vec::with_capacity(8),
        }
    }

    fn line(&mut self, p: Point) -> &mut Outline {
        self.segs.push(Seg::Line(p));
        self
    }

    /// A quarter of the axis-aligned ellipse around `c` with radii `rx`, `ry`, from the
    /// direction `from` to the perpendicular direction `to` (unit axis vectors).
    fn quarter(&mut self, c: Point, rx: f64, ry: f64, from: Point, to: Point) -> &mut Outline {
        let at = |d: Point, k: f64| (d.0 * rx * k, d.1 * ry * k);
        let p0 = (c.0 + at(from, 1.0).0, c.1 + at(from, 1.0).1);
        let p3 = (c.0 + at(to, 1.0).0, c.1 + at(to, 1.0).1);
        let c1 = (p0.0 + at(to, KAPPA).0, p0.1 + at(to, KAPPA).1);
        let c2 = (p3.0 + at(from, KAPPA).0, p3.1 + at(from, KAPPA).1);
        self.segs.push(Seg::Cubic(c1, c2, p3));
        self
    }

    fn map(&self, f: impl Fn(Point) -> Point) -> Outline {
        Outline {
            start: f(self.start),
            segs: self
                .segs
                .iter()
                .map(|s| match *s {
                    Seg::Line(p) => Seg::Line(f(p)),
                    Seg::Cubic(a, b, p) => Seg::Cubic(f(a), f(b), f(p)),
                })
                .collect(),
        }
    }

    fn end(&self, i: usize) -> Point {
        match i {
            0 => self.start,
            _ => match self.segs[i - 1] {
                Seg::Line(p) | Seg::Cubic(_, _, p) => p,
            },
        }
    }

    /// Twice the signed area of the control polygon. For these outlines (no self-crossings,
    /// arcs of at most a quarter turn) it has the sign of the curve's own area.
    fn signed_area2(&self) -> f64 {
        let mut pts = vec![self.start];
        for s in &self.segs {
            match *s {
                Seg::Line(p) => pts.push(p),
                Seg::Cubic(a, b, p) => pts.extend([a, b, p]),
            }
        }
        let n = pts.len();
        (0..n)
            .map(|i| {
                let (a, b) = (pts[i], pts[(i + 1) % n]);
                a.0 * b.1 - b.0 * a.1
            })
            .sum()
    }

    fn emit(&self, pen: &mut Pen) {
        let n = self.segs.len();
        if self.signed_area2() >= 0.0 {
            pen.move_to(self.start);
            for s in &self.segs {
                match *s {
                    Seg::Line(p) => pen.line_to(p),
                    Seg::Cubic(a, b, p) => pen.cubic_to(a, b, p),
                }
            }
        } else {
            pen.move_to(self.end(n));
            for i in (0..n).rev() {
                match self.segs[i] {
                    Seg::Line(_) => pen.line_to(self.end(i)),
                    Seg::Cubic(a, b, _) => pen.cubic_to(b, a, self.end(i)),
                }
            }
        }
        pen.close();
    }
}

/// The weight of one arm of a box-drawing character.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum W {
    /// No arm.
    O,
    /// Light.
    L,
    /// Heavy.
    H,
    /// Double.
    D,
}

use W::{D, H, L, O};

/// Arms as [left, right, up, down], from the Unicode character names.
fn arms(c: char) -> [W; 4] {
    match c {
        '─' => [L, L, O, O], // LIGHT HORIZONTAL
        '━' => [H, H, O, O], // HEAVY HORIZONTAL
        '│' => [O, O, L, L], // LIGHT VERTICAL
        '┃' => [O, O, H, H], // HEAVY VERTICAL
        '┌' => [O, L, O, L], // LIGHT DOWN AND RIGHT
        '┍' => [O, H, O, L], // DOWN LIGHT AND RIGHT HEAVY
        '┎' => [O, L, O, H], // DOWN HEAVY AND RIGHT LIGHT
        '┏' => [O, H, O, H], // HEAVY DOWN AND RIGHT
        '┐' => [L, O, O, L], // LIGHT DOWN AND LEFT
        '┑' => [H, O, O, L], // DOWN LIGHT AND LEFT HEAVY
        '┒' => [L, O, O, H], // DOWN HEAVY AND LEFT LIGHT
        '┓' => [H, O, O, H], // HEAVY DOWN AND LEFT
        '└' => [O, L, L, O], // LIGHT UP AND RIGHT
        '┕' => [O, H, L, O], // UP LIGHT AND RIGHT HEAVY
        '┖' => [O, L, H, O], // UP HEAVY AND RIGHT LIGHT
        '┗' => [O, H, H, O], // HEAVY UP AND RIGHT
        '┘' => [L, O, L, O], // LIGHT UP AND LEFT
        '┙' => [H, O, L, O], // UP LIGHT AND LEFT HEAVY
        '┚' => [L, O, H, O], // UP HEAVY AND LEFT LIGHT
        '┛' => [H, O, H, O], // HEAVY UP AND LEFT
        '├' => [O, L, L, L], // LIGHT VERTICAL AND RIGHT
        '┝' => [O, H, L, L], // VERTICAL LIGHT AND RIGHT HEAVY
        '┞' => [O, L, H, L], // UP HEAVY AND RIGHT DOWN LIGHT
        '┟' => [O, L, L, H], // DOWN HEAVY AND RIGHT UP LIGHT
        '┠' => [O, L, H, H], // VERTICAL HEAVY AND RIGHT LIGHT
        '┡' => [O, H, H, L], // DOWN LIGHT AND RIGHT UP HEAVY
        '┢' => [O, H, L, H], // UP LIGHT AND RIGHT DOWN HEAVY
        '┣' => [O, H, H, H], // HEAVY VERTICAL AND RIGHT
        '┤' => [L, O, L, L], // LIGHT VERTICAL AND LEFT
        '┥' => [H, O, L, L], // VERTICAL LIGHT AND LEFT HEAVY
        '┦' => [L, O, H, L], // UP HEAVY AND LEFT DOWN LIGHT
        '┧' => [L, O, L, H], // DOWN HEAVY AND LEFT UP LIGHT
        '┨' => [L, O, H, H], // VERTICAL HEAVY AND LEFT LIGHT
        '┩' => [H, O, H, L], // DOWN LIGHT AND LEFT UP HEAVY
        '┪' => [H, O, L, H], // UP LIGHT AND LEFT DOWN HEAVY
        '┫' => [H, O, H, H], // HEAVY VERTICAL AND LEFT
        '┬' => [L, L, O, L], // LIGHT DOWN AND HORIZONTAL
        '┭' => [H, L, O, L], // LEFT HEAVY AND RIGHT DOWN LIGHT
        '┮' => [L, H, O, L], // RIGHT HEAVY AND LEFT DOWN LIGHT
        '┯' => [H, H, O, L], // DOWN LIGHT AND HORIZONTAL HEAVY
        '┰' => [L, L, O, H], // DOWN HEAVY AND HORIZONTAL LIGHT
        '┱' => [H, L, O, H], // RIGHT LIGHT AND LEFT DOWN HEAVY
        '┲' => [L, H, O, H], // LEFT LIGHT AND RIGHT DOWN HEAVY
        '┳' => [H, H, O, H], // HEAVY DOWN AND HORIZONTAL
        '┴' => [L, L, L, O], // LIGHT UP AND HORIZONTAL
        '┵' => [H, L, L, O], // LEFT HEAVY AND RIGHT UP LIGHT
        '┶' => [L, H, L, O], // RIGHT HEAVY AND LEFT UP LIGHT
        '┷' => [H, H, L, O], // UP LIGHT AND HORIZONTAL HEAVY
        '┸' => [L, L, H, O], // UP HEAVY AND HORIZONTAL LIGHT
        '┹' => [H, L, H, O], // RIGHT LIGHT AND LEFT UP HEAVY
        '┺' => [L, H, H, O], // LEFT LIGHT AND RIGHT UP HEAVY
        '┻' => [H, H, H, O], // HEAVY UP AND HORIZONTAL
        '┼' => [L, L, L, L], // LIGHT VERTICAL AND HORIZONTAL
        '┽' => [H, L, L, L], // LEFT HEAVY AND RIGHT VERTICAL LIGHT
        '┾' => [L, H, L, L], // RIGHT HEAVY AND LEFT VERTICAL LIGHT
        '┿' => [H, H, L, L], // VERTICAL LIGHT AND HORIZONTAL HEAVY
        '╀' => [L, L, H, L], // UP HEAVY AND DOWN HORIZONTAL LIGHT
        '╁' => [L, L, L, H], // DOWN HEAVY AND UP HORIZONTAL LIGHT
        '╂' => [L, L, H, H], // VERTICAL HEAVY AND HORIZONTAL LIGHT
        '╃' => [H, L, H, L], // LEFT UP HEAVY AND RIGHT DOWN LIGHT
        '╄' => [L, H, H, L], // RIGHT UP HEAVY AND LEFT DOWN LIGHT
        '╅' => [H, L, L, H], // LEFT DOWN HEAVY AND RIGHT UP LIGHT
        '╆' => [L, H, L, H], // RIGHT DOWN HEAVY AND LEFT UP LIGHT
        '╇' => [H, H, H, L], // DOWN LIGHT AND UP HORIZONTAL HEAVY
        '╈' => [H, H, L, H], // UP LIGHT AND DOWN HORIZONTAL HEAVY
        '╉' => [H, L, H, H], // RIGHT LIGHT AND LEFT VERTICAL HEAVY
        '╊' => [L, H, H, H], // LEFT LIGHT AND RIGHT VERTICAL HEAVY
        '╋' => [H, H, H, H], // HEAVY VERTICAL AND HORIZONTAL
        '═' => [D, D, O, O], // DOUBLE HORIZONTAL
        '║' => [O, O, D, D], // DOUBLE VERTICAL
        '╒' => [O, D, O, L], // DOWN SINGLE AND RIGHT DOUBLE
        '╓' => [O, L, O, D], // DOWN DOUBLE AND RIGHT SINGLE
        '╔' => [O, D, O, D], // DOUBLE DOWN AND RIGHT
        '╕' => [D, O, O, L], // DOWN SINGLE AND LEFT DOUBLE
        '╖' => [L, O, O, D], // DOWN DOUBLE AND LEFT SINGLE
        '╗' => [D, O, O, D], // DOUBLE DOWN AND LEFT
        '╘' => [O, D, L, O], // UP SINGLE AND RIGHT DOUBLE
        '╙' => [O, L, D, O], // UP DOUBLE AND RIGHT SINGLE
        '╚' => [O, D, D, O], // DOUBLE UP AND RIGHT
        '╛' => [D, O, L, O], // UP SINGLE AND LEFT DOUBLE
        '╜' => [L, O, D, O], // UP DOUBLE AND LEFT SINGLE
        '╝' => [D, O, D, O], // DOUBLE UP AND LEFT
        '╞' => [O, D, L, L], // VERTICAL SINGLE AND RIGHT DOUBLE
        '╟' => [O, L, D, D], // VERTICAL DOUBLE AND RIGHT SINGLE
        '╠' => [O, D, D, D], // DOUBLE VERTICAL AND RIGHT
        '╡' => [D, O, L, L], // VERTICAL SINGLE AND LEFT DOUBLE
        '╢' => [L, O, D, D], // VERTICAL DOUBLE AND LEFT SINGLE
        '╣' => [D, O, D, D], // DOUBLE VERTICAL AND LEFT
        '╤' => [D, D, O, L], // DOWN SINGLE AND HORIZONTAL DOUBLE
        '╥' => [L, L, O, D], // DOWN DOUBLE AND HORIZONTAL SINGLE
        '╦' => [D, D, O, D], // DOUBLE DOWN AND HORIZONTAL
        '╧' => [D, D, L, O], // UP SINGLE AND HORIZONTAL DOUBLE
        '╨' => [L, L, D, O], // UP DOUBLE AND HORIZONTAL SINGLE
        '╩' => [D, D, D, O], // DOUBLE UP AND HORIZONTAL
        '╪' => [D, D, L, L], // VERTICAL SINGLE AND HORIZONTAL DOUBLE
        '╫' => [L, L, D, D], // VERTICAL DOUBLE AND HORIZONTAL SINGLE
        '╬' => [D, D, D, D], // DOUBLE VERTICAL AND HORIZONTAL
        '╴' => [L, O, O, O], // LIGHT LEFT
        '╵' => [O, O, L, O], // LIGHT UP
        '╶' => [O, L, O, O], // LIGHT RIGHT
        '╷' => [O, O, O, L], // LIGHT DOWN
        '╸' => [H, O, O, O], // HEAVY LEFT
        '╹' => [O, O, H, O], // HEAVY UP
        '╺' => [O, H, O, O], // HEAVY RIGHT
        '╻' => [O, O, O, H], // HEAVY DOWN
        '╼' => [L, H, O, O], // LIGHT LEFT AND HEAVY RIGHT
        '╽' => [O, O, L, H], // LIGHT UP AND HEAVY DOWN
        '╾' => [H, L, O, O], // HEAVY LEFT AND LIGHT RIGHT
        '╿' => [O, O, H, L], // HEAVY UP AND LIGHT DOWN
        _ => [O, O, O, O],
    }
}

fn box_drawing(c: char, cell: &Cell, s: Stroke, pen: &mut Pen) {
    match c {
        '┄' => dashes(cell, true, 3, s.light, pen),
        '┅' => dashes(cell, true, 3, s.heavy, pen),
        '┆' => dashes(cell, false, 3, s.light, pen),
        '┇' => dashes(cell, false, 3, s.heavy, pen),
        '┈' => dashes(cell, true, 4, s.light, pen),
        '┉' => dashes(cell, true, 4, s.heavy, pen),
        '┊' => dashes(cell, false, 4, s.light, pen),
        '┋' => dashes(cell, false, 4, s.heavy, pen),
        '╌' => dashes(cell, true, 2, s.light, pen),
        '╍' => dashes(cell, true, 2, s.heavy, pen),
        '╎' => dashes(cell, false, 2, s.light, pen),
        '╏' => dashes(cell, false, 2, s.heavy, pen),
        '╭' => arc_corner(cell, s.light, 1.0, 1.0, pen),
        '╮' => arc_corner(cell, s.light, -1.0, 1.0, pen),
        '╯' => arc_corner(cell, s.light, -1.0, -1.0, pen),
        '╰' => arc_corner(cell, s.light, 1.0, -1.0, pen),
        '╱' => diagonal(cell, s.light, true, pen),
        '╲' => diagonal(cell, s.light, false, pen),
        '╳' => {
            diagonal(cell, s.light, true, pen);
            diagonal(cell, s.light, false, pen);
        }
        _ => junction(arms(c), cell, s, pen),
    }
}

/// One axis (horizontal or vertical) of a junction, in along/across coordinates.
struct Axis {
    /// The cell edges along the axis and the centre between them.
    lo: f64,
    hi: f64,
    mid: f64,
    /// The arms towards `lo` and towards `hi`.
    neg: W,
    pos: W,
    /// The perpendicular arms on the negative and the positive across side.
    side_neg: W,
    side_pos: W,
}

fn thickness(w: W, s: Stroke) -> f64 {
    match w {
        O => 0.0,
        L | D => s.light,
        H => s.heavy,
    }
}

/// Draws the arms along one axis. `bar(from, to, across_offset, thickness)` fills one
/// straight line segment.
fn axis_lines(ax: &Axis, s: Stroke, mut bar: impl FnMut(f64, f64, f64, f64)) {
    // Distance between the centre lines of a double line and the cell's centre line: each
    // line is `light` thick, so the gap between them is `light` too.
    let d = s.light;
    let half = s.light / 2.0;
    // How far short of the centre an arm stops (negative: how far past it it reaches).
    let single_end = || match (ax.side_neg, ax.side_pos) {
        // Between the two lines of a crossing double line: stop at the near one.
        (D, D) => d - half,
        // A corner or tee with a double line: reach across both of its lines.
        (D, _) | (_, D) => -(d + half),
        (a, b) => -thickness(a, s).max(thickness(b, s)) / 2.0,
    };
    // The same for the line of a double arm on the side of `near`.
    let double_end = |near: W, far: W| match (near, far) {
        // Turns into the perpendicular double line on its side: the inner corner.
        (D, _) => d - half,
        (L | H, _) => -thickness(near, s) / 2.0,
        // The outer line of a double corner reaches across both perpendicular lines.
        (O, D) => -(d + half),
        (O, L | H) => -thickness(far, s) / 2.0,
        (O, O) => 0.0,
    };
    // (across offset, thickness, end) of each line an arm is made of.
    let lines = |w: W| -> [Option<(f64, f64, f64)>; 2] {
        match w {
            O => [None, None],
            L | H => [Some((0.0, thickness(w, s), single_end())), None],
            D => [
                Some((-d, s.light, double_end(ax.side_neg, ax.side_pos))),
                Some((d, s.light, double_end(ax.side_pos, ax.side_neg))),
            ],
        }
    };
    for (neg, pos) in lines(ax.neg).into_iter().zip(lines(ax.pos)) {
        // Equal arms are one bar where their pieces would meet or overlap (fewer subpaths,
        // same union), and a single line crossing a double one (╪ ╫) runs straight through.
        if ax.neg == ax.pos
            && let Some((off, t, end)) = neg
            && (end <= 0.0 || ax.neg != D)
        {
            bar(ax.lo, ax.hi, off, t);
            continue;
        }
        if let Some((off, t, end)) = neg {
            bar(ax.lo, ax.mid - end, off, t);
        }
        if let Some((off, t, end)) = pos {
            bar(ax.mid + end, ax.hi, off, t);
        }
    }
}

fn junction(arms: [W; 4], cell: &Cell, s: Stroke, pen: &mut Pen) {
    let [left, right, up, down] = arms;
    let (cx, cy) = (cell.cx(), cell.cy());
    let horizontal = Axis {
        lo: cell.x,
        hi: cell.right(),
        mid: cx,
        neg: left,
        pos: right,
        side_neg: up,
        side_pos: down,
    };
    axis_lines(&horizontal, s, |a, b, off, t| {
        pen.rect(a, cy + off - t / 2.0, b, cy + off + t / 2.0);
    });
    let vertical = Axis {
        lo: cell.y,
        hi: cell.bottom(),
        mid: cy,
        neg: up,
        pos: down,
        side_neg: left,
        side_pos: right,
    };
    axis_lines(&vertical, s, |a, b, off, t| {
        pen.rect(cx + off - t / 2.0, a, cx + off + t / 2.0, b);
    });
}

/// `n` dashes per cell, with half a gap at each end so that the pattern continues evenly into
/// the neighbouring cell.
fn dashes(cell: &Cell, horizontal: bool, n: u32, t: f64, pen: &mut Pen) {
    let (start, len) = if horizontal {
        (cell.x, cell.w)
    } else {
        (cell.y, cell.h)
    };
    let seg = len / f64::from(n);
    // At least the line's thickness so heavy dashes still read as dashed, but never more
    // than half the period.
    let gap = (seg / 3.0).max(t).min(seg / 2.0);
    for i in 0..n {
        let a = start + f64::from(i) * seg + gap / 2.0;
        let b = start + f64::from(i + 1) * seg - gap / 2.0;
        if horizontal {
            pen.rect(a, cell.cy() - t / 2.0, b, cell.cy() + t / 2.0);
        } else {
            pen.rect(cell.cx() - t / 2.0, a, cell.cx() + t / 2.0, b);
        }
    }
}

/// A rounded corner with arms towards `sx` (+1 right, -1 left) and `sy` (+1 down, -1 up).
fn arc_corner(cell: &Cell, t: f64, sx: f64, sy: f64, pen: &mut Pen) {
    let (hw, hh, ht) = (cell.w / 2.0, cell.h / 2.0, t / 2.0);
    // The largest quarter circle that fits; the longer arm gets a straight piece so that
    // both ends leave the cell along its centre lines, exactly like straight lines.
    let r = hw.min(hh);
    // Local coordinates: u from the centre towards the horizontal arm, v towards the
    // vertical one.
    let mut o = Outline::new((hw, -ht));
    o.line((r, -ht))
        .quarter((r, r), r + ht, r + ht, (0.0, -1.0), (-1.0, 0.0))
        .line((-ht, hh))
        .line((ht, hh))
        .line((ht, r))
        .quarter((r, r), r - ht, r - ht, (-1.0, 0.0), (0.0, -1.0))
        .line((hw, ht));
    let (cx, cy) = (cell.cx(), cell.cy());
    o.map(|(u, v)| (cx + sx * u, cy + sy * v)).emit(pen);
}

/// ╱ (`rising`) or ╲: a parallelogram `t` thick (perpendicular to the line) from corner to
/// corner, cut by the top and bottom edges.
fn diagonal(cell: &Cell, t: f64, rising: bool, pen: &mut Pen) {
    let dx = t / 2.0 * cell.w.hypot(cell.h) / cell.h;
    let (top, bottom) = (cell.y, cell.bottom());
    let (x_top, x_bottom) = if rising {
        (cell.right(), cell.x)
    } else {
        (cell.x, cell.right())
    };
    let mut o = Outline::new((x_top - dx, top));
    o.line((x_top + dx, top))
        .line((x_bottom + dx, bottom))
        .line((x_bottom - dx, bottom));
    o.emit(pen);
}

fn block(c: char, cell: &Cell, pen: &mut Pen) -> Fill {
    let Cell { x, y, w, h } = *cell;
    let (right, bottom) = (cell.right(), cell.bottom());
    let eighths = |c: char, base: char| f64::from(c as u32 - base as u32) / 8.0;
    match c {
        '▀' => pen.rect(x, y, right, cell.cy()),
        // Lower one eighth ..= full block.
        '▁'..='█' => pen.rect(x, bottom - h * eighths(c, '\u{2580}'), right, bottom),
        // Left seven eighths ..= left one eighth.
        '▉'..='▏' => pen.rect(x, y, x + w * eighths('\u{2590}', c), bottom),
        '▐' => pen.rect(cell.cx(), y, right, bottom),
        '░' | '▒' | '▓' => {
            pen.rect(x, y, right, bottom);
            return Fill::Alpha(match c {
                '░' => 0.25,
                '▒' => 0.5,
                _ => 0.75,
            });
        }
        '▔' => pen.rect(x, y, right, y + h / 8.0),
        '▕' => pen.rect(right - w / 8.0, y, right, bottom),
        _ => quadrants(c, cell, pen),
    }
    Fill::Solid
}

fn quadrants(c: char, cell: &Cell, pen: &mut Pen) {
    // Bits: upper left, upper right, lower left, lower right.
    let q: u8 = match c {
        '▖' => 0b0100,
        '▗' => 0b1000,
        '▘' => 0b0001,
        '▙' => 0b1101,
        '▚' => 0b1001,
        '▛' => 0b0111,
        '▜' => 0b1011,
        '▝' => 0b0010,
        '▞' => 0b0110,
        '▟' => 0b1110,
        _ => 0,
    };
    let (cx, cy) = (cell.cx(), cell.cy());
    for (bits, y0, y1) in [(q & 0b11, cell.y, cy), (q >> 2, cy, cell.bottom())] {
        match bits {
            0b11 => pen.rect(cell.x, y0, cell.right(), y1),
            0b01 => pen.rect(cell.x, y0, cx, y1),
            0b10 => pen.rect(cx, y0, cell.right(), y1),
            _ => {}
        }
    }
}

/// U+E0B0–U+E0B7. Each is built pointing right from the cell's left edge and mirrored for the
/// left-pointing variants.
fn powerline(c: char, cell: &Cell, s: Stroke, pen: &mut Pen) {
    let Cell { w, h, .. } = *cell;
    let (top, cy, bottom) = (cell.y, cell.cy(), cell.bottom());
    let t = s.light;
    // Local coordinates: u from the flat side, y absolute.
    let o = match c {
        '\u{E0B0}' | '\u{E0B2}' => {
            let mut o = Outline::new((0.0, top));
            o.line((w, cy)).line((0.0, bottom));
            o
        }
        '\u{E0B1}' | '\u{E0B3}' => {
            // The outer edges are the solid triangle's; the inner ones are those moved
            // inwards by `t`, measured perpendicular to the edge.
            let slant = w.hypot(h / 2.0);
            let dy = t * slant / w;
            let dx = t * slant / (h / 2.0);
            let mut o = Outline::new((0.0, top));
            o.line((w, cy))
                .line((0.0, bottom))
                .line((0.0, bottom - dy))
                .line((w - dx, cy))
                .line((0.0, top + dy));
            o
        }
        '\u{E0B4}' | '\u{E0B6}' => {
            let mut o = Outline::new((0.0, top));
            o.quarter((0.0, cy), w, h / 2.0, (0.0, -1.0), (1.0, 0.0))
                .quarter((0.0, cy), w, h / 2.0, (1.0, 0.0), (0.0, 1.0));
            o
        }
        _ => {
            // U+E0B5, U+E0B7: the half circle's outline, `t` thick.
            let mut o = Outline::new((0.0, top));
            o.quarter((0.0, cy), w, h / 2.0, (0.0, -1.0), (1.0, 0.0))
                .quarter((0.0, cy), w, h / 2.0, (1.0, 0.0), (0.0, 1.0))
                .line((0.0, bottom - t))
                .quarter((0.0, cy), w - t, h / 2.0 - t, (0.0, 1.0), (1.0, 0.0))
                .quarter((0.0, cy), w - t, h / 2.0 - t, (1.0, 0.0), (0.0, -1.0));
            o
        }
    };
    let mirrored = matches!(c, '\u{E0B2}' | '\u{E0B3}' | '\u{E0B6}' | '\u{E0B7}');
    let (left, right) = (cell.x, cell.right());
    o.map(|(u, y)| (if mirrored { right - u } else { left + u }, y))
        .emit(pen);
}

#[cfg(test)]
mod tests;
