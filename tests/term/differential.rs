//! Differential tests: shotty against `alacritty_terminal` 0.26.
//!
//! Both emulators are fed the same bytes — every recorded fixture to its end, and thousands of
//! short generated programs — and compared in a common representation. shotty's side is read
//! from its snapshots (`Terminal::snapshot`, `history_snapshot`: what the renderer and every
//! JSON reply see), not its internal grid. Compared: per cell the character with its
//! zero-width followers, the wide/spacer flags, the foreground, background and underline
//! colours (default / indexed / RGB), bold, dim, italic, underline style, inverse, hidden,
//! strike, the hyperlink; the soft-wrap flag of every row, the cursor (position, pending wrap,
//! visibility, shape), the active buffer, the scrollback, the window title, the modes both
//! track (IRM, LNM, DECCKM, DECKPAM, DECOM, DECAWM, mouse tracking and encoding, focus
//! events, bracketed paste), and every reply either sends the program. (Not compared: resize,
//! whose reflow alacritty does its own way; overline and blink, which alacritty lacks.)
//!
//! Where xterm (the reference shotty follows) and alacritty disagree, the harness recognises the
//! exact sequence and state involved (a [`Known`] difference, each documented in
//! `tests/KNOWN_DIFFERENCES.md`) and either feeds alacritty the xterm-equivalent sequence,
//! moves alacritty's cursor to where xterm puts it, stops comparing the scrollback, or ends the
//! case. Nothing else is tolerated: any other disagreement fails with the input, the first
//! differing cell and both rows.
//!
//! `DIFF_CASES=n` changes the number of generated programs, `DIFF_SEED=s` runs only one.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::rc::Rc;

use alacritty_terminal::event::{Event, EventListener};
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line, Point};
use alacritty_terminal::term::cell::{Cell as ACell, Flags};
use alacritty_terminal::term::{Config, Term, TermMode};
use alacritty_terminal::vte::ansi::{
    Color as AColor, CursorShape as ACursorShape, NamedColor, Processor, StdSyncHandler,
};
use shotty::term::{
    Attrs, Color, MouseEncoding, MouseTracking, RowSnapshot, Snapshot, Terminal, Underline,
};
use unicode_width::UnicodeWidthChar;

use crate::support::{self, escape_bytes};

// ----- the common representation ------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rgbish {
    Default,
    Index(u8),
    Rgb(u8, u8, u8),
}

impl fmt::Display for Rgbish {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rgbish::Default => f.write_str("default"),
            Rgbish::Index(i) => write!(f, "{i}"),
            Rgbish::Rgb(r, g, b) => write!(f, "#{r:02x}{g:02x}{b:02x}"),
        }
    }
}

const BOLD: u8 = 1;
const DIM: u8 = 1 << 1;
const ITALIC: u8 = 1 << 2;
const INVERSE: u8 = 1 << 3;
const HIDDEN: u8 = 1 << 4;
const STRIKE: u8 = 1 << 5;
const ATTR_NAMES: [(u8, &str); 6] = [
    (BOLD, "bold"),
    (DIM, "dim"),
    (ITALIC, "italic"),
    (INVERSE, "inverse"),
    (HIDDEN, "hidden"),
    (STRIKE, "strike"),
];
const UNDERLINES: [&str; 6] = ["none", "single", "double", "curly", "dotted", "dashed"];

#[derive(Clone, Debug, PartialEq, Eq)]
struct CellRep {
    /// The character and its zero-width followers; `""` for a spacer.
    text: String,
    /// 2 wide, 0 spacer, 1 otherwise.
    width: u8,
    fg: Rgbish,
    bg: Rgbish,
    attrs: u8,
    /// Index into [`UNDERLINES`].
    underline: u8,
    /// SGR 58; `Default` when unset.
    underline_color: Rgbish,
    link: Option<String>,
}

