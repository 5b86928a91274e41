//! The terminal state machine: grids, cursor, modes and everything a [`Handler`] call changes.

use std::fmt::Write as _;

use super::capability;
use super::cell::{Cell, CellFlags};
use super::charset::{Charset, CharsetSlot, Charsets};
use super::grid::{Cursor, Grid, LineSize, PromptMark, Row, Scrollback};
use super::handler::{
    CursorShape, DcsRequest, DynamicColor, Erase, Handler, OscTerminator, Protection, Report, Sgr,
    TabClear,
};
use super::keys::KeyModes;
use super::keys::kitty::FlagsUpdate;
use super::link::{Link, LinkId, LinkTable, MAX_LINK_ID_LEN, MAX_URI_LEN, push_osc8};
use super::modes::{KeyboardFlags, Mode, Modes};
use super::palette::{Rgb, XTERM_ANSI, indexed_color, xparse_color_string};
use super::reflow;
use super::settings;
use super::shell::{self, MAX_COMMAND_OUTPUT, MAX_COMMAND_TEXT, Place, ShellEvent, ShellState};
use super::style::{Attrs, Color, Style, StyleId, StyleTable};
use super::width::cells_of;

/// Titles longer than this (in bytes) are truncated.
pub const MAX_TITLE_LEN: usize = 4096;
/// Depth of the XTWINOPS title stack.
pub const MAX_TITLE_STACK: usize = 10;
/// Pending reply bytes kept at most; a reader that never drains them loses the excess.
pub const MAX_REPLY_BYTES: usize = 64 * 1024;

/// Options fixed when a terminal is created.
#[derive(Clone, Debug)]
pub struct TerminalOptions {
    /// Lines of scrollback kept for the primary screen.
    pub scrollback: usize,
    /// Default foreground reported to OSC 10 queries.
    pub foreground: Rgb,
    /// Default background reported to OSC 11 queries.
    pub background: Rgb,
    /// Default cursor colour reported to OSC 12 queries.
    pub cursor_color: Rgb,
    /// The 16 ANSI colours reported to OSC 4 queries.
    pub ansi: [Rgb; 16],
}

impl Default for TerminalOptions {
    fn default() -> Self {
        TerminalOptions {
            scrollback: 10_000,
            foreground: (0xe5, 0xe5, 0xe5),
            background: (0x00, 0x00, 0x00),
            cursor_color: (0xe5, 0xe5, 0xe5),
            ansi: XTERM_ANSI,
        }
    }
}

/// The longest DCS request data kept (a DECRQSS selector is one or two bytes).
const MAX_DCS_DATA: usize = 64;
/// The longest XTGETTCAP request kept (a few dozen hex-encoded names).
const MAX_CAPABILITY_REQUEST: usize = 1024;

/// What DECSC saves.
#[derive(Clone, Copy, Debug, Default)]
struct SavedCursor {
    cursor: Cursor,
    pen: Style,
    link: LinkId,
    origin: bool,
    /// DECAWM, which xterm saves with the cursor (`DECSC_FLAGS`).
    autowrap: bool,
    charsets: Charsets,
    /// Whether characters are printed protected (DECSCA, SPA), saved like the attributes.
    protect: CellFlags,
}

/// The complete emulator state behind a [`super::Terminal`].
#[derive(Debug)]
pub struct Screen {
    grid: Grid,
    inactive_grid: Grid,
    alt_active: bool,
    scrollback: Scrollback,
    cursor: Cursor,
    /// Saved cursors of the primary (0) and alternate (1) buffers.
    saved: [Option<SavedCursor>; 2],
    pen: Style,
    pen_id: StyleId,
    /// The style of erased cells: `erase_bg` only (back-colour erase), interned lazily.
    erase_id: StyleId,
    erase_bg: Color,
    pen_dirty: bool,
    link: LinkId,
    /// [`CellFlags::PROTECTED`] while characters are printed protected, else empty.
    protect: CellFlags,
    /// Which erases spare protected characters.
    protection: Protection,
    /// The DCS request being received and its data so far (at most [`MAX_DCS_DATA`] bytes;
    /// `None` inside one longer than that).
    dcs: Option<(DcsRequest, Option<Vec<u8>>)>,
    styles: StyleTable,
    links: LinkTable,
    intern_failures: u32,
    modes: Modes,
    /// The kitty keyboard flags and stacks of the primary (0) and alternate (1) screens; the
    /// shown one's flags are mirrored in `modes.kitty_keyboard`.
    keyboard: [KeyboardFlags; 2],
    charsets: Charsets,
    tabs: Vec<bool>,
    scroll_top: usize,
    scroll_bottom: usize,
    /// Left and right margins (DECSLRM), 0-based inclusive; the whole width without them.
    margin_left: usize,
    margin_right: usize,
    title: String,
    title_stack: Vec<String>,
    cursor_shape: CursorShape,
    palette: Box<[Option<Rgb>; 256]>,
    dynamic: [Option<Rgb>; 3],
    last_char: Option<char>,
    replies: Vec<u8>,
    bells: u64,
    /// Shell integration (OSC 133): where the shell is and the commands it reported.
    shell: ShellState,
    options: TerminalOptions,
}

fn default_tabs(width: usize) -> Vec<bool> {
    (0..width).map(|c| c % 8 == 0 && c != 0).collect()
}

impl Screen {
    /// A blank screen of `width × height` (both at least 1).
    pub fn new(width: usize, height: usize, options: TerminalOptions) -> Screen {
        let width = width.max(1);
        let height = height.max(1);
        Screen {
            grid: Grid::new(width, height),
            // The alternate screen gets its rows when it is first entered: most programs
            // never use it, and a session or a render would fill a screen of blanks for nothing.
            inactive_grid: Grid::new(width, 0),
            alt_active: false,
            scrollback: Scrollback::new(options.scrollback),
            cursor: Cursor::default(),
            saved: [None, None],
            pen: Style::default(),
            pen_id: StyleId::DEFAULT,
            erase_id: StyleId::DEFAULT,
            erase_bg: Color::Default,
            pen_dirty: false,
            link: LinkId::NONE,
            protect: CellFlags::empty(),
            protection: Protection::Off,
            dcs: None,
            styles: StyleTable::new(),
            links: LinkTable::default(),
            intern_failures: 0,
            modes: Modes::default(),
            keyboard: Default::default(),
            charsets: Charsets::default(),
            tabs: default_tabs(width),
            scroll_top: 0,
            scroll_bottom: height - 1,
            margin_left: 0,
            margin_right: width - 1,
            title: String::new(),
            title_stack: Vec::new(),
            cursor_shape: CursorShape::Block,
            palette: Box::new([None; 256]),
            dynamic: [None; 3],
            last_char: None,
            replies: Vec::new(),
            bells: 0,
            shell: ShellState::default(),
            options,
        }
    }

    // ----- read access -------------------------------------------------------------------

    /// Columns.
    #[inline]
    pub fn width(&self) -> usize {
        self.grid.width()
    }

    /// Rows.
    #[inline]
    pub fn height(&self) -> usize {
        self.grid.height()
    }

    /// The visible grid (primary or alternate, whichever is active).
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The primary screen's grid, whether or not it is the active one.
    pub fn primary_grid(&self) -> &Grid {
        if self.alt_active {
            &self.inactive_grid
        } else {
            &self.grid
        }
    }

    /// The primary screen's scrollback.
    pub fn scrollback(&self) -> &Scrollback {
        &self.scrollback
    }

    /// The cursor.
    pub fn cursor(&self) -> Cursor {
        self.cursor
    }

    /// The cursor shape set by DECSCUSR.
    pub fn cursor_shape(&self) -> CursorShape {
        self.cursor_shape
    }

    /// Every tracked mode.
    pub fn modes(&self) -> &Modes {
        &self.modes
    }

    /// The kitty keyboard flags of the screen shown (as in [`Modes::kitty_keyboard`]) and
    /// the stack of flags pushed before them, oldest first.
    pub fn kitty_keyboard(&self) -> (u8, &[u8]) {
        let keyboard = &self.keyboard[usize::from(self.alt_active)];
        (keyboard.current(), keyboard.saved())
    }

    /// Changes the shown screen's kitty keyboard flags and mirrors them in the modes.
    fn change_keyboard(&mut self, change: impl FnOnce(&mut KeyboardFlags)) {
        let keyboard = &mut self.keyboard[usize::from(self.alt_active)];
        change(keyboard);
        self.modes.kitty_keyboard = keyboard.current();
    }

