//! Glue between `vte`'s state machine and the [`Handler`] trait: decodes parameters, applies
//! defaults and maps every control sequence onto a named operation.

use vte::{Params, Perform};

use super::charset::{Charset, CharsetSlot};
use super::grid::{LineSize, PromptMark};
use super::handler::{
    CursorShape, DcsRequest, DynamicColor, Erase, Handler, OscTerminator, Protection, Report, Sgr,
    TabClear,
};
use super::keys::kitty::FlagsUpdate;
use super::modes::Mode;
use super::style::{Color, Underline};

/// Adapts a [`Handler`] to `vte::Perform`.
pub(crate) struct Dispatcher<'a, H: Handler> {
    pub handler: &'a mut H,
    /// Set by every callback; lets the caller notice a long silent stretch (an unterminated
    /// string sequence the parser is buffering).
    pub active: bool,
    /// The BEL being fed is the caller's synthetic terminator, not program output.
    pub injecting: bool,
    /// An OSC was cut short by the synthetic terminator.
    pub osc_truncated: bool,
    /// The last byte fed ended an escape or control sequence, so the parser is in its ground
    /// state: with `Parser::advance_until_terminated`, the caller knows where that is.
    pub ground: bool,
}

impl<'a, H: Handler> Dispatcher<'a, H> {
    pub fn new(handler: &'a mut H) -> Self {
        Dispatcher {
            handler,
            active: false,
            injecting: false,
            osc_truncated: false,
            ground: false,
        }
    }

    /// Dispatches a control sequence the caller read in the ground state ([`Csi::read`]).
    #[inline]
    pub fn csi(&mut self, csi: &Csi) {
        self.active = true;
        dispatch_csi(self.handler, &csi.params, csi.intermediates(), csi.action);
    }

    /// Prints a run of printable ASCII the caller found in the ground state.
    #[inline]
    pub fn print_ascii(&mut self, text: &[u8]) {
        self.active = true;
        self.handler.print_ascii(text);
    }
}

/// A control sequence's parameters, each a group of values (`38:2:1:2:3` is one group of
/// five, `38;2` two groups of one): vte's [`Params`], or those [`Csi::read`] reads.
pub(crate) trait ParamGroups {
    /// The groups in order.
    fn groups(&self) -> impl Iterator<Item = &[u16]>;
    /// How many values there are, sub-parameters included (vte's `Params::len`).
    fn values(&self) -> usize;
}

impl ParamGroups for Params {
    #[inline]
    fn groups(&self) -> impl Iterator<Item = &[u16]> {
        self.iter()
    }

    #[inline]
    fn values(&self) -> usize {
        self.len()
    }
}

/// The `i`th parameter (its first value), or `default` when absent or zero.
#[inline]
fn param(params: &impl ParamGroups, i: usize, default: u16) -> u16 {
    match params.groups().nth(i).and_then(|p| p.first().copied()) {
        Some(0) | None => default,
        Some(v) => v,
    }
}

/// The `i`th parameter with no default substitution (0 when absent).
#[inline]
fn raw_param(params: &impl ParamGroups, i: usize) -> u16 {
    params
        .groups()
        .nth(i)
        .and_then(|p| p.first().copied())
        .unwrap_or(0)
}

/// As many values as vte keeps for one sequence; a longer one is left to vte.
const MAX_VALUES: usize = 32;

/// The parameters of a control sequence [`Csi::read`] read.
pub(crate) struct CsiParams {
    values: [u16; MAX_VALUES],
    /// Where each group ends in `values`.
    ends: [u8; MAX_VALUES],
    groups: usize,
    len: usize,
}

impl ParamGroups for CsiParams {
    #[inline]
    fn groups(&self) -> impl Iterator<Item = &[u16]> {
        let mut start = 0;
        self.ends[..self.groups].iter().map(move |&end| {
            let group = &self.values[start..end as usize];
            start = end as usize;
            group
        })
    }

    #[inline]
    fn values(&self) -> usize {
        self.len
    }
}

/// A control sequence read by [`Csi::read`].
pub(crate) struct Csi {
    pub params: CsiParams,
    intermediates: [u8; 2],
    intermediate_count: usize,
    pub action: char,
}

