//! Golden files: a terminal screen pinned in a file and compared with what a program shows.
//!
//! One implementation for everything in shotty that pins screens — the scenario `snapshot`
//! step, `shotty::testing`'s `assert_screen`, the host's `golden` method (which the Python and
//! JavaScript test runners call) and the project's own golden-image tests — so they agree on
//! what counts as a difference, how it is reported, and what is left behind to look at:
//!
//! - [`compare_screen`]: a running program's screen (or an ended one's last) against a
//!   golden `.svg` (written by shotty; its `<metadata>` carries the snapshot) or `.json`, cell
//!   by cell with the [`diff`](crate::diff) semantics, given a timeout to come to match. A
//!   difference is reported cell by cell and leaves `NAME.actual.svg` and `NAME.diff.svg`
//!   (the differing cells marked) beside the golden.
//! - [`compare_bytes`]: a file shotty made against its golden, byte for byte, the cell report
//!   added when both carry a snapshot.
//!
//! A missing golden is written from what is there ([`Verdict::New`]); the caller decides
//! whether that passes. [`update_requested`] reads `UPDATE_GOLDEN`, the switch that rewrites
//! goldens.
//!
//! ```
//! use shotty::golden::{Verdict, compare_bytes};
//!
//! let dir = tempfile::tempdir()?;
//! let golden = dir.path().join("hello.svg");
//! let mut term = shotty::Terminal::new(20, 2);
//! term.advance(b"hello");
//! let svg = shotty::to_svg(&term.snapshot(), &shotty::Appearance::default())?;
//! // No golden yet: it is written.
//! assert_eq!(compare_bytes(&golden, svg.as_bytes(), false), Ok(Verdict::New));
//! assert_eq!(compare_bytes(&golden, svg.as_bytes(), false), Ok(Verdict::Matched));
//! // Another screen: the report names the cells.
//! term.advance(b"\rjello");
//! let other = shotty::to_svg(&term.snapshot(), &shotty::Appearance::default())?;
//! let report = compare_bytes(&golden, other.as_bytes(), false).unwrap_err();
//! assert!(report.contains(r#"col 0: expected "h", actual "j""#), "{report}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diff::{Diff, diff, load_snapshot};
use crate::render::{Appearance, Format, encode, encode_highlighted};

use super::Session;
use super::artifacts::write_file_creating_dir;
use super::wait::until_passes;
use crate::term::Snapshot;

/// The environment variable that asks golden tests to rewrite their goldens.
pub const UPDATE_VAR: &str = "UPDATE_GOLDEN";

/// How long a golden written from a live screen waits for the program to settle first.
const SETTLE_BEFORE_WRITING: Duration = Duration::from_secs(1);

/// Whether [`UPDATE_VAR`] (`UPDATE_GOLDEN`) asks for goldens to be rewritten (see
/// [`env_flag`]).
pub fn update_requested() -> bool {
    env_flag(UPDATE_VAR)
}

/// Whether the environment variable `var` is on: set, and not empty, `0` or `false` in any
/// case (so `UPDATE_GOLDEN=0` and a CI template's `UPDATE_GOLDEN=false` compare, as they
/// read). The Python and JavaScript packages read `CI` and `UPDATE_GOLDEN` by the same rule.
pub fn env_flag(var: &str) -> bool {
    std::env::var_os(var)
        .is_some_and(|v| !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false")))
}

/// How a comparison ended when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The golden matches.
    Matched,
    /// An update was asked for and the golden was rewritten.
    Updated,
    /// There was no golden; it was written from what is there.
    New,
}

