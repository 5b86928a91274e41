// The Windows Terminal colour-scheme format, read field by field. build.rs includes this file to
// read the built-in themes at build time, so it uses nothing but `std` and names no `crate::`
// paths: the format is described once, for the built-in themes and for theme files alike.

/// The colours of a colour scheme, as `(r, g, b)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemeColors {
    /// Default background.
    pub background: (u8, u8, u8),
    /// Default foreground.
    pub foreground: (u8, u8, u8),
    /// Cursor colour (the foreground when the scheme has none).
    pub cursor: (u8, u8, u8),
    /// Selection background (the foreground when the scheme has none).
    pub selection_background: (u8, u8, u8),
    /// ANSI colours 0–15.
    pub ansi: [(u8, u8, u8); 16],
}

/// The keys of ANSI colours 0–15 in a scheme, in palette order.
pub const ANSI_KEYS: [&str; 16] = [
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "purple",
    "cyan",
    "white",
    "brightBlack",
    "brightRed",
    "brightGreen",
    "brightYellow",
    "brightBlue",
    "brightPurple",
    "brightCyan",
    "brightWhite",
];

/// Parses `#rgb` or `#rrggbb`.
pub fn parse_hex_color(s: &str) -> Option<(u8, u8, u8)> {
    let hex = s.trim().strip_prefix('#')?;
    let digit = |i: usize, n: usize| u8::from_str_radix(hex.get(i..i + n)?, 16).ok();
    match hex.len() {
        3 => Some((digit(0, 1)? * 17, digit(1, 1)? * 17, digit(2, 1)? * 17)),
        6 => Some((digit(0, 2)?, digit(2, 2)?, digit(4, 2)?)),
        _ => None,
    }
}

/// Reads a scheme's name and colours. `field` gives the string value of a key: `Ok(None)` when
/// the scheme lacks it, an error when it holds something other than a string. Keys the format
/// does not know are ignored, as Windows Terminal ignores them.
pub fn read_scheme<'a>(
    field: impl Fn(&str) -> Result<Option<&'a str>, String>,
) -> Result<(&'a str, SchemeColors), String> {
    let required = |key: &str| field(key)?.ok_or_else(|| format!("missing field `{key}`"));
    let color = |key: &str, value: &str| {
        parse_hex_color(value).ok_or_else(|| format!("{key}: {value:?} is not a #rrggbb colour"))
    };
    let name = required("name")?;
    let foreground = color("foreground", required("foreground")?)?;
    let background = color("background", required("background")?)?;
    let optional = |key: &str| match field(key)? {
        Some(value) => color(key, value),
        None => Ok(foreground),
    };
    let mut ansi = [(0, 0, 0); 16];
    for (slot, key) in ansi.iter_mut().zip(ANSI_KEYS) {
        *slot = color(key, required(key)?)?;
    }
    let colors = SchemeColors {
        background,
        foreground,
        cursor: optional("cursorColor")?,
        selection_background: optional("selectionBackground")?,
        ansi,
    };
    Ok((name, colors))
}
