//! Path data in its shortest usual form: the layout writes box drawing, blocks and decorations
//! with absolute commands (`M H V L C Z`, plus the relative `h v q z` of a few shapes), which
//! is what it needs to join neighbouring rectangles; the SVG gets every command relative.
//! Repeated shapes then read the same wherever they are (`h8.4v2.34h-8.4z` in every cell of a
//! rule), which is what gzip feeds on, and the numbers are shorter.
//!
//! Every number is a whole number of hundredths (see [`super::number`]), so the relative
//! values are computed exactly, in integers: each point ends where the absolute data put it.
//!
//! Rectangles that meet edge to edge are written as one first ([`join_rectangles`]): the
//! layout draws cell by cell, so a table's vertical rule is a rectangle a row and an
//! underline one a cell, where the filled area is one rectangle. A rectangle is then written
//! from its bottom-left corner, `m x y v-h w vh z`, clockwise like the layout's `h w v h h -w
//! z` but with its width once: the number that changes from frame to frame of a progress
//! bar.
//!
//! One reader ([`walk`]) turns the layout's commands into absolute segments for all of it:
//! what is a rectangle, which row a subpath is in and what is written.

use std::collections::{BTreeMap, HashMap};

use super::number::push_hundredths;

/// A point in hundredths of a pixel.
type Point = (i64, i64);

/// Appends `d` with rectangles that meet joined and every command relative, for a drawing
/// whose origin is at `top` (hundredths) on the page: the first move is from (0, `top`), so
/// the drawing placed at `y = top` is where `d` puts it (0 for the page itself). Returns
/// `false`, having written nothing, when `d` holds something the layout does not write
/// (another command, a number with more than two decimals or an exponent), so that the
/// caller can write `d` as it is.
pub(crate) fn push_relative_from(out: &mut String, d: &str, top: i64) -> bool {
    let start = out.len();
    let rewritten = join_rectangles(d);
    if write_relative(out, rewritten.as_deref().unwrap_or(d), (0, top)).is_none() {
        out.truncate(start);
        return false;
    }
    true
}

/// `d`'s subpaths by the band of rows each lies in: band `i` is `top + i·height ..
/// top + (i+1)·height` (hundredths), and a subpath belongs to the band holding the middle of
/// its vertical extent (the layout draws each cell within its row). The bands in order, each
/// with its subpaths in their order in `d`. `None` when `d` is not made of subpaths that each
/// start with an absolute `M`, or holds something the layout does not write.
pub(crate) fn split_into_bands(d: &str, top: i64, height: i64) -> Option<BTreeMap<i64, String>> {
    if height <= 0 {
        return None;
    }
    let mut bands: BTreeMap<i64, String> = BTreeMap::new();
    for piece in subpaths(d)? {
        let (low, high) = y_extent(piece)?;
        let middle = low.checked_add(high)? / 2;
        let band = middle.checked_sub(top)?.div_euclid(height);
        bands.entry(band).or_default().push_str(piece);
    }
    Some(bands)
}

/// The least and greatest y a subpath reaches, control points included (hundredths).
fn y_extent(piece: &str) -> Option<(i64, i64)> {
    let (mut low, mut high) = (i64::MAX, i64::MIN);
    walk(piece, |segment| {
        for &(_, y) in segment.points() {
            low = low.min(y);
            high = high.max(y);
        }
        Some(())
    })?;
    (low <= high).then_some((low, high))
}

/// The subpaths of `d`, each from its `M`; `None` unless every subpath starts with an
/// absolute `M` (as the layout writes them), so each stands on its own.
fn subpaths(d: &str) -> Option<impl Iterator<Item = &str>> {
    let d = d.trim_start();
    if !d.starts_with('M') {
        return None;
    }
    let mut starts = d.match_indices('M').map(|(i, _)| i).peekable();
    Some(std::iter::from_fn(move || {
        let start = starts.next()?;
        let end = starts.peek().copied().unwrap_or(d.len());
        Some(&d[start..end])
    }))
}

