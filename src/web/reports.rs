//! Scenario failure reports for the page: the runs under a directory (`shotty test` and
//! `shotty scenario run` leave each failed one in `shotty-report/NAME/`) and their two
//! documents, nothing else of the directory.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde_json::{Value, json};

/// The files of a report the page may open, and how each is served.
pub const DOCUMENTS: [(&str, &str); 2] = [
    ("failure.md", "text/plain; charset=utf-8"),
    ("trace.html", "text/html; charset=utf-8"),
];

/// The reports under `dir`, newest first: `{name, modifiedMs, documents}` for each
/// subdirectory holding a `failure.md`.
pub fn list(dir: &Path) -> Vec<Value> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u128, Value)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let failure = std::fs::metadata(entry.path().join("failure.md")).ok()?;
            let modified = failure
                .modified()
                .ok()?
                .duration_since(UNIX_EPOCH)
                .ok()?
                .as_millis();
            let documents: Vec<&str> = DOCUMENTS
                .iter()
                .map(|(file, _)| *file)
                .filter(|file| entry.path().join(file).is_file())
                .collect();
            is_plain_name(&name).then(|| {
                let report =
                    json!({ "name": name, "modifiedMs": modified, "documents": documents });
                (modified, report)
            })
        })
        .collect();
    found.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    found.into_iter().map(|(_, report)| report).collect()
}

/// The path of report `name`'s `file` and its content type, when both are ones the page may
/// open: a plain directory name (no `..`, no `/`) and one of [`DOCUMENTS`].
pub fn document(dir: &Path, name: &str, file: &str) -> Option<(PathBuf, &'static str)> {
    let (_, content_type) = DOCUMENTS.iter().find(|(f, _)| *f == file)?;
    is_plain_name(name).then(|| (dir.join(name).join(file), *content_type))
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_documents_of_plainly_named_reports_are_reachable() {
        let dir = Path::new("/r");
        assert!(document(dir, "vim", "trace.html").is_some());
        assert!(document(dir, "vim", "recording.cast").is_none());
        for name in ["..", ".hidden", "a/b", "", "..%2f"] {
            assert!(document(dir, name, "failure.md").is_none(), "{name}");
        }
    }
}
