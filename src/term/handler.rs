//! The semantic operations the parser glue (`parser.rs`) decodes from escape sequences.
//!
//! `parser.rs` turns vte's raw callbacks into calls on this trait; `Screen` implements it.
//! Keeping the two apart means the dispatch table reads like the ctlseqs document and the
//! state machine never sees raw parameters.

use super::charset::{Charset, CharsetSlot};
use super::grid::{LineSize, PromptMark};
use super::keys::kitty::FlagsUpdate;
use super::modes::Mode;
use super::style::{Color, Underline};

/// ED / EL extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Erase {
    /// From the cursor to the end (`0`).
    ToEnd,
    /// From the start to the cursor, inclusive (`1`).
    ToStart,
    /// Everything (`2`).
    All,
    /// The scrollback (`ED 3`).
    Scrollback,
}

/// Which erases spare protected characters, as the last DECSCA or SPA chose (xterm's
/// `protected_mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protection {
    /// Nothing has been protected: every erase erases everything.
    #[default]
    Off,
    /// DECSCA: DECSED, DECSEL and ECH spare protected characters; ED and EL do not.
    Dec,
    /// SPA/EPA (an ISO 6429 guarded area): every erase spares them.
    Iso,
}

/// A device control string the emulator answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DcsRequest {
    /// DECRQSS (`DCS $ q Pt ST`): the setting Pt names (`m`, `r`, ` q` …).
    Setting,
    /// XTGETTCAP (`DCS + q Pt ST`): the terminfo capabilities Pt names, hex-encoded.
    Capability,
}

/// TBC extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TabClear {
    /// The stop at the cursor column (`0`).
    Current,
    /// Every stop (`3`).
    All,
}

/// Cursor shapes of DECSCUSR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CursorShape {
    /// A filled block.
    #[default]
    Block,
    /// A line under the cell.
    Underline,
    /// A vertical bar at the left of the cell.
    Bar,
}

impl CursorShape {
    /// The name used in snapshots.
    pub fn name(self) -> &'static str {
        match self {
            CursorShape::Block => "block",
            CursorShape::Underline => "underline",
            CursorShape::Bar => "bar",
        }
    }

    /// Parses a snapshot name.
    pub fn from_name(name: &str) -> Option<CursorShape> {
        [CursorShape::Block, CursorShape::Underline, CursorShape::Bar]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// One SGR attribute change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sgr {
    /// `0`.
    Reset,
    /// `1`.
    Bold,
    /// `2`.
    Dim,
    /// `22`.
    NormalIntensity,
    /// `3` / `23`.
    Italic(bool),
    /// `4`, `4:N`, `21`, `24`.
    Underline(Underline),
    /// `5`, `6` / `25`.
    Blink(bool),
    /// `7` / `27`.
    Inverse(bool),
    /// `8` / `28`.
    Hidden(bool),
    /// `9` / `29`.
    Strike(bool),
    /// `53` / `55`.
    Overline(bool),
    /// `30–37`, `38;…`, `39`, `90–97`.
    Foreground(Color),
    /// `40–47`, `48;…`, `49`, `100–107`.
    Background(Color),
    /// `58;…` / `59`.
    UnderlineColor(Color),
}

/// The colours OSC 10/11/12 address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynamicColor {
    /// OSC 10.
    Foreground,
    /// OSC 11.
    Background,
    /// OSC 12.
    Cursor,
}

/// How an OSC string was terminated, so replies can use the same terminator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OscTerminator {
    /// BEL.
    Bel,
    /// ST (`ESC \`).
    St,
}

/// Device status / attribute requests that need a reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// DA1 (`CSI c`).
    PrimaryAttributes,
    /// DA2 (`CSI > c`).
    SecondaryAttributes,
    /// DSR 5 (`CSI 5 n`).
    Status,
    /// DSR 6 (`CSI 6 n`): cursor position.
    CursorPosition,
    /// DECXCPR (`CSI ? 6 n`).
    ExtendedCursorPosition,
    /// XTVERSION (`CSI > q`).
    Version,
    /// XTWINOPS 18: text area size in characters.
    TextAreaSize,
    /// The kitty keyboard protocol's flags (`CSI ? u`), answered `CSI ? flags u`.
    KeyboardFlags,
}