impl fmt::Display for CellRep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} w{} fg={} bg={}",
            self.text, self.width, self.fg, self.bg
        )?;
        for (bit, name) in ATTR_NAMES {
            if self.attrs & bit != 0 {
                write!(f, " {name}")?;
            }
        }
        if self.underline != 0 {
            write!(f, " underline={}", UNDERLINES[self.underline as usize])?;
        }
        if self.underline_color != Rgbish::Default {
            write!(f, " underline-colour={}", self.underline_color)?;
        }
        if let Some(link) = &self.link {
            write!(f, " link={link:?}")?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct RowRep {
    cells: Vec<CellRep>,
    wrapped: bool,
}

impl RowRep {
    fn text(&self) -> String {
        self.cells.iter().map(|c| c.text.as_str()).collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CursorRep {
    row: usize,
    col: usize,
    pending_wrap: bool,
    visible: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct StateRep {
    rows: Vec<RowRep>,
    /// Scrollback, oldest first.
    history: Vec<RowRep>,
    cursor: CursorRep,
    alt: bool,
    /// The rest of the terminal's state both emulators track: window title, cursor shape,
    /// modes. (The replies are compared as they come, see [`Pair::step`].)
    settings: SettingsRep,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct SettingsRep {
    title: String,
    /// "block", "underline" or "bar".
    cursor_shape: &'static str,
    insert: bool,
    linefeed_newline: bool,
    cursor_keys_application: bool,
    keypad_application: bool,
    origin: bool,
    autowrap: bool,
    /// "off", "normal" (?1000), "button" (?1002), "any" (?1003).
    mouse_tracking: &'static str,
    mouse_sgr: bool,
    mouse_utf8: bool,
    focus_events: bool,
    bracketed_paste: bool,
}

// ----- shotty -> common ---------------------------------------------------------------------

fn shotty_color(c: Color) -> Rgbish {
    match c {
        Color::Default => Rgbish::Default,
        Color::Indexed(i) => Rgbish::Index(i),
        Color::Rgb(r, g, b) => Rgbish::Rgb(r, g, b),
    }
}

/// A row of a snapshot: what the renderer and every JSON reply see.
fn shotty_row(snap: &Snapshot, row: &RowSnapshot) -> RowRep {
    let cells = row
        .cells
        .iter()
        .map(|cell| {
            let style = snap.styles[cell.s as usize].to_style();
            let a = style.attrs;
            let mut attrs = 0;
            for (bit, flag) in [
                (BOLD, Attrs::BOLD),
                (DIM, Attrs::DIM),
                (ITALIC, Attrs::ITALIC),
                (INVERSE, Attrs::INVERSE),
                (HIDDEN, Attrs::HIDDEN),
                (STRIKE, Attrs::STRIKE),
            ] {
                if a.contains(flag) {
                    attrs |= bit;
                }
            }
            let underline = match style.underline {
                Underline::None => 0,
                Underline::Single => 1,
                Underline::Double => 2,
                Underline::Curly => 3,
                Underline::Dotted => 4,
                Underline::Dashed => 5,
            };
            CellRep {
                text: cell.t.to_string(),
                width: cell.w,
                fg: shotty_color(style.fg),
                bg: shotty_color(style.bg),
                attrs,
                underline,
                underline_color: shotty_color(style.underline_color),
                link: cell.l.map(|l| snap.links[l as usize].uri.clone()),
            }
        })
        .collect();
    RowRep {
        cells,
        wrapped: row.wrapped,
    }
}

fn blank_row(width: usize) -> RowRep {
    let blank = CellRep {
        text: " ".into(),
        width: 1,
        fg: Rgbish::Default,
        bg: Rgbish::Default,
        attrs: 0,
        underline: 0,
        underline_color: Rgbish::Default,
        link: None,
    };
    RowRep {
        cells: vec![blank; width],
        wrapped: false,
    }
}

/// shotty's state as its snapshots give it: the screen from [`Terminal::snapshot`], the
/// scrollback from [`Terminal::history_snapshot`] (which leaves out blank lines at the end,
/// put back here as blank rows).
fn shotty_state(term: &Terminal) -> StateRep {
    let screen = term.screen();
    let snap = term.snapshot();
    let history = term.history_snapshot(usize::MAX);
    let scrollback = screen.scrollback().rows().len();
    let mut history_rows: Vec<RowRep> = history
        .rows
        .iter()
        .take(scrollback)
        .map(|r| shotty_row(&history, r))
        .collect();
    history_rows.resize_with(scrollback, || blank_row(term.width()));
    let cursor = screen.cursor();
    let modes = screen.modes();
    StateRep {
        rows: snap.rows.iter().map(|r| shotty_row(&snap, r)).collect(),
        history: history_rows,
        cursor: CursorRep {
            row: snap.cursor.row as usize,
            col: snap.cursor.col as usize,
            // Not in the snapshot: it decides only where the next character goes.
            pending_wrap: cursor.pending_wrap,
            visible: snap.cursor.visible,
        },
        alt: snap.alternate_screen,
        settings: SettingsRep {
            title: snap.title.clone(),
            cursor_shape: match snap.cursor.shape.as_str() {
                "underline" => "underline",
                "bar" => "bar",
                _ => "block",
            },
            insert: modes.insert,
            linefeed_newline: modes.linefeed_newline,
            cursor_keys_application: modes.cursor_keys_application,
            keypad_application: modes.keypad_application,
            origin: modes.origin,
            autowrap: modes.autowrap,
            mouse_tracking: match modes.mouse_tracking {
                MouseTracking::Off => "off",
                MouseTracking::X10 => "x10",
                MouseTracking::Normal => "normal",
                MouseTracking::ButtonEvent => "button",
                MouseTracking::AnyEvent => "any",
            },
            mouse_sgr: modes.mouse_encoding == MouseEncoding::Sgr,
            mouse_utf8: modes.mouse_encoding == MouseEncoding::Utf8,
            focus_events: modes.focus_events,
            bracketed_paste: modes.bracketed_paste,
        },
    }
}

// ----- alacritty -> common ------------------------------------------------------------------

/// What alacritty reports through its event listener rather than its state: the window
/// title and the bytes it answers the program with.
#[derive(Default)]
struct AlacEvents {
    title: String,
    replies: Vec<u8>,
}

#[derive(Clone, Default)]
struct Listener(Rc<RefCell<AlacEvents>>);

impl EventListener for Listener {
    fn send_event(&self, event: Event) {
        let mut events = self.0.borrow_mut();
        match event {
            Event::Title(title) => events.title = title,
            Event::ResetTitle => events.title.clear(),
            Event::PtyWrite(text) => events.replies.extend_from_slice(text.as_bytes()),
            _ => {}
        }
    }
}

struct Size {
    columns: usize,
    lines: usize,
}

impl Dimensions for Size {
    fn total_lines(&self) -> usize {
        self.lines
    }

    fn screen_lines(&self) -> usize {
        self.lines
    }

    fn columns(&self) -> usize {
        self.columns
    }
}

struct Alac {
    term: Term<Listener>,
    parser: Processor<StdSyncHandler>,
    events: Listener,
}

fn alac_color(c: AColor) -> Rgbish {
    match c {
        AColor::Named(NamedColor::Foreground | NamedColor::Background) => Rgbish::Default,
        AColor::Named(n) if (n as usize) < 16 => Rgbish::Index(n as u8),
        AColor::Named(n) => panic!("alacritty produced the unexpected colour {n:?}"),
        AColor::Indexed(i) => Rgbish::Index(i),
        AColor::Spec(rgb) => Rgbish::Rgb(rgb.r, rgb.g, rgb.b),
    }
}

fn alac_cell(cell: &ACell) -> CellRep {
    let f = cell.flags;
    let width = if f.contains(Flags::WIDE_CHAR) {
        2
    } else if f.contains(Flags::WIDE_CHAR_SPACER) {
        0
    } else {
        1
    };
    let text = if width == 0 {
        String::new()
    } else {
        // alacritty stores a tab into the blank cells a HT passes over (for copying); the
        // screen shows a blank.
        let mut t = if cell.c == '\t' { ' ' } else { cell.c }.to_string();
        t.extend(cell.zerowidth().unwrap_or(&[]));
        t
    };
    let mut attrs = 0;
    for (bit, flag) in [
        (BOLD, Flags::BOLD),
        (DIM, Flags::DIM),
        (ITALIC, Flags::ITALIC),
        (INVERSE, Flags::INVERSE),
        (HIDDEN, Flags::HIDDEN),
        (STRIKE, Flags::STRIKEOUT),
    ] {
        if f.contains(flag) {
            attrs |= bit;
        }
    }
    let underline = [
        (Flags::UNDERLINE, 1),
        (Flags::DOUBLE_UNDERLINE, 2),
        (Flags::UNDERCURL, 3),
        (Flags::DOTTED_UNDERLINE, 4),
        (Flags::DASHED_UNDERLINE, 5),
    ]
    .into_iter()
    .find(|(flag, _)| f.contains(*flag))
    .map_or(0, |(_, n)| n);
    CellRep {
        text,
        width,
        fg: alac_color(cell.fg),
        bg: alac_color(cell.bg),
        attrs,
        underline,
        underline_color: cell.underline_color().map_or(Rgbish::Default, alac_color),
        link: cell.hyperlink().map(|h| h.uri().to_owned()),
    }
}

impl Alac {
    fn new(columns: usize, lines: usize) -> Alac {
        let events = Listener::default();
        Alac {
            term: Term::new(Config::default(), &Size { columns, lines }, events.clone()),
            parser: Processor::new(),
            events,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.parser.advance(&mut self.term, bytes);
        // Synchronized updates (?2026) only delay drawing; apply them at once.
        if self.parser.sync_bytes_count() > 0 {
            self.parser.stop_sync(&mut self.term);
        }
    }

    fn row(&self, line: i32) -> RowRep {
        let grid = self.term.grid();
        let row = &grid[Line(line)];
        let cols = grid.columns();
        RowRep {
            cells: (0..cols).map(|c| alac_cell(&row[Column(c)])).collect(),
            wrapped: row[Column(cols - 1)].flags.contains(Flags::WRAPLINE),
        }
    }

    fn state(&self) -> StateRep {
        let grid = self.term.grid();
        let cursor = &grid.cursor;
        let history = grid.history_size() as i32;
        StateRep {
            rows: (0..grid.screen_lines() as i32)
                .map(|l| self.row(l))
                .collect(),
            history: (1..=history).rev().map(|l| self.row(-l)).collect(),
            cursor: CursorRep {
                row: cursor.point.line.0 as usize,
                col: cursor.point.column.0,
                pending_wrap: cursor.input_needs_wrap,
                visible: self.term.mode().contains(TermMode::SHOW_CURSOR),
            },
            alt: self.term.mode().contains(TermMode::ALT_SCREEN),
            settings: self.settings(),
        }
    }

    fn settings(&self) -> SettingsRep {
        let mode = *self.term.mode();
        let on = |m: TermMode| mode.contains(m);
        SettingsRep {
            title: self.events.0.borrow().title.clone(),
            cursor_shape: match self.term.cursor_style().shape {
                ACursorShape::Underline => "underline",
                ACursorShape::Beam => "bar",
                _ => "block",
            },
            insert: on(TermMode::INSERT),
            linefeed_newline: on(TermMode::LINE_FEED_NEW_LINE),
            cursor_keys_application: on(TermMode::APP_CURSOR),
            keypad_application: on(TermMode::APP_KEYPAD),
            origin: on(TermMode::ORIGIN),
            autowrap: on(TermMode::LINE_WRAP),
            mouse_tracking: if on(TermMode::MOUSE_MOTION) {
                "any"
            } else if on(TermMode::MOUSE_DRAG) {
                "button"
            } else if on(TermMode::MOUSE_REPORT_CLICK) {
                "normal"
            } else {
                "off"
            },
            mouse_sgr: on(TermMode::SGR_MOUSE),
            mouse_utf8: on(TermMode::UTF8_MOUSE),
            focus_events: on(TermMode::FOCUS_IN_OUT),
            bracketed_paste: on(TermMode::BRACKETED_PASTE),
        }
    }

    /// The bytes alacritty answered with since the last call.
    fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.events.0.borrow_mut().replies)
    }

    fn cursor(&self) -> (usize, usize, bool) {
        let c = &self.term.grid().cursor;
        (
            c.point.line.0 as usize,
            c.point.column.0,
            c.input_needs_wrap,
        )
    }

    fn set_cursor(&mut self, row: usize, col: usize, pending_wrap: bool) {
        let c = &mut self.term.grid_mut().cursor;
        c.point = Point::new(Line(row as i32), Column(col));
        c.input_needs_wrap = pending_wrap;
    }

    fn wrapped(&self, row: usize) -> bool {
        let grid = self.term.grid();
        grid[Line(row as i32)][Column(grid.columns() - 1)]
            .flags
            .contains(Flags::WRAPLINE)
    }

    fn set_wrapped(&mut self, row: usize) {
        let grid = self.term.grid_mut();
        let last = Column(grid.columns() - 1);
        grid[Line(row as i32)][last].flags.insert(Flags::WRAPLINE);
    }

    /// Gives the blank alacritty writes into the last column of `row` before wrapping a wide
    /// character the erase style shotty uses. Returns whether the cell needed it.
    fn restyle_wrap_pad(&mut self, row: usize) -> bool {
        let bg = self.term.grid().cursor.template.bg;
        let grid = self.term.grid_mut();
        let last = Column(grid.columns() - 1);
        let cell = &mut grid[Line(row as i32)][last];
        let mut pad: ACell = bg.into();
        pad.flags = cell.flags & (Flags::LEADING_WIDE_CHAR_SPACER | Flags::WRAPLINE);
        if cell.c != ' ' || *cell == pad {
            return false;
        }
        *cell = pad;
        true
    }

    /// Blanks (in the erase style) every half of a wide character whose other half is gone,
    /// as xterm's `DamagedCells` repair does. Returns whether there was one.
    fn repair_wide_halves(&mut self) -> bool {
        let bg = self.term.grid().cursor.template.bg;
        let grid = self.term.grid_mut();
        let cols = grid.columns();
        let mut repaired = false;
        for line in 0..grid.screen_lines() as i32 {
            let row = &mut grid[Line(line)];
            for col in 0..cols {
                let f = row[Column(col)].flags;
                let orphan = if f.contains(Flags::WIDE_CHAR) {
                    col + 1 == cols || !row[Column(col + 1)].flags.contains(Flags::WIDE_CHAR_SPACER)
                } else if f.contains(Flags::WIDE_CHAR_SPACER) {
                    col == 0 || !row[Column(col - 1)].flags.contains(Flags::WIDE_CHAR)
                } else {
                    false
                };
                if orphan {
                    let wrapline = f & Flags::WRAPLINE;
                    row[Column(col)] = bg.into();
                    row[Column(col)].flags |= wrapline;
                    repaired = true;
                }
            }
        }
        repaired
    }

    /// Whether each cell of `row` is half of a wide character.
    fn wide_flags(&self, row: usize) -> Vec<bool> {
        let grid = self.term.grid();
        (0..grid.columns())
            .map(|c| {
                grid[Line(row as i32)][Column(c)]
                    .flags
                    .intersects(Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER)
            })
            .collect()
    }

    /// Gives the erase style to the cells next to `col..col + width` of `row` that were half
    /// of a wide character before a print and are a plain blank after it: xterm clears the
    /// rest of an overwritten wide character with the current colours, alacritty keeps the old
    /// style. Returns whether there was one.
    fn restyle_leftover_halves(
        &mut self,
        row: usize,
        col: usize,
        width: usize,
        before: &[bool],
    ) -> bool {
        let bg = self.term.grid().cursor.template.bg;
        let grid = self.term.grid_mut();
        let cols = grid.columns();
        let mut changed = false;
        for c in [col.wrapping_sub(1), col + width] {
            if c >= cols || !before[c] {
                continue;
            }
            let cell = &mut grid[Line(row as i32)][Column(c)];
            let plain = !cell
                .flags
                .intersects(Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER);
            if plain && cell.c == ' ' {
                let wrapline = cell.flags & Flags::WRAPLINE;
                *cell = bg.into();
                cell.flags |= wrapline;
                changed = true;
            }
        }
        changed
    }

    /// Erases a whole row with the current background.
    fn erase_row(&mut self, row: usize) {
        let bg = self.term.grid().cursor.template.bg;
        let grid = self.term.grid_mut();
        for c in 0..grid.columns() {
            grid[Line(row as i32)][Column(c)] = bg.into();
        }
    }

    fn mode(&self, mode: TermMode) -> bool {
        self.term.mode().contains(mode)
    }
}

// ----- comparison ---------------------------------------------------------------------------

/// The first disagreement between two states.
struct Diff {
    what: String,
    /// `(history?, row index, column)` of a differing cell or row flag.
    at: Option<(bool, usize, Option<usize>)>,
}

fn first_difference(s: &StateRep, a: &StateRep, with_history: bool) -> Option<Diff> {
    fn rows_diff(history: bool, s: &[RowRep], a: &[RowRep]) -> Option<Diff> {
        let kind = if history { "scrollback line" } else { "row" };
        for (i, (rs, ra)) in s.iter().zip(a).enumerate() {
            for (c, (cs, ca)) in rs.cells.iter().zip(&ra.cells).enumerate() {
                if cs != ca {
                    return Some(Diff {
                        what: format!(
                            "{kind} {i} col {c}:\n    shotty:    {cs}\n    alacritty: {ca}"
                        ),
                        at: Some((history, i, Some(c))),
                    });
                }
            }
            if rs.wrapped != ra.wrapped {
                return Some(Diff {
                    what: format!(
                        "{kind} {i} wrapped flag: shotty {}, alacritty {}",
                        rs.wrapped, ra.wrapped
                    ),
                    at: Some((history, i, None)),
                });
            }
        }
        None
    }
    if s.alt != a.alt {
        return Some(Diff {
            what: format!("alternate screen: shotty {}, alacritty {}", s.alt, a.alt),
            at: None,
        });
    }
    if let Some(d) = rows_diff(false, &s.rows, &a.rows) {
        return Some(d);
    }
    if s.cursor != a.cursor {
        return Some(Diff {
            what: format!("cursor: shotty {:?}, alacritty {:?}", s.cursor, a.cursor),
            at: None,
        });
    }
    if s.settings != a.settings {
        return Some(Diff {
            what: format!(
                "title, cursor shape or modes:\n    shotty:    {:?}\n    alacritty: {:?}",
                s.settings, a.settings
            ),
            at: None,
        });
    }
    if with_history {
        if s.history.len() != a.history.len() {
            let show = |h: &[RowRep]| {
                h.iter()
                    .rev()
                    .take(3)
                    .map(|r| format!("{:?}", r.text().trim_end()))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Some(Diff {
                what: format!(
                    "scrollback length: shotty {} (newest: {}), alacritty {} (newest: {})",
                    s.history.len(),
                    show(&s.history),
                    a.history.len(),
                    show(&a.history)
                ),
                at: None,
            });
        }
        if let Some(d) = rows_diff(true, &s.history, &a.history) {
            return Some(d);
        }
    }
    None
}

/// The diff with both rows around the differing cell and both cursors.
fn describe(diff: &Diff, s: &StateRep, a: &StateRep) -> String {
    let mut out = format!("  first difference: {}\n", diff.what);
    if let Some((history, row, col)) = diff.at {
        let (rs, ra) = if history {
            (&s.history, &a.history)
        } else {
            (&s.rows, &a.rows)
        };
        let lo = row.saturating_sub(1);
        let hi = (row + 1).min(rs.len().saturating_sub(1));
        for i in lo..=hi {
            let mark = if i == row { ">" } else { " " };
            let _ = writeln!(out, "  {mark} {i:>3} shotty    |{}|", rs[i].text());
            let _ = writeln!(out, "  {mark} {i:>3} alacritty |{}|", ra[i].text());
        }
        if let Some(col) = col {
            let _ = writeln!(out, "                  {}^ col {col}", " ".repeat(col));
        }
    }
    let _ = writeln!(
        out,
        "  cursor: shotty {:?}, alacritty {:?}",
        s.cursor, a.cursor
    );
    out
}

// ----- tokens -------------------------------------------------------------------------------

/// Splits a byte stream into single characters, C0 controls and whole escape sequences.
fn tokenize(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let b = bytes[i];
        i += 1;
        if b == 0x1b && i < bytes.len() {
            let kind = bytes[i];
            i += 1;
            match kind {
                b'[' => {
                    while i < bytes.len() && !(0x40..=0x7e).contains(&bytes[i]) {
                        i += 1;
                    }
                    i = (i + 1).min(bytes.len());
                }
                b']' | b'P' | b'X' | b'^' | b'_' => {
                    while i < bytes.len() {
                        if bytes[i] == 0x07 && kind == b']' {
                            i += 1;
                            break;
                        }
                        if bytes[i] == 0x1b && bytes.get(i + 1) == Some(&b'\\') {
                            i += 2;
                            break;
                        }
                        i += 1;
                    }
                }
                0x20..=0x2f => {
                    while i < bytes.len() && (0x20..=0x2f).contains(&bytes[i]) {
                        i += 1;
                    }
                    i = (i + 1).min(bytes.len());
                }
                _ => {}
            }
        } else if b >= 0xc0 {
            let len = match b {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let end = (start + len).min(bytes.len());
            while i < end && bytes[i] & 0xc0 == 0x80 {
                i += 1;
            }
        }
        out.push(&bytes[start..i]);
    }
    out
}

/// A token as far as the known-difference filters need to understand it.
#[derive(Debug, PartialEq, Eq)]
enum Tok {
    Control(u8),
    /// `CSI [private] params [intermediates] final`; sub-parameters kept per group.
    Csi {
        private: Option<u8>,
        params: Vec<Vec<u16>>,
        intermediates: Vec<u8>,
        action: u8,
    },
    Esc {
        intermediates: Vec<u8>,
        action: u8,
    },
    Other,
}

impl Tok {
    fn parse(token: &[u8]) -> Tok {
        match token {
            [b] if *b < 0x20 || *b == 0x7f => Tok::Control(*b),
            [0x1b, b'[', rest @ ..] if !rest.is_empty() => {
                let (action, body) = rest.split_last().unwrap();
                let (private, body) = match body.first() {
                    Some(&p @ 0x3c..=0x3f) => (Some(p), &body[1..]),
                    _ => (None, body),
                };
                let split = body
                    .iter()
                    .position(|b| (0x20..=0x2f).contains(b))
                    .unwrap_or(body.len());
                let (digits, intermediates) = body.split_at(split);
                let params = if digits.is_empty() {
                    Vec::new()
                } else {
                    digits
                        .split(|&b| b == b';')
                        .map(|group| {
                            group
                                .split(|&b| b == b':')
                                .map(|d| {
                                    std::str::from_utf8(d)
                                        .ok()
                                        .and_then(|s| s.parse::<u32>().ok())
                                        .map_or(0, |v| v.min(u16::MAX as u32) as u16)
                                })
                                .collect()
                        })
                        .collect()
                };
                Tok::Csi {
                    private,
                    params,
                    intermediates: intermediates.to_vec(),
                    action: *action,
                }
            }
            [0x1b, rest @ ..] if !rest.is_empty() && !matches!(rest[0], b']' | b'P') => {
                let (action, intermediates) = rest.split_last().unwrap();
                Tok::Esc {
                    intermediates: intermediates.to_vec(),
                    action: *action,
                }
            }
            _ => Tok::Other,
        }
    }

    /// `CSI … action` without private marker or intermediates.
    fn csi(&self, want: u8) -> Option<&[Vec<u16>]> {
        match self {
            Tok::Csi {
                private: None,
                params,
                intermediates,
                action,
            } if intermediates.is_empty() && *action == want => Some(params),
            _ => None,
        }
    }

    fn esc(&self, want: u8) -> bool {
        matches!(self, Tok::Esc { intermediates, action } if intermediates.is_empty() && *action == want)
    }

    /// `CSI ? … h/l` setting (`Some(true)`) or resetting DEC private mode `mode`.
    fn dec_mode(&self, mode: u16) -> Option<bool> {
        match self {
            Tok::Csi {
                private: Some(b'?'),
                params,
                intermediates,
                action: action @ (b'h' | b'l'),
            } if intermediates.is_empty() && params.iter().any(|p| p.first() == Some(&mode)) => {
                Some(*action == b'h')
            }
            _ => None,
        }
    }
}

/// Parameter `i` with `default` for absent or zero.
fn param(params: &[Vec<u16>], i: usize, default: u16) -> u16 {
    match params.get(i).and_then(|p| p.first()) {
        Some(0) | None => default,
        Some(&v) => v,
    }
}

// ----- known differences --------------------------------------------------------------------

/// A documented disagreement between xterm (followed by shotty) and alacritty. Each has a
/// section `## <name>` in `tests/KNOWN_DIFFERENCES.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Known {
    PendingWrapReset,
    El0AtPendingWrap,
    IlDlCarriageReturn,
    CursorUpDownMargins,
    OriginRelativeMotion,
    TabAtPendingWrap,
    DecrcRestoresModes,
    Sgr21DoubleUnderline,
    Ed2PushesScrollback,
    Ed3OnAlternateScreen,
    Repeated1049Set,
    Reset1049OnPrimary,
    DecomResetHomes,
    DchCountBeyondLine,
    IchDchKeepWrapFlag,
    InsertModeWideChar,
    WideCharNoAutowrap,
    LeadingPadStyle,
    WideCharHalves,
    Ed1SkipsFirstRow,
    IdentityReplies,
    DecxcprUnanswered,
    ColourQueries,
    CprInOriginMode,
    LnmLinefeed,
    MouseModeReset,
    DecrcRestoresShift,
}

impl Known {
    const ALL: [Known; 27] = [
        Known::PendingWrapReset,
        Known::El0AtPendingWrap,
        Known::IlDlCarriageReturn,
        Known::CursorUpDownMargins,
        Known::OriginRelativeMotion,
        Known::TabAtPendingWrap,
        Known::DecrcRestoresModes,
        Known::Sgr21DoubleUnderline,
        Known::Ed2PushesScrollback,
        Known::Ed3OnAlternateScreen,
        Known::Repeated1049Set,
        Known::Reset1049OnPrimary,
        Known::DecomResetHomes,
        Known::DchCountBeyondLine,
        Known::IchDchKeepWrapFlag,
        Known::InsertModeWideChar,
        Known::WideCharNoAutowrap,
        Known::LeadingPadStyle,
        Known::WideCharHalves,
        Known::Ed1SkipsFirstRow,
        Known::IdentityReplies,
        Known::DecxcprUnanswered,
        Known::ColourQueries,
        Known::CprInOriginMode,
        Known::LnmLinefeed,
        Known::MouseModeReset,
        Known::DecrcRestoresShift,
    ];

    fn name(self) -> &'static str {
        match self {
            Known::PendingWrapReset => "pending-wrap-reset",
            Known::El0AtPendingWrap => "el0-at-pending-wrap",
            Known::IlDlCarriageReturn => "il-dl-carriage-return",
            Known::CursorUpDownMargins => "cursor-up-down-margins",
            Known::OriginRelativeMotion => "origin-relative-motion",
            Known::TabAtPendingWrap => "tab-at-pending-wrap",
            Known::DecrcRestoresModes => "decrc-restores-modes",
            Known::Sgr21DoubleUnderline => "sgr-21-double-underline",
            Known::Ed2PushesScrollback => "ed2-pushes-scrollback",
            Known::Ed3OnAlternateScreen => "ed3-on-alternate-screen",
            Known::Repeated1049Set => "repeated-1049-set",
            Known::Reset1049OnPrimary => "1049-reset-on-primary",
            Known::DecomResetHomes => "decom-reset-homes",
            Known::DchCountBeyondLine => "dch-count-beyond-line",
            Known::IchDchKeepWrapFlag => "ich-dch-keep-wrap-flag",
            Known::InsertModeWideChar => "insert-mode-wide-char",
            Known::WideCharNoAutowrap => "wide-char-at-margin-without-autowrap",
            Known::LeadingPadStyle => "wide-char-wrap-pad",
            Known::WideCharHalves => "wide-char-halves",
            Known::Ed1SkipsFirstRow => "ed1-skips-first-row",
            Known::IdentityReplies => "identity-replies",
            Known::DecxcprUnanswered => "decxcpr-unanswered",
            Known::ColourQueries => "colour-queries",
            Known::CprInOriginMode => "cpr-in-origin-mode",
            Known::LnmLinefeed => "lnm-linefeed",
            Known::MouseModeReset => "mouse-mode-reset",
            Known::DecrcRestoresShift => "decrc-restores-shift",
        }
    }
}

/// shotty's state before a token, as far as the filters need it.
#[derive(Clone, Copy, Debug)]
struct Pre {
    row: usize,
    col: usize,
    pending_wrap: bool,
    alt: bool,
    origin: bool,
    autowrap: bool,
    insert: bool,
    linefeed_newline: bool,
    top: usize,
    bottom: usize,
    width: usize,
    height: usize,
}

impl Pre {
    fn of(term: &Terminal) -> Pre {
        let screen = term.screen();
        let c = screen.cursor();
        let (top, bottom) = screen.scroll_region();
        Pre {
            row: c.row,
            col: c.col,
            pending_wrap: c.pending_wrap,
            alt: screen.is_alternate_screen(),
            origin: screen.modes().origin,
            autowrap: screen.modes().autowrap,
            insert: screen.modes().insert,
            linefeed_newline: screen.modes().linefeed_newline,
            top,
            bottom,
            width: screen.width(),
            height: screen.height(),
        }
    }

    fn in_margins(&self) -> bool {
        self.top <= self.row && self.row <= self.bottom
    }
}

/// Where xterm's CUU/CUD/CNL/CPL/CHA/HPA put the cursor (cursor.c `CursorUp`, `CursorDown`,
/// `CursorSet` with `CursorRow`): the margins stop vertical motion when the cursor starts
/// inside them, and CHA keeps the row.
fn xterm_motion(pre: &Pre, action: u8, n: u16) -> (usize, usize) {
    let n = n as usize;
    let up = |row: usize| {
        let min = if pre.row < pre.top { 0 } else { pre.top };
        row.saturating_sub(n).max(min)
    };
    let down = |row: usize| {
        let max = if pre.row > pre.bottom {
            pre.height - 1
        } else {
            pre.bottom
        };
        (row + n).min(max)
    };
    match action {
        b'A' => (up(pre.row), pre.col),
        b'F' => (up(pre.row), 0),
        b'B' => (down(pre.row), pre.col),
        b'E' => (down(pre.row), 0),
        b'G' | b'`' => (pre.row, (n.max(1) - 1).min(pre.width - 1)),
        _ => unreachable!(),
    }
}

/// What the harness does for one token.
enum Outcome {
    Fed,
    /// The case cannot be compared from here on.
    Stop(Known),
}

/// shotty and alacritty fed in lockstep, with the known-difference filters in between.
struct Pair {
    shotty: Terminal,
    alac: Alac,
    /// `(origin, autowrap)` saved by DECSC per buffer, tracked independently of either
    /// emulator (xterm's `CursorSave` keeps them in `sc->flags`).
    saved_modes: [Option<(bool, bool, bool)>; 2],
    /// Whether G1 is invoked into GL (SO) rather than G0 (SI), tracked like `saved_modes`:
    /// xterm's DECSC saves it, alacritty's does not.
    shifted_out: bool,
    compare_history: bool,
    /// The first token the two answered differently, if any.
    reply_mismatch: Option<String>,
    /// How often each known difference was met.
    met: BTreeMap<Known, usize>,
}

impl Pair {
    fn new(width: usize, height: usize) -> Pair {
        Pair {
            shotty: Terminal::new(width, height),
            alac: Alac::new(width, height),
            saved_modes: [None; 2],
            shifted_out: false,
            compare_history: true,
            reply_mismatch: None,
            met: BTreeMap::new(),
        }
    }

    fn note(&mut self, k: Known) {
        *self.met.entry(k).or_default() += 1;
    }

    fn step(&mut self, token: &[u8]) -> Outcome {
        let pre = Pre::of(&self.shotty);
        let tok = Tok::parse(token);
        let mut alac_bytes: Cow<[u8]> = Cow::Borrowed(token);

        // A single printed character and its width.
        let printed = std::str::from_utf8(token)
            .ok()
            .filter(|t| t.chars().count() == 1)
            .and_then(|t| t.chars().next())
            .filter(|c| !c.is_control())
            .map(|c| (c, c.width().unwrap_or(0)));
        let print_width = printed.map(|(_, w)| w);

        // --- before feeding: cases that cannot be aligned, and translations ---------------
        if pre.pending_wrap && tok == Tok::Control(b'\t') {
            return Outcome::Stop(Known::TabAtPendingWrap);
        }
        if let Some(w) = print_width.filter(|&w| w > 0 && pre.insert) {
            // The insertion splits a wide character (at the cursor, or one pushed against
            // the right edge), or the inserted character is itself wide.
            let grid = self.shotty.screen().grid();
            let (row, col) = if pre.pending_wrap && pre.autowrap {
                (pre.row + 1, 0)
            } else {
                (pre.row, pre.col)
            };
            let cuts = row < pre.height && {
                let cells = grid.row(row).cells();
                let edge = pre.width.saturating_sub(w + 1);
                cells[col].is_spacer() || cells[edge.max(col)..].iter().any(|c| c.is_wide())
            };
            if w == 2 || cuts {
                return Outcome::Stop(Known::InsertModeWideChar);
            }
        }
        if let Some(params) = tok.csi(b'm') {
            // Attribute positions holding a lone 21 (not a colour component after 38/48/58).
            let mut sgr21 = Vec::new();
            let mut i = 0;
            while i < params.len() {
                match params[i].as_slice() {
                    [21] => sgr21.push(i),
                    [38 | 48 | 58] => match params.get(i + 1).map(|p| p.as_slice()) {
                        Some([5]) => i += 2,
                        Some([2]) => i += 4,
                        _ => {}
                    },
                    _ => {}
                }
                i += 1;
            }
            if !sgr21.is_empty() {
                self.note(Known::Sgr21DoubleUnderline);
                let mut out = b"\x1b[".to_vec();
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        out.push(b';');
                    }
                    let group: Vec<String> = if sgr21.contains(&i) {
                        vec!["4".into(), "2".into()]
                    } else {
                        p.iter().map(u16::to_string).collect()
                    };
                    out.extend_from_slice(group.join(":").as_bytes());
                }
                out.push(b'm');
                alac_bytes = Cow::Owned(out);
            }
        }
        if let Some(params) = tok.csi(b'K')
            && pre.pending_wrap
            && param(params, 0, 0) == 0
        {
            // ECH 1 erases exactly the cursor cell, the last column.
            self.note(Known::El0AtPendingWrap);
            alac_bytes = Cow::Borrowed(b"\x1b[X");
        }
        if let Some(params) = tok.csi(b'P') {
            let n = param(params, 0, 1) as usize;
            if n > pre.width - pre.col {
                // xterm clamps the count to the rest of the line (util.c `DeleteChar`).
                self.note(Known::DchCountBeyondLine);
                alac_bytes = Cow::Owned(format!("\x1b[{}P", pre.width - pre.col).into_bytes());
            }
        }
        let set_1049 = tok.dec_mode(1049);
        if set_1049 == Some(true) && pre.alt {
            // xterm saves the cursor again and clears the alternate screen.
            self.note(Known::Repeated1049Set);
            alac_bytes = Cow::Borrowed(b"\x1b7\x1b[2J");
        }
        if set_1049 == Some(false) && !pre.alt {
            // xterm restores the cursor saved on the primary screen all the same.
            self.note(Known::Reset1049OnPrimary);
            alac_bytes = Cow::Borrowed(b"\x1b8");
        }
        // DECSC / DECRC bookkeeping (ESC 7, ?1048, ?1049).
        let saves = tok.esc(b'7') || tok.dec_mode(1048) == Some(true) || set_1049 == Some(true);
        if saves {
            self.saved_modes[pre.alt as usize] = Some((pre.origin, pre.autowrap, self.shifted_out));
        }
        let restores_from = if tok.esc(b'8') || tok.dec_mode(1048) == Some(false) {
            Some(pre.alt as usize)
        } else if set_1049 == Some(false) {
            Some(0)
        } else {
            None
        };

        // The row a printed character lands on, and the wide-character cells around it, to
        // find halves the print leaves behind.
        let print_at = print_width.filter(|&w| w > 0).and_then(|w| {
            let wraps = pre.autowrap && (pre.pending_wrap || pre.col + w > pre.width);
            let (row, col) = if !wraps {
                (pre.row, pre.col)
            } else if pre.row == pre.bottom {
                return None; // the wrap scrolls a fresh row in
            } else if pre.row + 1 < pre.height {
                (pre.row + 1, 0)
            } else {
                (pre.row, 0) // below the margins on the last row: wraps onto itself
            };
            (col + w <= pre.width).then(|| (row, col, w, self.alac.wide_flags(row)))
        });

        // A wide character that does not fit leaves a pad in the last column of this row.
        let pad_before = (print_width == Some(2)
            && pre.autowrap
            && !pre.pending_wrap
            && pre.col + 1 >= pre.width)
            .then(|| self.alac.wide_flags(pre.row));
        // The row ICH, DCH or a print in insert mode shifts, if any.
        let shifted_row = if tok.csi(b'@').is_some() || tok.csi(b'P').is_some() {
            Some(pre.row)
        } else if pre.insert {
            print_at
                .as_ref()
                .filter(|(_, col, w, _)| col + w < pre.width)
                .map(|(row, ..)| *row)
        } else {
            None
        };
        // The row keeps (or, wrapping onto itself on the last row, gets) the wrap flag.
        let was_wrapped = shifted_row.is_some_and(|row| {
            self.alac.wrapped(row)
                || (print_at.is_some() && pre.pending_wrap && pre.autowrap && row == pre.row)
        });

        match tok {
            Tok::Control(0x0e) => self.shifted_out = true,
            Tok::Control(0x0f) => self.shifted_out = false,
            _ if tok.esc(b'c') => {
                self.shifted_out = false;
                self.saved_modes = [None; 2];
            }
            _ => {}
        }
        if [9, 1000, 1002, 1003]
            .iter()
            .any(|&m| tok.dec_mode(m) == Some(false))
        {
            self.note(Known::MouseModeReset);
            let mut bytes = alac_bytes.into_owned();
            bytes.extend_from_slice(b"\x1b[?1000;1002;1003l");
            alac_bytes = Cow::Owned(bytes);
        }
        if pre.linefeed_newline && matches!(tok, Tok::Control(0x0a..=0x0c)) {
            self.note(Known::LnmLinefeed);
            let mut bytes = alac_bytes.into_owned();
            bytes.push(b'\r');
            alac_bytes = Cow::Owned(bytes);
        }

        self.shotty.advance(token);
        self.alac.feed(&alac_bytes);
        let (ours, theirs) = (self.shotty.take_replies(), self.alac.take_replies());
        let unlike = match &tok {
            // Device attributes name the terminal: each answers as itself.
            Tok::Csi {
                private: None | Some(b'>'),
                intermediates,
                action: b'c',
                ..
            } if intermediates.is_empty() => Some(Known::IdentityReplies),
            Tok::Csi {
                private: Some(b'?'),
                params,
                action: b'n',
                ..
            } if params.first().is_some_and(|p| p.first() == Some(&6)) => {
                Some(Known::DecxcprUnanswered)
            }
            _ if pre.origin && tok.csi(b'n').is_some_and(|p| param(p, 0, 0) == 6) => {
                Some(Known::CprInOriginMode)
            }
            // OSC 4/10/11/12 with `?`: alacritty leaves the answer to its embedder.
            _ if token.starts_with(b"\x1b]") && token.windows(2).any(|w| w == b";?") => {
                Some(Known::ColourQueries)
            }
            _ => None,
        };
        if let Some(known) = unlike {
            self.note(known);
        } else if ours != theirs && self.reply_mismatch.is_none() {
            self.reply_mismatch = Some(format!(
                "replies to {}: shotty {}, alacritty {}",
                escape_bytes(token),
                escape_bytes(&ours),
                escape_bytes(&theirs)
            ));
        }

        if let Some((row, col, w, before)) = print_at {
            // (In insert mode the row shifts instead: see `InsertModeWideChar`.)
            if !pre.insert
                && self.alac.cursor().0 == row
                && self.alac.restyle_leftover_halves(row, col, w, &before)
            {
                self.note(Known::WideCharHalves);
            }
        }
        if tok.csi(b'J').is_some_and(|p| param(p, 0, 0) == 1) && pre.row == 1 {
            // alacritty clears the rows above the cursor only from the third row on.
            self.note(Known::Ed1SkipsFirstRow);
            self.alac.erase_row(0);
        }

        if print_width == Some(2) && pre.col + 1 >= pre.width {
            if !pre.autowrap {
                // xterm's dotext writes nothing and leaves do_wrap clear.
                if self.alac.cursor().2 {
                    self.note(Known::WideCharNoAutowrap);
                    let (row, col, _) = self.alac.cursor();
                    self.alac.set_cursor(row, col, false);
                }
            } else if !pre.pending_wrap {
                // Where the padded row is now: one up if the wrap scrolled the region.
                let row_after = self.alac.cursor().0;
                let pad_row =
                    if row_after > pre.row || pre.row != pre.bottom || pre.top == pre.bottom {
                        pre.row
                    } else {
                        pre.row - 1
                    };
                if self.alac.restyle_wrap_pad(pad_row) {
                    self.note(Known::LeadingPadStyle);
                }
                if let Some(before) = &pad_before {
                    let last = pre.width - 1;
                    if self.alac.restyle_leftover_halves(pad_row, last, 1, before) {
                        self.note(Known::WideCharHalves);
                    }
                }
            }
        }
        let may_cut_wide = printed.is_some()
            || tok.csi(b'K').is_some()
            || tok.csi(b'J').is_some()
            || tok.csi(b'X').is_some()
            || tok.csi(b'@').is_some()
            || tok.csi(b'P').is_some();
        if may_cut_wide && self.alac.repair_wide_halves() {
            self.note(Known::WideCharHalves);
        }

        if let Some(row) = shifted_row
            .filter(|&row| was_wrapped && self.alac.cursor().0 == row && !self.alac.wrapped(row))
        {
            // alacritty keeps the flag in the last cell, which ICH/DCH/IRM move; xterm's is a
            // line attribute they leave alone.
            self.note(Known::IchDchKeepWrapFlag);
            self.alac.set_wrapped(row);
        }

        // --- after feeding: move alacritty to where xterm is -----------------------------
        let clears_wrap = [b'\n', 0x0b, 0x0c].map(Tok::Control).contains(&tok)
            || tok.esc(b'D')
            || tok.esc(b'M')
            || tok.csi(b'J').is_some_and(|p| param(p, 0, 0) != 3)
            || tok.csi(b'K').is_some()
            || tok.csi(b'X').is_some()
            || tok.csi(b'@').is_some()
            || tok.csi(b'P').is_some()
            || ((tok.csi(b'L').is_some() || tok.csi(b'M').is_some()) && pre.in_margins())
            || set_1049 == Some(true);
        if pre.pending_wrap && clears_wrap && self.alac.cursor().2 {
            self.note(Known::PendingWrapReset);
            let (row, col, _) = self.alac.cursor();
            self.alac.set_cursor(row, col, false);
        }
        if (tok.csi(b'L').is_some() || tok.csi(b'M').is_some()) && pre.in_margins() && pre.col != 0
        {
            self.note(Known::IlDlCarriageReturn);
            let (row, _, _) = self.alac.cursor();
            self.alac.set_cursor(row, 0, false);
        }
        for action in [b'A', b'B', b'E', b'F', b'G', b'`'] {
            let Some(params) = tok.csi(action) else {
                continue;
            };
            let n = param(params, 0, 1);
            let known = if pre.origin && pre.top > 0 {
                Some(Known::OriginRelativeMotion)
            } else if pre.origin {
                None
            } else {
                match action {
                    b'A' | b'F' => {
                        (pre.top > 0 && pre.row >= pre.top && pre.row < pre.top + n as usize)
                            .then_some(Known::CursorUpDownMargins)
                    }
                    b'B' | b'E' => (pre.bottom + 1 < pre.height
                        && pre.row <= pre.bottom
                        && pre.row + n as usize > pre.bottom)
                        .then_some(Known::CursorUpDownMargins),
                    _ => None,
                }
            };
            if let Some(known) = known {
                self.note(known);
                let (row, col) = xterm_motion(&pre, action, n);
                self.alac.set_cursor(row, col, false);
            }
        }
        if tok.dec_mode(6) == Some(false) && self.alac.cursor() != (0, 0, false) {
            // xterm homes the cursor on DECRST 6 too (charproc.c `srm_DECOM`).
            self.note(Known::DecomResetHomes);
            self.alac.set_cursor(0, 0, false);
        }
        if let Some(slot) = restores_from {
            let (origin, autowrap, shifted_out) =
                self.saved_modes[slot].unwrap_or((false, pre.autowrap, false));
            if shifted_out != self.shifted_out {
                self.note(Known::DecrcRestoresShift);
                self.alac.feed(if shifted_out { b"\x0e" } else { b"\x0f" });
            }
            self.shifted_out = shifted_out;
            let now = (
                self.alac.mode(TermMode::ORIGIN),
                self.alac.mode(TermMode::LINE_WRAP),
            );
            let (mut row, col, pending) = self.alac.cursor();
            let mut aligned = false;
            if (origin, autowrap) != now {
                let mut fix = Vec::new();
                fix.extend_from_slice(if origin { b"\x1b[?6h" } else { b"\x1b[?6l" });
                fix.extend_from_slice(if autowrap { b"\x1b[?7h" } else { b"\x1b[?7l" });
                self.alac.feed(&fix);
                aligned = true;
            }
            if origin && row > pre.bottom {
                // xterm's CursorRestore goes through CursorSet, which in origin mode keeps
                // the cursor above the bottom margin.
                row = pre.bottom;
                aligned = true;
            }
            if aligned {
                self.note(Known::DecrcRestoresModes);
                self.alac.set_cursor(row, col, pending);
            }
        }
        if let Some(params) = tok.csi(b'J') {
            match param(params, 0, 0) {
                2 if !pre.alt && self.compare_history => {
                    self.note(Known::Ed2PushesScrollback);
                    self.compare_history = false;
                }
                3 if pre.alt && self.compare_history => {
                    self.note(Known::Ed3OnAlternateScreen);
                    self.compare_history = false;
                }
                // Both clear the scrollback: comparable again.
                3 if !pre.alt => self.compare_history = true,
                _ => {}
            }
        }
        Outcome::Fed
    }

    fn difference(&self) -> Option<(Diff, StateRep, StateRep)> {
        let s = shotty_state(&self.shotty);
        let a = self.alac.state();
        // alacritty exposes only the active grid's history: the primary scrollback is
        // visible while the primary screen is.
        let history = self.compare_history && !s.alt && !a.alt;
        let replies = self.reply_mismatch.as_ref().map(|what| Diff {
            what: what.clone(),
            at: None,
        });
        replies
            .or_else(|| first_difference(&s, &a, history))
            .map(|d| (d, s, a))
    }
}

// ----- the generator ------------------------------------------------------------------------

/// xorshift64*: small, deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const WIDE: &[&str] = &[
    "中",
    "文字",
    "日本語",
    "한",
    "😀",
    "👍🏽",
    "❤\u{fe0f}",
    "👨\u{200d}👩\u{200d}👧",
    "🇺🇸",
    "ｘ",
    "e\u{301}",
    "a\u{308}n\u{303}",
    "\u{301}",
    "界a",
    "🎉x",
];

