//! The terminal emulator: bytes in, screen state out.
//!
//! [`Terminal`] feeds bytes through `vte`'s parser; `parser.rs` decodes each sequence into a
//! [`Handler`] call; [`Screen`] holds the state those calls change. Downstream code reads the
//! state through [`Terminal::snapshot`] and [`Terminal::text`], never by poking at the grid.
//! Input goes the other way: [`keys`] turns named keys and pastes into the bytes a program
//! expects in the modes it has set.
//!
//! Character widths follow `wcwidth` per code point (`unicode-width`), as xterm and the
//! programs running in it compute them: a wide character takes two cells (the second is a
//! spacer), zero-width characters (combining marks, ZWJ, variation selectors) join the
//! preceding cell. This keeps the cursor where applications expect it.

mod capability;
mod cell;
mod charset;
mod find;
mod grid;
mod ground;
mod handler;
pub mod keys;
mod link;
mod modes;
pub mod mouse;
mod palette;
mod parser;
mod plain;
pub mod queries;
mod redraw;
mod reflow;
mod screen;
mod settings;
pub mod shell;
mod snapshot;
mod style;
mod width;

#[cfg(test)]
mod bulk_print_tests;

pub use cell::{Cell, CellFlags};
pub use charset::{Charset, CharsetSlot};
pub use find::{FindScope, Found, StyleFilter, StyleFilterError};
pub use grid::{Cursor, Grid, LineSize, MAX_EXTRA_BYTES, PromptMark, Row, Scrollback};
pub use handler::{
    CursorShape, DcsRequest, DynamicColor, Erase, Handler, OscTerminator, Protection, Report, Sgr,
    TabClear,
};
pub use link::{Link, LinkId, LinkTable, MAX_LINKS, MAX_URI_LEN};
pub use modes::{Mode, Modes, MouseEncoding, MouseTracking};
pub use palette::{Rgb, XTERM_ANSI, indexed_color};
pub use plain::plain_text;
pub use screen::{MAX_REPLY_BYTES, MAX_TITLE_LEN, Screen, TerminalOptions};
pub use snapshot::{
    CellSnapshot, ColorValue, CursorSnapshot, LinkSnapshot, RowSnapshot, SCHEMA_VERSION, Snapshot,
    StyleSnapshot,
};
pub use style::{
    ANSI_COLOR_NAMES, Attrs, Color, MAX_STYLES, Style, StyleId, StyleTable, Underline,
};

pub use capability::TERM_NAME;

use parser::Dispatcher;

/// The escape character that starts every control sequence.
const ESC: u8 = 0x1b;

/// The unterminated-string guard looks at the input in blocks of this many bytes (counted
/// from the start of the stream, so however the input is split into calls, the blocks, and
/// with them the point where a string is cut, are the same).
const BLOCK: usize = 4096;
/// A stretch of input this long without a single parser event means an OSC string is being
/// buffered without end; it is cut off so memory stays bounded.
const MAX_SILENT_BYTES: usize = 64 * 1024;

/// A terminal emulator: a screen fed with bytes.
pub struct Terminal {
    parser: vte::Parser,
    screen: Screen,
    /// Bytes of whole blocks since the last block in which the parser dispatched anything.
    silent_bytes: usize,
    /// Bytes of the current block fed so far, and whether any of them made the parser act.
    block_fill: usize,
    block_active: bool,
    /// Discarding the rest of an over-long OSC string up to its terminator.
    skipping_osc: bool,
    /// The parser is in its ground state with no partial UTF-8 sequence: the next bytes up
    /// to an ESC are text and controls.
    ground: bool,
    /// The start of a UTF-8 sequence the last call ended in, not yet given to the parser.
    held: [u8; 4],
    held_len: usize,
    /// The bytes of the escape sequence the parser is inside (fed since it was last known to
    /// be between sequences), so a keyframe can end with them and what follows completes it.
    pending: Vec<u8>,
    /// The sequence outgrew [`MAX_PENDING`]: a keyframe now could not carry it.
    pending_overflow: bool,
}