impl Csi {
    /// An empty sequence, to read sequences into ([`Csi::read`]).
    pub fn new() -> Csi {
        Csi {
            params: CsiParams {
                values: [0; MAX_VALUES],
                ends: [0; MAX_VALUES],
                groups: 0,
                len: 0,
            },
            intermediates: [0; 2],
            intermediate_count: 0,
            action: '\0',
        }
    }

    pub fn intermediates(&self) -> &[u8] {
        &self.intermediates[..self.intermediate_count]
    }

    /// Reads the control sequence `bytes` starts with (`ESC [`) into `self`, and says how long
    /// it is, when it is whole and plain: an optional private marker (`<=>?`), parameters
    /// (digits, `;`, `:`), at most two intermediates in all, a final byte — exactly as vte
    /// would read it, so a ground-state caller can dispatch it without feeding vte byte by
    /// byte. Anything else (a control or DEL inside, a sequence vte ignores, more than 32
    /// values, one cut off by the end of `bytes`) is `None`, and vte's to read; `self` then
    /// holds nothing meaningful.
    ///
    /// One `Csi` serves every sequence of a read: it is written in place, neither cleared nor
    /// moved (only the values and groups a sequence has are ever read back).
    #[inline]
    pub fn read(&mut self, bytes: &[u8]) -> Option<usize> {
        if bytes.get(..2)? != b"\x1b[" {
            return None;
        }
        let (mut len, mut groups) = (0, 0);
        let mut intermediate_count = 0;
        let mut i = 2;
        if let Some(&marker @ 0x3c..=0x3f) = bytes.get(i) {
            self.intermediates[0] = marker;
            intermediate_count = 1;
            i += 1;
        }
        let params = &mut self.params;
        // Adds a value, and ends its group when `ends_group` (as vte's `Params::push` does for
        // `;` and the final byte; `extend`, for `:`, does not); `None` when full. The counts are
        // locals rather than fields, so they stay in registers while a sequence is read.
        let mut add = |value: u16, ends_group: bool| -> Option<()> {
            *params.values.get_mut(len)? = value;
            len += 1;
            if ends_group {
                // Never more groups than values.
                *params.ends.get_mut(groups)? = len as u8;
                groups += 1;
            }
            Some(())
        };
        // Parameters, then intermediates, then the final byte. Digits come first: they are
        // most of a sequence's bytes. A value is kept in a `u32` and capped at `u16::MAX`
        // after each digit, which is what vte's saturating `u16` arithmetic gives.
        let mut value: u32 = 0;
        let final_byte = loop {
            let b = *bytes.get(i)?;
            i += 1;
            let digit = b.wrapping_sub(b'0');
            if digit < 10 {
                value = (value * 10 + u32::from(digit)).min(u32::from(u16::MAX));
                continue;
            }
            match b {
                b';' | b':' => {
                    add(value as u16, b == b';')?;
                    value = 0;
                }
                0x40..=0x7e => break b,
                0x20..=0x2f => {
                    // Intermediates: only more of them (two in all, a private marker
                    // counted) or the final byte may follow.
                    let mut b = b;
                    loop {
                        if intermediate_count == 2 {
                            return None;
                        }
                        self.intermediates[intermediate_count] = b;
                        intermediate_count += 1;
                        b = *bytes.get(i)?;
                        i += 1;
                        match b {
                            0x20..=0x2f => {}
                            0x40..=0x7e => break,
                            _ => return None,
                        }
                    }
                    break b;
                }
                _ => return None,
            }
        };
        add(value as u16, true)?;
        self.params.len = len;
        self.params.groups = groups;
        self.intermediate_count = intermediate_count;
        self.action = char::from(final_byte);
        Some(i)
    }
}