/// How [`compare_screen`] compares.
#[derive(Clone, Copy, Debug)]
pub struct ScreenCheck<'a> {
    /// Rewrite the golden from the screen instead of comparing (`--update`, `UPDATE_GOLDEN`).
    pub update: bool,
    /// A missing golden fails, the screen written to `NAME.actual.svg` instead of the golden
    /// (a scenario run with `CI` set: a golden nobody has reviewed passes nothing), unless
    /// `update` asks for goldens to be written. Off: the golden is written and the verdict
    /// is [`Verdict::New`].
    pub missing_fails: bool,
    /// How long the screen has to come to match.
    pub timeout: Duration,
    /// How goldens and the failure's pictures are drawn.
    pub appearance: &'a Appearance,
}

/// Why [`compare_screen`] failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// What went wrong; for a difference, the golden's path and the cell report.
    pub message: String,
    /// The golden's screen, when it was read (boxed: a failure travels in a `Result`).
    pub expected: Option<Box<Snapshot>>,
    /// `NAME.actual.svg`, the screen as it was, when it was written.
    pub actual_svg: Option<PathBuf>,
    /// `NAME.diff.svg`, the screen with the differing cells marked, when it was written.
    pub diff_svg: Option<PathBuf>,
}

impl Failure {
    fn new(message: String) -> Failure {
        Failure {
            message,
            expected: None,
            actual_svg: None,
            diff_svg: None,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// `NAME.svg` → `NAME.WHAT.svg` beside it (`golden.json` → `golden.actual.svg`): where a
/// failed comparison leaves its pictures.
pub fn sibling(golden: &Path, what: &str) -> PathBuf {
    let stem = golden
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    golden.with_file_name(format!("{stem}.{what}.svg"))
}

/// The format a screen golden is kept in: `.svg` or `.json`, by its extension.
pub fn screen_format(golden: &Path) -> Result<Format, String> {
    match Format::from_path(golden) {
        Some(format @ (Format::Svg | Format::Json)) => Ok(format),
        _ => Err(format!(
            "{}: a golden screen is a .svg or a .json file",
            golden.display()
        )),
    }
}

/// Where the screen [`compare_screen`] compares comes from.
#[derive(Clone, Copy)]
pub enum Screen<'a> {
    /// A program's screen as it runs: compared once the program has settled and again after
    /// every change, for up to the timeout.
    Live(&'a Session),
    /// The last screen of a program that has ended: compared once.
    Final(&'a Snapshot),
}

impl Screen<'_> {
    fn settled(self) -> Snapshot {
        match self {
            Screen::Live(session) => session.settle(SETTLE_BEFORE_WRITING).term.snapshot(),
            Screen::Final(screen) => screen.clone(),
        }
    }

    /// The last screen checked and its difference from `expected`, or `None` once one
    /// matched.
    fn differing(self, expected: &Snapshot, timeout: Duration) -> Option<(Snapshot, Diff)> {
        let differs = |screen: Snapshot| {
            let d = diff(expected, &screen);
            (!d.is_empty()).then_some((screen, d))
        };
        match self {
            Screen::Final(screen) => differs(screen.clone()),
            Screen::Live(session) => {
                let mut last = None;
                let compared = until_passes(session, timeout, |term| {
                    last = differs(term.snapshot());
                    if last.is_some() { Err(()) } else { Ok(()) }
                });
                // Every failed check keeps its screen, so a failure always has one.
                compared.err().and(last)
            }
        }
    }
}

/// Compares `screen` with the golden at `golden`, cell by cell, giving a live one up to
/// `check.timeout` to come to match (checked once the program has settled and again after
/// every change). A difference fails with the cell report and leaves `NAME.actual.svg` and
/// `NAME.diff.svg` beside the golden. A missing golden, or any golden when `check.update` is
/// set, is written from the settled screen.
pub fn compare_screen(
    screen: Screen,
    golden: &Path,
    check: &ScreenCheck,
) -> Result<Verdict, Failure> {
    let format = screen_format(golden).map_err(Failure::new)?;
    let expected = match std::fs::read(golden) {
        Ok(_) if check.update => {
            write_screen(golden, &screen.settled(), format, check.appearance)
                .map_err(Failure::new)?;
            remove_stale_pictures(golden);
            return Ok(Verdict::Updated);
        }
        Ok(bytes) => {
            load_snapshot(&bytes).map_err(|e| Failure::new(format!("{}: {e}", golden.display())))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let screen = screen.settled();
            if check.missing_fails && !check.update {
                let actual = sibling(golden, "actual");
                write_screen(&actual, &screen, Format::Svg, check.appearance)
                    .map_err(Failure::new)?;
                return Err(Failure {
                    actual_svg: Some(actual.clone()),
                    ..Failure::new(format!(
                        "the golden {} does not exist, and missing goldens fail (CI is set): write it by updating the goldens (shotty --update, pytest --shotty-update, vitest or jest -u, UPDATE_GOLDEN=1 for the test APIs), review it and commit it (the screen is in {})",
                        golden.display(),
                        actual.display()
                    ))
                });
            }
            write_screen(golden, &screen, format, check.appearance).map_err(Failure::new)?;
            return Ok(Verdict::New);
        }
        Err(e) => {
            return Err(Failure::new(format!(
                "cannot read {}: {e}",
                golden.display()
            )));
        }
    };
    let Some((screen, d)) = screen.differing(&expected, check.timeout) else {
        remove_stale_pictures(golden);
        return Ok(Verdict::Matched);
    };
    let mut failure = Failure {
        expected: Some(Box::new(expected)),
        ..Failure::new(format!(
            "the screen differs from {} in {} cell(s):\n{d}",
            golden.display(),
            d.changed_cells()
        ))
    };
    let actual = sibling(golden, "actual");
    let marked = sibling(golden, "diff");
    let written = write_screen(&actual, &screen, Format::Svg, check.appearance).and_then(|()| {
        let svg = encode_highlighted(&screen, Format::Svg, check.appearance, &d.positions())
            .map_err(|e| e.to_string())?;
        write_file_creating_dir(&marked, &svg)
    });
    match written {
        Ok(()) => {
            failure.actual_svg = Some(actual);
            failure.diff_svg = Some(marked);
        }
        // The difference is the failure; a picture that could not be written is a note on it.
        Err(e) => failure.message.push_str(&format!("({e})\n")),
    }
    Err(failure)
}

/// Removes what an earlier failed comparison left beside `golden` (`NAME.actual.svg`,
/// `NAME.diff.svg`): once the screen matches again they show a difference that is gone.
fn remove_stale_pictures(golden: &Path) {
    for what in ["actual", "diff"] {
        // Absent is the usual case; one that cannot be removed is only left behind.
        let _ = std::fs::remove_file(sibling(golden, what));
    }
}

fn write_screen(
    path: &Path,
    screen: &Snapshot,
    format: Format,
    appearance: &Appearance,
) -> Result<(), String> {
    let bytes = encode(screen, format, appearance).map_err(|e| e.to_string())?;
    write_file_creating_dir(path, &bytes)
}

/// Compares `actual`, the bytes of a file shotty made (an SVG, a PNG, a snapshot), with the
/// golden at `golden`, byte for byte: any difference fails, reported by
/// [`describe_difference`]. A missing golden, or one that differs when `update` is set, is
/// written.
pub fn compare_bytes(golden: &Path, actual: &[u8], update: bool) -> Result<Verdict, String> {
    match std::fs::read(golden) {
        Ok(expected) if expected == actual => Ok(Verdict::Matched),
        Ok(_) if update => write_file_creating_dir(golden, actual).map(|()| Verdict::Updated),
        Ok(expected) => Err(format!(
            "{} differs from the output: {}",
            golden.display(),
            describe_difference(&expected, actual)
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            write_file_creating_dir(golden, actual).map(|()| Verdict::New)
        }
        Err(e) => Err(format!("cannot read {}: {e}", golden.display())),
    }
}

/// Bytes shown on each side of the first difference between two text files.
const CONTEXT: usize = 80;

/// How two versions of a file differ: the cell report when both carry a snapshot (an SVG's
/// `<metadata>`, JSON), and where the bytes first differ — in text with the bytes around it.
pub fn describe_difference(expected: &[u8], actual: &[u8]) -> String {
    let at = expected
        .iter()
        .zip(actual)
        .position(|(e, a)| e != a)
        .unwrap_or(expected.len().min(actual.len()));
    let sizes = format!("{} vs {} bytes", expected.len(), actual.len());
    let text = std::str::from_utf8(expected).is_ok() && std::str::from_utf8(actual).is_ok();
    if !text {
        return format!("{sizes}, the first difference at byte {at}");
    }
    let cells = match (load_snapshot(expected), load_snapshot(actual)) {
        (Ok(e), Ok(a)) => {
            let d = diff(&e, &a);
            if d.is_empty() {
                "the same cells: the rendering changed".to_owned()
            } else {
                d.to_string().trim_end().to_owned()
            }
        }
        _ => "no snapshot on both sides to compare cells".to_owned(),
    };
    let from = at.saturating_sub(CONTEXT);
    let show = |b: &[u8]| {
        String::from_utf8_lossy(&b[from.min(b.len())..(at + CONTEXT).min(b.len())]).into_owned()
    };
    format!(
        "{sizes}; {cells}\nfirst byte difference at {at}:\n  expected …{}…\n  actual   …{}…",
        show(expected),
        show(actual)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Terminal;

    fn svg(bytes: &[u8]) -> Vec<u8> {
        let mut t = Terminal::new(10, 2);
        t.advance(bytes);
        crate::to_svg(&t.snapshot(), &Appearance::default())
            .unwrap()
            .into_bytes()
    }

    #[test]
    fn siblings_sit_beside_the_golden() {
        assert_eq!(
            sibling(Path::new("g/vim.svg"), "actual"),
            Path::new("g/vim.actual.svg")
        );
        assert_eq!(
            sibling(Path::new("vim.json"), "diff"),
            Path::new("vim.diff.svg")
        );
        assert!(screen_format(Path::new("a.png")).is_err());
        assert_eq!(screen_format(Path::new("a.JSON")), Ok(Format::Json));
    }

    #[test]
    fn byte_goldens_are_written_compared_and_updated() {
        let dir = tempfile::tempdir().unwrap();
        let golden = dir.path().join("sub/x.svg");
        let (a, b) = (svg(b"ok"), svg(b"\x1b[31mok"));
        assert_eq!(compare_bytes(&golden, &a, false), Ok(Verdict::New));
        assert_eq!(std::fs::read(&golden).unwrap(), a);
        assert_eq!(compare_bytes(&golden, &a, true), Ok(Verdict::Matched));
        let report = compare_bytes(&golden, &b, false).unwrap_err();
        assert!(report.contains("2 cell(s) differ in 1 row(s)"), "{report}");
        assert!(report.contains("first byte difference at"), "{report}");
        // A failed comparison leaves the golden alone; an update rewrites it.
        assert_eq!(std::fs::read(&golden).unwrap(), a);
        assert_eq!(compare_bytes(&golden, &b, true), Ok(Verdict::Updated));
        assert_eq!(std::fs::read(&golden).unwrap(), b);
    }

    #[test]
    fn differences_are_described_for_text_and_binary() {
        let same_cells = describe_difference(b"<svg><metadata>x", b"<svg><metadata>y");
        assert!(
            same_cells.contains("no snapshot on both sides"),
            "{same_cells}"
        );
        assert!(
            same_cells.contains("first byte difference at 15"),
            "{same_cells}"
        );
        let binary = describe_difference(b"\x89PNG\xff\x00", b"\x89PNG\xfe");
        assert_eq!(binary, "6 vs 5 bytes, the first difference at byte 4");
        let a = svg(b"ok");
        let mut b = a.clone();
        b.extend_from_slice(b"\n");
        assert!(describe_difference(&a, &b).contains("the same cells: the rendering changed"));
    }
}
