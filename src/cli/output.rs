//! Writing results: to stdout, or atomically to a file so a failure never leaves half of one.

use std::io::Write;
use std::path::Path;

use shotty::render::{Appearance, Format, encode, missing_glyphs};
use shotty::term::Snapshot;

/// Parses `--format`.
pub fn format_arg(s: &str) -> Result<Format, String> {
    Format::ALL
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(s))
        .map(|(_, f)| *f)
        .ok_or_else(|| format!("{s:?} is not one of svg, png, txt, json"))
}

/// The output format: `--format` if given, else the output file's extension, else `default`.
pub fn resolve_format(
    explicit: Option<Format>,
    out: Option<&Path>,
    default: Format,
) -> Result<Format, String> {
    if let Some(f) = explicit {
        return Ok(f);
    }
    match out.filter(|p| p.as_os_str() != "-") {
        Some(p) => Format::from_path(p).ok_or_else(|| {
            format!(
                "cannot tell the format of {} from its extension; use .svg, .png, .txt, .json or --format",
                p.display()
            )
        }),
        None => Ok(default),
    }
}

/// Writes `bytes` to `path` (via a temporary file in the same directory and a rename), or to
/// stdout when `path` is `None` or `-`.
pub fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<(), String> {
    match path {
        None => write_stdout(bytes),
        Some(p) if p.as_os_str() == "-" => write_stdout(bytes),
        Some(p) => shotty::session::artifacts::write_file(p, bytes),
    }
}

fn write_stdout(bytes: &[u8]) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`shotty … | head`) is not an error worth reporting.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write to stdout: {e}")),
    }
}

/// Encodes `snapshot`; for a PNG, first names on stderr (in one line) the characters it draws
/// blank because no font has them. (An SVG is drawn with the viewer's fonts.)
pub fn encode_warning_blanks(
    snapshot: &Snapshot,
    format: Format,
    appearance: &Appearance,
) -> Result<Vec<u8>, String> {
    if format == Format::Png {
        let missing = missing_glyphs(snapshot, appearance).map_err(|e| e.to_string())?;
        if !missing.is_empty() {
            let named: Vec<String> = missing
                .iter()
                .take(20)
                .map(|c| format!("{c} (U+{:04X})", u32::from(*c)))
                .collect();
            let more = missing.len().saturating_sub(named.len());
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            eprintln!(
                "shotty: no font has {}{more}: drawn as blank cells (--font-file adds a font)",
                named.join(", ")
            );
        }
    }
    encode(snapshot, format, appearance).map_err(|e| e.to_string())
}
