//! Writing results: to stdout, or atomically to a file so a failure never leaves half of one.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` (via a temporary file in the same directory and a rename), or to
/// stdout when `path` is `None` or `-`.
pub fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<(), String> {
    match path {
        None => write_stdout(bytes),
        Some(p) if p.as_os_str() == "-" => write_stdout(bytes),
        Some(p) => {
            let dir = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            let mut tmp = tempfile::NamedTempFile::new_in(dir)
                .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            tmp.write_all(bytes)
                .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            tmp.persist(p)
                .map_err(|e| format!("cannot write {}: {}", p.display(), e.error))?;
            Ok(())
        }
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
