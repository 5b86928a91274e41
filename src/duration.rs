//! Durations as users type them: `500ms`, `2s`, `3m`, `1h`, or a bare number of seconds.

use std::time::Duration;

/// The longest duration accepted (a week), so arithmetic on deadlines never overflows.
pub const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);

/// Parses a duration; the error names the problem.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (number, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let scale = match unit {
        "ms" => 0.001,
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("{s:?}: unknown unit {unit:?} (use ms, s, m or h)")),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{s:?} is not a duration like 500ms, 2s, 3m or 1h"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("{s:?} must be a non-negative duration"));
    }
    let secs = value * scale;
    if secs > MAX_DURATION.as_secs_f64() {
        return Err(format!("{s:?} is longer than a week"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_bare_seconds() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("3m"), Ok(Duration::from_secs(180)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
    }

    #[test]
    fn bad_durations() {
        for bad in ["", "s", "5x", "-1s", "abc", "1e9h", "NaN"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
