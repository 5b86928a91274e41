use super::*;

/// Cell geometries: a typical 14 px cell at a fractional position, a tall one, a wide one.
const CELLS: [(f64, f64, f64, f64); 3] = [
    (16.8, 36.4, 8.4, 18.2),
    (3.0, 5.0, 7.0, 31.0),
    (100.25, 0.0, 20.0, 12.0),
];

fn stroke() -> Stroke {
    Stroke::for_font_size(14.0)
}

fn all_chars() -> impl Iterator<Item = char> {
    ('\u{2500}'..='\u{259F}').chain('\u{E0B0}'..='\u{E0B7}')
}

fn path(c: char, cell: (f64, f64, f64, f64)) -> (String, Option<Fill>) {
    let mut out = String::new();
    let (x, y, w, h) = cell;
    let fill = cell_path(c, x, y, w, h, stroke(), &mut out);
    (out, fill)
}

/// A number as the formatting rule allows: optional minus, integer without leading zeros,
/// optional one or two decimals without a trailing zero, no negative zero.
fn valid_number(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let int_ok = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && (int == "0" || !int.starts_with('0'));
    let frac_ok = body.split_once('.').is_none()
        || (matches!(frac.len(), 1 | 2)
            && frac.bytes().all(|b| b.is_ascii_digit())
            && !frac.ends_with('0'));
    int_ok && frac_ok && !(s.starts_with('-') && body.parse::<f64>() == Ok(0.0))
}

/// Parses path data (checking the formatting rule) into closed subpaths, flattening
/// curves into polylines.
fn subpaths(d: &str) -> Vec<Vec<Point>> {
    let mut tokens: Vec<(char, Vec<f64>)> = Vec::new();
    let mut chars = d.chars().peekable();
    while let Some(cmd) = chars.next() {
        assert!("MLHVCZ".contains(cmd), "unexpected {cmd:?} in {d}");
        let mut text = String::new();
        while let Some(&ch) = chars.peek() {
            if ch.is_ascii_alphabetic() {
                break;
            }
            text.push(ch);
            chars.next();
        }
        let nums: Vec<f64> = text
            .split(' ')
            .filter(|s| !text.is_empty() || !s.is_empty())
            .map(|s| {
                assert!(valid_number(s), "badly formatted number {s:?} in {d}");
                s.parse().unwrap()
            })
            .collect();
        let expected = match cmd {
            'M' | 'L' => 2,
            'H' | 'V' => 1,
            'C' => 6,
            _ => 0,
        };
        assert_eq!(nums.len(), expected, "{cmd} in {d}");
        tokens.push((cmd, nums));
    }
    let mut result = Vec::new();
    let mut current: Option<Vec<Point>> = None;
    let mut at = (0.0, 0.0);
    for (cmd, n) in tokens {
        if cmd == 'M' {
            assert!(current.is_none(), "subpath not closed in {d}");
            at = (n[0], n[1]);
            current = Some(vec![at]);
            continue;
        }
        let pts = current.as_mut().expect("drawing before M");
        match cmd {
            'L' => at = (n[0], n[1]),
            'H' => at = (n[0], at.1),
            'V' => at = (at.0, n[0]),
            'C' => {
                let (p0, c1, c2, p3) = (at, (n[0], n[1]), (n[2], n[3]), (n[4], n[5]));
                for i in 1..16 {
                    let t = f64::from(i) / 16.0;
                    let u = 1.0 - t;
                    let b = |a: f64, b: f64, c: f64, d: f64| {
                        u * u * u * a + 3.0 * u * u * t * b + 3.0 * u * t * t * c + t * t * t * d
                    };
                    pts.push((b(p0.0, c1.0, c2.0, p3.0), b(p0.1, c1.1, c2.1, p3.1)));
                }
                at = p3;
            }
            _ => {
                result.push(current.take().unwrap());
                continue;
            }
        }
        current.as_mut().unwrap().push(at);
    }
    assert!(current.is_none(), "path does not end with Z: {d}");
    result
}

fn area(poly: &[Point]) -> f64 {
    let n = poly.len();
    (0..n)
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum::<f64>()
        / 2.0
}

/// Nonzero-rule inside test over all subpaths, as the rasteriser fills the path.
fn inside(subpaths: &[Vec<Point>], p: Point) -> bool {
    let mut winding = 0;
    for poly in subpaths {
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let cross = (b.0 - a.0) * (p.1 - a.1) - (p.0 - a.0) * (b.1 - a.1);
            if a.1 <= p.1 && b.1 > p.1 && cross > 0.0 {
                winding += 1;
            } else if a.1 > p.1 && b.1 <= p.1 && cross < 0.0 {
                winding -= 1;
            }
        }
    }
    winding != 0
}