    /// Whether the alternate screen is shown.
    pub fn is_alternate_screen(&self) -> bool {
        self.alt_active
    }

    /// The window title (OSC 0/2).
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The interned styles.
    pub fn styles(&self) -> &StyleTable {
        &self.styles
    }

    /// The interned hyperlinks.
    pub fn links(&self) -> &LinkTable {
        &self.links
    }

    /// Palette entries set by OSC 4 (`None` where the default applies).
    pub fn palette_overrides(&self) -> &[Option<Rgb>; 256] {
        &self.palette
    }

    /// The colour of palette entry `index` as the program sees it (OSC 4 overrides included).
    pub fn palette_color(&self, index: u8) -> Rgb {
        self.palette[index as usize].unwrap_or_else(|| indexed_color(index, &self.options.ansi))
    }

    /// Foreground / background / cursor colours set by OSC 10/11/12.
    pub fn dynamic_color(&self, which: DynamicColor) -> Option<Rgb> {
        self.dynamic[which as usize]
    }

    /// How many times BEL was received.
    pub fn bell_count(&self) -> u64 {
        self.bells
    }

    /// Shell integration: `Some(true)` when the shell shows its prompt (OSC 133 `A` or `B`
    /// last), `Some(false)` while a command runs, `None` when no shell has sent marks.
    pub fn prompt_ready(&self) -> Option<bool> {
        self.shell.prompt_ready()
    }

    /// Takes the commands the shell reported starting and finishing since the last call.
    pub fn take_shell_events(&mut self) -> Vec<ShellEvent> {
        self.shell.take_events()
    }

    /// Where the cursor is in the primary screen's history (`None` on the alternate
    /// screen); a cursor waiting to wrap is past its row's last cell.
    fn shell_place(&self) -> Option<Place> {
        if self.alt_active {
            return None;
        }
        let first_screen_line = self.scrollback.dropped() + self.scrollback.len() as u64;
        let col = if self.cursor.pending_wrap {
            self.width()
        } else {
            self.cursor.col
        };
        Some((first_screen_line + self.cursor.row as u64, col))
    }

    /// The primary screen's text from `from` up to `to` (see [`shell::text_between`]).
    fn history_text(&self, from: Place, to: Place, max: usize) -> (String, bool) {
        let screen = self.primary_grid().rows();
        let end = self.scrollback.dropped() + (self.scrollback.len() + screen.len()) as u64;
        let newest_first = screen
            .iter()
            .rev()
            .chain(self.scrollback.rows().iter().rev())
            .zip((0..end).rev());
        shell::text_between(newest_first.map(|(row, i)| (i, row)), from, to, max)
    }

    /// The scroll region as 0-based inclusive rows.
    pub fn scroll_region(&self) -> (usize, usize) {
        (self.scroll_top, self.scroll_bottom)
    }

    /// The left and right margins (DECSLRM) as 0-based inclusive columns; the whole width
    /// without them.
    pub fn side_margins(&self) -> (usize, usize) {
        (self.margin_left, self.margin_right)
    }