/// A rectangle in hundredths: left, top, right, bottom.
type Rect = [i64; 4];

/// A subpath of path data: a rectangle, or anything else as written.
enum Piece<'a> {
    Rect(Rect),
    Other(&'a str),
}

/// `d` with each rectangle that continues another to the right at the same height, then each
/// that continues another downwards at the same width, joined into that one (where it was
/// first written); the same filled area under the nonzero rule, as every rectangle the
/// layout writes winds clockwise. Each rectangle is written `M x0 y1 V y0 H x1 V y1 Z`
/// (clockwise too). `None` when `d` is not made of subpaths that each start with an absolute
/// `M`.
pub(crate) fn join_rectangles(d: &str) -> Option<String> {
    let mut pieces: Vec<Piece> = subpaths(d)?
        .map(|piece| rectangle(piece).map_or(Piece::Other(piece), Piece::Rect))
        .collect();
    // Across: the edge is x, the run is y0..y1. Down: the edge is y, the run is x0..x1.
    join_along(
        &mut pieces,
        |r| (r[1], r[3], r[0]),
        |r| r[2],
        |r, to| r[2] = to,
    );
    join_along(
        &mut pieces,
        |r| (r[0], r[2], r[1]),
        |r| r[3],
        |r, to| r[3] = to,
    );
    let mut out = String::with_capacity(d.len());
    for piece in &pieces {
        match piece {
            Piece::Other(text) => out.push_str(text),
            Piece::Rect([x0, y0, x1, y1]) => {
                out.push('M');
                push_hundredths(&mut out, *x0);
                out.push(' ');
                push_hundredths(&mut out, *y1);
                for (command, v) in [('V', y0), ('H', x1), ('V', y1)] {
                    out.push(command);
                    push_hundredths(&mut out, *v);
                }
                out.push('Z');
            }
        }
    }
    Some(out)
}

/// Joins each rectangle whose leading edge and extent (`start`: extent from, extent to, edge)
/// equal the trailing edge (`end`) and extent of one before it into that one.
fn join_along(
    pieces: &mut Vec<Piece>,
    start: impl Fn(&Rect) -> (i64, i64, i64),
    end: impl Fn(&Rect) -> i64,
    extend: impl Fn(&mut Rect, i64),
) {
    // (extent from, extent to, trailing edge) → index of the rectangle ending there.
    let mut open: HashMap<(i64, i64, i64), usize> = HashMap::new();
    let mut kept = Vec::with_capacity(pieces.len());
    for piece in pieces.drain(..) {
        let Piece::Rect(r) = piece else {
            kept.push(piece);
            continue;
        };
        let (from, to, edge) = start(&r);
        if let Some(i) = open.remove(&(from, to, edge))
            && let Some(Piece::Rect(earlier)) = kept.get_mut(i)
        {
            extend(earlier, end(&r));
            open.insert((from, to, end(earlier)), i);
            continue;
        }
        open.insert((from, to, end(&r)), kept.len());
        kept.push(Piece::Rect(r));
    }
    *pieces = kept;
}

/// The rectangle a subpath draws, if it is one as the layout writes them: from its top-left
/// corner clockwise (`M x0 y0 H x1 V y1 H x0 Z`, or `M x0 y0 h w v h h -w z`), with a
/// positive width and height.
fn rectangle(piece: &str) -> Option<Rect> {
    let mut segments = [Segment::Close; 5];
    let mut count = 0;
    walk(piece, |segment| {
        *segments.get_mut(count)? = segment;
        count += 1;
        Some(())
    })?;
    match segments {
        [
            Segment::Move((x0, y0)),
            Segment::Line((x1, top)),
            Segment::Line((right, y1)),
            Segment::Line((left, bottom)),
            Segment::Close,
        ] if count == 5 && (top, right, left, bottom) == (y0, x1, x0, y1) && x1 > x0 && y1 > y0 => {
            Some([x0, y0, x1, y1])
        }
        _ => None,
    }
}