fn bbox(subpaths: &[Vec<Point>]) -> (f64, f64, f64, f64) {
    let pts = subpaths.iter().flatten();
    let fold = |f: fn(f64, f64) -> f64, init: f64, sel: fn(&Point) -> f64| {
        pts.clone().map(sel).fold(init, f)
    };
    (
        fold(f64::min, f64::INFINITY, |p| p.0),
        fold(f64::min, f64::INFINITY, |p| p.1),
        fold(f64::max, f64::NEG_INFINITY, |p| p.0),
        fold(f64::max, f64::NEG_INFINITY, |p| p.1),
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.006
}

#[test]
fn every_code_point_is_drawn_and_is_drawn_agrees() {
    // Nothing in the ranges is skipped.
    for cell in CELLS {
        for c in all_chars() {
            assert!(is_drawn(c), "{c:?}");
            let (d, fill) = path(c, cell);
            assert!(fill.is_some(), "{c:?}");
            assert!(!d.is_empty(), "{c:?} drew nothing");
        }
    }
    for c in [
        'a',
        ' ',
        '\u{24FF}',
        '\u{25A0}',
        '\u{E0AF}',
        '\u{E0B8}',
        '█',
        '\u{10FFFF}',
    ] {
        let (d, fill) = path(c, CELLS[0]);
        assert_eq!(is_drawn(c), fill.is_some(), "{c:?}");
        if fill.is_none() {
            assert!(d.is_empty());
        }
    }
}

#[test]
fn cell_path_appends() {
    let mut out = String::from("M0 0H1V1H0Z");
    cell_path('─', 0.0, 0.0, 8.0, 16.0, stroke(), &mut out);
    assert!(out.starts_with("M0 0H1V1H0ZM"), "{out}");
}

#[test]
fn formatting_and_winding() {
    for cell in CELLS {
        for c in all_chars() {
            let (d, _) = path(c, cell);
            for poly in subpaths(&d) {
                let a = area(&poly);
                assert!(a > 0.01, "{c:?}: subpath with area {a} in {d}");
            }
        }
    }
}

#[test]
fn number_format() {
    let (d, _) = path('─', (8.4, 0.0, 8.4, 18.0));
    assert_eq!(d, "M8.4 8.42H16.8V9.58H8.4Z");
    let mut out = String::new();
    let mut pen = Pen::new(&mut out);
    pen.rect(-0.001, -1.5, 0.1, 2.0);
    assert_eq!(out, "M0 -1.5H0.1V2H0Z");
}

#[test]
fn straight_lines_span_the_cell() {
    let s = stroke();
    for (x, y, w, h) in CELLS {
        let (cx, cy) = (x + w / 2.0, y + h / 2.0);
        for (c, t) in [('─', s.light), ('━', s.heavy)] {
            let (d, _) = path(c, (x, y, w, h));
            let b = bbox(&subpaths(&d));
            assert!(close(b.0, x) && close(b.2, x + w), "{c:?} {b:?}");
            assert!(
                close(b.1, cy - t / 2.0) && close(b.3, cy + t / 2.0),
                "{c:?} {b:?}"
            );
        }
        for (c, t) in [('│', s.light), ('┃', s.heavy)] {
            let (d, _) = path(c, (x, y, w, h));
            let b = bbox(&subpaths(&d));
            assert!(close(b.1, y) && close(b.3, y + h), "{c:?} {b:?}");
            assert!(
                close(b.0, cx - t / 2.0) && close(b.2, cx + t / 2.0),
                "{c:?} {b:?}"
            );
        }
    }
}

#[test]
fn neighbours_share_edges_exactly() {
    // The right edge of one cell and the left edge of the next are the same number.
    let (w, h) = (8.4, 18.2);
    let (a, _) = path('─', (3.0 * w, 0.0, w, h));
    let (b, _) = path('─', (4.0 * w, 0.0, w, h));
    let right = bbox(&subpaths(&a)).2;
    let left = bbox(&subpaths(&b)).0;
    assert_eq!(right, left);
}

/// The filled bands of the cross-section an arm of weight `w` leaves at a cell edge.
fn bands(w: W, s: Stroke) -> Vec<(f64, f64)> {
    let l = s.light;
    match w {
        O => vec![],
        L => vec![(-l / 2.0, l / 2.0)],
        H => vec![(-s.heavy / 2.0, s.heavy / 2.0)],
        D => vec![(-1.5 * l, -0.5 * l), (0.5 * l, 1.5 * l)],
    }
}

/// Samples the cross-section just inside each edge centre and compares it with the arm
/// expected there: this is what the neighbouring cell's line has to meet.
fn check_edges(c: char, expect: [W; 4]) {
    let s = stroke();
    for (x, y, w, h) in CELLS {
        let (d, _) = path(c, (x, y, w, h));
        let sp = subpaths(&d);
        let (cx, cy) = (x + w / 2.0, y + h / 2.0);
        let eps = 0.03;
        // (arm, point at offset `o` across the edge centre)
        // (arm, edge centre just inside the cell, direction across the arm)
        let edges = [
            (expect[0], (x + eps, cy), (0.0, 1.0)),
            (expect[1], (x + w - eps, cy), (0.0, 1.0)),
            (expect[2], (cx, y + eps), (1.0, 0.0)),
            (expect[3], (cx, y + h - eps), (1.0, 0.0)),
        ];
        for (arm, centre, across) in edges {
            let at = |o: f64| (centre.0 + o * across.0, centre.1 + o * across.1);
            let bands = bands(arm, s);
            for i in -60..=60 {
                let o = f64::from(i) * 0.05;
                if bands
                    .iter()
                    .any(|&(a, b)| (o - a).abs() < 0.02 || (o - b).abs() < 0.02)
                {
                    continue;
                }
                let want = bands.iter().any(|&(a, b)| a < o && o < b);
                assert_eq!(
                    inside(&sp, at(o)),
                    want,
                    "{c:?} arm {arm:?} offset {o} in cell {:?}: {d}",
                    (x, y, w, h)
                );
            }
        }
    }
}

#[test]
fn junction_arms_reach_the_edge_centres() {
    for c in '\u{2500}'..='\u{257F}' {
        let a = arms(c);
        if a != [O, O, O, O] {
            check_edges(c, a);
        }
    }
    check_edges('╭', [O, L, O, L]);
    check_edges('╮', [L, O, O, L]);
    check_edges('╯', [L, O, L, O]);
    check_edges('╰', [O, L, L, O]);
}

#[test]
fn arm_table_matches_spot_checks() {
    assert_eq!(arms('┍'), [O, H, O, L]);
    assert_eq!(arms('╃'), [H, L, H, L]);
    assert_eq!(arms('╟'), [O, L, D, D]);
    assert_eq!(arms('╼'), [L, H, O, O]);
    let tables = ('\u{2500}'..='\u{257F}').filter(|&c| arms(c) != [O, O, O, O]);
    // All but the 12 dashes, 4 arcs and 3 diagonals.
    assert_eq!(tables.count(), 128 - 19);
}

#[test]
fn double_junction_interiors() {
    let (x, y, w, h) = CELLS[0];
    let (cx, cy, d) = (x + w / 2.0, y + h / 2.0, stroke().light);
    let at = |c: char, p: Point| inside(&subpaths(&path(c, (x, y, w, h)).0), p);
    // ╔: both corners are filled, the gap between them is not.
    assert!(at('╔', (cx - d, cy - d)));
    assert!(at('╔', (cx + d, cy + d)));
    assert!(!at('╔', (cx, cy)));
    assert!(!at('╔', (cx - 2.0 * d, cy)));
    // ╬: four separate corners.
    assert!(at('╬', (cx - d, cy - d)));
    assert!(!at('╬', (cx, cy)));
    assert!(!at('╬', (cx, cy - d)));
    assert!(!at('╬', (cx - d, cy)));
    // ╦: the upper line runs through, the lower one is cut.
    assert!(at('╦', (cx, cy - d)));
    assert!(!at('╦', (cx, cy + d)));
    // ╤: the single stem hangs from the lower line only.
    assert!(at('╤', (cx, cy + d)));
    assert!(!at('╤', (cx, cy)));
    // ╒: the single stem reaches the upper line, crossing the lower one.
    assert!(at('╒', (cx, cy)));
    assert!(at('╒', (cx, cy - d)));
    // ╟: the stub starts at the right line.
    assert!(!at('╟', (cx, cy)));
    assert!(at('╟', (cx + d, cy)));
    // ╫: the single line crosses both.
    assert!(at('╫', (cx, cy)));
}

#[test]
fn mixed_weights_make_square_corners() {
    let (x, y, w, h) = CELLS[0];
    let s = stroke();
    let (cx, cy) = (x + w / 2.0, y + h / 2.0);
    let sp = subpaths(&path('┍', (x, y, w, h)).0);
    // Heavy right arm reaches the far side of the light stem, no further.
    assert!(inside(
        &sp,
        (cx - s.light / 2.0 + 0.02, cy - s.heavy / 2.0 + 0.02)
    ));
    assert!(!inside(&sp, (cx - s.light / 2.0 - 0.02, cy)));
    // The light stem starts at the top of the heavy arm.
    assert!(!inside(&sp, (cx, cy - s.heavy / 2.0 - 0.02)));
}

#[test]
fn dashed_lines() {
    for (c, n) in [
        ('┄', 3),
        ('┅', 3),
        ('┈', 4),
        ('╌', 2),
        ('┆', 3),
        ('┊', 4),
        ('╏', 2),
    ] {
        for cell in CELLS {
            let (x, y, w, h) = cell;
            let sp = subpaths(&path(c, cell).0);
            assert_eq!(sp.len(), n, "{c:?}");
            let b = bbox(&sp);
            assert!(
                (b.0 > x && b.2 < x + w) || (b.1 > y && b.3 < y + h),
                "{c:?}"
            );
            assert!(
                b.0 >= x && b.2 <= x + w && b.1 >= y && b.3 <= y + h,
                "{c:?}"
            );
        }
    }
}

#[test]
fn diagonals_join_diagonal_neighbours() {
    let (x, y, w, h) = CELLS[0];
    let edge = |c: char, cell: (f64, f64, f64, f64), at_y: f64| -> Vec<String> {
        let d = path(c, cell).0;
        let mut xs: Vec<String> = subpaths(&d)
            .iter()
            .flatten()
            .filter(|p| close(p.1, at_y))
            .map(|p| format!("{:.2}", p.0))
            .collect();
        xs.sort();
        xs
    };
    // ╱ here and ╱ up and to the right: this top edge is that bottom edge.
    assert_eq!(
        edge('╱', (x, y, w, h), y),
        edge('╱', (x + w, y - h, w, h), y)
    );
    assert_eq!(
        edge('╲', (x, y, w, h), y),
        edge('╲', (x - w, y - h, w, h), y)
    );
    let sp = subpaths(&path('╱', (x, y, w, h)).0);
    assert!(inside(&sp, (x + w / 2.0, y + h / 2.0)));
    assert!(inside(&sp, (x + w * 0.25, y + h * 0.75)));
    assert!(!inside(&sp, (x + w * 0.25, y + h * 0.25)));
    let sp = subpaths(&path('╳', (x, y, w, h)).0);
    assert!(inside(&sp, (x + w * 0.25, y + h * 0.25)));
    assert!(inside(&sp, (x + w * 0.25, y + h * 0.75)));
    assert!(!inside(&sp, (x + w * 0.5, y + h * 0.25)));
}

#[test]
fn arcs_bend_inside_the_cell() {
    let s = stroke();
    for (x, y, w, h) in CELLS {
        let sp = subpaths(&path('╭', (x, y, w, h)).0);
        let (cx, cy) = (x + w / 2.0, y + h / 2.0);
        let b = bbox(&sp);
        assert!(close(b.0, cx - s.light / 2.0) && close(b.1, cy - s.light / 2.0));
        assert!(close(b.2, x + w) && close(b.3, y + h));
        // The corner itself is cut off.
        assert!(!inside(&sp, (cx, cy)));
    }
}

#[test]
fn blocks() {
    let (x, y, w, h) = CELLS[0];
    let at = |c: char, fx: f64, fy: f64| {
        inside(
            &subpaths(&path(c, (x, y, w, h)).0),
            (x + w * fx, y + h * fy),
        )
    };
    assert!(at('█', 0.5, 0.5));
    assert!(at('▀', 0.5, 0.25) && !at('▀', 0.5, 0.75));
    assert!(at('▄', 0.5, 0.75) && !at('▄', 0.5, 0.25));
    assert!(at('▌', 0.25, 0.5) && !at('▌', 0.75, 0.5));
    assert!(at('▐', 0.75, 0.5) && !at('▐', 0.25, 0.5));
    assert!(at('▁', 0.5, 0.95) && !at('▁', 0.5, 0.8));
    assert!(at('▇', 0.5, 0.2) && !at('▇', 0.5, 0.1));
    assert!(at('▏', 0.1, 0.5) && !at('▏', 0.2, 0.5));
    assert!(at('▔', 0.5, 0.05) && !at('▔', 0.5, 0.2));
    assert!(at('▕', 0.95, 0.5) && !at('▕', 0.8, 0.5));
    for (c, quads) in [
        ('▚', [true, false, false, true]),
        ('▟', [false, true, true, true]),
    ] {
        let got = [
            at(c, 0.25, 0.25),
            at(c, 0.75, 0.25),
            at(c, 0.25, 0.75),
            at(c, 0.75, 0.75),
        ];
        assert_eq!(got, quads, "{c:?}");
    }
    assert_eq!(path('█', (x, y, w, h)).0, path('░', (x, y, w, h)).0);
    assert_eq!(path('░', CELLS[0]).1, Some(Fill::Alpha(0.25)));
    assert_eq!(path('▒', CELLS[0]).1, Some(Fill::Alpha(0.5)));
    assert_eq!(path('▓', CELLS[0]).1, Some(Fill::Alpha(0.75)));
    assert_eq!(path('█', CELLS[0]).1, Some(Fill::Solid));
    let b = bbox(&subpaths(&path('█', (x, y, w, h)).0));
    assert!(close(b.0, x) && close(b.1, y) && close(b.2, x + w) && close(b.3, y + h));
}

#[test]
fn powerline_glyphs() {
    let (x, y, w, h) = CELLS[0];
    let at = |c: char, fx: f64, fy: f64| {
        inside(
            &subpaths(&path(c, (x, y, w, h)).0),
            (x + w * fx, y + h * fy),
        )
    };
    assert!(at('\u{E0B0}', 0.2, 0.5) && at('\u{E0B0}', 0.9, 0.5) && !at('\u{E0B0}', 0.9, 0.2));
    assert!(at('\u{E0B2}', 0.8, 0.5) && at('\u{E0B2}', 0.1, 0.5) && !at('\u{E0B2}', 0.1, 0.2));
    assert!(!at('\u{E0B1}', 0.2, 0.5) && at('\u{E0B1}', 0.97, 0.5));
    assert!(!at('\u{E0B3}', 0.8, 0.5) && at('\u{E0B3}', 0.03, 0.5));
    assert!(at('\u{E0B4}', 0.9, 0.5) && at('\u{E0B4}', 0.05, 0.05));
    assert!(!at('\u{E0B4}', 0.9, 0.05));
    assert!(at('\u{E0B6}', 0.1, 0.5) && !at('\u{E0B6}', 0.1, 0.05));
    assert!(!at('\u{E0B5}', 0.5, 0.5) && at('\u{E0B5}', 0.98, 0.5));
    assert!(!at('\u{E0B7}', 0.5, 0.5) && at('\u{E0B7}', 0.02, 0.5));
    // Solid triangles span the full cell height.
    let b = bbox(&subpaths(&path('\u{E0B0}', (x, y, w, h)).0));
    assert!(close(b.0, x) && close(b.1, y) && close(b.2, x + w) && close(b.3, y + h));
}

#[test]
fn stroke_sizes() {
    assert_eq!(
        Stroke::for_font_size(24.0),
        Stroke {
            light: 2.0,
            heavy: 4.0
        }
    );
    assert_eq!(
        Stroke::for_font_size(6.0),
        Stroke {
            light: 1.0,
            heavy: 2.0
        }
    );
}

/// A line of box drawing drawn cell by cell, its rectangles joined as the SVG writes them
/// ([`crate::render::path_data`]): each horizontal stroke across the line, the arms of `├`,
/// `┼` and `┤` included, is one rectangle, and the filled area is the cells'.
#[test]
fn strokes_across_cells_join_into_one_rectangle() {
    let (y, w, h) = (36.4, 8.4, 18.2);
    for (line, most) in [
        ("├───┼───┤", 4),
        // The double lines stop at `╬`'s inner corners: three stretches each.
        ("╠═══╬═══╣", 14),
        ("┣━━━╋━━━┫", 4),
        ("└───┴───┘", 4),
        ("▀▀▀▀", 1),
    ] {
        let mut apart = String::new();
        for (i, c) in line.chars().enumerate() {
            let (cell, _) = path(c, (16.8 + i as f64 * w, y, w, h));
            apart.push_str(&cell);
        }
        let joined = crate::render::path_data::join_rectangles(&apart).unwrap_or_default();
        let (joined, apart) = (subpaths(&joined), subpaths(&apart));
        assert!(
            joined.len() <= most,
            "{line}: {} subpaths: {joined:?}",
            joined.len()
        );
        assert!(joined.len() < apart.len(), "{line}");
        let cells = line.chars().count() as f64;
        for i in 0..400 {
            for j in 0..60 {
                let p = (
                    16.8 + 0.013 + i as f64 * cells * w / 400.0,
                    y + 0.011 + j as f64 * h / 60.0,
                );
                assert_eq!(inside(&joined, p), inside(&apart, p), "{line} at {p:?}");
            }
        }
    }
}