impl<H: Handler> Perform for Dispatcher<'_, H> {
    #[inline(always)]
    fn print(&mut self, c: char) {
        self.active = true;
        self.handler.print(c);
    }

    /// Ends the run of bytes a ground-state caller feeds the parser after a dispatch.
    #[inline(always)]
    fn terminated(&self) -> bool {
        self.ground
    }

    fn execute(&mut self, byte: u8) {
        self.active = true;
        self.handler.forget_repeatable();
        match byte {
            0x07 if self.injecting => {}
            0x07 => self.handler.bell(),
            0x08 => self.handler.backspace(),
            0x09 => self.handler.tab_forward(1),
            0x0A..=0x0C => self.handler.linefeed(),
            0x0D => self.handler.carriage_return(),
            0x0E => self.handler.invoke_charset(CharsetSlot::G1),
            0x0F => self.handler.invoke_charset(CharsetSlot::G0),
            // C1 controls arriving as UTF-8 code points do nothing in xterm (a lone byte
            // 0x80–0x9F never gets here: it is invalid UTF-8, printed as U+FFFD).
            _ => {}
        }
    }

    fn hook(&mut self, _params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        // vte passes a DCS string's bytes through `put` without buffering; the handler keeps
        // (a bounded amount of) those of the requests it answers and ignores the rest (sixel).
        self.active = true;
        self.handler.forget_repeatable();
        let request = match (intermediates, action) {
            (b"$", 'q') if !ignore => Some(DcsRequest::Setting),
            (b"+", 'q') if !ignore => Some(DcsRequest::Capability),
            _ => None,
        };
        self.handler.dcs_start(request);
    }

    fn put(&mut self, byte: u8) {
        self.active = true;
        self.handler.dcs_put(byte);
    }

    fn unhook(&mut self) {
        self.active = true;
        self.handler.dcs_end();
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], bell_terminated: bool) {
        self.active = true;
        if self.injecting {
            self.osc_truncated = true;
            return;
        }
        self.handler.forget_repeatable();
        // Ended by BEL, the parser is back in its ground state; by ST, its `\` is still to
        // come (an escape dispatch).
        self.ground = bell_terminated;
        let terminator = if bell_terminated {
            OscTerminator::Bel
        } else {
            OscTerminator::St
        };
        dispatch_osc(self.handler, params, terminator);
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        self.active = true;
        self.ground = true;
        if ignore {
            self.handler.forget_repeatable();
            return;
        }
        dispatch_csi(self.handler, params, intermediates, action);
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
        self.active = true;
        self.ground = true;
        self.handler.forget_repeatable();
        if ignore {
            return;
        }
        let h = &mut *self.handler;
        match (intermediates, byte) {
            ([], b'D') => h.index(),
            ([], b'E') => h.next_line(),
            ([], b'H') => h.set_tab_stop(),
            ([], b'M') => h.reverse_index(),
            ([], b'N') => h.single_shift(CharsetSlot::G2),
            ([], b'O') => h.single_shift(CharsetSlot::G3),
            ([], b'7') => h.save_cursor(),
            ([], b'8') => h.restore_cursor(),
            ([], b'c') => h.full_reset(),
            ([], b'V') => h.set_protection(Protection::Iso, true),
            ([], b'W') => h.set_protection(Protection::Iso, false),
            ([], b'=') => h.set_keypad_application(true),
            ([], b'>') => h.set_keypad_application(false),
            ([], b'n') => h.invoke_charset(CharsetSlot::G2),
            ([], b'o') => h.invoke_charset(CharsetSlot::G3),
            ([b'#'], b'8') => h.screen_alignment_test(),
            ([b'#'], b'3') => h.set_line_size(LineSize::DoubleHeightTop),
            ([b'#'], b'4') => h.set_line_size(LineSize::DoubleHeightBottom),
            ([b'#'], b'5') => h.set_line_size(LineSize::Single),
            ([b'#'], b'6') => h.set_line_size(LineSize::DoubleWidth),
            ([b'('], f) => h.designate_charset(CharsetSlot::G0, Charset::from_designator(f)),
            ([b')'], f) => h.designate_charset(CharsetSlot::G1, Charset::from_designator(f)),
            ([b'*'], f) => h.designate_charset(CharsetSlot::G2, Charset::from_designator(f)),
            ([b'+'], f) => h.designate_charset(CharsetSlot::G3, Charset::from_designator(f)),
            _ => {}
        }
    }
}