    /// Takes the replies generated since the last call (DA, CPR, colour reports …), in order.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.replies)
    }

    /// Whether replies are waiting to be taken.
    pub fn has_replies(&self) -> bool {
        !self.replies.is_empty()
    }

    // ----- internals ---------------------------------------------------------------------

    fn reply(&mut self, bytes: &[u8]) {
        if self.replies.len() + bytes.len() <= MAX_REPLY_BYTES {
            self.replies.extend_from_slice(bytes);
        }
    }

    #[inline]
    fn refresh_pen(&mut self) {
        if self.pen_dirty {
            self.pen_dirty = false;
            self.pen_id = self.intern_style(self.pen);
        }
    }

    fn intern_style(&mut self, style: Style) -> StyleId {
        if let Some(id) = self.styles.intern(style) {
            return id;
        }
        // Compacting scans every row, so after a compaction that freed little, wait for a
        // batch of failures before trying again: cost stays amortised in pathological input.
        if self.intern_failures.is_multiple_of(4096) {
            self.compact_tables();
            if let Some(id) = self.styles.intern(style) {
                self.intern_failures = 0;
                return id;
            }
        }
        self.intern_failures = self.intern_failures.wrapping_add(1);
        StyleId::DEFAULT
    }

    fn intern_link(&mut self, link: Link) -> LinkId {
        if let Some(id) = self.links.intern(link.clone()) {
            return id;
        }
        self.compact_tables();
        self.links.intern(link).unwrap_or(LinkId::NONE)
    }

    fn all_rows_mut(&mut self) -> impl Iterator<Item = &mut Row> {
        self.grid
            .rows_mut()
            .iter_mut()
            .chain(self.inactive_grid.rows_mut().iter_mut())
            .chain(self.scrollback.rows_mut().iter_mut())
    }

    /// Drops styles and links no cell refers to any more and renumbers the rest.
    fn compact_tables(&mut self) {
        let mut used_styles = vec![false; self.styles.len()];
        let mut used_links = vec![false; self.links.len() + 1];
        used_links[self.link.0 as usize] = true;
        for saved in self.saved.iter().flatten() {
            if let Some(slot) = used_links.get_mut(saved.link.0 as usize) {
                *slot = true;
            }
        }
        for row in self.all_rows_mut() {
            for cell in row.cells() {
                if let Some(slot) = used_styles.get_mut(cell.style.0 as usize) {
                    *slot = true;
                }
                if let Some(slot) = used_links.get_mut(cell.link.0 as usize) {
                    *slot = true;
                }
            }
        }
        let style_map = self.styles.compact(&used_styles);
        let link_map = self.links.compact(&used_links);
        for row in self.all_rows_mut() {
            for cell in row.cells_mut() {
                cell.style = style_map
                    .get(cell.style.0 as usize)
                    .copied()
                    .unwrap_or_default();
                cell.link = link_map
                    .get(cell.link.0 as usize)
                    .copied()
                    .unwrap_or_default();
            }
        }
        self.link = link_map
            .get(self.link.0 as usize)
            .copied()
            .unwrap_or_default();
        for saved in self.saved.iter_mut().flatten() {
            saved.link = link_map
                .get(saved.link.0 as usize)
                .copied()
                .unwrap_or_default();
        }
        self.pen_id = self.styles.intern(self.pen).unwrap_or_default();
        self.erase_id = self
            .styles
            .intern(Style {
                bg: self.erase_bg,
                ..Style::default()
            })
            .unwrap_or_default();
    }

    #[inline]
    fn erase_cell(&mut self) -> Cell {
        if self.pen.bg != self.erase_bg {
            self.erase_bg = self.pen.bg;
            self.erase_id = self.intern_style(self.pen.erase_style());
        }
        Cell::blank(self.erase_id)
    }

    /// If `col` is the right half of a wide character, blanks both halves: a range starting or
    /// ending there would otherwise cut the character in two.
    fn split_wide_at(&mut self, row: usize, col: usize) {
        let Some(cell) = self.grid.row(row).cells().get(col).copied() else {
            return;
        };
        if cell.is_spacer() && col > 0 {
            // Both halves become erased cells, in the current colours (xterm `ClearCells`).
            let fill = self.erase_cell();
            let r = self.grid.row_mut(row);
            r.set(col - 1, fill);
            r.set(col, fill);
        }
    }

    /// Blanks the spacer after the wide character at `col` (which is being overwritten).
    fn drop_spacer_after(&mut self, row: usize, col: usize) {
        if self
            .grid
            .row(row)
            .cells()
            .get(col + 1)
            .is_some_and(|c| c.is_spacer())
        {
            let fill = self.erase_cell();
            self.grid.row_mut(row).set(col + 1, fill);
        }
    }

    /// Erases a wide character left in the last column without its spacer (pushed off the
    /// row by ICH or insert mode), in the current colours as xterm's `InsertChar` does.
    fn erase_cut_wide_at_end(&mut self, row: usize) {
        let last = self.width() - 1;
        if self.grid.row(row).cells()[last].is_wide() {
            let fill = self.erase_cell();
            self.grid.row_mut(row).set(last, fill);
        }
    }

    /// Erases `start..end` of `row` with the erase style, splitting wide characters cut at
    /// either edge.
    fn erase_cells(&mut self, row: usize, start: usize, end: usize) {
        let end = end.min(self.width());
        if start >= end {
            return;
        }
        self.split_wide_at(row, start);
        if end < self.width() {
            self.split_wide_at(row, end);
        }
        let fill = self.erase_cell();
        let width = self.width();
        let r = self.grid.row_mut(row);
        r.fill(start, end, fill);
        if end == width {
            r.wrapped = false;
        }
    }

    fn erase_rows(&mut self, start: usize, end: usize) {
        let fill = self.erase_cell();
        for r in self.grid.rows_mut().range_mut(start..end) {
            r.reset(fill);
        }
    }

    /// The state later output relies on that a redrawn snapshot does not carry: tab stops,
    /// the saved cursor of the screen shown (DECSC: position, pen, link, origin mode,
    /// autowrap, charsets, protection), margins, modes, the kitty keyboard flags and their
    /// stack, the pen and protection, cursor style, the open link and the charsets — written
    /// with the same forms DECRQM and DECRQSS report (and `CSI = u` / `CSI > u` for the
    /// keyboard) — and the cursor put back where it was (in origin mode, relative to the
    /// margins). A cursor waiting to wrap is put back by printing the cell it stands on again,
    /// which is the only way output can make it wait. The tail of
    /// [`Terminal::keyframe`](super::Terminal::keyframe).
    ///
    /// Not restored: the primary screen's saved cursor and kitty keyboard flags while the
    /// alternate screen is shown (its screen is not in the snapshot either; the alternate
    /// screen's flags become the restored terminal's main screen's), a cursor outside the
    /// margins in origin mode or waiting to wrap on a row that has wrapped since (only DECRC
    /// puts it there; it comes back at the nearest margin, or its row's wrap is lost), a
    /// single shift pending when the cursor was saved (no output cancels one afterwards), the
    /// palette, DECCOLM's mode 3 (setting it would clear the screen; the width is the
    /// keyframe's size anyway).
    pub(crate) fn state_bytes(&self) -> Vec<u8> {
        // (number, DEC private) of every mode restored by SM/RM or DECSET/DECRST.
        const MODES: &[(u16, bool)] = &[
            (4, false),
            (20, false),
            (1, true),
            (5, true),
            (7, true),
            (40, true),
            (66, true),
            (9, true),
            (1000, true),
            (1002, true),
            (1003, true),
            (1004, true),
            (1005, true),
            (1006, true),
            (1015, true),
            (2004, true),
        ];
        let mut out = String::new();
        // Before any margin, so a stop is set with an absolute CUP.
        if self.tabs != default_tabs(self.width()) {
            out.push_str("\x1b[3g");
            for col in (0..self.tabs.len()).filter(|&c| self.tabs[c]) {
                let _ = write!(out, "\x1b[1;{}H\x1bH", col + 1);
            }
        }
        if let Some(saved) = &self.saved[self.alt_active as usize] {
            // Set up what DECSC saves, save it, and undo what the rest does not set again.
            if saved.origin {
                out.push_str("\x1b[?6h");
            }
            self.place_cursor(&mut out, saved.cursor, 0, 0);
            if !saved.autowrap {
                out.push_str("\x1b[?7l");
            }
            // No output cancels a single shift once DECSC has saved it: it is left out.
            let saved_charsets = saved.charsets.without_single_shift();
            saved_charsets.write_change_from(&Charsets::default(), &mut out);
            let protected = u8::from(saved.protect == CellFlags::PROTECTED);
            let _ = write!(
                out,
                "\x1b[{protected}\"q\x1b[{}m",
                settings::sgr(&saved.pen)
            );
            self.push_link(&mut out, saved.link);
            out.push_str("\x1b7");
            if !saved.autowrap {
                out.push_str("\x1b[?7h");
            }
            self.push_link(&mut out, LinkId::NONE);
            Charsets::default().write_change_from(&saved_charsets, &mut out);
            // Printing the cell again ended its row's wrap; wrapping into the next row's
            // first cell, printed again too, makes it wrap again (before DECOM is reset,
            // which homes the cursor).
            let row = saved.cursor.row;
            if saved.cursor.pending_wrap && self.grid.row(row).wrapped && row + 1 < self.height() {
                self.reprint(&mut out, row + 1, 0);
            }
            if saved.origin {
                out.push_str("\x1b[?6l");
            }
        }
        let setting = |out: &mut String, selector: &[u8]| {
            if let Some(value) = self.setting(selector) {
                let _ = write!(out, "\x1b[{value}");
            }
        };
        // DECSTBM and DECSLRM home the cursor, so they come before it is placed.
        setting(&mut out, b"r");
        if self.modes.left_right_margins {
            out.push_str("\x1b[?69h");
            setting(&mut out, b"s");
        }
        let (top, left) = if self.modes.origin {
            out.push_str("\x1b[?6h");
            (self.scroll_top, self.margin_left)
        } else {
            (0, 0)
        };
        // Before insert mode, which would shift the cell printed again, and before the
        // charsets, which would map it.
        self.place_cursor(&mut out, self.cursor, top, left);
        let defaults = Modes::default();
        for &(number, private) in MODES {
            let mode = if private {
                Mode::from_dec(number)
            } else {
                Mode::from_ansi(number)
            };
            let Some(mode) = mode else { continue };
            let (Some(now), Some(default)) = (self.modes.get(mode), defaults.get(mode)) else {
                continue;
            };
            if now != default {
                let marker = if private { "?" } else { "" };
                let set = if now { 'h' } else { 'l' };
                let _ = write!(out, "\x1b[{marker}{number}{set}");
            }
        }
        self.push_keyboard_state(&mut out);
        setting(&mut out, b" q");
        setting(&mut out, b"\"q");
        setting(&mut out, b"m");
        self.push_link(&mut out, self.link);
        self.charsets
            .write_change_from(&Charsets::default(), &mut out);
        out.into_bytes()
    }

    /// Appends what gives a fresh terminal the shown screen's kitty keyboard flags and the
    /// stack under them: the oldest entry set with `CSI = flags u`, every later one pushed with
    /// `CSI > flags u`, the current flags last.
    fn push_keyboard_state(&self, out: &mut String) {
        let (current, saved) = self.kitty_keyboard();
        let mut entries = saved.iter().chain([&current]);
        if let Some(bottom) = entries.next().filter(|&&b| b != 0 || !saved.is_empty()) {
            let _ = write!(out, "\x1b[={bottom}u");
            for flags in entries {
                let _ = write!(out, "\x1b[>{flags}u");
            }
        }
    }

    /// Appends what puts the cursor at `cursor` (CUP, relative to `top` and `left` in origin
    /// mode). A cursor waiting to wrap gets there by printing the cell it stands on (the wide
    /// character it ends) again, as it was, which leaves the pen and link those of that cell.
    fn place_cursor(&self, out: &mut String, cursor: Cursor, top: usize, left: usize) {
        let row = cursor.row.min(self.height().saturating_sub(1));
        let cells = self.grid.row(row).cells();
        let mut col = cursor.col.min(cells.len().saturating_sub(1));
        if cursor.pending_wrap && col > 0 && cells[col].is_spacer() {
            col -= 1;
        }
        let _ = write!(
            out,
            "\x1b[{};{}H",
            row.saturating_sub(top) + 1,
            col.saturating_sub(left) + 1
        );
        if cursor.pending_wrap {
            self.reprint(out, row, col);
        }
    }

    /// Appends the cell at `row`, `col` as printed: its pen, link and text (a blank for a
    /// cell no output produces, as the redrawn screen has it).
    fn reprint(&self, out: &mut String, row: usize, col: usize) {
        let Some(cell) = self.grid.row(row).cells().get(col) else {
            return;
        };
        let _ = write!(out, "\x1b[{}m", settings::sgr(self.styles.get(cell.style)));
        self.push_link(out, cell.link);
        let width = if cell.is_wide() { 2 } else { 1 };
        if cells_of(cell.ch) == Some(width) {
            out.push(cell.ch);
            out.push_str(self.grid.row(row).extra(col).unwrap_or(""));
        } else {
            out.push(' ');
        }
    }

    /// Appends the OSC 8 that makes `link` the open one.
    fn push_link(&self, out: &mut String, link: LinkId) {
        let link = self.links.get(link);
        push_osc8(out, link.map(|l| (l.id.as_deref(), l.uri.as_str())));
    }

    fn setting(&self, selector: &[u8]) -> Option<String> {
        Some(match selector {
            b"m" => format!("{}m", settings::sgr(&self.pen)),
            b"r" => format!("{};{}r", self.scroll_top + 1, self.scroll_bottom + 1),
            b"s" => format!("{};{}s", self.margin_left + 1, self.margin_right + 1),
            b" q" => format!(
                "{} q",
                settings::cursor_style(self.cursor_shape, self.modes.cursor_blink)
            ),
            b"\"q" => format!("{}\"q", u8::from(self.protect == CellFlags::PROTECTED)),
            // The conformance level DA1 claims (VT220), 7-bit controls.
            b"\"p" => "62;1\"p".to_owned(),
            _ => return None,
        })
    }

    /// Whether an erase spares protected characters: a selective one (DECSED, DECSEL) once
    /// anything was protected, every one (ED, EL, ECH too) under SPA/EPA protection.
    fn spares_protected(&self, selective: bool) -> bool {
        match self.protection {
            Protection::Off => false,
            Protection::Dec => selective,
            Protection::Iso => true,
        }
    }

    /// [`erase_cells`](Self::erase_cells), leaving protected characters when `spare`.
    fn erase_span(&mut self, row: usize, start: usize, end: usize, spare: bool) {
        if !spare {
            self.erase_cells(row, start, end);
            return;
        }
        let end = end.min(self.width());
        let protected = |screen: &Screen, col: usize| {
            screen.grid.row(row).cells()[col]
                .flags
                .contains(CellFlags::PROTECTED)
        };
        let mut col = start;
        while col < end {
            if protected(self, col) {
                col += 1;
                continue;
            }
            let run_end = (col..end).find(|&c| protected(self, c)).unwrap_or(end);
            self.erase_cells(row, col, run_end);
            col = run_end;
        }
    }

    /// [`erase_rows`](Self::erase_rows), leaving protected characters when `spare`.
    fn erase_row_span(&mut self, start: usize, end: usize, spare: bool) {
        if !spare {
            self.erase_rows(start, end);
            return;
        }
        for row in start..end {
            self.erase_span(row, 0, self.width(), true);
        }
    }

    /// ED and DECSED.
    fn erase_in_display(&mut self, which: Erase, spare: bool) {
        let Cursor { row, col, .. } = self.cursor;
        // From the first cell to the end, or from the start to the last cell, is the whole
        // screen, and xterm erases it as such.
        let last = (self.height() - 1, self.width() - 1);
        let whole = match which {
            Erase::All => true,
            Erase::ToEnd => (row, col) == (0, 0),
            Erase::ToStart => (row, col) == last,
            Erase::Scrollback => false,
        };
        if spare && whole {
            self.erase_row_span(0, self.height(), true);
            // An erase of the whole screen that leaves nothing protected ends protection
            // (xterm's `do_erase_display`): later protected text is erased like any other.
            let any_protected = self.grid.rows().iter().any(|r| {
                r.cells()
                    .iter()
                    .any(|c| c.flags.contains(CellFlags::PROTECTED))
            });
            if !any_protected {
                self.protection = Protection::Off;
            }
            self.cursor.pending_wrap = false;
            return;
        }
        match which {
            Erase::ToEnd => {
                self.erase_span(row, col, self.width(), spare);
                self.erase_row_span(row + 1, self.height(), spare);
            }
            Erase::ToStart => {
                self.erase_row_span(0, row, spare);
                self.erase_span(row, 0, col + 1, spare);
            }
            Erase::All => self.erase_row_span(0, self.height(), spare),
            Erase::Scrollback => {
                // xterm's ED 3 only drops the saved lines; the cursor is left alone.
                self.scrollback.clear();
                return;
            }
        }
        self.cursor.pending_wrap = false;
    }

    /// EL and DECSEL.
    fn erase_in_line(&mut self, which: Erase, spare: bool) {
        let Cursor { row, col, .. } = self.cursor;
        let (start, end) = match which {
            Erase::ToEnd => (col, self.width()),
            Erase::ToStart => (0, col + 1),
            Erase::All | Erase::Scrollback => (0, self.width()),
        };
        self.erase_span(row, start, end, spare);
        self.cursor.pending_wrap = false;
    }

    /// Scrolls the scroll region up by `n`; full-screen scrolls of the primary screen feed the
    /// scrollback.
    fn scroll_region_up(&mut self, n: usize) {
        self.scroll_up_from(self.scroll_top, n);
    }

    /// Scrolls rows `top..=scroll_bottom` up by `n`. Lines leaving the top row of the primary
    /// screen go to the scrollback, as in xterm, even when a bottom margin is set.
    fn scroll_up_from(&mut self, top: usize, n: usize) {
        if self.has_side_margins() {
            self.scroll_span_up(top, n);
            return;
        }
        let fill = self.erase_cell();
        let bottom = self.scroll_bottom;
        if !self.alt_active && top == 0 {
            let scrollback = &mut self.scrollback;
            self.grid
                .scroll_up(top, bottom, n, fill, |row| scrollback.push(row));
        } else {
            self.grid.scroll_up(top, bottom, n, fill, Some);
        }
    }

    fn scroll_region_down(&mut self, n: usize) {
        if self.has_side_margins() {
            self.scroll_span_down(self.scroll_top, n);
            return;
        }
        let fill = self.erase_cell();
        self.grid
            .scroll_down(self.scroll_top, self.scroll_bottom, n, fill);
    }

    /// Soft-wraps: marks the row as continued and moves to the start of the next line.
    fn wrap_line(&mut self) {
        self.grid.row_mut(self.cursor.row).wrapped = true;
        self.cursor.col = self.left_limit();
        self.index();
    }

    fn attach_zero_width(&mut self, c: char) {
        let Cursor {
            row,
            col,
            pending_wrap,
        } = self.cursor;
        // xterm joins the mark to the cell last written, or to the cell under the cursor once
        // the cursor has moved; in column 0 nothing can have just been written.
        let target = if pending_wrap || col == 0 {
            col
        } else {
            col - 1
        };
        let r = self.grid.row_mut(row);
        let target = if r.cells()[target].is_spacer() && target > 0 {
            target - 1
        } else {
            target
        };
        r.push_extra(target, c);
    }

    fn enter_alt_screen(&mut self, clear: bool) {
        if !self.alt_active {
            // Rows for a first entry; otherwise already this size (see `resize`).
            self.inactive_grid.resize_clip(self.width(), self.height());
            std::mem::swap(&mut self.grid, &mut self.inactive_grid);
            self.alt_active = true;
            self.change_keyboard(|_| {});
        }
        if clear {
            self.erase_rows(0, self.height());
        }
    }

    fn leave_alt_screen(&mut self, clear: bool) {
        if self.alt_active {
            if clear {
                self.erase_rows(0, self.height());
            }
            std::mem::swap(&mut self.grid, &mut self.inactive_grid);
            self.alt_active = false;
            self.change_keyboard(|_| {});
        }
    }

    fn clamp_cursor(&mut self) {
        self.cursor.row = self.cursor.row.min(self.height() - 1);
        self.cursor.col = self.cursor.col.min(self.width() - 1);
    }

    /// The lowest row the cursor may move to with CUD from its current row.
    fn lower_limit(&self) -> usize {
        if self.cursor.row <= self.scroll_bottom {
            self.scroll_bottom
        } else {
            self.height() - 1
        }
    }

    fn upper_limit(&self) -> usize {
        if self.cursor.row >= self.scroll_top {
            self.scroll_top
        } else {
            0
        }
    }

    /// Whether left or right margins are set (DECSLRM).
    fn has_side_margins(&self) -> bool {
        self.margin_left != 0 || self.margin_right + 1 != self.width()
    }

    /// Whether the cursor's column is inside the left and right margins.
    fn cursor_in_side_margins(&self) -> bool {
        (self.margin_left..=self.margin_right).contains(&self.cursor.col)
    }

    /// The rightmost column the cursor moves and prints to: the right margin, unless the
    /// cursor is right of it already (then the screen's edge).
    fn right_limit(&self) -> usize {
        let limit = if self.cursor.col <= self.margin_right {
            self.margin_right
        } else {
            self.width() - 1
        };
        limit.min(self.line_last_col())
    }

    /// The last column the cursor's row can show: half the screen on a double-size row.
    fn line_last_col(&self) -> usize {
        if self.grid.row(self.cursor.row).size.is_double() {
            (self.width() / 2).max(1) - 1
        } else {
            self.width() - 1
        }
    }

    /// The leftmost column the cursor moves back to: the left margin, unless the cursor is
    /// left of it already.
    fn left_limit(&self) -> usize {
        if self.cursor.col >= self.margin_left {
            self.margin_left
        } else {
            0
        }
    }

    /// Column `col` of a cursor address: relative to the left margin in origin mode, kept
    /// inside the right margin there and inside the screen otherwise.
    fn origin_col(&self, col: u16) -> usize {
        if self.modes.origin {
            (self.margin_left + col as usize).min(self.margin_right)
        } else {
            (col as usize).min(self.width() - 1)
        }
    }

    /// Removes the left and right margins.
    fn reset_side_margins(&mut self) {
        self.margin_left = 0;
        self.margin_right = self.width() - 1;
    }

    /// Scrolls the scroll region's rows `top..=scroll_bottom` up by `n` between the left and
    /// right margins only (nothing goes to the scrollback).
    fn scroll_span_up(&mut self, top: usize, n: usize) {
        let fill = self.erase_cell();
        let span = (self.margin_left, self.margin_right + 1);
        self.split_wide_at_span_edges(top, self.scroll_bottom);
        self.grid
            .scroll_span_up((top, self.scroll_bottom), span, n, fill);
    }

    /// [`scroll_span_up`](Self::scroll_span_up), downwards.
    fn scroll_span_down(&mut self, top: usize, n: usize) {
        let fill = self.erase_cell();
        let span = (self.margin_left, self.margin_right + 1);
        self.split_wide_at_span_edges(top, self.scroll_bottom);
        self.grid
            .scroll_span_down((top, self.scroll_bottom), span, n, fill);
    }

    /// Blanks the wide characters the side margins cut in rows `top..=bottom`.
    fn split_wide_at_span_edges(&mut self, top: usize, bottom: usize) {
        for row in top..=bottom {
            self.split_wide_at(row, self.margin_left);
            if self.margin_right + 1 < self.width() {
                self.split_wide_at(row, self.margin_right + 1);
            }
        }
    }

    fn reset_state(&mut self) {
        let (w, h) = (self.width(), self.height());
        let options = self.options.clone();
        // RIS erases the saved lines too, as xterm's does (`VTReset` with `saved`); the
        // scrollback is cleared rather than replaced so its lines keep counting in the global
        // line numbers. No cell is left that refers to the old style and link tables.
        let mut scrollback = std::mem::replace(&mut self.scrollback, Scrollback::new(0));
        scrollback.clear();
        let title = std::mem::take(&mut self.title);
        let bells = self.bells;
        let shell = std::mem::take(&mut self.shell);
        *self = Screen::new(w, h, options);
        self.scrollback = scrollback;
        self.title = title;
        self.bells = bells;
        self.shell = shell;
    }

    /// Prints one character: widths, wrapping, wide-character halves, insert mode, charsets.
    #[inline(never)]
    fn print_general(&mut self, c: char) {
        let Some(width) = cells_of(c) else {
            return;
        };
        let c = if self.charsets.is_identity() {
            c
        } else {
            self.charsets.map(c)
        };
        if width == 0 {
            self.attach_zero_width(c);
            return;
        }
        self.refresh_pen();
        // xterm wraps only if DECAWM is still set when the next character arrives.
        if self.cursor.pending_wrap && self.modes.autowrap {
            self.wrap_line();
        }
        // The column after the last one this line prints to: the right margin's, or the
        // screen's edge.
        let mut cols = self.right_limit() + 1;
        if self.cursor.col >= cols {
            // Past the shown half of a double-size row (cursor addressing goes there): xterm
            // writes nothing and leaves the cursor.
            return;
        }
        if width == 2 && self.cursor.col + 1 >= cols {
            if !self.modes.autowrap || cols < 2 {
                // xterm's `dotext` writes nothing and leaves the last-column flag clear.
                self.cursor.pending_wrap = false;
                return;
            }
            let col = self.cursor.col;
            self.split_wide_at(self.cursor.row, col);
            let mut pad = self.erase_cell();
            pad.flags = CellFlags::LEADING_SPACER;
            self.grid.row_mut(self.cursor.row).set(col, pad);
            self.wrap_line();
            cols = self.right_limit() + 1;
        }
        let (row, col) = (self.cursor.row, self.cursor.col);
        if self.modes.insert {
            self.split_wide_at(row, col);
            let r = self.grid.row_mut(row);
            r.copy_within(col, cols.saturating_sub(col + width), col + width);
            if cols == self.width() {
                self.erase_cut_wide_at_end(row);
            }
        }
        // Overwriting half of a wide character blanks the other half.
        let cells = self.grid.row(row).cells();
        let (old, next) = (cells[col], cells.get(col + 1).copied());
        if old.is_spacer() {
            self.split_wide_at(row, col);
        } else if old.is_wide() && width == 1 {
            self.drop_spacer_after(row, col);
        }
        if width == 2 && next.is_some_and(|n| n.is_wide()) {
            self.drop_spacer_after(row, col + 1);
        }
        let at_screen_edge = cols == self.width();
        let r = self.grid.row_mut(row);
        if width == 1 {
            r.set(
                col,
                Cell {
                    ch: c,
                    style: self.pen_id,
                    link: self.link,
                    flags: self.protect,
                },
            );
        } else {
            r.set(
                col,
                Cell {
                    ch: c,
                    style: self.pen_id,
                    link: self.link,
                    flags: CellFlags::WIDE.with(self.protect),
                },
            );
            r.set(
                col + 1,
                Cell {
                    ch: ' ',
                    style: self.pen_id,
                    link: self.link,
                    flags: CellFlags::WIDE_SPACER.with(self.protect),
                },
            );
        }
        if col + width >= cols {
            if at_screen_edge {
                r.wrapped = false;
            }
            self.cursor.col = cols - 1;
            // Set even without DECAWM, as xterm's `dotext` does; `print` wraps only if
            // autowrap is on by the time the next character arrives.
            self.cursor.pending_wrap = true;
        } else {
            self.cursor.col = col + width;
        }
        self.last_char = Some(c);
    }

    // ----- resize ------------------------------------------------------------------------

    /// Resizes both buffers. The primary screen reflows soft-wrapped lines when the width
    /// changes; the alternate screen is clipped. The cursor stays on the same character.
    pub fn resize(&mut self, width: usize, height: usize) {
        let width = width.max(1);
        let height = height.max(1);
        if width == self.width() && height == self.height() {
            return;
        }
        let fill = Cell::BLANK;
        let (primary, alternate) = if self.alt_active {
            (&mut self.inactive_grid, &mut self.grid)
        } else {
            (&mut self.grid, &mut self.inactive_grid)
        };
        // The primary cursor: the live one, or the one saved by 1049 while the alternate
        // screen is up.
        let primary_cursor = if self.alt_active {
            self.saved[0].map(|s| s.cursor).unwrap_or_default()
        } else {
            self.cursor
        };
        let new_cursor = reflow::resize_primary(
            primary,
            &mut self.scrollback,
            primary_cursor,
            width,
            height,
            fill,
        );
        // An alternate screen never entered stays without rows.
        if alternate.height() > 0 {
            alternate.resize_clip(width, height);
        }
        if self.alt_active {
            if let Some(saved) = &mut self.saved[0] {
                saved.cursor = new_cursor;
            }
            self.cursor.row = self.cursor.row.min(height - 1);
            self.cursor.col = self.cursor.col.min(width - 1);
            self.cursor.pending_wrap = false;
        } else {
            self.cursor = new_cursor;
        }
        for saved in self.saved.iter_mut().flatten() {
            saved.cursor.row = saved.cursor.row.min(height - 1);
            saved.cursor.col = saved.cursor.col.min(width - 1);
        }
        let old_tabs = std::mem::take(&mut self.tabs);
        self.tabs = default_tabs(width);
        let keep = old_tabs.len().min(width);
        self.tabs[..keep].copy_from_slice(&old_tabs[..keep]);
        self.scroll_top = 0;
        self.scroll_bottom = height - 1;
        self.reset_side_margins();
    }
}

