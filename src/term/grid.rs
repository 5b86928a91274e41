//! Rows, the visible grid and the scrollback ring.

use std::collections::VecDeque;

use super::cell::{Cell, CellFlags};

/// UTF-8 bytes of zero-width characters kept per cell at most (more are dropped). xterm keeps
/// two combining characters by default and ten at most; this holds seven to fourteen.
pub const MAX_EXTRA_BYTES: usize = 29;

/// Zero-width characters attached to one cell of a row, stored inline so that writing and
/// recycling rows never allocates.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Extra {
    col: u16,
    len: u8,
    bytes: [u8; MAX_EXTRA_BYTES],
}

impl Extra {
    fn new(col: usize, c: char) -> Extra {
        let mut extra = Extra {
            col: col as u16,
            len: 0,
            bytes: [0; MAX_EXTRA_BYTES],
        };
        extra.push(c);
        extra
    }

    fn push(&mut self, c: char) {
        let len = self.len as usize;
        let n = c.len_utf8();
        if len + n <= MAX_EXTRA_BYTES {
            c.encode_utf8(&mut self.bytes[len..len + n]);
            self.len += n as u8;
        }
    }

    fn as_str(&self) -> &str {
        // Only whole characters are ever pushed, so this never fails.
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or_default()
    }
}

/// Shell-integration marks (OSC 133) recorded on the row where they were received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PromptMark {
    /// No mark.
    #[default]
    None,
    /// `OSC 133;A`: a prompt starts.
    PromptStart,
    /// `OSC 133;B`: the command line starts.
    CommandStart,
    /// `OSC 133;C`: the command's output starts.
    OutputStart,
    /// `OSC 133;D`: the command finished.
    CommandEnd,
}

/// The cursor position; `pending_wrap` is xterm's "last column flag".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// 0-based row in the visible grid.
    pub row: usize,
    /// 0-based column.
    pub col: usize,
    /// A character was printed in the last column; the next one wraps first.
    pub pending_wrap: bool,
}

/// How a row is drawn: DECSWL (`ESC # 5`), DECDWL (`ESC # 6`), DECDHL (`ESC # 3` top half,
/// `ESC # 4` bottom half). A double-size row holds half the columns, each drawn two wide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LineSize {
    /// Normal.
    #[default]
    Single,
    /// Double width.
    DoubleWidth,
    /// The top half of a double-height, double-width line.
    DoubleHeightTop,
    /// The bottom half of a double-height, double-width line.
    DoubleHeightBottom,
}

impl LineSize {
    /// The name used in snapshots (`None` for single).
    pub fn name(self) -> Option<&'static str> {
        match self {
            LineSize::Single => None,
            LineSize::DoubleWidth => Some("doubleWidth"),
            LineSize::DoubleHeightTop => Some("doubleHeightTop"),
            LineSize::DoubleHeightBottom => Some("doubleHeightBottom"),
        }
    }

    /// Parses a snapshot name.
    pub fn from_name(name: &str) -> Option<LineSize> {
        [
            LineSize::DoubleWidth,
            LineSize::DoubleHeightTop,
            LineSize::DoubleHeightBottom,
        ]
        .into_iter()
        .find(|s| s.name() == Some(name))
    }

    /// Whether each column is drawn two wide.
    pub fn is_double(self) -> bool {
        self != LineSize::Single
    }
}

/// One line of cells. Every row holds exactly the grid's width in cells.
#[derive(Clone, Debug)]
pub struct Row {
    cells: Vec<Cell>,
    /// The line continues on the next row (it was soft-wrapped by autowrap).
    pub wrapped: bool,
    /// Single, double-width or a half of double-height (DECSWL, DECDWL, DECDHL).
    pub size: LineSize,
    /// The last shell-integration mark received on this row.
    pub mark: PromptMark,
    /// Every cell at or after this index is `Cell::BLANK` without extras, so clearing a
    /// recycled row only touches what was written.
    occ: usize,
    extras: Vec<Extra>,
}

/// Blank cells to copy from: a copy of a slice is a `memcpy` of wide moves, where a fill
/// stores the cell's fields one by one (800 stores for a row of 200 cells). Rows are blanked
/// all the time: each line scrolled off, each line erased.
static BLANKS: [Cell; 64] = [Cell::BLANK; 64];

/// Sets every cell of `cells` to `fill`.
#[inline]
fn fill_cells(cells: &mut [Cell], fill: Cell) {
    if fill == Cell::BLANK {
        for chunk in cells.chunks_mut(BLANKS.len()) {
            chunk.copy_from_slice(&BLANKS[..chunk.len()]);
        }
    } else {
        cells.fill(fill);
    }
}