/// The longest unfinished escape sequence a keyframe carries (a longer one is a string —
/// a title, a DCS payload — and keyframes wait until it ends).
const MAX_PENDING: usize = 4096;

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal")
            .field("screen", &self.screen)
            .finish_non_exhaustive()
    }
}

impl Terminal {
    /// A blank terminal of `width × height` cells (each at least 1) with default options.
    pub fn new(width: usize, height: usize) -> Terminal {
        Terminal::with_options(width, height, TerminalOptions::default())
    }

    /// A blank terminal with explicit options.
    pub fn with_options(width: usize, height: usize, options: TerminalOptions) -> Terminal {
        Terminal {
            parser: vte::Parser::new(),
            screen: Screen::new(width, height, options),
            silent_bytes: 0,
            block_fill: 0,
            block_active: false,
            skipping_osc: false,
            ground: true,
            held: [0; 4],
            held_len: 0,
            pending: Vec::new(),
            pending_overflow: false,
        }
    }

    /// Feeds program output. Sequences may be split across calls at any byte.
    pub fn advance(&mut self, mut bytes: &[u8]) {
        if self.held_len > 0 {
            bytes = &bytes[self.finish_held(bytes)..];
        }
        while !bytes.is_empty() {
            if self.skipping_osc {
                match bytes.iter().position(|&b| b == 0x07 || b == ESC) {
                    Some(i) => {
                        self.skipping_osc = false;
                        // BEL ends the string; ESC may start ST (`ESC \`), which the parser
                        // then consumes as an ordinary escape.
                        bytes = if bytes[i] == 0x07 {
                            &bytes[i + 1..]
                        } else {
                            &bytes[i..]
                        };
                        continue;
                    }
                    None => return,
                }
            }
            let mut n = bytes.len().min(BLOCK - self.block_fill);
            // No parser call may end inside a UTF-8 sequence: vte 0.15 finishes a sequence
            // split across calls but then skips the byte after it (alacritty/vte#159). So a
            // sequence cut by the block boundary is finished in this call, and one cut by the
            // end of the input is held back until the next.
            let (unfinished, missing) = unfinished_utf8(&bytes[..n]);
            if unfinished > 0 {
                let more = continuations(&bytes[n..], missing);
                if more == missing || n + more < bytes.len() {
                    n += more;
                } else {
                    n -= unfinished;
                    if n == 0 {
                        self.hold(bytes);
                        return;
                    }
                }
            }
            self.feed(&bytes[..n]);
            bytes = &bytes[n..];
        }
    }