impl Handler for Screen {
    #[inline(always)]
    fn print(&mut self, c: char) {
        // Fast path for the overwhelmingly common case: a character over plain cells, not
        // reaching the last column, with no wrap pending. Everything else takes
        // `print_general`.
        if !self.cursor.pending_wrap && !self.modes.insert && self.charsets.is_identity() {
            let Some(width) = cells_of(c) else {
                return;
            };
            // A combining mark, joiner or variation selector takes no cell of its own: it joins
            // the cell written last, which needs none of the checks below.
            if width == 0 {
                self.attach_zero_width(c);
                return;
            }
            // The first character after an SGR interns the new pen here, not on the slow path.
            self.refresh_pen();
            let Cursor { row, col, .. } = self.cursor;
            // Short of the right margin (the last column without margins).
            if col + width <= self.margin_right {
                let cell = Cell {
                    ch: c,
                    style: self.pen_id,
                    link: self.link,
                    flags: self.protect,
                };
                let r = self.grid.row_mut(row);
                let written = !r.size.is_double()
                    && if width == 1 {
                        r.write_plain(col, cell)
                    } else {
                        r.write_plain_wide(col, cell)
                    };
                if written {
                    self.cursor.col = col + width;
                    self.last_char = Some(c);
                    return;
                }
            }
        }
        self.print_general(c);
    }