/// A CSI with a numeric parameter, sometimes written as the default (empty or 0).
fn csi_n(rng: &mut Rng, n: usize, action: char) -> String {
    match rng.below(8) {
        0 => format!("\x1b[{action}"),
        1 => format!("\x1b[0{action}"),
        _ => format!("\x1b[{n}{action}"),
    }
}

fn sgr(rng: &mut Rng) -> String {
    let mut parts: Vec<String> = Vec::new();
    for _ in 0..rng.range(1, 3) {
        let p = match rng.below(20) {
            0 => "0".to_owned(),
            1 => rng.pick(&["1", "2", "3", "7", "8", "9"]).to_string(),
            2 => rng
                .pick(&["22", "23", "24", "27", "28", "29", "21"])
                .to_string(),
            3 => rng
                .pick(&["4", "4:0", "4:1", "4:2", "4:3", "4:4", "4:5"])
                .to_string(),
            4 | 5 => format!("{}", 30 + rng.below(8)),
            6 => format!("{}", 90 + rng.below(8)),
            7 | 8 => format!("{}", 40 + rng.below(8)),
            9 => format!("{}", 100 + rng.below(8)),
            10 => format!("38;5;{}", rng.below(256)),
            11 => format!("48;5;{}", rng.below(256)),
            12 => format!(
                "38;2;{};{};{}",
                rng.below(256),
                rng.below(256),
                rng.below(256)
            ),
            13 => format!(
                "48:2::{}:{}:{}",
                rng.below(256),
                rng.below(256),
                rng.below(256)
            ),
            14 => "39".to_owned(),
            15 => "49".to_owned(),
            // Underline colour: indexed, RGB in both forms, reset.
            16 => format!("58;5;{}", rng.below(256)),
            17 => format!(
                "58:2::{}:{}:{}",
                rng.below(256),
                rng.below(256),
                rng.below(256)
            ),
            18 => format!(
                "58;2;{};{};{}",
                rng.below(256),
                rng.below(256),
                rng.below(256)
            ),
            _ => "59".to_owned(),
        };
        parts.push(p);
    }
    if rng.chance(5) {
        return "\x1b[m".to_owned();
    }
    format!("\x1b[{}m", parts.join(";"))
}