/// Writes `d` with every command relative, the first from `from`.
fn write_relative(out: &mut String, d: &str, from: Point) -> Option<()> {
    let mut writer = Writer { out };
    let (mut at, mut subpath) = (from, from);
    walk(d, |segment| {
        let relative = |p: Point| Some((p.0.checked_sub(at.0)?, p.1.checked_sub(at.1)?));
        match segment {
            Segment::Move(p) => {
                let (dx, dy) = relative(p)?;
                writer.command('m', &[dx, dy]);
                subpath = p;
            }
            Segment::Line(p) => match relative(p)? {
                (dx, 0) => writer.command('h', &[dx]),
                (0, dy) => writer.command('v', &[dy]),
                (dx, dy) => writer.command('l', &[dx, dy]),
            },
            Segment::Cubic([c1, c2, p]) => {
                let [(a, b), (c, d), (e, f)] = [relative(c1)?, relative(c2)?, relative(p)?];
                writer.command('c', &[a, b, c, d, e, f]);
            }
            Segment::Quadratic([c, p]) => {
                let [(a, b), (e, f)] = [relative(c)?, relative(p)?];
                writer.command('q', &[a, b, e, f]);
            }
            Segment::Close => writer.command('z', &[]),
        }
        at = segment.end().unwrap_or(subpath);
        Some(())
    })
}

/// One command of path data the layout wrote, its points absolute (hundredths).
#[derive(Clone, Copy)]
enum Segment {
    Move(Point),
    Line(Point),
    /// Two control points and the end.
    Cubic([Point; 3]),
    /// The control point and the end.
    Quadratic([Point; 2]),
    Close,
}

impl Segment {
    /// Every point of it, control points included; none for a close.
    fn points(&self) -> &[Point] {
        match self {
            Segment::Move(p) | Segment::Line(p) => std::slice::from_ref(p),
            Segment::Cubic(points) => points,
            Segment::Quadratic(points) => points,
            Segment::Close => &[],
        }
    }

    /// Where it ends; `None` for a close, which ends where its subpath began.
    fn end(&self) -> Option<Point> {
        self.points().last().copied()
    }
}

/// Reads path data the layout wrote (`M H V L C Z` and the relative `h v q z`), calling
/// `each` with every command as a [`Segment`] in order; `None` as soon as `d` holds anything
/// else, a number overflows or `each` says `None`. The one reader of the commands: what
/// joins, bands and rewrites path data agree on what it draws.
fn walk(d: &str, mut each: impl FnMut(Segment) -> Option<()>) -> Option<()> {
    let mut input = Numbers { rest: d.as_bytes() };
    let (mut at, mut subpath): (Point, Point) = ((0, 0), (0, 0));
    let offset = |at: Point, dx: i64, dy: i64| Some((at.0.checked_add(dx)?, at.1.checked_add(dy)?));
    while let Some(command) = input.command()? {
        // A command's arguments may repeat (after M, as L).
        let mut repeat = command;
        loop {
            let segment = match repeat {
                b'M' => Segment::Move((input.number()?, input.number()?)),
                b'L' => Segment::Line((input.number()?, input.number()?)),
                b'H' => Segment::Line((input.number()?, at.1)),
                b'V' => Segment::Line((at.0, input.number()?)),
                b'h' => Segment::Line(offset(at, input.number()?, 0)?),
                b'v' => Segment::Line(offset(at, 0, input.number()?)?),
                b'C' => Segment::Cubic([
                    (input.number()?, input.number()?),
                    (input.number()?, input.number()?),
                    (input.number()?, input.number()?),
                ]),
                b'q' => {
                    let control = offset(at, input.number()?, input.number()?)?;
                    Segment::Quadratic([control, offset(at, input.number()?, input.number()?)?])
                }
                b'Z' | b'z' => Segment::Close,
                _ => return None,
            };
            if let Segment::Move(p) = segment {
                subpath = p;
            }
            at = segment.end().unwrap_or(subpath);
            each(segment)?;
            if matches!(segment, Segment::Close) || !input.number_follows() {
                break;
            }
            if repeat == b'M' {
                repeat = b'L';
            }
        }
    }
    Some(())
}

