//! How DECRQSS (`DCS $ q Pt ST`) reports a setting: in the control sequence that would set
//! it, as xterm writes it.

use super::handler::CursorShape;
use super::style::{Attrs, Color, Style, Underline};

/// The SGR parameters that select `style`, after a reset: `0;1;4;31;48:5:17`. The order is
/// xterm's (bold, underline, blink, inverse, concealed, faint, italic, strike, double
/// underline, then the colours); the underline styles xterm lacks (`4:3` …), overline and the
/// underline colour follow, in the forms that set them.
pub(super) fn sgr(style: &Style) -> String {
    let mut out = String::from("0");
    let attrs = style.attrs;
    let mut flag = |on: bool, code: &str| {
        if on {
            out.push(';');
            out.push_str(code);
        }
    };
    flag(attrs.contains(Attrs::BOLD), "1");
    flag(style.underline == Underline::Single, "4");
    flag(attrs.contains(Attrs::BLINK), "5");
    flag(attrs.contains(Attrs::INVERSE), "7");
    flag(attrs.contains(Attrs::HIDDEN), "8");
    flag(attrs.contains(Attrs::DIM), "2");
    flag(attrs.contains(Attrs::ITALIC), "3");
    flag(attrs.contains(Attrs::STRIKE), "9");
    flag(style.underline == Underline::Double, "21");
    flag(style.underline == Underline::Curly, "4:3");
    flag(style.underline == Underline::Dotted, "4:4");
    flag(style.underline == Underline::Dashed, "4:5");
    flag(attrs.contains(Attrs::OVERLINE), "53");
    push_color(&mut out, style.fg, 30, 90, 38);
    push_color(&mut out, style.bg, 40, 100, 48);
    push_color(&mut out, style.underline_color, 0, 0, 58);
    out
}

/// `;31`, `;91`, `;38:5:196` or `;38:2::r:g:b` (nothing for the default colour). `normal` and
/// `bright` are the codes of colours 0 and 8 (0: this colour has only the extended form).
fn push_color(out: &mut String, color: Color, normal: u8, bright: u8, extended: u8) {
    use std::fmt::Write;
    let _ = match color {
        Color::Default => Ok(()),
        Color::Indexed(i) if i < 8 && normal != 0 => write!(out, ";{}", normal + i),
        Color::Indexed(i) if i < 16 && bright != 0 => write!(out, ";{}", bright + i - 8),
        Color::Indexed(i) => write!(out, ";{extended}:5:{i}"),
        Color::Rgb(r, g, b) => write!(out, ";{extended}:2::{r}:{g}:{b}"),
    };
}

/// The DECSCUSR parameter of a cursor style: 1/2 block, 3/4 underline, 5/6 bar, the odd
/// ones blinking.
pub(super) fn cursor_style(shape: CursorShape, blink: bool) -> u8 {
    let steady = match shape {
        CursorShape::Block => 2,
        CursorShape::Underline => 4,
        CursorShape::Bar => 6,
    };
    steady - u8::from(blink)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgr_reports_follow_xterm_order_and_forms() {
        let mut style = Style::default();
        assert_eq!(sgr(&style), "0");
        style.attrs.set(Attrs::BOLD, true);
        style.attrs.set(Attrs::ITALIC, true);
        style.underline = Underline::Single;
        style.fg = Color::Indexed(1);
        style.bg = Color::Indexed(17);
        assert_eq!(sgr(&style), "0;1;4;3;31;48:5:17");
        style.fg = Color::Indexed(9);
        style.bg = Color::Rgb(1, 2, 3);
        style.underline = Underline::Curly;
        style.underline_color = Color::Indexed(2);
        assert_eq!(sgr(&style), "0;1;3;4:3;91;48:2::1:2:3;58:5:2");
    }

    #[test]
    fn cursor_styles() {
        assert_eq!(cursor_style(CursorShape::Block, true), 1);
        assert_eq!(cursor_style(CursorShape::Block, false), 2);
        assert_eq!(cursor_style(CursorShape::Bar, false), 6);
    }
}