/// Asks the processor to bring the cache line at `address` into its nearest cache.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline(always)]
fn prefetch(address: *const i8) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: a prefetch is a hint: it reads nothing the program sees, never faults and
    // accepts any address; SSE, which it needs, is part of every x86-64 processor.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(address) }
}

/// `width` cells, each `fill`.
fn filled(width: usize, fill: Cell) -> Vec<Cell> {
    if fill != Cell::BLANK {
        return vec![fill; width];
    }
    let mut cells = Vec::with_capacity(width);
    while cells.len() < width {
        let n = (width - cells.len()).min(BLANKS.len());
        cells.extend_from_slice(&BLANKS[..n]);
    }
    cells
}

impl Row {
    /// A row of `width` cells, each `fill`.
    pub fn new(width: usize, fill: Cell) -> Row {
        Row {
            cells: filled(width, fill),
            wrapped: false,
            size: LineSize::Single,
            mark: PromptMark::None,
            occ: if fill == Cell::BLANK { 0 } else { width },
            extras: Vec::new(),
        }
    }

    /// Number of cells.
    #[inline]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the row has no cells (only for a zero-width grid, which the terminal prevents).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The cells.
    #[inline]
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Mutable access to the cells. Callers must keep the `EXTRA` flags consistent: use
    /// [`Row::set`] or [`Row::fill`] when replacing a cell that may have extras.
    #[inline]
    pub fn cells_mut(&mut self) -> &mut [Cell] {
        self.occ = self.cells.len();
        &mut self.cells
    }

    /// Resets every cell to `fill` and clears the row's flags, keeping its allocation.
    pub fn reset(&mut self, fill: Cell) {
        if fill == Cell::BLANK {
            fill_cells(&mut self.cells[..self.occ], fill);
            self.occ = 0;
        } else {
            self.cells.fill(fill);
            self.occ = self.cells.len();
        }
        self.wrapped = false;
        self.size = LineSize::Single;
        self.mark = PromptMark::None;
        self.extras.clear();
    }

    /// Starts loading the occupied cells, which a reuse blanks, into the processor's cache (a
    /// hint; nothing on processors other than x86-64).
    #[inline]
    fn prefetch_occupied(&self) {
        #[cfg(target_arch = "x86_64")]
        for line in self.cells[..self.occ].chunks(64 / std::mem::size_of::<Cell>()) {
            prefetch(line.as_ptr().cast());
        }
    }

    /// Resizes to `width` cells, padding with `fill`. A wide character cut in half by
    /// shrinking is blanked.
    pub fn resize(&mut self, width: usize, fill: Cell) {
        if width < self.cells.len() {
            self.extras.retain(|e| (e.col as usize) < width);
            self.cells.truncate(width);
            self.blank_cut_wide_at_end();
            self.sync_extras();
            self.occ = self.occ.min(width);
        } else {
            self.cells.resize(width, fill);
            if fill != Cell::BLANK {
                self.occ = width;
            }
        }
    }

    /// Drops side-table entries whose cell lost its `EXTRA` flag.
    fn sync_extras(&mut self) {
        let cells = &self.cells;
        self.extras.retain(|e| {
            cells
                .get(e.col as usize)
                .is_some_and(|c| c.flags.contains(CellFlags::EXTRA))
        });
    }

    /// Writes `cell` at `col`, dropping any zero-width characters the old cell had.
    #[inline]
    pub fn set(&mut self, col: usize, cell: Cell) {
        if let Some(slot) = self.cells.get_mut(col) {
            let had_extra = slot.flags.contains(CellFlags::EXTRA);
            *slot = cell;
            if col >= self.occ {
                self.occ = col + 1;
            }
            if had_extra {
                self.remove_extra(col);
            }
        }
    }

    fn remove_extra(&mut self, col: usize) {
        self.extras.retain(|e| e.col as usize != col);
    }

    /// Writes a plain (narrow, extra-free) cell over a plain cell: the print fast path.
    /// Returns false, changing nothing, when either cell needs the general path.
    #[inline(always)]
    pub(crate) fn write_plain(&mut self, col: usize, cell: Cell) -> bool {
        match self.cells.get_mut(col) {
            Some(slot) if slot.flags == CellFlags::empty() => {
                *slot = cell;
                if col >= self.occ {
                    self.occ = col + 1;
                }
                true
            }
            _ => false,
        }
    }