fn dispatch_csi<H: Handler>(
    h: &mut H,
    params: &impl ParamGroups,
    intermediates: &[u8],
    action: char,
) {
    let p1 = |d| param(params, 0, d);
    if (intermediates, action) != ([].as_slice(), 'b') {
        h.forget_repeatable();
    }
    match (intermediates, action) {
        ([], '@') => h.insert_blank(p1(1)),
        ([], 'A') => h.move_up(p1(1)),
        ([], 'B') => h.move_down(p1(1)),
        ([], 'C') | ([], 'a') => h.move_forward(p1(1)),
        ([], 'D') => h.move_backward(p1(1)),
        ([], 'E') => h.move_down_to_start(p1(1)),
        ([], 'F') => h.move_up_to_start(p1(1)),
        ([], 'G') | ([], '`') => h.goto_col(p1(1) - 1),
        ([], 'H') | ([], 'f') => h.goto(p1(1) - 1, param(params, 1, 1) - 1),
        ([], 'I') => h.tab_forward(p1(1)),
        ([], 'J') => {
            if let Some(which) = erase_kind(raw_param(params, 0), true) {
                h.erase_display(which);
            }
        }
        ([], 'K') => {
            if let Some(which) = erase_kind(raw_param(params, 0), false) {
                h.erase_line(which);
            }
        }
        ([b'?'], 'J') => {
            if let Some(which) = erase_kind(raw_param(params, 0), true) {
                h.selective_erase_display(which);
            }
        }
        ([b'?'], 'K') => {
            if let Some(which) = erase_kind(raw_param(params, 0), false) {
                h.selective_erase_line(which);
            }
        }
        // DECSCA: 1 protects, 0 and 2 do not; other values change nothing.
        ([b'"'], 'q') => match raw_param(params, 0) {
            0 | 2 => h.set_protection(Protection::Dec, false),
            1 => h.set_protection(Protection::Dec, true),
            _ => {}
        },
        ([], 'L') => h.insert_lines(p1(1)),
        ([], 'M') => h.delete_lines(p1(1)),
        ([], 'P') => h.delete_chars(p1(1)),
        ([], 'S') => h.scroll_up(p1(1)),
        // `CSI Ps ; Ps ; Ps ; Ps ; Ps T` with several parameters is xterm's mouse tracking.
        ([], 'T') if params.values() <= 1 => h.scroll_down(p1(1)),
        ([], 'X') => h.erase_chars(p1(1)),
        ([], 'Z') => h.tab_backward(p1(1)),
        ([], 'b') => h.repeat_last(p1(1)),
        ([], 'c') if raw_param(params, 0) == 0 => h.report(Report::PrimaryAttributes),
        ([b'>'], 'c') if raw_param(params, 0) == 0 => h.report(Report::SecondaryAttributes),
        ([], 'd') => h.goto_row(p1(1) - 1),
        ([], 'e') => h.move_down_keep_col(p1(1)),
        ([], 'g') => match raw_param(params, 0) {
            0 => h.clear_tab_stops(TabClear::Current),
            3 => h.clear_tab_stops(TabClear::All),
            _ => {}
        },
        ([], 'h') | ([], 'l') => {
            for p in params.groups() {
                if let Some(mode) = p.first().and_then(|&n| Mode::from_ansi(n)) {
                    h.set_mode(mode, action == 'h');
                }
            }
        }
        ([b'?'], 'h') | ([b'?'], 'l') => {
            for p in params.groups() {
                if let Some(mode) = p.first().and_then(|&n| Mode::from_dec(n)) {
                    h.set_mode(mode, action == 'h');
                }
            }
        }
        ([], 'm') => dispatch_sgr(h, params),
        ([], 'n') => match raw_param(params, 0) {
            5 => h.report(Report::Status),
            6 => h.report(Report::CursorPosition),
            _ => {}
        },
        ([b'?'], 'n') if raw_param(params, 0) == 6 => h.report(Report::ExtendedCursorPosition),
        ([b'>'], 'q') if raw_param(params, 0) == 0 => h.report(Report::Version),
        ([b' '], 'q') => {
            let n = raw_param(params, 0);
            let shape = match n {
                0 => None,
                1 | 2 => Some(CursorShape::Block),
                3 | 4 => Some(CursorShape::Underline),
                5 | 6 => Some(CursorShape::Bar),
                _ => return,
            };
            h.set_cursor_style(shape, n == 0 || n % 2 == 1);
        }
        ([b'!'], 'p') => h.soft_reset(),
        ([b'$'], 'p') => h.report_mode(raw_param(params, 0), false),
        ([b'?', b'$'], 'p') => h.report_mode(raw_param(params, 0), true),
        ([], 'r') => {
            let top = raw_param(params, 0);
            let bottom = raw_param(params, 1);
            h.set_scroll_region((top != 0).then_some(top), (bottom != 0).then_some(bottom));
        }
        ([], 's') => h.save_cursor_or_set_margins(raw_param(params, 0), raw_param(params, 1)),
        ([], 't') => match raw_param(params, 0) {
            18 => h.report(Report::TextAreaSize),
            22 => h.push_title(),
            23 => h.pop_title(),
            _ => {}
        },
        // SCORC; with a private marker, the kitty keyboard protocol (the flag stacks keep
        // only the bits the protocol defines).
        ([], 'u') => h.restore_cursor(),
        ([b'?'], 'u') => h.report(Report::KeyboardFlags),
        ([b'>'], 'u') => h.push_keyboard_flags(raw_param(params, 0) as u8),
        ([b'<'], 'u') => h.pop_keyboard_flags(p1(1)),
        ([b'='], 'u') => {
            if let Some(how) = FlagsUpdate::from_mode(raw_param(params, 1)) {
                h.update_keyboard_flags(raw_param(params, 0) as u8, how);
            }
        }
        _ => {}
    }
}