fn text(rng: &mut Rng, len: usize) -> String {
    const CHARS: &[u8] =
        b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:-_=+*#@!?()[]{}<>/|~ ";
    (0..len).map(|_| *rng.pick(CHARS) as char).collect()
}

/// One random operation as bytes.
fn gen_op(rng: &mut Rng, w: usize, h: usize) -> String {
    match rng.below(110) {
        0..=19 => {
            let len = rng.range(1, 8);
            text(rng, len)
        }
        20..=22 => {
            // Long enough to wrap.
            let len = rng.range(w - 2, 2 * w + 3);
            text(rng, len)
        }
        23..=28 => rng.pick(WIDE).to_string(),
        29..=36 => rng
            .pick(&["\r", "\n", "\r\n", "\x08", "\t", "\x0b", "\x0c", "\x08\x08"])
            .to_string(),
        37..=40 => {
            let (r, c) = (rng.range(0, h + 2), rng.range(0, w + 2));
            match rng.below(6) {
                0 => "\x1b[H".to_owned(),
                1 => format!("\x1b[{r}H"),
                2 => format!("\x1b[;{c}H"),
                3 => format!("\x1b[{r};{c}f"),
                _ => format!("\x1b[{r};{c}H"),
            }
        }
        41..=47 => {
            let action = *rng.pick(&['A', 'B', 'C', 'D', 'E', 'F', 'G', 'd', '`']);
            let n = if matches!(action, 'A' | 'B' | 'E' | 'F' | 'd') {
                rng.range(1, h + 1)
            } else {
                rng.range(1, w + 1)
            };
            csi_n(rng, n, action)
        }
        48..=50 => format!("\x1b[{}J", rng.pick(&["", "0", "1", "2", "2", "3"])),
        51..=54 => format!("\x1b[{}K", rng.pick(&["", "0", "1", "2"])),
        55..=62 => {
            let action = *rng.pick(&['@', 'P', 'L', 'M', 'X']);
            let n = rng.range(
                1,
                if matches!(action, 'L' | 'M') {
                    h + 1
                } else {
                    w + 1
                },
            );
            csi_n(rng, n, action)
        }
        63..=66 => {
            if rng.chance(20) {
                "\x1b[r".to_owned()
            } else {
                let top = rng.range(1, h);
                let bottom = rng.range(top, h);
                if rng.chance(15) {
                    format!("\x1b[{top}r")
                } else {
                    format!("\x1b[{top};{bottom}r")
                }
            }
        }
        67..=76 => sgr(rng),
        77..=81 => {
            let mode = *rng.pick(&[1049, 1049, 7, 7, 6, 25]);
            let on = if rng.chance(50) { 'h' } else { 'l' };
            format!("\x1b[?{mode}{on}")
        }
        82..=85 => rng.pick(&["\x1bM", "\x1bD", "\x1bE"]).to_string(),
        86..=88 => {
            let n = rng.range(1, h);
            let action = if rng.chance(50) { 'S' } else { 'T' };
            csi_n(rng, n, action)
        }
        89..=91 => rng.pick(&["\x1b7", "\x1b8"]).to_string(),
        92..=94 => rng
            .pick(&["\x1bH", "\x1b[g", "\x1b[3g", "\x1b[I", "\x1b[2I"])
            .to_string(),
        95..=97 => {
            // Fill to the right margin exactly, leaving a pending wrap.
            let col = rng.range(0, w - 1);
            let mut s = format!("\x1b[{}G", col + 1);
            s.push_str(&text(rng, w - col));
            s
        }
        98 => {
            // OSC 8 hyperlinks, BEL- or ST-terminated.
            let st = if rng.chance(50) { "\x07" } else { "\x1b\\" };
            match rng.below(3) {
                0 => format!("\x1b]8;;{st}"),
                1 => format!(
                    "\x1b]8;id=l{};https://example.com/{}{st}",
                    rng.below(3),
                    rng.below(4)
                ),
                _ => format!("\x1b]8;;file:///tmp/{}{st}", rng.below(4)),
            }
        }
        99 => rng.pick(&["\x1b[4h", "\x1b[4l"]).to_string(),
        100..=102 => {
            // Modes that change what keys, the mouse and pastes send.
            let mode = *rng.pick(&[1, 1000, 1002, 1003, 1004, 1005, 1006, 2004]);
            let on = if rng.chance(50) { 'h' } else { 'l' };
            rng.pick(&[
                format!("\x1b[?{mode}{on}"),
                format!("\x1b[20{on}"),
                "\x1b=".to_owned(),
                "\x1b>".to_owned(),
            ])
            .clone()
        }
        103..=104 => {
            // The window title: OSC 0 and 2 (BEL or ST), the title stack.
            let st = if rng.chance(50) { "\x07" } else { "\x1b\\" };
            match rng.below(4) {
                0 => format!("\x1b]0;t{}{st}", rng.below(5)),
                1 => format!("\x1b]2;tï{}{st}", rng.below(5)),
                2 => "\x1b[22;0t".to_owned(),
                _ => "\x1b[23;0t".to_owned(),
            }
        }
        105 => format!("\x1b[{} q", rng.below(7)),
        106..=107 => {
            // DEC special graphics in G0 and G1, shifted in and out.
            rng.pick(&[
                "\x1b(0",
                "\x1b(B",
                "\x1b)0",
                "\x0e",
                "\x0f",
                "\x1b(0lqk\x1b(B",
            ])
            .to_string()
        }
        _ => {
            // Queries whose answers both must give alike: cursor position, status.
            rng.pick(&["\x1b[6n", "\x1b[5n", "\x1b[?6n"]).to_string()
        }
    }
}

