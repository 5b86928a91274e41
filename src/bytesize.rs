//! Byte sizes as people write them: `1048576`, `64K`, `16M`, `16MiB`, `1G` (units are binary:
//! K = 1024).

/// Parses a size; `Err` says what is wrong.
///
/// ```
/// use shotty::bytesize::parse_size;
/// assert_eq!(parse_size("16M"), Ok(16 << 20));
/// assert_eq!(parse_size("64KiB"), Ok(64 << 10));
/// assert_eq!(parse_size("4096"), Ok(4096));
/// assert!(parse_size("12 parsecs").is_err());
/// ```
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let bad = || format!("{text:?} is not a size (e.g. 4096, 64K, 16M, 1G)");
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let shift = match unit.trim_start().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return Err(bad()),
    };
    n.checked_mul(1 << shift).ok_or_else(bad)
}