fn erase_kind(n: u16, display: bool) -> Option<Erase> {
    Some(match n {
        0 => Erase::ToEnd,
        1 => Erase::ToStart,
        2 => Erase::All,
        3 if display => Erase::Scrollback,
        _ => return None,
    })
}

fn dispatch_sgr<H: Handler>(h: &mut H, params: &impl ParamGroups) {
    if params.values() == 0 {
        h.sgr(Sgr::Reset);
        return;
    }
    let mut iter = params.groups();
    while let Some(group) = iter.next() {
        let Some(&code) = group.first() else {
            continue;
        };
        let attr = match code {
            0 => Sgr::Reset,
            1 => Sgr::Bold,
            2 => Sgr::Dim,
            3 => Sgr::Italic(true),
            4 => match group.get(1) {
                None | Some(1) => Sgr::Underline(Underline::Single),
                Some(0) => Sgr::Underline(Underline::None),
                Some(2) => Sgr::Underline(Underline::Double),
                Some(3) => Sgr::Underline(Underline::Curly),
                Some(4) => Sgr::Underline(Underline::Dotted),
                Some(5) => Sgr::Underline(Underline::Dashed),
                Some(_) => continue,
            },
            5 | 6 => Sgr::Blink(true),
            7 => Sgr::Inverse(true),
            8 => Sgr::Hidden(true),
            9 => Sgr::Strike(true),
            21 => Sgr::Underline(Underline::Double),
            22 => Sgr::NormalIntensity,
            23 => Sgr::Italic(false),
            24 => Sgr::Underline(Underline::None),
            25 => Sgr::Blink(false),
            27 => Sgr::Inverse(false),
            28 => Sgr::Hidden(false),
            29 => Sgr::Strike(false),
            30..=37 => Sgr::Foreground(Color::Indexed((code - 30) as u8)),
            39 => Sgr::Foreground(Color::Default),
            40..=47 => Sgr::Background(Color::Indexed((code - 40) as u8)),
            49 => Sgr::Background(Color::Default),
            53 => Sgr::Overline(true),
            55 => Sgr::Overline(false),
            59 => Sgr::UnderlineColor(Color::Default),
            90..=97 => Sgr::Foreground(Color::Indexed((code - 90 + 8) as u8)),
            100..=107 => Sgr::Background(Color::Indexed((code - 100 + 8) as u8)),
            38 | 48 | 58 => {
                let color = if group.len() > 1 {
                    extended_color_colon(&group[1..])
                } else {
                    extended_color_semicolon(&mut iter)
                };
                let Some(color) = color else {
                    continue;
                };
                match code {
                    38 => Sgr::Foreground(color),
                    48 => Sgr::Background(color),
                    _ => Sgr::UnderlineColor(color),
                }
            }
            _ => continue,
        };
        h.sgr(attr);
    }
}

