//! Resizing the primary screen: soft-wrapped lines are re-wrapped at the new width, the
//! cursor keeps its place in the text, and lines move between the screen and the scrollback
//! as the height changes.

use super::cell::{Cell, CellFlags};
use super::grid::{Cursor, Grid, PromptMark, Row, Scrollback};

/// A logical line: the cells of one or more soft-wrapped rows, with their zero-width extras.
#[derive(Default)]
struct Line {
    cells: Vec<(Cell, Option<String>)>,
    mark: PromptMark,
    /// Index of the cursor's cell in `cells`, and whether the cursor had a pending wrap.
    cursor: Option<(usize, bool)>,
}

fn is_blank(row: &Row) -> bool {
    !row.wrapped && row.occupied_len() == 0
}

/// Resizes `grid` (the primary screen) and `scrollback` to `width × height`, returning the
/// cursor's new position.
pub(crate) fn resize_primary(
    grid: &mut Grid,
    scrollback: &mut Scrollback,
    cursor: Cursor,
    width: usize,
    height: usize,
    fill: Cell,
) -> Cursor {
    let old_width = grid.width();
    let history = scrollback.len();
    let mut rows: Vec<Row> = scrollback.rows_mut().drain(..).collect();
    rows.extend(grid.take_rows());
    let mut cursor_row = history + cursor.row.min(rows.len().saturating_sub(1));
    let mut cursor = cursor;

    if width != old_width {
        let (new_rows, row, col, pending) = rewrap(rows, width, cursor_row, cursor, fill);
        rows = new_rows;
        cursor_row = row;
        cursor = Cursor {
            row: 0,
            col,
            pending_wrap: pending,
        };
    }

    // Blank lines below the cursor give way first when the screen gets shorter.
    while rows.len() > cursor_row + 1 && rows.last().is_some_and(is_blank) {
        rows.pop();
    }
    let start = rows.len().saturating_sub(height).min(cursor_row);
    rows.truncate(start + height);
    let screen: Vec<Row> = rows.split_off(start);
    scrollback.replace(rows);
    let mut screen = screen;
    for row in &mut screen {
        if row.len() != width {
            row.resize(width, fill);
        }
    }
    screen.resize_with(height, || Row::new(width, fill));
    grid.set_rows(screen, width);

    Cursor {
        row: cursor_row - start,
        col: cursor.col.min(width - 1),
        pending_wrap: cursor.pending_wrap,
    }
}

/// Re-wraps every logical line at `width`. Returns the rows and the cursor's absolute row,
/// column and pending-wrap flag.
fn rewrap(
    rows: Vec<Row>,
    width: usize,
    cursor_row: usize,
    cursor: Cursor,
    fill: Cell,
) -> (Vec<Row>, usize, usize, bool) {
    let mut lines = Vec::new();
    let mut line = Line::default();
    let total = rows.len();
    for (abs, row) in rows.into_iter().enumerate() {
        let n = row.len();
        let padded =
            row.wrapped && n > 0 && row.cells()[n - 1].flags.contains(CellFlags::LEADING_SPACER);
        let take = if padded { n - 1 } else { n };
        let base = line.cells.len();
        for col in 0..take {
            line.cells
                .push((row.cells()[col], row.extra(col).map(str::to_owned)));
        }
        if abs == cursor_row {
            line.cursor = Some((base + cursor.col.min(take), cursor.pending_wrap));
        }
        if line.mark == PromptMark::None {
            line.mark = row.mark;
        }
        if !row.wrapped || abs + 1 == total {
            lines.push(std::mem::take(&mut line));
        }
    }

    let mut out = Vec::new();
    let mut cursor_at = (0, 0, false);
    for mut line in lines {
        while line
            .cells
            .last()
            .is_some_and(|(c, e)| *c == Cell::BLANK && e.is_none())
        {
            line.cells.pop();
        }
        let first = out.len();
        let mut row = Row::new(width, fill);
        row.mark = line.mark;
        let mut col: usize = 0;
        let mut cursor_pos = None;
        for (i, (cell, extra)) in line.cells.iter().enumerate() {
            if cell.is_spacer() {
                if line.cursor.is_some_and(|(c, _)| c == i) {
                    cursor_pos = Some((out.len(), col.saturating_sub(1), 1));
                }
                continue;
            }
            let w = if cell.is_wide() { 2 } else { 1 };
            if w > width {
                continue;
            }
            if col + w > width {
                if col < width {
                    let mut pad = Cell::blank(cell.style);
                    pad.flags = CellFlags::LEADING_SPACER;
                    row.set(col, pad);
                }
                row.wrapped = true;
                out.push(std::mem::replace(&mut row, Row::new(width, fill)));
                col = 0;
            }
            if line.cursor.is_some_and(|(c, _)| c == i) {
                cursor_pos = Some((out.len(), col, w));
            }
            row.set(col, *cell);
            if let Some(extra) = extra {
                for ch in extra.chars() {
                    row.push_extra(col, ch);
                }
            }
            if w == 2 {
                row.set(
                    col + 1,
                    Cell {
                        ch: ' ',
                        flags: CellFlags::WIDE_SPACER,
                        ..*cell
                    },
                );
            }
            col += w;
        }
        out.push(row);
        if let Some((index, pending)) = line.cursor {
            cursor_at = match cursor_pos {
                Some((r, c, w)) if pending => {
                    if c + w >= width {
                        (r, width - 1, true)
                    } else {
                        (r, c + w, false)
                    }
                }
                Some((r, c, _)) => (r, c, false),
                // The cursor sat past the end of the text: keep its distance from it on the
                // line's last row.
                None => {
                    let beyond = index.saturating_sub(line.cells.len());
                    let r = out.len() - 1;
                    (r.max(first), (col + beyond).min(width - 1), false)
                }
            };
        }
    }
    (out, cursor_at.0, cursor_at.1, cursor_at.2)
}