    fn print_ascii(&mut self, mut text: &[u8]) {
        // The fast path of `print` for a whole run: its conditions are checked once per
        // stretch of plain cells instead of once per character.
        while let Some(&first) = text.first() {
            if !self.cursor.pending_wrap && !self.modes.insert && self.charsets.is_identity() {
                self.refresh_pen();
                let Cursor { row, col, .. } = self.cursor;
                // Short of the right margin, as in `print`.
                let room = self.margin_right.saturating_sub(col).min(text.len());
                let cell = Cell {
                    ch: ' ',
                    style: self.pen_id,
                    link: self.link,
                    flags: self.protect,
                };
                let r = self.grid.row_mut(row);
                if room > 0 && !r.size.is_double() {
                    let written = r.write_plain_run(col, &text[..room], cell);
                    if written > 0 {
                        self.cursor.col = col + written;
                        self.last_char = Some(char::from(text[written - 1]));
                        text = &text[written..];
                        continue;
                    }
                }
            }
            self.print_general(char::from(first));
            text = &text[1..];
        }
    }

    fn bell(&mut self) {
        self.bells += 1;
    }

    fn backspace(&mut self) {
        self.cursor.pending_wrap = false;
        self.cursor.col = self.cursor.col.saturating_sub(1);
    }

    fn tab_forward(&mut self, n: u16) {
        let last = self.right_limit();
        for _ in 0..n {
            match (self.cursor.col + 1..=last).find(|&c| self.tabs[c]) {
                Some(c) => self.cursor.col = c,
                None => {
                    self.cursor.col = last;
                    break;
                }
            }
        }
    }