fn to_u8(v: u16) -> Option<u8> {
    u8::try_from(v).ok()
}

/// `38:5:N`, `38:2:R:G:B` and `38:2:CS:R:G:B` (the sub-parameters after 38).
fn extended_color_colon(sub: &[u16]) -> Option<Color> {
    match sub {
        [5, n, ..] => Some(Color::Indexed(to_u8(*n)?)),
        [2, _cs, r, g, b, ..] => Some(Color::Rgb(to_u8(*r)?, to_u8(*g)?, to_u8(*b)?)),
        [2, r, g, b] => Some(Color::Rgb(to_u8(*r)?, to_u8(*g)?, to_u8(*b)?)),
        _ => None,
    }
}

/// `38;5;N` and `38;2;R;G;B`, consuming the parameters that follow 38. Values missing at the
/// end of the sequence are 0, as in xterm (`38;2;1;2` is #010200, `38;5` is index 0).
fn extended_color_semicolon<'a>(iter: &mut impl Iterator<Item = &'a [u16]>) -> Option<Color> {
    let mut next = || iter.next().and_then(|g| g.first().copied());
    match next()? {
        5 => Some(Color::Indexed(to_u8(next().unwrap_or(0))?)),
        2 => {
            // All three are consumed, in range or not.
            let (r, g, b) = (
                next().unwrap_or(0),
                next().unwrap_or(0),
                next().unwrap_or(0),
            );
            Some(Color::Rgb(to_u8(r)?, to_u8(g)?, to_u8(b)?))
        }
        _ => None,
    }
}

fn dispatch_osc<H: Handler>(h: &mut H, params: &[&[u8]], terminator: OscTerminator) {
    let Some((&command, rest)) = params.split_first() else {
        return;
    };
    let Some(command) = std::str::from_utf8(command)
        .ok()
        .and_then(|s| s.parse::<u16>().ok())
    else {
        return;
    };
    match command {
        0 | 2 => {
            let title = join_lossy(rest);
            h.set_title(&title);
        }
        4 => {
            for pair in rest.chunks(2) {
                let [index, spec] = pair else { break };
                let Some(index) = parse_number(index).and_then(|i| u8::try_from(i).ok()) else {
                    continue;
                };
                if *spec == b"?" {
                    h.query_palette_color(index, terminator);
                } else if let Some(rgb) = parse_color(spec) {
                    h.set_palette_color(index, rgb);
                }
            }
        }
        10..=12 => {
            // `OSC 10 ; fg ; bg ; cursor`: each further value addresses the next colour.
            for (offset, spec) in rest.iter().enumerate() {
                let which = match command as usize + offset {
                    10 => DynamicColor::Foreground,
                    11 => DynamicColor::Background,
                    12 => DynamicColor::Cursor,
                    _ => break,
                };
                if *spec == b"?" {
                    h.query_dynamic_color(which, terminator);
                } else if let Some(rgb) = parse_color(spec) {
                    h.set_dynamic_color(which, rgb);
                }
            }
        }
        104 => {
            let indices: Vec<u8> = rest
                .iter()
                .filter_map(|p| parse_number(p).and_then(|i| u8::try_from(i).ok()))
                .collect();
            if indices.is_empty() {
                h.reset_palette_color(None);
            }
            for i in indices {
                h.reset_palette_color(Some(i));
            }
        }
        110 => h.reset_dynamic_color(DynamicColor::Foreground),
        111 => h.reset_dynamic_color(DynamicColor::Background),
        112 => h.reset_dynamic_color(DynamicColor::Cursor),
        8 => dispatch_hyperlink(h, rest),
        133 => {
            let mark = match rest.first().and_then(|p| p.first()) {
                Some(b'A') => PromptMark::PromptStart,
                Some(b'B') => PromptMark::CommandStart,
                Some(b'C') => PromptMark::OutputStart,
                Some(b'D') => PromptMark::CommandEnd,
                _ => return,
            };
            // `D;status`: the status is the field after the mark.
            let exit_code = rest
                .get(1)
                .and_then(|p| std::str::from_utf8(p).ok())
                .and_then(|p| p.trim().parse().ok());
            h.prompt_mark(mark, exit_code);
        }
        // OSC 52 (clipboard) and everything else is ignored.
        _ => {}
    }
}