    /// Feeds the parser, and does the silence bookkeeping for it.
    ///
    /// While the parser is known to be in its ground state (after a CSI or ESC dispatch,
    /// which is where ordinary output resumes), everything up to the next ESC is text and
    /// controls: runs of printable ASCII go to the screen in one call each instead of one
    /// call per character, the rest is decoded here as the parser decodes it in its ground
    /// state ([`ground::feed_text`]). A whole, plain control sequence at that ESC is read and
    /// dispatched here too ([`parser::Csi::read`], exactly as vte reads it), and the ground
    /// state goes on after it; anything else at an ESC is the parser's.
    fn feed(&mut self, bytes: &[u8]) {
        let mut dispatcher = Dispatcher::new(&mut self.screen);
        let mut csi = parser::Csi::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            if self.ground {
                let done = ground::feed_text(&mut dispatcher, rest);
                rest = &rest[done..];
                if rest.is_empty() {
                    break;
                }
                // A whole, plain control sequence needs no byte-by-byte state machine.
                if let Some(len) = csi.read(rest) {
                    dispatcher.csi(&csi);
                    rest = &rest[len..];
                    continue;
                }
                self.ground = false;
            }
            dispatcher.ground = false;
            let done = self.parser.advance_until_terminated(&mut dispatcher, rest);
            self.ground = dispatcher.ground;
            if self.ground {
                self.pending.clear();
                self.pending_overflow = false;
            } else if !self.pending_overflow {
                // Stopped without ending the sequence: all of it was taken, and is kept.
                if self.pending.len() + done > MAX_PENDING {
                    self.pending = Vec::new();
                    self.pending_overflow = true;
                } else {
                    self.pending.extend_from_slice(&rest[..done]);
                }
            }
            rest = &rest[done..];
        }
        let active = dispatcher.active;
        self.count_fed(bytes.len(), active);
    }

    /// Counts `len` bytes fed into the current block (`active`: they did something).
    fn count_fed(&mut self, len: usize, active: bool) {
        self.block_active |= active;
        self.block_fill += len;
        if self.block_fill >= BLOCK {
            self.block_fill -= BLOCK;
            self.end_block();
        }
    }

    /// Keeps the start of an unfinished UTF-8 sequence (at most 3 bytes) for the next call.
    fn hold(&mut self, bytes: &[u8]) {
        let start = self.held_len;
        self.held[start..start + bytes.len()].copy_from_slice(bytes);
        self.held_len += bytes.len();
    }

    /// Finishes the held UTF-8 sequence with the continuation bytes at the start of `bytes`
    /// (or with whatever breaks it); returns how many bytes of `bytes` that took.
    fn finish_held(&mut self, bytes: &[u8]) -> usize {
        let held = self.held_len;
        self.held_len = 0;
        if self.skipping_osc {
            // The held bytes come after the point where the string was cut: skipped too.
            return 0;
        }
        let (_, missing) = unfinished_utf8(&self.held[..held]);
        let more = continuations(bytes, missing);
        if more < missing && more == bytes.len() {
            self.held_len = held;
            self.hold(bytes);
            return bytes.len();
        }
        let mut piece = self.held;
        piece[held..held + more].copy_from_slice(&bytes[..more]);
        self.feed(&piece[..held + more]);
        more
    }

    /// Counts a finished block as silent or not, and cuts off the string being collected
    /// after [`MAX_SILENT_BYTES`] of silence.
    fn end_block(&mut self) {
        self.block_fill = 0;
        if std::mem::take(&mut self.block_active) {
            self.silent_bytes = 0;
            return;
        }
        self.silent_bytes += BLOCK;
        if self.silent_bytes >= MAX_SILENT_BYTES {
            self.silent_bytes = 0;
            self.cut_unterminated_string();
        }
    }

    /// Terminates whatever string the parser is collecting with a BEL. If that ended an OSC,
    /// its (truncated) content is dropped and the rest of it is skipped.
    fn cut_unterminated_string(&mut self) {
        let mut dispatcher = Dispatcher::new(&mut self.screen);
        dispatcher.injecting = true;
        self.parser.advance(&mut dispatcher, b"\x07");
        self.skipping_osc = dispatcher.osc_truncated;
        // The string the program still sends cannot be carried by a keyframe.
        self.pending = Vec::new();
        self.pending_overflow = true;
    }

    /// Resizes the screen (see [`Screen::resize`]).
    pub fn resize(&mut self, width: usize, height: usize) {
        self.screen.resize(width, height);
    }

    /// The emulator state.
    pub fn screen(&self) -> &Screen {
        &self.screen
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.screen.width()
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.screen.height()
    }

    /// Takes the replies the terminal generated for the program (DA, CPR, DECRPM, colour
    /// reports …) since the last call. The PTY layer writes them back to the child.
    pub fn take_replies(&mut self) -> Vec<u8> {
        self.screen.take_replies()
    }

    /// Takes the commands a shell reported starting and finishing (OSC 133, see [`shell`])
    /// since the last call.
    ///
    /// ```
    /// use shotty::term::Terminal;
    /// use shotty::term::shell::ShellEvent;
    ///
    /// let mut t = Terminal::new(40, 5);
    /// t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07false\r\n\x1b]133;C\x07");
    /// assert_eq!(t.prompt_ready(), Some(false));
    /// t.advance(b"\x1b]133;D;1\x07\x1b]133;A\x07$ \x1b]133;B\x07");
    /// let events = t.take_shell_events();
    /// let ShellEvent::Finished(command) = &events[1] else { panic!() };
    /// assert_eq!((command.text.as_str(), command.exit_code), ("false", Some(1)));
    /// assert_eq!(t.prompt_ready(), Some(true));
    /// ```
    pub fn take_shell_events(&mut self) -> Vec<shell::ShellEvent> {
        self.screen.take_shell_events()
    }

    /// Whether a shell shows its prompt (see [`Screen::prompt_ready`]).
    pub fn prompt_ready(&self) -> Option<bool> {
        self.screen.prompt_ready()
    }

    /// The visible screen as text: one line per row, trailing spaces removed, spacers skipped.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, row) in self.screen.grid().rows().iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            row.write_text(&mut out);
        }
        out
    }

    /// The text of the cursor's row, trailing spaces removed, spacers skipped.
    pub fn cursor_row_text(&self) -> String {
        let mut out = String::new();
        let row = self.screen.cursor().row;
        if let Some(row) = self.screen.grid().rows().get(row) {
            row.write_text(&mut out);
        }
        out
    }

    /// Whether `needle` is on the screen. Blanks on screen are spaces (so a prompt such as
    /// `">>> "` is found), and a line break in `needle` is the end of a row: its first line
    /// ends a row (blanks after it aside), the lines between are whole rows, the last one
    /// starts a row.
    pub fn contains_text(&self, needle: &str) -> bool {
        let rows: Vec<String> = self
            .screen
            .grid()
            .rows()
            .iter()
            .map(|row| {
                let mut text = String::new();
                row.write_full_text(&mut text);
                text
            })
            .collect();
        let lines: Vec<&str> = needle.split('\n').collect();
        let [first, middle @ .., last] = lines.as_slice() else {
            return rows.iter().any(|row| row.contains(needle));
        };
        let ends_row = |row: &str, line: &str| {
            let (row_content, line_content) =
                (row.trim_end_matches(' '), line.trim_end_matches(' '));
            // `row_content` ends with `line_content`, so the offset is on a character boundary.
            row_content.ends_with(line_content)
                && row[row_content.len() - line_content.len()..].starts_with(line)
        };
        rows.windows(lines.len()).any(|window| {
            ends_row(&window[0], first)
                && middle.iter().zip(&window[1..]).all(|(line, row)| {
                    row.trim_end_matches(' ') == line.trim_end_matches(' ') && row.starts_with(line)
                })
                && window[window.len() - 1].starts_with(last)
        })
    }

    /// Whether a keyframe taken now ([`Terminal::keyframe`]) would be whole: the output
    /// is between sequences, or inside one short enough for the keyframe to end with (a
    /// recording's next bytes then complete it, as they did live) — not inside a long string
    /// (a title, a DCS payload) or one being skipped for its length.
    pub fn keyframe_ready(&self) -> bool {
        !self.pending_overflow && !self.skipping_osc
    }

    /// Bytes that recreate this terminal's screen and the state later output relies on
    /// (modes, margins, pen, open link, cursor style, charsets, tab stops, the saved cursor, a
    /// cursor waiting to wrap) on a fresh terminal of the same size: the redrawn
    /// [`Snapshot`] ([`Snapshot::redraw_bytes`]) followed by that state. What a recording
    /// starts with once its oldest part is dropped.
    ///
    /// ```
    /// use shotty::term::Terminal;
    ///
    /// let mut t = Terminal::new(20, 5);
    /// t.advance(b"top\x1b[2;4r\x1b[?1h\x1b[4;1Hin the region\x1b[1;31m");
    /// let mut fresh = Terminal::new(20, 5);
    /// fresh.advance(&t.keyframe());
    /// // Later output scrolls the same region in both, in the same colour.
    /// for term in [&mut t, &mut fresh] {
    ///     term.advance(b"\nmore\nand more");
    /// }
    /// assert_eq!(fresh.snapshot(), t.snapshot());
    /// assert_eq!(fresh.screen().modes(), t.screen().modes());
    /// ```
    ///
    /// Taken while the output is inside an escape sequence or a UTF-8 character, the bytes
    /// end with what has come of it, so the output that follows completes it.
    pub fn keyframe(&self) -> Vec<u8> {
        let mut bytes = self.snapshot().redraw_bytes();
        bytes.extend_from_slice(&self.screen.state_bytes());
        bytes.extend_from_slice(&self.pending);
        bytes.extend_from_slice(&self.held[..self.held_len]);
        bytes
    }

    /// The structured snapshot (schema version 1) of the visible screen.
    pub fn snapshot(&self) -> Snapshot {
        snapshot::build(&self.screen)
    }

    /// The primary screen's lines, scrollback first, with global indices: the first line
    /// the terminal ever had is 0, and lines the scrollback ring dropped are simply gone (the
    /// first index returned is `screen().scrollback().dropped()`).
    pub fn history(&self) -> impl Iterator<Item = (u64, &Row)> {
        let first = self.screen.scrollback().dropped();
        self.screen
            .scrollback()
            .rows()
            .iter()
            .chain(self.screen.primary_grid().rows().iter())
            .enumerate()
            .map(move |(i, row)| (first + i as u64, row))
    }

    /// The global index of the last line of [`history`](Self::history) with any text (`None`
    /// while there is none), looked for from the end: the blank rows below the output are
    /// all it reads of an ordinary screen, however long the scrollback.
    ///
    /// ```
    /// use shotty::term::Terminal;
    ///
    /// let mut term = Terminal::new(20, 3);
    /// assert_eq!(term.last_written_line(), None);
    /// // Five lines on a screen of three: lines 0 and 1 scrolled into the scrollback.
    /// term.advance(b"one\r\ntwo\r\n\r\nfour\r\n");
    /// assert_eq!(term.last_written_line(), Some(3));
    /// ```
    pub fn last_written_line(&self) -> Option<u64> {
        let scrollback = self.screen.scrollback().rows();
        let screen = self.screen.primary_grid().rows();
        let mut text = String::new();
        let mut has_text = |row: &Row| {
            text.clear();
            row.write_text(&mut text);
            !text.is_empty()
        };
        let position = match screen.iter().rposition(&mut has_text) {
            Some(i) => scrollback.len() + i,
            None => scrollback.iter().rposition(has_text)?,
        };
        Some(self.screen.scrollback().dropped() + position as u64)
    }

    /// The [`history`](Self::history) number of the screen's first row.
    pub fn screen_top(&self) -> u64 {
        let scrollback = self.screen.scrollback();
        scrollback.dropped() + scrollback.rows().len() as u64
    }

    /// The screen as a viewer scrolled back sees it: as many rows as the screen has, from
    /// line `top` of the [`history`](Self::history) on (the oldest line held if `top` is
    /// older; the screen itself for `None`, from [`screen_top`](Self::screen_top) on, or on
    /// the alternate screen, which has no scrollback). The cursor shows if its row is in view.
    pub fn view_snapshot(&self, top: Option<u64>) -> Snapshot {
        let Some(top) = top.filter(|&top| top < self.screen_top()) else {
            return self.snapshot();
        };
        if self.screen.is_alternate_screen() {
            return self.snapshot();
        }
        let first = top.saturating_sub(self.screen.scrollback().dropped()) as usize;
        snapshot::build_view(&self.screen, first)
    }

    /// Everything the primary screen holds — scrollback and screen — as one snapshot as tall
    /// as its content (blank lines at the end dropped; at most `max_lines`, the newest). This
    /// is what a finished command printed, for screenshots fitted to the output.
    pub fn history_snapshot(&self, max_lines: usize) -> Snapshot {
        snapshot::build_history(&self.screen, max_lines)
    }
}

/// The unfinished UTF-8 sequence `bytes` ends with, if any: how many of its bytes are there
/// and how many more it needs.
fn unfinished_utf8(bytes: &[u8]) -> (usize, usize) {
    for back in 1..=bytes.len().min(3) {
        let byte = bytes[bytes.len() - back];
        if byte & 0xc0 == 0x80 {
            continue;
        }
        let len = match byte {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => return (0, 0),
        };
        return if back < len {
            (back, len - back)
        } else {
            (0, 0)
        };
    }
    (0, 0)
}

/// How many of the first `max` bytes are UTF-8 continuation bytes, counted from the start.
fn continuations(bytes: &[u8], max: usize) -> usize {
    bytes
        .iter()
        .take(max)
        .take_while(|&&b| b & 0xc0 == 0x80)
        .count()
}