/// Reads path data the layout wrote.
struct Numbers<'a> {
    rest: &'a [u8],
}

impl Numbers<'_> {
    fn skip_separators(&mut self) {
        while let [b' ' | b',', rest @ ..] = self.rest {
            self.rest = rest;
        }
    }

    /// The next command letter; `Ok(None)` at the end, `None` if a number comes instead.
    fn command(&mut self) -> Option<Option<u8>> {
        self.skip_separators();
        match self.rest {
            [] => Some(None),
            [c, rest @ ..] if c.is_ascii_alphabetic() => {
                self.rest = rest;
                Some(Some(*c))
            }
            _ => None,
        }
    }

    fn number_follows(&mut self) -> bool {
        self.skip_separators();
        matches!(self.rest, [b'-' | b'0'..=b'9' | b'.', ..])
    }

    /// The next number in hundredths: `[-]digits[.d[d]]`.
    fn number(&mut self) -> Option<i64> {
        self.skip_separators();
        let negative = if let [b'-', rest @ ..] = self.rest {
            self.rest = rest;
            true
        } else {
            false
        };
        let mut whole: i64 = 0;
        let mut digits = 0;
        while let [c @ b'0'..=b'9', rest @ ..] = self.rest {
            whole = whole.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
            digits += 1;
            self.rest = rest;
        }
        let mut fraction = 0;
        if let [b'.', rest @ ..] = self.rest {
            self.rest = rest;
            for scale in [10, 1] {
                if let [c @ b'0'..=b'9', rest @ ..] = self.rest {
                    fraction += i64::from(c - b'0') * scale;
                    digits += 1;
                    self.rest = rest;
                }
            }
            if matches!(self.rest, [b'0'..=b'9', ..]) {
                return None;
            }
        }
        if digits == 0 || matches!(self.rest, [b'e' | b'E', ..]) {
            return None;
        }
        let n = whole.checked_mul(100)?.checked_add(fraction)?;
        Some(if negative { -n } else { n })
    }
}

/// Writes commands, separating numbers only where a sign does not.
struct Writer<'a> {
    out: &'a mut String,
}

