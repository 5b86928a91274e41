//! Numbers as the SVG writes them: coordinates with at most two decimals and no trailing
//! zeros, formatted without allocating (the layout, the box-drawing paths and the SVG writer
//! all use these).

/// Formats a coordinate with at most two decimals and no trailing zeros.
pub(crate) fn f(v: f64) -> String {
    let mut s = String::new();
    push_f(&mut s, v);
    s
}

/// Appends a coordinate as [`f`] formats it, without allocating.
pub(crate) fn push_f(out: &mut String, v: f64) {
    let x = v * 100.0;
    // Integer arithmetic gives exactly the digits `{:.2}` of round(x) / 100 would (the
    // nearest double to n / 100 is far closer than the rounding step) while the value is
    // well inside f64's exact range; anything else (and NaN) takes the formatter.
    if x.abs() < EXACT {
        push_hundredths(out, hundredths(v));
    } else {
        use std::fmt::Write;
        let r = x.round() / 100.0;
        let s = format!("{r:.2}");
        let _ = write!(out, "{}", s.trim_end_matches('0').trim_end_matches('.'));
    }
}

/// Hundredths below this are whole numbers rounded exactly by [`hundredths`].
const EXACT: f64 = 1e13;

/// `v` in whole hundredths, as [`push_f`] writes it: what every written coordinate is, so
/// comparisons and sums in these units see what a reader of the document sees.
pub(crate) fn hundredths(v: f64) -> i64 {
    let x = v * 100.0;
    if x.abs() >= EXACT || x.is_nan() {
        return x.round() as i64;
    }
    // `x.round()` (half away from zero) without the libm call: below 2^52 the fraction
    // `x - trunc(x)` is exact.
    let t = x as i64;
    let frac = x - t as f64;
    if frac >= 0.5 {
        t + 1
    } else if frac <= -0.5 {
        t - 1
    } else {
        t
    }
}

/// Appends `n` hundredths: at most two decimals, no trailing zeros, no `-0`.
pub(crate) fn push_hundredths(out: &mut String, n: i64) {
    // Written back to front: [-]digits[.d[d]].
    let mut buf = [0u8; 24];
    let mut i = buf.len();
    let a = n.unsigned_abs();
    let (mut int, frac) = (a / 100, a % 100);
    if frac != 0 {
        if frac % 10 != 0 {
            i -= 1;
            buf[i] = b'0' + (frac % 10) as u8;
        }
        i -= 1;
        buf[i] = b'0' + (frac / 10) as u8;
        i -= 1;
        buf[i] = b'.';
    }
    loop {
        i -= 1;
        buf[i] = b'0' + (int % 10) as u8;
        int /= 10;
        if int == 0 {
            break;
        }
    }
    if n < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    // Only ASCII digits, '.' and '-' were written.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
}

/// The value a reader of the document gets for `v`: `v` rounded to hundredths, as [`push_f`]
/// writes it. Whatever draws beside the document (the raster's cached glyphs) places things
/// at these values, where resvg places the document's.
#[cfg(feature = "png")]
pub(crate) fn as_written(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The formatter `f` replaced: round to hundredths, `{:.2}`, trim.
    fn reference(v: f64) -> String {
        let r = (v * 100.0).round() / 100.0;
        let r = if r == 0.0 { 0.0 } else { r };
        let s = format!("{r:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }

    #[test]
    fn number_formatting_matches_the_formatter() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut values = vec![
            0.0,
            -0.0,
            0.004,
            -0.004,
            0.005,
            -0.005,
            0.5,
            -0.5,
            1.0,
            10.0,
            100.0,
            8.4,
            18.0,
            22.035,
            1e9,
            -1e9,
            123456.789,
            1e12,
            5e12,
            1e14,
            -1e14,
            0.1 + 0.2,
        ];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let scale = [1.0, 10.0, 1000.0, 1e6][(x >> 60) as usize % 4];
            values.push(((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * scale);
            // Exact hundredths and half-hundredths, where rounding is decided.
            values.push((x % 200_000) as f64 / 100.0 - 1000.0);
            values.push((x % 200_000) as f64 / 200.0 - 500.0);
        }
        for v in values {
            assert_eq!(f(v), reference(v), "{v:?}");
            #[cfg(feature = "png")]
            if v.abs() < 1e12 {
                assert_eq!(f(as_written(v)), f(v), "{v:?}");
                assert_eq!(f(v).parse::<f64>().ok(), Some(as_written(v) + 0.0), "{v:?}");
            }
        }
    }
}