/// The terminal operations a byte stream can request.
pub trait Handler {
    /// Prints a character at the cursor.
    fn print(&mut self, c: char);
    /// Prints a run of printable ASCII (`0x20..=0x7e`) at the cursor, as `print` of each byte
    /// in turn would; the emulator's bulk path for the common case.
    fn print_ascii(&mut self, text: &[u8]) {
        for &byte in text {
            self.print(char::from(byte));
        }
    }
    /// BEL.
    fn bell(&mut self);
    /// BS.
    fn backspace(&mut self);
    /// HT / CHT: to the `n`th next tab stop.
    fn tab_forward(&mut self, n: u16);
    /// CBT: to the `n`th previous tab stop.
    fn tab_backward(&mut self, n: u16);
    /// LF, VT, FF.
    fn linefeed(&mut self);
    /// CR.
    fn carriage_return(&mut self);
    /// IND: down one line, scrolling at the bottom margin.
    fn index(&mut self);
    /// NEL: IND plus CR.
    fn next_line(&mut self);
    /// RI: up one line, scrolling down at the top margin.
    fn reverse_index(&mut self);
    /// HTS.
    fn set_tab_stop(&mut self);
    /// TBC.
    fn clear_tab_stops(&mut self, which: TabClear);
    /// DECSC / SCOSC.
    fn save_cursor(&mut self);
    /// `CSI Pl ; Pr s`: DECSLRM (left and right margins, 1-based, 0 for the default) while
    /// DECLRMM is set, SCOSC (save the cursor) otherwise.
    fn save_cursor_or_set_margins(&mut self, left: u16, right: u16);
    /// DECRC / SCORC.
    fn restore_cursor(&mut self);
    /// RIS.
    fn full_reset(&mut self);
    /// DECSTR.
    fn soft_reset(&mut self);
    /// DECALN.
    fn screen_alignment_test(&mut self);
    /// DECSWL, DECDWL, DECDHL: the cursor's row becomes `size`.
    fn set_line_size(&mut self, size: LineSize);
    /// `ESC ( F` and friends.
    fn designate_charset(&mut self, slot: CharsetSlot, charset: Charset);
    /// SO / SI / LS2 / LS3.
    fn invoke_charset(&mut self, slot: CharsetSlot);
    /// SS2 / SS3.
    fn single_shift(&mut self, slot: CharsetSlot);
    /// CUU.
    fn move_up(&mut self, n: u16);
    /// CUD.
    fn move_down(&mut self, n: u16);
    /// CUF / HPR.
    fn move_forward(&mut self, n: u16);
    /// CUB.
    fn move_backward(&mut self, n: u16);
    /// CNL.
    fn move_down_to_start(&mut self, n: u16);
    /// CPL.
    fn move_up_to_start(&mut self, n: u16);
    /// CHA / HPA (0-based column).
    fn goto_col(&mut self, col: u16);
    /// VPA (0-based row, origin-relative).
    fn goto_row(&mut self, row: u16);
    /// VPR.
    fn move_down_keep_col(&mut self, n: u16);
    /// CUP / HVP (0-based, origin-relative).
    fn goto(&mut self, row: u16, col: u16);
    /// ED.
    fn erase_display(&mut self, which: Erase);
    /// EL.
    fn erase_line(&mut self, which: Erase);
    /// DECSED (`CSI ? Ps J`): ED sparing protected characters.
    fn selective_erase_display(&mut self, which: Erase);
    /// DECSEL (`CSI ? Ps K`): EL sparing protected characters.
    fn selective_erase_line(&mut self, which: Erase);
    /// A DCS string begins: one the emulator answers (`Some`, its bytes follow through
    /// [`dcs_put`](Self::dcs_put)) or one it ignores.
    fn dcs_start(&mut self, request: Option<DcsRequest>);
    /// One byte of the DCS string's data.
    fn dcs_put(&mut self, byte: u8);
    /// The DCS string ended.
    fn dcs_end(&mut self);
    /// DECSCA (`kind` [`Protection::Dec`]) and SPA/EPA ([`Protection::Iso`]): characters
    /// printed from now on are protected (`on`) or not.
    fn set_protection(&mut self, kind: Protection, on: bool);
    /// ICH.
    fn insert_blank(&mut self, n: u16);
    /// DCH.
    fn delete_chars(&mut self, n: u16);
    /// ECH.
    fn erase_chars(&mut self, n: u16);
    /// IL.
    fn insert_lines(&mut self, n: u16);
    /// DL.
    fn delete_lines(&mut self, n: u16);
    /// SU.
    fn scroll_up(&mut self, n: u16);
    /// SD.
    fn scroll_down(&mut self, n: u16);
    /// REP.
    fn repeat_last(&mut self, n: u16);
    /// A control character or a sequence other than REP came: as in xterm, REP repeats
    /// nothing until a character is printed again.
    fn forget_repeatable(&mut self);
    /// DECSTBM (1-based; `None` means the default margin).
    fn set_scroll_region(&mut self, top: Option<u16>, bottom: Option<u16>);
    /// SM / RM / DECSET / DECRST.
    fn set_mode(&mut self, mode: Mode, on: bool);
    /// DECRQM: `private` selects the DEC reply form; `mode` is the raw number.
    fn report_mode(&mut self, number: u16, private: bool);
    /// DECKPAM / DECKPNM.
    fn set_keypad_application(&mut self, on: bool);
    /// kitty keyboard protocol `CSI > flags u`: push the current flags onto the shown
    /// screen's stack and use `flags`.
    fn push_keyboard_flags(&mut self, flags: u8);
    /// kitty keyboard protocol `CSI < count u`: pop `count` entries (at least 1) of the shown
    /// screen's stack; popping past its bottom resets the flags to 0.
    fn pop_keyboard_flags(&mut self, count: u16);
    /// kitty keyboard protocol `CSI = flags ; mode u`: change the shown screen's flags.
    fn update_keyboard_flags(&mut self, flags: u8, how: FlagsUpdate);
    /// DECSCUSR (`None` for the default shape).
    fn set_cursor_style(&mut self, shape: Option<CursorShape>, blink: bool);
    /// One SGR attribute.
    fn sgr(&mut self, attr: Sgr);
    /// OSC 0 / 2.
    fn set_title(&mut self, title: &str);
    /// XTWINOPS 22: push the title.
    fn push_title(&mut self);
    /// XTWINOPS 23: pop the title.
    fn pop_title(&mut self);
    /// OSC 4 set.
    fn set_palette_color(&mut self, index: u8, rgb: (u8, u8, u8));
    /// OSC 4 query.
    fn query_palette_color(&mut self, index: u8, terminator: OscTerminator);
    /// OSC 104 (`None` resets every entry).
    fn reset_palette_color(&mut self, index: Option<u8>);
    /// OSC 10/11/12 set.
    fn set_dynamic_color(&mut self, which: DynamicColor, rgb: (u8, u8, u8));
    /// OSC 10/11/12 query.
    fn query_dynamic_color(&mut self, which: DynamicColor, terminator: OscTerminator);
    /// OSC 110/111/112.
    fn reset_dynamic_color(&mut self, which: DynamicColor);
    /// OSC 8: start (`Some`) or end (`None`) a hyperlink.
    fn set_hyperlink(&mut self, link: Option<(Option<&str>, &str)>);
    /// OSC 133; `exit_code` is `D`'s status.
    fn prompt_mark(&mut self, mark: PromptMark, exit_code: Option<i32>);
    /// A request that needs a reply.
    fn report(&mut self, report: Report);
}
