//! The 256-colour palette: the 16 ANSI colours plus the computed 6×6×6 cube and grey ramp.

/// An opaque 24-bit colour.
pub type Rgb = (u8, u8, u8);

/// xterm's default ANSI colours (used for OSC 4 queries when no theme supplies others).
pub const XTERM_ANSI: [Rgb; 16] = [
    (0x00, 0x00, 0x00),
    (0xcd, 0x00, 0x00),
    (0x00, 0xcd, 0x00),
    (0xcd, 0xcd, 0x00),
    (0x00, 0x00, 0xee),
    (0xcd, 0x00, 0xcd),
    (0x00, 0xcd, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x7f, 0x7f, 0x7f),
    (0xff, 0x00, 0x00),
    (0x00, 0xff, 0x00),
    (0xff, 0xff, 0x00),
    (0x5c, 0x5c, 0xff),
    (0xff, 0x00, 0xff),
    (0x00, 0xff, 0xff),
    (0xff, 0xff, 0xff),
];

/// The colour of palette entry `index`, taking 0–15 from `ansi`; 16–231 are the colour cube
/// and 232–255 the grey ramp, computed as xterm does.
pub fn indexed_color(index: u8, ansi: &[Rgb; 16]) -> Rgb {
    match index {
        0..=15 => ansi[index as usize],
        16..=231 => {
            let i = index - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            (level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        _ => {
            let v = 8 + 10 * (index - 232);
            (v, v, v)
        }
    }
}

/// Formats a colour the way xterm reports it: `rgb:rrrr/gggg/bbbb`.
pub fn xparse_color_string(rgb: Rgb) -> String {
    let (r, g, b) = rgb;
    format!(
        "rgb:{:04x}/{:04x}/{:04x}",
        r as u16 * 257,
        g as u16 * 257,
        b as u16 * 257
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_and_greys_match_xterm() {
        assert_eq!(indexed_color(16, &XTERM_ANSI), (0, 0, 0));
        assert_eq!(indexed_color(196, &XTERM_ANSI), (255, 0, 0));
        assert_eq!(indexed_color(21, &XTERM_ANSI), (0, 0, 255));
        assert_eq!(indexed_color(67, &XTERM_ANSI), (95, 135, 175));
        assert_eq!(indexed_color(231, &XTERM_ANSI), (255, 255, 255));
        assert_eq!(indexed_color(232, &XTERM_ANSI), (8, 8, 8));
        assert_eq!(indexed_color(255, &XTERM_ANSI), (238, 238, 238));
        assert_eq!(xparse_color_string((255, 128, 0)), "rgb:ffff/8080/0000");
    }
}
