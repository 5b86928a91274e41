//! Keyframes: the bytes that redraw a [`Snapshot`] on a fresh terminal.
//!
//! A bounded recording that drops its oldest output must begin with a screen instead of with
//! the output that built it. [`Snapshot::redraw_bytes`] writes that screen as terminal output:
//! fed to a new [`Terminal`](super::Terminal) of the snapshot's size, the bytes give back the
//! same snapshot (the scrollback aside, see below).
//!
//! How the facts of a snapshot are written:
//!
//! * The start is a known state: DECSTR (pen, link, modes, margins, charsets), autowrap on,
//!   the alternate screen if the snapshot shows it (`CSI ? 1049 h`), then `CSI H CSI 2 J`.
//! * Cells are printed row by row with their pen (SGR from `settings::sgr`, the DECRQSS
//!   encoder) and hyperlink (OSC 8 with its `id=`). Combining marks follow their base
//!   character, so the emulator attaches them to the same cell; a wide character prints its
//!   spacer itself. Default blank cells are skipped (the screen was erased), the cursor jumps
//!   over them with CUP.
//! * A soft-wrapped row is printed up to its last column, which leaves the cursor waiting to
//!   wrap, and the next row's first character is printed without moving: the emulator sets the
//!   wrap flag when that character wraps (`Screen::wrap_line`). The last row cannot be
//!   continued that way (wrapping there scrolls), so a wrapped last row is drawn one row up,
//!   wrapped into the bottom row with a blank, and moved down with SD (`CSI T`), which
//!   drops that blank and keeps the flag; the other rows are drawn after it.
//! * Rows are drawn at normal size, so a double-size row's cells right of the half it shows
//!   (which the emulator keeps) come back too and its wrap happens at the screen's edge as
//!   the flag needs; the line sizes (`ESC # 3`, `# 4`, `# 6`) are set afterwards, which
//!   changes no cell.
//! * Then the title (OSC 2), the cursor position (CUP), its shape (DECSCUSR, steady) and
//!   visibility (DECTCEM), and a default pen with no link.
//!
//! What a snapshot does not hold cannot be restored: the scrollback (`scrollback_lines`
//! comes out as whatever the fresh terminal had, 0), the primary screen behind the alternate
//! one, a pending wrap of the cursor (a cursor in the last column resumes as if it had been
//! moved there), whether the cursor blinks, modes, margins, tab stops, the palette, the
//! protection of cells and the saved cursor. On screens one column wide (or two, with a wide
//! character opening the row) a wrapped row before a wrapped last row loses the last row's
//! flag: reprinting that row's only cell to continue the wrap ends it again. Cells no terminal
//! output produces (a spacer without its wide character, a character whose width is not the
//! cell's, control characters) are written as blanks in their style, and control characters
//! are dropped from the title and links, so the bytes stay well-formed whatever the snapshot
//! says.

use std::fmt::Write as _;

use unicode_width::UnicodeWidthChar;

use super::grid::LineSize;
use super::handler::CursorShape;
use super::link::push_osc8;
use super::settings;
use super::snapshot::{CellSnapshot, RowSnapshot, Snapshot};

impl Snapshot {
    /// Terminal output that redraws this screen: fed to a fresh [`Terminal`] of the same size,
    /// it gives the same snapshot, apart from `scrollback_lines` (what the snapshot does not
    /// hold is listed in the module documentation of `term::redraw`). The same snapshot
    /// always gives the same bytes.
    ///
    /// ```
    /// use shotty::term::Terminal;
    ///
    /// let mut t = Terminal::new(20, 4);
    /// t.advance(b"\x1b]2;demo\x07\x1b[1;38:2::255:0:0mred\x1b[m \xe6\x97\xa5\xe6\x9c\xac");
    /// t.advance(b"\r\n\x1b]8;id=1;https://example.com\x1b\\link\x1b]8;;\x1b\\ \x1b[?25l");
    /// let bytes = t.snapshot().redraw_bytes();
    /// let mut fresh = Terminal::new(20, 4);
    /// fresh.advance(&bytes);
    /// assert_eq!(fresh.snapshot(), t.snapshot());
    /// ```
    ///
    /// [`Terminal`]: super::Terminal
    pub fn redraw_bytes(&self) -> Vec<u8> {
        let mut painter = Painter::new(self);
        painter.start();
        painter.rows();
        painter.finish();
        painter.out.into_bytes()
    }
}