    fn tab_backward(&mut self, n: u16) {
        self.cursor.pending_wrap = false;
        for _ in 0..n {
            match (0..self.cursor.col).rev().find(|&c| self.tabs[c]) {
                Some(c) => self.cursor.col = c,
                None => {
                    self.cursor.col = 0;
                    break;
                }
            }
        }
    }

    fn linefeed(&mut self) {
        if self.modes.linefeed_newline {
            self.cursor.col = 0;
        }
        self.index();
    }

    fn carriage_return(&mut self) {
        // To the left margin, from inside the margins or in origin mode (xterm).
        self.cursor.col = if self.modes.origin {
            self.margin_left
        } else {
            self.left_limit()
        };
        self.cursor.pending_wrap = false;
    }

    fn index(&mut self) {
        self.cursor.pending_wrap = false;
        if self.cursor.row == self.scroll_bottom {
            // Outside the side margins the bottom margin neither scrolls nor is left (xterm).
            if self.cursor_in_side_margins() {
                self.scroll_region_up(1);
            }
        } else if self.cursor.row + 1 < self.height() {
            self.cursor.row += 1;
        }
    }

    fn next_line(&mut self) {
        self.carriage_return();
        self.index();
    }

    fn reverse_index(&mut self) {
        self.cursor.pending_wrap = false;
        if self.cursor.row == self.scroll_top {
            if self.cursor_in_side_margins() {
                self.scroll_region_down(1);
            }
        } else if self.cursor.row > 0 {
            self.cursor.row -= 1;
        }
    }

    fn set_tab_stop(&mut self) {
        if let Some(t) = self.tabs.get_mut(self.cursor.col) {
            *t = true;
        }
    }

    fn clear_tab_stops(&mut self, which: TabClear) {
        match which {
            TabClear::Current => {
                if let Some(t) = self.tabs.get_mut(self.cursor.col) {
                    *t = false;
                }
            }
            TabClear::All => self.tabs.fill(false),
        }
    }

    fn save_cursor(&mut self) {
        self.saved[self.alt_active as usize] = Some(SavedCursor {
            cursor: self.cursor,
            pen: self.pen,
            link: self.link,
            origin: self.modes.origin,
            autowrap: self.modes.autowrap,
            charsets: self.charsets,
            protect: self.protect,
        });
    }

    fn restore_cursor(&mut self) {
        let slot = self.saved[self.alt_active as usize];
        let saved = slot.unwrap_or_default();
        self.cursor = saved.cursor;
        self.pen = saved.pen;
        self.pen_dirty = true;
        self.link = saved.link;
        self.modes.origin = saved.origin;
        if let Some(saved) = slot {
            self.modes.autowrap = saved.autowrap;
        }
        self.charsets = saved.charsets;
        self.protect = saved.protect;
        self.clamp_cursor();
        if self.modes.origin {
            // xterm restores through CursorSet, which keeps the cursor above the bottom margin.
            self.cursor.row = self.cursor.row.min(self.scroll_bottom);
        }
    }

    fn full_reset(&mut self) {
        self.reset_state();
    }

    fn soft_reset(&mut self) {
        self.modes.insert = false;
        self.modes.origin = false;
        self.modes.autowrap = true;
        self.modes.cursor_visible = true;
        self.modes.cursor_keys_application = false;
        self.modes.keypad_application = false;
        self.scroll_top = 0;
        self.scroll_bottom = self.height() - 1;
        self.modes.left_right_margins = false;
        self.reset_side_margins();
        self.charsets = Charsets::default();
        self.pen = Style::default();
        self.pen_dirty = true;
        self.link = LinkId::NONE;
        self.protect = CellFlags::empty();
        self.saved[self.alt_active as usize] = None;
        self.cursor.pending_wrap = false;
    }

    fn screen_alignment_test(&mut self) {
        self.scroll_top = 0;
        self.scroll_bottom = self.height() - 1;
        let fill = Cell {
            ch: 'E',
            ..Cell::BLANK
        };
        for row in self.grid.rows_mut() {
            row.reset(fill);
        }
        self.cursor = Cursor::default();
        // xterm clears the pen's attributes too, but keeps its colours.
        self.pen = Style {
            fg: self.pen.fg,
            bg: self.pen.bg,
            underline_color: self.pen.underline_color,
            ..Style::default()
        };
        self.pen_dirty = true;
    }

    fn set_line_size(&mut self, size: LineSize) {
        self.grid.row_mut(self.cursor.row).size = size;
        if size.is_double() {
            // xterm keeps the cursor at most one column past the half the row shows.
            self.cursor.col = self.cursor.col.min(self.width() / 2);
        }
        self.cursor.pending_wrap = false;
    }

    fn designate_charset(&mut self, slot: CharsetSlot, charset: Charset) {
        self.charsets.designate(slot, charset);
    }

    fn invoke_charset(&mut self, slot: CharsetSlot) {
        self.charsets.invoke(slot);
    }

    fn single_shift(&mut self, slot: CharsetSlot) {
        self.charsets.single_shift(slot);
    }

    fn move_up(&mut self, n: u16) {
        let limit = self.upper_limit();
        self.cursor.row = self.cursor.row.saturating_sub(n as usize).max(limit);
        self.cursor.pending_wrap = false;
    }

    fn move_down(&mut self, n: u16) {
        let limit = self.lower_limit();
        self.cursor.row = (self.cursor.row + n as usize).min(limit);
        self.cursor.pending_wrap = false;
    }

    fn move_forward(&mut self, n: u16) {
        self.cursor.col = (self.cursor.col + n as usize).min(self.right_limit());
        self.cursor.pending_wrap = false;
    }