/// `OSC 8 ; params ; URI`: params are `key=value` pairs separated by `:`; the URI may itself
/// contain `;`, which vte splits on, so the pieces are joined back. An empty URI ends the link.
fn dispatch_hyperlink<H: Handler>(h: &mut H, rest: &[&[u8]]) {
    let Some((link_params, uri_parts)) = rest.split_first() else {
        h.set_hyperlink(None);
        return;
    };
    let uri = join_lossy(uri_parts);
    if uri.is_empty() {
        h.set_hyperlink(None);
        return;
    }
    let link_params = String::from_utf8_lossy(link_params);
    let id = link_params
        .split(':')
        .find_map(|kv| kv.strip_prefix("id="))
        .filter(|id| !id.is_empty());
    h.set_hyperlink(Some((id, &uri)));
}

fn join_lossy(parts: &[&[u8]]) -> String {
    let mut bytes = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            bytes.push(b';');
        }
        bytes.extend_from_slice(part);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn parse_number(bytes: &[u8]) -> Option<u32> {
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

/// Parses an X11 colour spec: `rgb:R/G/B` (1–4 hex digits each) or `#RGB`/`#RRGGBB`/
/// `#RRRGGGBBB`/`#RRRRGGGGBBBB`.
pub(crate) fn parse_color(spec: &[u8]) -> Option<(u8, u8, u8)> {
    let spec = std::str::from_utf8(spec).ok()?;
    if let Some(rest) = spec.strip_prefix("rgb:") {
        let mut parts = rest.split('/');
        let r = scale_hex(parts.next()?)?;
        let g = scale_hex(parts.next()?)?;
        let b = scale_hex(parts.next()?)?;
        if parts.next().is_some() {
            return None;
        }
        return Some((r, g, b));
    }
    let hex = spec.strip_prefix('#')?;
    if hex.is_empty() || hex.len() % 3 != 0 || hex.len() > 12 {
        return None;
    }
    let n = hex.len() / 3;
    // In the `#` form the digits are the most significant bits (xterm), not a scaled value.
    let take = |i: usize| -> Option<u8> {
        let digits = hex.get(i * n..(i + 1) * n)?;
        let v = u16::from_str_radix(digits, 16).ok()?;
        Some(match n {
            1 => (v << 4) as u8,
            2 => v as u8,
            3 => (v >> 4) as u8,
            _ => (v >> 8) as u8,
        })
    };
    Some((take(0)?, take(1)?, take(2)?))
}

/// Scales a 1–4 digit hex component to 8 bits (`rgb:` form).
fn scale_hex(digits: &str) -> Option<u8> {
    if digits.is_empty() || digits.len() > 4 {
        return None;
    }
    let v = u32::from_str_radix(digits, 16).ok()?;
    let max = (1u32 << (4 * digits.len())) - 1;
    Some(((v * 255 + max / 2) / max) as u8)
}

#[cfg(test)]
mod tests {
    use super::{Csi, ParamGroups, parse_color};

    /// What vte makes of a byte string: every callback, in order.
    #[derive(Default)]
    struct Recorder(Vec<String>);

    impl vte::Perform for Recorder {
        fn print(&mut self, c: char) {
            self.0.push(format!("print {c:?}"));
        }
        fn execute(&mut self, byte: u8) {
            self.0.push(format!("execute {byte}"));
        }
        fn csi_dispatch(
            &mut self,
            params: &vte::Params,
            intermediates: &[u8],
            ignore: bool,
            action: char,
        ) {
            let groups: Vec<&[u16]> = params.groups().collect();
            self.0.push(format!(
                "csi {groups:?} {} {intermediates:?} {ignore} {action:?}",
                params.values()
            ));
        }
        fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
            self.0
                .push(format!("esc {intermediates:?} {ignore} {byte}"));
        }
    }

    /// vte's reading of `bytes` and [`Csi::read`]'s into `csi` (shared by every case, as a
    /// read shares one), each as the callbacks it makes; a sequence `Csi::read` leaves to vte
    /// is vte's alone.
    fn both(csi: &mut Csi, bytes: &[u8]) -> (Vec<String>, Vec<String>) {
        let mut vte = Recorder::default();
        vte::Parser::new().advance(&mut vte, bytes);
        let Some(len) = csi.read(bytes) else {
            return (vte.0.clone(), vte.0);
        };
        let groups: Vec<&[u16]> = csi.params.groups().collect();
        let mut fast = vec![format!(
            "csi {groups:?} {} {:?} false {:?}",
            csi.params.values(),
            csi.intermediates(),
            csi.action
        )];
        let mut rest = Recorder::default();
        vte::Parser::new().advance(&mut rest, &bytes[len..]);
        fast.extend(rest.0);
        (vte.0, fast)
    }

    #[test]
    fn control_sequences_read_without_vte_are_what_vte_reads() {
        let cases: [&[u8]; 22] = [
            b"\x1b[m",
            b"\x1b[0m",
            b"\x1b[1;31;48;5;200mx",
            b"\x1b[38:2:1:2:3m",
            b"\x1b[38:2::1:2:3;4:3m",
            b"\x1b[;5H",
            b"\x1b[1;m",
            b"\x1b[?25h",
            b"\x1b[?1049;1006h",
            b"\x1b[>4;1m",
            b"\x1b[2 q",
            b"\x1b[?1$p",
            b"\x1b[!p",
            b"\x1b[99999999999999G",
            b"\x1b[1?m",
            b"\x1b[1;2",
            b"\x1b[1\x082A",
            b"\x1b[1 2m",
            b"\x1b[1 !\"m",
            b"\x1b[?$!p",
            b"\x1b[1\x7fm",
            b"\x1b[0;1;2;3;4;5;6;7;8;9;0;1;2;3;4;5;6;7;8;9;0;1;2;3;4;5;6;7;8;9;0;1m",
        ];
        let mut csi = Csi::new();
        for bytes in cases {
            let (vte, fast) = both(&mut csi, bytes);
            assert_eq!(vte, fast, "{:?}", String::from_utf8_lossy(bytes));
        }
        // Plain sequences are read; odd ones are left to vte.
        assert!(csi.read(b"\x1b[38:2:1:2:3m").is_some());
        assert!(csi.read(b"\x1b[1;2").is_none());
        assert!(csi.read(b"\x1b[1\x082A").is_none());
    }

    /// Random sequences over the bytes a CSI holds, and some it should not: whatever
    /// [`Csi::read`] reads, vte reads the same.
    #[test]
    fn random_control_sequences_agree_with_vte() {
        const ALPHABET: &[u8] = b"0123456789;;;:::<=>? !\"$'mHJKhlqpr@~\x07\x08\x7f\x1b\xc3";
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut read = 0;
        let mut csi = Csi::new();
        for _ in 0..200_000 {
            let len = (next() % 40) as usize;
            let mut bytes = b"\x1b[".to_vec();
            for _ in 0..len {
                bytes.push(ALPHABET[(next() % ALPHABET.len() as u64) as usize]);
            }
            if next() % 2 == 0 {
                bytes.push(b'm');
            }
            let (vte, fast) = both(&mut csi, &bytes);
            assert_eq!(vte, fast, "{bytes:?}");
            read += usize::from(csi.read(&bytes).is_some());
        }
        // Enough of them are plain for the comparison to mean something.
        assert!(read > 20_000, "{read}");
    }

    #[test]
    fn colour_specs() {
        assert_eq!(parse_color(b"rgb:ff/80/00"), Some((255, 128, 0)));
        assert_eq!(parse_color(b"rgb:ffff/0000/8080"), Some((255, 0, 128)));
        assert_eq!(parse_color(b"rgb:f/0/8"), Some((255, 0, 136)));
        assert_eq!(parse_color(b"#ff8000"), Some((255, 128, 0)));
        assert_eq!(parse_color(b"#f80"), Some((240, 128, 0)));
        assert_eq!(parse_color(b"rgb:ff/80"), None);
        assert_eq!(parse_color(b"red"), None);
        assert_eq!(parse_color(b"#12345"), None);
    }
}