struct Case {
    seed: u64,
    width: usize,
    height: usize,
    ops: Vec<String>,
}

fn gen_case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let width = rng.range(6, 20);
    let height = rng.range(3, 9);
    let n = rng.range(1, 40);
    let ops = (0..n).map(|_| gen_op(&mut rng, width, height)).collect();
    Case {
        seed,
        width,
        height,
        ops,
    }
}

fn show_ops(ops: &[String], mark: usize) -> String {
    let mut out = String::new();
    for (i, op) in ops.iter().enumerate() {
        if i == mark {
            let _ = write!(out, " >>>{}<<<", escape_bytes(op.as_bytes()));
        } else {
            let _ = write!(out, " {}", escape_bytes(op.as_bytes()));
        }
    }
    out
}

#[derive(Default)]
struct Stats {
    cases: usize,
    complete: usize,
    stopped: BTreeMap<Known, usize>,
    met: BTreeMap<Known, usize>,
    failures: Vec<String>,
}

impl Stats {
    fn absorb(&mut self, pair: &Pair) {
        for (k, n) in &pair.met {
            *self.met.entry(*k).or_default() += n;
        }
    }

    fn summary(&self) -> String {
        let mut out = format!(
            "{} cases, {} compared to the end, {} failing",
            self.cases,
            self.complete,
            self.failures.len()
        );
        for (k, n) in &self.stopped {
            let _ = write!(out, "\n  stopped early by {}: {n}", k.name());
        }
        for (k, n) in &self.met {
            let _ = write!(out, "\n  known difference {} met {n} times", k.name());
        }
        out
    }
}