    fn move_backward(&mut self, n: u16) {
        let limit = self.left_limit();
        self.cursor.col = self.cursor.col.saturating_sub(n as usize).max(limit);
        self.cursor.pending_wrap = false;
    }

    fn move_down_to_start(&mut self, n: u16) {
        self.move_down(n);
        self.carriage_return();
    }

    fn move_up_to_start(&mut self, n: u16) {
        self.move_up(n);
        self.carriage_return();
    }

    fn goto_col(&mut self, col: u16) {
        self.cursor.col = self.origin_col(col);
        self.cursor.pending_wrap = false;
    }

    fn goto_row(&mut self, row: u16) {
        let col = self.cursor.col as u16;
        self.goto(row, col);
    }

    fn move_down_keep_col(&mut self, n: u16) {
        self.move_down(n);
    }

    fn goto(&mut self, row: u16, col: u16) {
        let (top, bottom) = if self.modes.origin {
            (self.scroll_top, self.scroll_bottom)
        } else {
            (0, self.height() - 1)
        };
        self.cursor.row = (top + row as usize).min(bottom);
        self.cursor.col = self.origin_col(col);
        self.cursor.pending_wrap = false;
    }

    fn save_cursor_or_set_margins(&mut self, left: u16, right: u16) {
        if !self.modes.left_right_margins {
            self.save_cursor();
            return;
        }
        let width = self.width();
        let left = (left.max(1) as usize) - 1;
        let right = if right == 0 {
            width
        } else {
            (right as usize).min(width)
        } - 1;
        if left < right {
            self.margin_left = left;
            self.margin_right = right;
            self.goto(0, 0);
        }
    }

    fn erase_display(&mut self, which: Erase) {
        self.erase_in_display(which, self.spares_protected(false));
    }

    fn erase_line(&mut self, which: Erase) {
        self.erase_in_line(which, self.spares_protected(false));
    }

    fn selective_erase_display(&mut self, which: Erase) {
        self.erase_in_display(which, self.spares_protected(true));
    }

    fn selective_erase_line(&mut self, which: Erase) {
        self.erase_in_line(which, self.spares_protected(true));
    }

    fn dcs_start(&mut self, request: Option<DcsRequest>) {
        self.dcs = request.map(|r| (r, Some(Vec::new())));
    }

    fn dcs_put(&mut self, byte: u8) {
        if let Some((request, data)) = &mut self.dcs {
            let limit = match request {
                DcsRequest::Setting => MAX_DCS_DATA,
                DcsRequest::Capability => MAX_CAPABILITY_REQUEST,
            };
            match data {
                Some(d) if d.len() < limit => d.push(byte),
                _ => *data = None,
            }
        }
    }

    fn dcs_end(&mut self) {
        let Some((request, data)) = self.dcs.take() else {
            return;
        };
        match request {
            DcsRequest::Setting => {
                let reply = match data.as_deref().and_then(|d| self.setting(d)) {
                    Some(value) => format!("\x1bP1$r{value}\x1b\\"),
                    None => "\x1bP0$r\x1b\\".to_owned(),
                };
                self.reply(reply.as_bytes());
            }
            // An over-long request gets no answer at all: its names are not all known.
            DcsRequest::Capability => {
                if let Some(names) = data {
                    // terminfo describes the legacy keys, whatever the kitty flags.
                    let modes = KeyModes::from(&self.modes).legacy();
                    let reply = capability::reply(&names, modes);
                    self.reply(&reply);
                }
            }
        }
    }

    fn set_protection(&mut self, kind: Protection, on: bool) {
        self.protection = kind;
        self.protect = if on {
            CellFlags::PROTECTED
        } else {
            CellFlags::empty()
        };
    }

    fn insert_blank(&mut self, n: u16) {
        let Cursor { row, col, .. } = self.cursor;
        if !self.cursor_in_side_margins() {
            return;
        }
        // Up to the right margin: what is pushed past it is lost.
        let cols = self.margin_right + 1;
        let n = (n as usize).min(cols - col);
        self.split_wide_at(row, col);
        if cols < self.width() {
            self.split_wide_at(row, cols);
        }
        let fill = self.erase_cell();
        let r = self.grid.row_mut(row);
        r.copy_within(col, cols - col - n, col + n);
        r.fill(col, col + n, fill);
        if cols == self.width() {
            self.erase_cut_wide_at_end(row);
        }
        self.cursor.pending_wrap = false;
    }

    fn delete_chars(&mut self, n: u16) {
        let Cursor { row, col, .. } = self.cursor;
        if !self.cursor_in_side_margins() {
            return;
        }
        let cols = self.margin_right + 1;
        if cols < self.width() {
            self.split_wide_at(row, cols);
        }
        let n = (n as usize).min(cols - col);
        self.split_wide_at(row, col);
        if col + n < cols {
            self.split_wide_at(row, col + n);
        }
        let fill = self.erase_cell();
        let r = self.grid.row_mut(row);
        r.copy_within(col + n, cols - col - n, col);
        r.fill(cols - n, cols, fill);
        self.cursor.pending_wrap = false;
    }

    fn erase_chars(&mut self, n: u16) {
        let Cursor { row, col, .. } = self.cursor;
        self.erase_span(row, col, col + n as usize, self.spares_protected(false));
        self.cursor.pending_wrap = false;
    }

    fn insert_lines(&mut self, n: u16) {
        let row = self.cursor.row;
        if row < self.scroll_top || row > self.scroll_bottom || !self.cursor_in_side_margins() {
            return;
        }
        if self.has_side_margins() {
            self.scroll_span_down(row, n as usize);
        } else {
            let fill = self.erase_cell();
            self.grid
                .scroll_down(row, self.scroll_bottom, n as usize, fill);
        }
        self.cursor.col = self.margin_left;
        self.cursor.pending_wrap = false;
    }

    fn delete_lines(&mut self, n: u16) {
        let row = self.cursor.row;
        if row < self.scroll_top || row > self.scroll_bottom || !self.cursor_in_side_margins() {
            return;
        }
        self.scroll_up_from(row, n as usize);
        self.cursor.col = self.margin_left;
        self.cursor.pending_wrap = false;
    }

    fn scroll_up(&mut self, n: u16) {
        self.scroll_region_up(n as usize);
    }

    fn scroll_down(&mut self, n: u16) {
        self.scroll_region_down(n as usize);
    }

    fn forget_repeatable(&mut self) {
        self.last_char = None;
    }

    fn repeat_last(&mut self, n: u16) {
        if let Some(c) = self.last_char {
            // Bounded by the screen size: repeating more only overwrites the same cells.
            let n = (n as usize).min(self.width() * self.height());
            for _ in 0..n {
                self.print(c);
            }
        }
    }

    fn set_scroll_region(&mut self, top: Option<u16>, bottom: Option<u16>) {
        let height = self.height();
        let top = top.map_or(0, |t| t as usize - 1);
        let bottom = bottom.map_or(height - 1, |b| (b as usize).min(height) - 1);
        if top < bottom {
            self.scroll_top = top;
            self.scroll_bottom = bottom;
            self.goto(0, 0);
        }
    }

    fn set_mode(&mut self, mode: Mode, on: bool) {
        match mode {
            Mode::AltScreen => {
                if on {
                    self.enter_alt_screen(false)
                } else {
                    self.leave_alt_screen(false)
                }
            }
            Mode::AltScreenClear => {
                if on {
                    self.enter_alt_screen(false)
                } else {
                    self.leave_alt_screen(true)
                }
            }
            Mode::SaveCursor => {
                if on {
                    self.save_cursor()
                } else {
                    self.restore_cursor()
                }
            }
            Mode::AltScreenSaveCursor => {
                // As xterm: the save, clear and restore are unconditional; only the buffer
                // switch depends on the current buffer (a `1049l` on the primary restores).
                if on {
                    self.save_cursor();
                    self.enter_alt_screen(true);
                    // xterm's ClearScreen resets the pending wrap.
                    self.cursor.pending_wrap = false;
                } else {
                    self.leave_alt_screen(false);
                    self.restore_cursor();
                }
            }
            Mode::Origin => {
                self.modes.origin = on;
                self.goto(0, 0);
            }
            Mode::LeftRightMargins => {
                self.modes.left_right_margins = on;
                if !on {
                    self.reset_side_margins();
                }
            }
            Mode::Columns132 => {
                // xterm: without ?40 DECCOLM does nothing at all; with it, the screen gets 80
                // or 132 columns, is cleared (margins reset) and the cursor goes home, even
                // when the width does not change.
                if self.modes.allow_column_switch {
                    self.modes.columns_132 = on;
                    self.resize(if on { 132 } else { 80 }, self.height());
                    self.scroll_top = 0;
                    self.scroll_bottom = self.height() - 1;
                    self.erase_rows(0, self.height());
                    self.cursor = Cursor::default();
                }
            }
            _ => {
                self.modes.set(mode, on);
            }
        }
    }