    /// Writes a wide character's `cell` at `col` and its spacer after it if both cells are
    /// plain (no flags: neither part of a wide character nor carrying extras); returns whether
    /// it did.
    #[inline]
    pub(crate) fn write_plain_wide(&mut self, col: usize, cell: Cell) -> bool {
        match self.cells.get_mut(col..col + 2) {
            Some([first, second])
                if first.flags == CellFlags::empty() && second.flags == CellFlags::empty() =>
            {
                *first = Cell {
                    flags: CellFlags::WIDE.with(cell.flags),
                    ..cell
                };
                *second = Cell {
                    ch: ' ',
                    flags: CellFlags::WIDE_SPACER.with(cell.flags),
                    ..cell
                };
                self.occ = self.occ.max(col + 2);
                true
            }
            _ => false,
        }
    }

    /// Writes `text` (printable ASCII) as plain cells from `col` on, each a copy of `cell`
    /// with its own character, stopping at the first cell that needs the general path (or
    /// the end of the row). Returns how many characters it wrote.
    #[inline]
    pub(crate) fn write_plain_run(&mut self, col: usize, text: &[u8], cell: Cell) -> usize {
        let occ = self.occ;
        let Some(slots) = self.cells.get_mut(col..) else {
            return 0;
        };
        let plain = |byte: u8| Cell {
            ch: char::from(byte),
            ..cell
        };
        let written = if col >= occ {
            // Cells from `occ` on are blank: output at the end of a line checks nothing.
            let n = slots.len().min(text.len());
            for (slot, &byte) in slots[..n].iter_mut().zip(text) {
                *slot = plain(byte);
            }
            n
        } else {
            let mut written = 0;
            for (slot, &byte) in slots.iter_mut().zip(text) {
                if slot.flags != CellFlags::empty() {
                    break;
                }
                *slot = plain(byte);
                written += 1;
            }
            written
        };
        self.occ = occ.max(col + written);
        written
    }

    /// Blanks a wide character in the last column: its spacer was pushed or cut off the row.
    pub fn blank_cut_wide_at_end(&mut self) {
        if let Some(last) = self.cells.last().copied()
            && last.is_wide()
        {
            let col = self.cells.len() - 1;
            self.set(col, Cell::blank(last.style));
        }
    }

    /// Fills `range` with `fill`, dropping zero-width characters in it.
    pub fn fill(&mut self, start: usize, end: usize, fill: Cell) {
        let mut end = end.min(self.cells.len());
        if fill == Cell::BLANK {
            // Cells from `occ` on are blank already.
            if end >= self.occ {
                end = self.occ;
                self.occ = self.occ.min(start);
            }
        } else if end > self.occ {
            self.occ = end;
        }
        if start >= end {
            return;
        }
        let had_extra = !self.extras.is_empty()
            && self.cells[start..end]
                .iter()
                .any(|c| c.flags.contains(CellFlags::EXTRA));
        fill_cells(&mut self.cells[start..end], fill);
        if had_extra {
            self.extras
                .retain(|e| (e.col as usize) < start || (e.col as usize) >= end);
        }
    }

    /// Appends a zero-width character to the cell at `col`.
    pub fn push_extra(&mut self, col: usize, c: char) {
        let Some(cell) = self.cells.get_mut(col) else {
            return;
        };
        if cell.flags.contains(CellFlags::EXTRA)
            && let Some(e) = self.extras.iter_mut().find(|e| e.col as usize == col)
        {
            e.push(c);
            return;
        }
        cell.flags.set(CellFlags::EXTRA, true);
        self.occ = self.occ.max(col + 1);
        self.extras.push(Extra::new(col, c));
    }

    /// The zero-width characters attached to the cell at `col`, if any.
    #[inline]
    pub fn extra(&self, col: usize) -> Option<&str> {
        if !self.cells.get(col)?.flags.contains(CellFlags::EXTRA) {
            return None;
        }
        self.extras
            .iter()
            .find(|e| e.col as usize == col)
            .map(Extra::as_str)
    }

    /// Moves cells `src..src+len` to start at `dst` (within the row), carrying zero-width
    /// characters along. Cells left behind keep their old content; callers overwrite them.
    pub fn copy_within(&mut self, src: usize, len: usize, dst: usize) {
        let width = self.cells.len();
        if src >= width || dst >= width {
            return;
        }
        let len = len.min(width - src).min(width - dst);
        self.cells.copy_within(src..src + len, dst);
        self.occ = self.occ.max(dst + len);
        if !self.extras.is_empty() {
            for e in &mut self.extras {
                let c = e.col as usize;
                if c >= src && c < src + len {
                    e.col = (c + dst - src) as u16;
                } else if c >= dst && c < dst + len {
                    // Overwritten by the move.
                    e.col = u16::MAX;
                }
            }
            self.extras.retain(|e| e.col != u16::MAX);
            self.sync_extras();
        }
    }

