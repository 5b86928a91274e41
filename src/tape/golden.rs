//! A tape as a golden test (`shotty test`): each text output (`.txt`, `.ascii`) the tape names
//! is compared with the file already there — the committed golden — instead of being written;
//! a difference fails with the screens, rows and columns that differ.

use std::path::Path;

use super::output::{TEXT_RULE_WIDTH, text};
use super::runner::TapeRun;
use super::{Output, OutputKind, Tape};
use crate::session::artifacts::write_file_creating_dir;

/// How a golden test treats goldens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoldenOptions {
    /// Rewrite a golden that differs.
    pub update: bool,
    /// A missing golden fails instead of being written (CI).
    pub missing_fails: bool,
}

/// What came of one text output against its golden.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextVerdict {
    /// The run's text is the golden's.
    Matched,
    /// There was no golden; the run's text was written as one.
    Written,
    /// The golden differed and was rewritten (`update`).
    Updated,
    /// The golden differs (or is missing, or cannot be read or written): why, with the
    /// screens, rows and columns that differ.
    Failed(String),
}

/// The text outputs of a tape: what a golden test of it compares.
pub fn text_outputs(tape: &Tape) -> impl Iterator<Item = &Output> {
    tape.outputs.iter().filter(|o| o.kind == OutputKind::Text)
}

/// Compares the run's text with the golden of `output` (see [`TextVerdict`]).
pub fn check(output: &Output, run: &TapeRun, options: GoldenOptions) -> TextVerdict {
    let actual = text(&run.text);
    let path = &output.path;
    let expected = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if options.missing_fails {
                return TextVerdict::Failed(format!(
                    "the golden {} is missing (CI is set, so it is not written)",
                    path.display()
                ));
            }
            return written(path, &actual, TextVerdict::Written);
        }
        Err(e) => return TextVerdict::Failed(format!("cannot read {}: {e}", path.display())),
    };
    if expected == actual {
        return TextVerdict::Matched;
    }
    if options.update {
        return written(path, &actual, TextVerdict::Updated);
    }
    TextVerdict::Failed(format!(
        "the screens differ from the golden {}:\n{}",
        path.display(),
        report(&expected, &actual, run)
    ))
}

fn written(path: &Path, text: &str, verdict: TextVerdict) -> TextVerdict {
    match write_file_creating_dir(path, text.as_bytes()) {
        Ok(()) => verdict,
        Err(e) => TextVerdict::Failed(e),
    }
}

/// The most differing rows a report lists.
const MAX_REPORTED_ROWS: usize = 20;

/// Where two texts in VHS's format differ: the screen (and the step after which the run took
/// it), the row, the column (in cells) where they part, and both rows.
pub fn report(expected: &str, actual: &str, run: &TapeRun) -> String {
    let (expected, actual) = (screens(expected), screens(actual));
    let mut lines = Vec::new();
    if expected.len() != actual.len() {
        lines.push(format!(
            "the golden has {} screens, the run {}",
            expected.len(),
            actual.len()
        ));
    }
    'screens: for (i, (want, got)) in expected.iter().zip(&actual).enumerate() {
        let after = run.text.get(i).map_or_else(String::new, |s| {
            format!(" (after {}:{})", s.after.path.display(), s.after.line)
        });
        for row in 0..want.len().max(got.len()) {
            let (w, g) = (
                want.get(row).map_or("", String::as_str),
                got.get(row).map_or("", String::as_str),
            );
            if w == g {
                continue;
            }
            if lines.len() >= MAX_REPORTED_ROWS {
                lines.push("… (more rows differ)".into());
                break 'screens;
            }
            let column = w
                .chars()
                .zip(g.chars())
                .take_while(|(a, b)| a == b)
                .map(|(c, _)| unicode_width::UnicodeWidthChar::width(c).unwrap_or(0))
                .sum::<usize>();
            lines.push(format!(
                "screen {}{after}, row {row}, from column {column}:\n  golden: {w:?}\n  run:    {g:?}",
                i + 1
            ));
        }
    }
    lines.join("\n")
}

/// The screens of a text in VHS's format (each screen's rows, up to its rule).
fn screens(text: &str) -> Vec<Vec<String>> {
    let rule = "─".repeat(TEXT_RULE_WIDTH);
    let mut screens = Vec::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        if line == rule {
            screens.push(std::mem::take(&mut rows));
        } else {
            rows.push(line.to_owned());
        }
    }
    if !rows.is_empty() {
        screens.push(rows);
    }
    screens
}