    fn report_mode(&mut self, number: u16, private: bool) {
        let mode = if private {
            Mode::from_dec(number)
        } else {
            Mode::from_ansi(number)
        };
        // DECRPM values: 0 not recognised, 1 set, 2 reset.
        let value = match mode {
            None => 0,
            Some(Mode::AltScreen | Mode::AltScreenClear | Mode::AltScreenSaveCursor) => {
                if self.alt_active { 1 } else { 2 }
            }
            Some(Mode::SaveCursor) => 2,
            Some(m) => match self.modes.get(m) {
                Some(true) => 1,
                Some(false) => 2,
                None => 0,
            },
        };
        let marker = if private { "?" } else { "" };
        let reply = format!("\x1b[{marker}{number};{value}$y");
        self.reply(reply.as_bytes());
    }

    fn set_keypad_application(&mut self, on: bool) {
        self.modes.keypad_application = on;
    }

    fn push_keyboard_flags(&mut self, flags: u8) {
        self.change_keyboard(|k| k.push(flags));
    }

    fn pop_keyboard_flags(&mut self, count: u16) {
        self.change_keyboard(|k| k.pop(count));
    }

    fn update_keyboard_flags(&mut self, flags: u8, how: FlagsUpdate) {
        self.change_keyboard(|k| k.update(flags, how));
    }

    fn set_cursor_style(&mut self, shape: Option<CursorShape>, blink: bool) {
        self.cursor_shape = shape.unwrap_or_default();
        self.modes.cursor_blink = blink;
    }

    // Inlined into the SGR dispatch, where each attribute is a constant: one store each.
    #[inline(always)]
    fn sgr(&mut self, attr: Sgr) {
        let pen = &mut self.pen;
        match attr {
            Sgr::Reset => {
                // The default style is always id 0: the pen needs no interning.
                *pen = Style::default();
                self.pen_id = StyleId::DEFAULT;
                self.pen_dirty = false;
                return;
            }
            Sgr::Bold => pen.attrs.set(Attrs::BOLD, true),
            Sgr::Dim => pen.attrs.set(Attrs::DIM, true),
            Sgr::NormalIntensity => {
                pen.attrs.set(Attrs::BOLD, false);
                pen.attrs.set(Attrs::DIM, false);
            }
            Sgr::Italic(on) => pen.attrs.set(Attrs::ITALIC, on),
            Sgr::Underline(u) => pen.underline = u,
            Sgr::Blink(on) => pen.attrs.set(Attrs::BLINK, on),
            Sgr::Inverse(on) => pen.attrs.set(Attrs::INVERSE, on),
            Sgr::Hidden(on) => pen.attrs.set(Attrs::HIDDEN, on),
            Sgr::Strike(on) => pen.attrs.set(Attrs::STRIKE, on),
            Sgr::Overline(on) => pen.attrs.set(Attrs::OVERLINE, on),
            Sgr::Foreground(c) => pen.fg = c,
            Sgr::Background(c) => pen.bg = c,
            Sgr::UnderlineColor(c) => pen.underline_color = c,
        }
        self.pen_dirty = true;
    }

    fn set_title(&mut self, title: &str) {
        let mut end = title.len().min(MAX_TITLE_LEN);
        while !title.is_char_boundary(end) {
            end -= 1;
        }
        self.title.clear();
        self.title
            .extend(title[..end].chars().filter(|c| !c.is_control()));
    }

    fn push_title(&mut self) {
        if self.title_stack.len() >= MAX_TITLE_STACK {
            self.title_stack.remove(0);
        }
        self.title_stack.push(self.title.clone());
    }

    fn pop_title(&mut self) {
        if let Some(t) = self.title_stack.pop() {
            self.title = t;
        }
    }

    fn set_palette_color(&mut self, index: u8, rgb: Rgb) {
        self.palette[index as usize] = Some(rgb);
    }

    fn query_palette_color(&mut self, index: u8, terminator: OscTerminator) {
        let color = xparse_color_string(self.palette_color(index));
        let reply = format!("\x1b]4;{index};{color}{}", st(terminator));
        self.reply(reply.as_bytes());
    }

    fn reset_palette_color(&mut self, index: Option<u8>) {
        match index {
            Some(i) => self.palette[i as usize] = None,
            None => self.palette.fill(None),
        }
    }

    fn set_dynamic_color(&mut self, which: DynamicColor, rgb: Rgb) {
        self.dynamic[which as usize] = Some(rgb);
    }

    fn query_dynamic_color(&mut self, which: DynamicColor, terminator: OscTerminator) {
        let default = match which {
            DynamicColor::Foreground => self.options.foreground,
            DynamicColor::Background => self.options.background,
            DynamicColor::Cursor => self.options.cursor_color,
        };
        let rgb = self.dynamic[which as usize].unwrap_or(default);
        let code = 10 + which as u8;
        let reply = format!("\x1b]{code};{}{}", xparse_color_string(rgb), st(terminator));
        self.reply(reply.as_bytes());
    }

    fn reset_dynamic_color(&mut self, which: DynamicColor) {
        self.dynamic[which as usize] = None;
    }

    fn set_hyperlink(&mut self, link: Option<(Option<&str>, &str)>) {
        self.link = match link {
            Some((id, uri))
                if uri.len() <= MAX_URI_LEN && id.is_none_or(|id| id.len() <= MAX_LINK_ID_LEN) =>
            {
                self.intern_link(Link {
                    uri: uri.to_owned(),
                    id: id.map(str::to_owned),
                })
            }
            _ => LinkId::NONE,
        };
    }

    fn prompt_mark(&mut self, mark: PromptMark, exit_code: Option<i32>) {
        self.grid.row_mut(self.cursor.row).mark = mark;
        let Some(here) = self.shell_place() else {
            return;
        };
        match mark {
            PromptMark::None => {}
            PromptMark::PromptStart => self.shell.prompt_start(),
            PromptMark::CommandStart => self.shell.command_start(here),
            PromptMark::OutputStart => {
                let text = self.shell.input_start().map_or_else(String::new, |from| {
                    let (text, _) = self.history_text(from, here, MAX_COMMAND_TEXT);
                    text.trim().to_owned()
                });
                self.shell.output_start(here, text);
            }
            PromptMark::CommandEnd => {
                let output = self.shell.output_place().map_or_else(
                    || (String::new(), false),
                    |from| self.history_text(from, here, MAX_COMMAND_OUTPUT),
                );
                self.shell.command_end(exit_code, output);
            }
        }
    }

    fn report(&mut self, report: Report) {
        let reply = match report {
            // VT220 with ANSI colour; the same class xterm reports in its VT220 mode.
            Report::PrimaryAttributes => "\x1b[?62;22c".to_owned(),
            Report::SecondaryAttributes => "\x1b[>1;10;0c".to_owned(),
            Report::Status => "\x1b[0n".to_owned(),
            Report::CursorPosition | Report::ExtendedCursorPosition => {
                let row = if self.modes.origin {
                    self.cursor.row.saturating_sub(self.scroll_top)
                } else {
                    self.cursor.row
                };
                let (r, c) = (row + 1, self.cursor.col + 1);
                if report == Report::CursorPosition {
                    format!("\x1b[{r};{c}R")
                } else {
                    format!("\x1b[?{r};{c};1R")
                }
            }
            Report::Version => format!("\x1bP>|shotty {}\x1b\\", env!("CARGO_PKG_VERSION")),
            Report::TextAreaSize => format!("\x1b[8;{};{}t", self.height(), self.width()),
            Report::KeyboardFlags => format!("\x1b[?{}u", self.modes.kitty_keyboard),
        };
        self.reply(reply.as_bytes());
    }
}

fn st(terminator: OscTerminator) -> &'static str {
    match terminator {
        OscTerminator::Bel => "\x07",
        OscTerminator::St => "\x1b\\",
    }
}