    /// The text of the row: characters with their zero-width followers, spacers skipped,
    /// trailing blanks removed.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.cells.len());
        self.write_text(&mut out);
        out
    }

    /// Appends the row's text (see [`Row::text`]) to `out`.
    pub fn write_text(&self, out: &mut String) {
        let start = out.len();
        self.write_full_text(out);
        let trimmed = out[start..].trim_end_matches(' ').len();
        out.truncate(start + trimmed);
    }

    /// Appends the row's text to `out` as [`write_text`](Self::write_text) does, but to the
    /// row's full width: blanks at its end are kept as spaces.
    pub fn write_full_text(&self, out: &mut String) {
        for (col, cell) in self.cells.iter().enumerate() {
            if cell.is_spacer() {
                continue;
            }
            out.push(cell.ch);
            if let Some(extra) = self.extra(col) {
                out.push_str(extra);
            }
        }
    }

    /// Index one past the last cell that is not a default blank.
    pub fn occupied_len(&self) -> usize {
        self.cells[..self.occ]
            .iter()
            .rposition(|c| *c != Cell::BLANK)
            .map_or(0, |i| i + 1)
    }
}

/// The visible grid of one screen buffer (primary or alternate). A ring of rows, so a
/// full-screen scroll moves no row: the top one leaves, a recycled one joins at the bottom.
#[derive(Clone, Debug)]
pub struct Grid {
    rows: VecDeque<Row>,
    width: usize,
}

impl Grid {
    /// A blank grid of `width × height`.
    pub fn new(width: usize, height: usize) -> Grid {
        Grid {
            rows: (0..height).map(|_| Row::new(width, Cell::BLANK)).collect(),
            width,
        }
    }

    /// Columns.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    #[inline]
    pub fn height(&self) -> usize {
        self.rows.len()
    }

    /// The rows, top to bottom.
    #[inline]
    pub fn rows(&self) -> &VecDeque<Row> {
        &self.rows
    }

    /// Mutable rows.
    #[inline]
    pub fn rows_mut(&mut self) -> &mut VecDeque<Row> {
        &mut self.rows
    }

    /// Row `row` (callers keep `row < height`).
    #[inline]
    pub fn row(&self, row: usize) -> &Row {
        &self.rows[row]
    }

    /// Mutable row `row` (callers keep `row < height`).
    #[inline]
    pub fn row_mut(&mut self, row: usize) -> &mut Row {
        &mut self.rows[row]
    }

    /// Scrolls rows `top..=bottom` up by `n`: the top `n` rows leave the region and are
    /// returned through `evict` in order (it receives each row to keep and gives back a row to
    /// reuse), the freed bottom rows are reset to `fill`.
    pub fn scroll_up(
        &mut self,
        top: usize,
        bottom: usize,
        n: usize,
        fill: Cell,
        mut evict: impl FnMut(Row) -> Option<Row>,
    ) {
        let n = n.min(bottom + 1 - top);
        let width = self.width;
        let recycle = |old: Row, evict: &mut dyn FnMut(Row) -> Option<Row>| match evict(old) {
            Some(mut reused) => {
                if reused.len() != width {
                    reused.resize(width, fill);
                }
                reused.reset(fill);
                reused
            }
            None => Row::new(width, fill),
        };
        if top == 0 && bottom + 1 == self.rows.len() {
            for _ in 0..n {
                if let Some(old) = self.rows.pop_front() {
                    let new = recycle(old, &mut evict);
                    self.rows.push_back(new);
                }
            }
            return;
        }
        self.rows.make_contiguous()[top..=bottom].rotate_left(n);
        for i in bottom + 1 - n..=bottom {
            let old = std::mem::replace(&mut self.rows[i], Row::new(0, fill));
            self.rows[i] = recycle(old, &mut evict);
        }
    }

    /// Copies cells `start..end` of row `src` over the same columns of row `dst`, their
    /// zero-width characters included.
    fn copy_span(&mut self, src: usize, dst: usize, start: usize, end: usize) {
        let from = &self.rows[src];
        let cells: Vec<(Cell, Option<String>)> = (start..end)
            .map(|c| (from.cells[c], from.extra(c).map(str::to_owned)))
            .collect();
        let to = &mut self.rows[dst];
        for (col, (mut cell, extra)) in (start..).zip(cells) {
            cell.flags.set(CellFlags::EXTRA, false);
            to.set(col, cell);
            for c in extra.iter().flat_map(|e| e.chars()) {
                to.push_extra(col, c);
            }
        }
    }