fn run_case(case: &Case, stats: &mut Stats) {
    stats.cases += 1;
    let mut pair = Pair::new(case.width, case.height);
    for (i, op) in case.ops.iter().enumerate() {
        for token in tokenize(op.as_bytes()) {
            if let Outcome::Stop(known) = pair.step(token) {
                *stats.stopped.entry(known).or_default() += 1;
                stats.absorb(&pair);
                return;
            }
        }
        if std::env::var_os("DIFF_TRACE").is_some() {
            let (s, a) = (shotty_state(&pair.shotty), pair.alac.state());
            eprintln!("after op {}: {}", i + 1, escape_bytes(op.as_bytes()));
            for (rs, ra) in s.rows.iter().zip(&a.rows) {
                eprintln!("  |{}|  |{}|", rs.text(), ra.text());
            }
            eprintln!("  shotty {:?}\n  alacritty {:?}", s.cursor, a.cursor);
        }
        if let Some((diff, s, a)) = pair.difference() {
            let mut msg = format!(
                "generated case seed={} ({}x{}), op {} of {} diverged\n  input:{}\n",
                case.seed,
                case.width,
                case.height,
                i + 1,
                case.ops.len(),
                show_ops(&case.ops, i)
            );
            msg.push_str(&describe(&diff, &s, &a));
            stats.failures.push(msg);
            stats.absorb(&pair);
            return;
        }
    }
    stats.complete += 1;
    stats.absorb(&pair);
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[test]
fn generated_programs_match_alacritty() {
    let seeds: Vec<u64> = match env_number("DIFF_SEED") {
        Some(seed) => vec![seed],
        None => (1..=env_number("DIFF_CASES").unwrap_or(5000)).collect(),
    };
    let mut stats = Stats::default();
    for seed in seeds {
        run_case(&gen_case(seed), &mut stats);
    }
    eprintln!("generated programs: {}", stats.summary());
    assert!(
        stats.failures.is_empty(),
        "{} generated programs disagree with alacritty; the first ones:\n\n{}",
        stats.failures.len(),
        stats
            .failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The filters must stay narrow: most programs are compared to the end.
    assert!(
        stats.complete * 10 >= stats.cases * 7,
        "only {} of {} programs were compared to the end",
        stats.complete,
        stats.cases
    );
}

/// Feeds a fixture token by token; checks the states at every `every`th token (and the end).
/// Returns the failure report, or `None` when all checked states agree.
fn run_fixture(fixture: &support::Fixture, every: usize, stats: &mut Stats) -> Option<String> {
    let tokens = tokenize(&fixture.bytes);
    let mut pair = Pair::new(fixture.width, fixture.height);
    let mut offset = 0;
    for (i, token) in tokens.iter().enumerate() {
        if let Outcome::Stop(known) = pair.step(token) {
            // A recording of a real program is compared to its end: a difference that stops
            // the comparison would leave the rest of it untested.
            *stats.stopped.entry(known).or_default() += 1;
            stats.absorb(&pair);
            return Some(format!(
                "fixture {} cannot be compared past byte {offset} of {}: {} (token {i}: {})",
                fixture.name,
                fixture.bytes.len(),
                known.name(),
                escape_bytes(token)
            ));
        }
        offset += token.len();
        if ((i + 1) % every == 0 || i + 1 == tokens.len())
            && let Some((diff, s, a)) = pair.difference()
        {
            let from = offset.saturating_sub(240);
            let mut msg = format!(
                "fixture {} ({}x{}) diverged after byte {offset} of {} (token {}: {})\n  \
                 input before: …{}\n",
                fixture.name,
                fixture.width,
                fixture.height,
                fixture.bytes.len(),
                i,
                escape_bytes(token),
                escape_bytes(&fixture.bytes[from..offset])
            );
            msg.push_str(&describe(&diff, &s, &a));
            stats.absorb(&pair);
            return Some(msg);
        }
    }
    stats.complete += 1;
    stats.absorb(&pair);
    None
}

#[test]
fn fixtures_match_alacritty() {
    let mut stats = Stats::default();
    for fixture in support::fixtures() {
        stats.cases += 1;
        // A cheap pass first; on a failure, replay comparing after every token to report the
        // first token where the screens diverge.
        let mut scratch = Stats::default();
        if run_fixture(&fixture, 16, &mut scratch).is_some() {
            let msg = run_fixture(&fixture, 1, &mut Stats::default()).unwrap();
            stats.failures.push(msg);
        } else {
            stats.complete += scratch.complete;
            for (k, n) in scratch.stopped {
                *stats.stopped.entry(k).or_default() += n;
            }
            for (k, n) in scratch.met {
                *stats.met.entry(k).or_default() += n;
            }
        }
    }
    eprintln!("fixtures: {}", stats.summary());
    assert!(
        stats.failures.is_empty(),
        "{} fixtures disagree with alacritty:\n\n{}",
        stats.failures.len(),
        stats.failures.join("\n")
    );
}

#[test]
fn every_known_difference_is_documented() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/KNOWN_DIFFERENCES.md"),
    )
    .expect("tests/KNOWN_DIFFERENCES.md");
    for k in Known::ALL {
        assert!(
            doc.contains(&format!("## `{}`", k.name())),
            "KNOWN_DIFFERENCES.md has no section for `{}`",
            k.name()
        );
    }
}

#[test]
fn tokenizer_splits_sequences() {
    let bytes = "a\x1b[1;2H\x1b]0;t\x07中\x1b(B\r\x1b7".as_bytes();
    let tokens: Vec<&[u8]> = tokenize(bytes);
    let expected: Vec<&[u8]> = vec![
        b"a",
        b"\x1b[1;2H",
        b"\x1b]0;t\x07",
        "中".as_bytes(),
        b"\x1b(B",
        b"\r",
        b"\x1b7",
    ];
    assert_eq!(tokens, expected);
    assert_eq!(
        Tok::parse(b"\x1b[?1049;7h").dec_mode(7),
        Some(true),
        "private mode list"
    );
    assert_eq!(
        Tok::parse(b"\x1b[38:2::1:2:3;21m").csi(b'm'),
        Some(&[vec![38, 2, 0, 1, 2, 3], vec![21]][..])
    );
}