/// A cell no terminal output produces, or a missing one, is drawn as this.
static BLANK: CellSnapshot = CellSnapshot {
    t: std::borrow::Cow::Borrowed(""),
    w: 1,
    s: 0,
    l: None,
    m: false,
};

/// Writes the output, keeping track of the pen, the link and where the cursor is.
struct Painter<'a> {
    snap: &'a Snapshot,
    width: usize,
    height: usize,
    out: String,
    /// The style index the pen was last set to.
    pen: u32,
    /// The link index last opened.
    link: Option<u32>,
    /// Where the next character would land without a move (`None`: unknown, or the cursor
    /// waits to wrap).
    at: Option<(usize, usize)>,
}

impl<'a> Painter<'a> {
    fn new(snap: &'a Snapshot) -> Painter<'a> {
        Painter {
            snap,
            width: (snap.width as usize).max(1),
            height: (snap.height as usize).max(1),
            out: String::new(),
            pen: 0,
            link: None,
            at: None,
        }
    }

    fn row(&self, r: usize) -> Option<&'a RowSnapshot> {
        self.snap.rows.get(r)
    }

    fn wrapped(&self, r: usize) -> bool {
        self.row(r).is_some_and(|row| row.wrapped)
    }

    fn cell(&self, r: usize, c: usize) -> &'a CellSnapshot {
        self.row(r)
            .and_then(|row| row.cells.get(c))
            .unwrap_or(&BLANK)
    }

    /// The known state: soft reset (pen, link, modes, margins, charsets), autowrap, the right
    /// buffer, an erased screen.
    fn start(&mut self) {
        self.out.push_str("\x1b[!p\x1b[?7h");
        if self.snap.alternate_screen {
            self.out.push_str("\x1b[?1049h");
        }
        self.out.push_str("\x1b[H\x1b[2J");
        self.at = Some((0, 0));
    }

    fn rows(&mut self) {
        let last = self.height - 1;
        if last > 0 && self.wrapped(last) {
            // One row up, continued into the bottom row with a default blank; SD then moves
            // it down (flag and all) and drops the blank.
            self.draw_row(last, last - 1, false, self.width);
            self.set_pen(0);
            self.set_link(None);
            self.out.push(' ');
            self.goto(0, 0);
            self.out.push_str("\x1b[T");
            for r in 0..last {
                self.draw_row(r, r, r > 0 && self.wrapped(r - 1), self.width);
            }
            if self.wrapped(last - 1) {
                // Continue into the row already drawn: its first character again.
                self.draw_row(last, last, true, 1);
            }
        } else {
            for r in 0..=last {
                self.draw_row(r, r, r > 0 && self.wrapped(r - 1), self.width);
            }
        }
        self.line_sizes();
    }

    /// Draws the snapshot's row `src` on screen row `to`, its columns before `limit`.
    /// `continuing`: the cursor waits to wrap at the end of the row above, which must become
    /// wrapped, so the first cell is printed without moving.
    fn draw_row(&mut self, src: usize, to: usize, continuing: bool, limit: usize) {
        let wrapped = self.wrapped(src);
        let used = (0..self.width)
            .rev()
            .find(|&c| !is_default_blank(self.cell(src, c)))
            .map_or(0, |c| c + 1);
        let mut end = if wrapped { self.width } else { used };
        if continuing {
            end = end.max(1);
        }
        let end = end.min(limit);
        let mut col = 0;
        while col < end {
            let cell = self.cell(src, col);
            let first = continuing && col == 0;
            let must = first || (wrapped && col + 1 == self.width);
            if is_default_blank(cell) && !must {
                col += 1;
                continue;
            }
            if !first {
                self.goto(to, col);
            }
            let paired = cell.w == 2 && col + 1 < self.width && self.cell(src, col + 1).w == 0;
            let width = if paired { 2 } else { 1 };
            self.set_pen(cell.s);
            self.set_link(cell.l);
            push_text(&mut self.out, &cell.t, width);
            let next = col + width;
            self.at = (next < self.width).then_some((to, next));
            col = next;
        }
    }

    /// DECDWL / DECDHL on the rows that have a size.
    fn line_sizes(&mut self) {
        for r in 0..self.height {
            let size = self
                .row(r)
                .and_then(|row| row.size.as_deref())
                .and_then(LineSize::from_name);
            let code = match size {
                None | Some(LineSize::Single) => continue,
                Some(LineSize::DoubleHeightTop) => '3',
                Some(LineSize::DoubleHeightBottom) => '4',
                Some(LineSize::DoubleWidth) => '6',
            };
            self.goto(r, 0);
            self.out.push_str("\x1b#");
            self.out.push(code);
        }
    }

    /// Title, cursor, and a default pen with no link.
    fn finish(&mut self) {
        self.set_pen(0);
        self.set_link(None);
        if !self.snap.title.is_empty() {
            self.out.push_str("\x1b]2;");
            self.out
                .extend(self.snap.title.chars().filter(|c| !c.is_control()));
            self.out.push_str("\x1b\\");
        }
        let cursor = &self.snap.cursor;
        let row = (cursor.row as usize).min(self.height - 1);
        let col = (cursor.col as usize).min(self.width - 1);
        self.at = None;
        self.goto(row, col);
        let shape = CursorShape::from_name(&cursor.shape).unwrap_or_default();
        let _ = write!(self.out, "\x1b[{} q", settings::cursor_style(shape, false));
        if !cursor.visible {
            self.out.push_str("\x1b[?25l");
        }
    }

    /// CUP unless the cursor is there already.
    fn goto(&mut self, row: usize, col: usize) {
        if self.at != Some((row, col)) {
            let _ = write!(self.out, "\x1b[{};{}H", row + 1, col + 1);
            self.at = Some((row, col));
        }
    }

    fn set_pen(&mut self, s: u32) {
        if s == self.pen {
            return;
        }
        let style = self
            .snap
            .styles
            .get(s as usize)
            .map(|s| s.to_style())
            .unwrap_or_default();
        let _ = write!(self.out, "\x1b[{}m", settings::sgr(&style));
        self.pen = s;
    }

    fn set_link(&mut self, l: Option<u32>) {
        if l == self.link {
            return;
        }
        let link = l.and_then(|l| self.snap.links.get(l as usize));
        push_osc8(
            &mut self.out,
            link.map(|link| (link.id.as_deref(), link.uri.as_str())),
        );
        self.link = l;
    }
}

/// A cell the erased screen already has.
fn is_default_blank(cell: &CellSnapshot) -> bool {
    // An empty narrow cell (only a malformed snapshot has one) is drawn as a blank anyway.
    cell.w == 1 && (cell.t == " " || cell.t.is_empty()) && cell.s == 0 && cell.l.is_none()
}

/// A cell's text, taking `width` columns: its character and the zero-width ones after it, or
/// blanks when the character does not take that many columns.
fn push_text(out: &mut String, t: &str, width: usize) {
    let mut chars = t.chars();
    match chars.next() {
        Some(c) if !c.is_control() && c.width() == Some(width) => {
            out.push(c);
            out.extend(chars.filter(|c| !c.is_control() && c.width() == Some(0)));
        }
        _ => out.extend(std::iter::repeat_n(' ', width)),
    }
}