impl Writer<'_> {
    fn command(&mut self, letter: char, values: &[i64]) {
        self.out.push(letter);
        for (i, &v) in values.iter().enumerate() {
            if i > 0 && v >= 0 {
                self.out.push(' ');
            }
            push_hundredths(self.out, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The points a path visits, absolute, in hundredths: an independent reading of both
    /// forms (every command of either, arguments one at a time).
    fn points(d: &str) -> Vec<(char, i64, i64)> {
        let mut out = Vec::new();
        let (mut x, mut y, mut sx, mut sy) = (0i64, 0i64, 0i64, 0i64);
        let mut tokens: Vec<String> = Vec::new();
        let mut current = String::new();
        for c in d.chars() {
            if c.is_ascii_alphabetic() || c == ' ' || (c == '-' && !current.is_empty()) {
                if !current.is_empty() {
                    tokens.push(std::mem::take(&mut current));
                }
                if c.is_ascii_alphabetic() {
                    tokens.push(c.to_string());
                } else if c == '-' {
                    current.push(c);
                }
            } else {
                current.push(c);
            }
        }
        if !current.is_empty() {
            tokens.push(current);
        }
        let num = |t: &str| (t.parse::<f64>().expect("a number") * 100.0).round() as i64;
        let mut i = 0;
        let mut last = 'M';
        while i < tokens.len() {
            let first = tokens[i].chars().next().expect("a token");
            // Arguments without a command repeat the last one (a moveto's as linetos).
            let c = if first.is_ascii_alphabetic() {
                i += 1;
                first
            } else {
                match last {
                    'M' => 'L',
                    'm' => 'l',
                    other => other,
                }
            };
            last = c;
            let mut arg = || {
                i += 1;
                num(&tokens[i - 1])
            };
            match c {
                'M' | 'm' | 'L' | 'l' => {
                    let (a, b) = (arg(), arg());
                    (x, y) = if c.is_lowercase() {
                        (x + a, y + b)
                    } else {
                        (a, b)
                    };
                    if c.eq_ignore_ascii_case(&'m') {
                        (sx, sy) = (x, y);
                    }
                }
                'H' => x = arg(),
                'h' => x += arg(),
                'V' => y = arg(),
                'v' => y += arg(),
                'C' | 'c' | 'q' => {
                    let n = if c == 'q' { 4 } else { 6 };
                    let v: Vec<i64> = (0..n).map(|_| arg()).collect();
                    let (bx, by) = if c == 'C' { (0, 0) } else { (x, y) };
                    for pair in v.chunks(2) {
                        out.push((c.to_ascii_lowercase(), bx + pair[0], by + pair[1]));
                    }
                    (x, y) = (bx + v[n - 2], by + v[n - 1]);
                    continue;
                }
                'Z' | 'z' => (x, y) = (sx, sy),
                other => panic!("command {other}"),
            }
            out.push(('.', x, y));
        }
        out
    }

    fn relative(d: &str) -> String {
        let mut out = String::new();
        assert!(push_relative_from(&mut out, d, 0), "{d:?} was refused");
        out
    }

    #[test]
    fn rectangles_become_the_same_relative_shape_wherever_they_are() {
        let a = relative("M8 16.42H16.4V17.59H8Z");
        let b = relative("M8 16.42H16.4V17.59H8ZM20 16.42H28.4V17.59H20Z");
        // From the bottom-left corner, clockwise: up, across (the width, once), down.
        assert_eq!(a, "m8 17.59v-1.17h8.4v1.17z");
        assert_eq!(b, "m8 17.59v-1.17h8.4v1.17zm12 0v-1.17h8.4v1.17z");
    }

    #[test]
    fn rectangles_that_meet_are_joined_across_then_down() {
        // A rule of three cells, in both forms the layout writes.
        assert_eq!(
            relative(
                "M8 16.42H16.4V17.59H8ZM16.4 16.42h8.4v1.17h-8.4zM24.8 16.42H33.2V17.59H24.8Z"
            ),
            "m8 17.59v-1.17h25.2v1.17z"
        );
        // A vertical line through three rows, one row's piece cut in two.
        assert_eq!(
            relative("M11 0H12V18H11ZM11 18H12V27H11ZM11 27H12V36H11ZM11 36H12V54H11Z"),
            "m11 54v-54h1v54z"
        );
        // A 2×2 block: the rows join across first, then down.
        assert_eq!(
            relative("M0 0H1V1H0ZM1 0H2V1H1ZM0 1H1V2H0ZM1 1H2V2H1Z"),
            "m0 2v-2h2v2z"
        );
    }

    /// The number of subpaths of absolute path data.
    fn subpaths(d: &str) -> usize {
        d.matches('M').count()
    }

    #[test]
    fn rectangles_that_only_touch_or_differ_in_extent_stay_apart_and_in_order() {
        for d in [
            // Same row, a gap of 0.01.
            "M0 0H1V1H0ZM1.01 0H2V1H1.01Z",
            // Meeting edge to edge, but of other heights.
            "M0 0H1V1H0ZM1 0H2V1.5H1Z",
            // One below the other, of other widths.
            "M0 0H1V1H0ZM0 1H1.5V2H0Z",
            // A curve between two rectangles that would not join anyway.
            "M0 0H1V1H0ZM5 5C6 6 7 7 8 8ZM3 0H4V1H3Z",
            // Counter-clockwise: not a rectangle as the layout writes them.
            "M1 0H0V1H1ZM1 0H2V1H1Z",
        ] {
            let rewritten = join_rectangles(d).expect("subpaths from M");
            assert_eq!(subpaths(&rewritten), subpaths(d), "{d:?}: {rewritten:?}");
        }
        assert_eq!(
            join_rectangles("M1 0H0V1H1ZM1 0H2V1H1Z").as_deref(),
            Some("M1 0H0V1H1ZM1 1V0H2V1Z")
        );
        // What is not a rectangle stays where it was, between the joined ones.
        let d = "M0 0H1V1H0ZM5 5C6 6 7 7 8 8ZM1 0H2V1H1Z";
        assert_eq!(
            join_rectangles(d).as_deref(),
            Some("M0 1V0H2V1ZM5 5C6 6 7 7 8 8Z")
        );
        assert_eq!(points(&relative(d)), points("M0 1V0H2V1ZM5 5C6 6 7 7 8 8Z"));
        // Data that does not start a subpath with M is left as it is.
        assert!(join_rectangles("m0 0h1v1h-1z").is_none());
    }

    #[test]
    fn subpaths_go_to_the_band_holding_their_middle_and_keep_their_order() {
        // Bands of 18 from 8: a rule in band 0, an arc in band 1 (its curve reaches above
        // the band, its middle does not), a line through band 2 to its bottom edge, and a
        // second rule in band 0 after them.
        let d = "M8 16H20V17H8ZM30 30C30 25 35 25 40 25V32H30ZM11 44H12V62H11ZM20 16h5v1h-5z";
        assert_eq!(
            split_into_bands(d, 800, 1800),
            Some(BTreeMap::from([
                (0, "M8 16H20V17H8ZM20 16h5v1h-5z".to_owned()),
                (1, "M30 30C30 25 35 25 40 25V32H30Z".to_owned()),
                (2, "M11 44H12V62H11Z".to_owned()),
            ]))
        );
        // Drawn from each band's top, placed there: the same points as the page's.
        for (band, part) in split_into_bands(d, 800, 1800).expect("bands") {
            let top = 800 + band * 1800;
            let mut out = String::new();
            assert!(push_relative_from(&mut out, &part, top));
            let placed: Vec<_> = points(&out)
                .into_iter()
                .map(|(c, x, y)| (c, x, y + top))
                .collect();
            let absolute = join_rectangles(&part).expect("subpaths from M");
            assert_eq!(placed, points(&absolute), "band {band}: {out:?}");
        }
        assert!(split_into_bands("m0 0h1v1h-1z", 0, 1800).is_none());
        assert!(split_into_bands("M0 0A1 1 0 0 1 2 2Z", 0, 1800).is_none());
    }

    #[test]
    fn every_point_stays_where_the_absolute_data_put_it() {
        let paths = [
            "M8 16.42H16.4V17.59H8ZM11.03 0.5H13.37V62.01H11.03Z",
            "M0 0L8.4 18L8.4 0ZM1 2C3 4 5.5 6.25 7 8Z",
            "M10 20q2.1 -3.15 4.2 0q2.1 3.15 4.2 0",
            "M5 5H10V10L2 3Z M-3.5 -1.25 L4 4 Z",
            "M1 1 2 2 3 1Z",
        ];
        for d in paths {
            // The rectangles rewritten as they are written (from another corner), then made
            // relative: every point of that stays where it was.
            let absolute = join_rectangles(d).unwrap_or_else(|| d.to_owned());
            let r = relative(d);
            assert_eq!(points(&r), points(&absolute), "{d:?} became {r:?}");
            assert!(!r.chars().any(|c| c.is_ascii_uppercase()), "{r:?}");
        }
    }

    #[test]
    fn anything_the_layout_does_not_write_is_refused_and_nothing_is_written() {
        for d in [
            "M1 1A2 2 0 0 1 3 3Z",
            "M1.005 2Z",
            "M1e3 2Z",
            "M1 Z",
            "5 5",
            "M1 1H",
        ] {
            let mut out = String::from("kept");
            assert!(
                !push_relative_from(&mut out, d, 0),
                "{d:?} was accepted as {out:?}"
            );
            assert_eq!(out, "kept");
        }
    }
}