    /// Scrolls the rectangle of rows `top..=bottom` and columns `start..end` up by `n` (left
    /// and right margins): only those cells move; the freed bottom cells are set to `fill`.
    pub fn scroll_span_up(
        &mut self,
        (top, bottom): (usize, usize),
        (start, end): (usize, usize),
        n: usize,
        fill: Cell,
    ) {
        let n = n.min(bottom + 1 - top);
        if n == 0 {
            return;
        }
        for row in top..bottom + 1 - n {
            self.copy_span(row + n, row, start, end);
        }
        for row in bottom + 1 - n..=bottom {
            self.rows[row].fill(start, end, fill);
        }
    }

    /// [`scroll_span_up`](Self::scroll_span_up), downwards.
    pub fn scroll_span_down(
        &mut self,
        (top, bottom): (usize, usize),
        (start, end): (usize, usize),
        n: usize,
        fill: Cell,
    ) {
        let n = n.min(bottom + 1 - top);
        for row in (top + n..=bottom).rev() {
            self.copy_span(row - n, row, start, end);
        }
        for row in top..top + n {
            self.rows[row].fill(start, end, fill);
        }
    }

    /// Scrolls rows `top..=bottom` down by `n`, resetting the freed top rows to `fill`.
    pub fn scroll_down(&mut self, top: usize, bottom: usize, n: usize, fill: Cell) {
        let n = n.min(bottom + 1 - top);
        self.rows.make_contiguous()[top..=bottom].rotate_right(n);
        for row in self.rows.range_mut(top..top + n) {
            row.reset(fill);
        }
    }

    /// Replaces all rows (used by resize).
    pub fn set_rows(&mut self, rows: Vec<Row>, width: usize) {
        self.rows = rows.into();
        self.width = width;
    }

    /// Takes the rows out, leaving the grid empty (used by resize).
    pub fn take_rows(&mut self) -> Vec<Row> {
        std::mem::take(&mut self.rows).into()
    }

    /// Resizes without reflow: rows are truncated or padded on the right, removed or added at
    /// the bottom.
    pub fn resize_clip(&mut self, width: usize, height: usize) {
        for row in &mut self.rows {
            row.resize(width, Cell::BLANK);
            if row.wrapped && width != self.width {
                row.wrapped = false;
            }
        }
        self.rows
            .resize_with(height, || Row::new(width, Cell::BLANK));
        self.width = width;
    }
}

/// Lines that scrolled off the top of the primary screen, oldest first, bounded.
#[derive(Clone, Debug)]
pub struct Scrollback {
    rows: VecDeque<Row>,
    limit: usize,
    dropped: u64,
}

impl Scrollback {
    /// An empty scrollback keeping at most `limit` lines.
    pub fn new(limit: usize) -> Scrollback {
        Scrollback {
            rows: VecDeque::new(),
            limit,
            dropped: 0,
        }
    }

    /// Lines kept.
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no line is kept.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The bound on kept lines.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Lines discarded because the ring was full (or cleared); the global index of the oldest
    /// kept line.
    #[inline]
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The kept lines, oldest first.
    pub fn rows(&self) -> &VecDeque<Row> {
        &self.rows
    }

    /// Mutable kept lines (used by table compaction).
    pub fn rows_mut(&mut self) -> &mut VecDeque<Row> {
        &mut self.rows
    }

    /// Appends `row`; when full, returns the oldest line for reuse.
    #[inline]
    pub fn push(&mut self, row: Row) -> Option<Row> {
        if self.limit == 0 {
            self.dropped += 1;
            return Some(row);
        }
        let evicted = if self.rows.len() >= self.limit {
            self.dropped += 1;
            let oldest = self.rows.pop_front();
            // The line after it is the next to be reused: last touched a scrollback ago, so
            // out of the cache, and blanking it would wait for memory at the next line feed.
            if let Some(next) = self.rows.front() {
                next.prefetch_occupied();
            }
            oldest
        } else {
            None
        };
        self.rows.push_back(row);
        evicted
    }

    /// Discards every line (ED 3).
    pub fn clear(&mut self) {
        self.dropped += self.rows.len() as u64;
        self.rows.clear();
    }

    /// Replaces the content (used by reflow), keeping the newest `limit` lines.
    pub fn replace(&mut self, rows: Vec<Row>) {
        let mut rows: VecDeque<Row> = rows.into();
        while rows.len() > self.limit {
            rows.pop_front();
            self.dropped += 1;
        }
        self.rows = rows;
    }
}
