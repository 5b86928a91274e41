//! Pinned snapshots of every recorded fixture.
//!
//! Each fixture of `tests/fixtures/manifest.json` is replayed at its recorded size; the pretty
//! JSON of the schema-1 snapshot and the plain text are compared with
//! `tests/snapshots/<name>.json` / `.txt`. Fixtures that use the alternate screen are also
//! pinned just before their last alternate-screen exit (`<name>.alt.json` / `.txt`): that is
//! the TUI screen worth looking at.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test --test term fixtures_snapshots::` rewrites the files. Review
//! the `.txt` diff by eye: a pin of a wrong screen is a bug.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use shotty::term::{SCHEMA_VERSION, Snapshot, Terminal};

use crate::support::{self, Fixture, fixtures, last_alt_screen_exit};

fn snapshots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

fn updating() -> bool {
    support::updating("UPDATE_SNAPSHOTS")
}

/// One pinned screen: a fixture fed up to `len` bytes.
struct Case {
    /// File stem under `tests/snapshots/`.
    stem: String,
    fixture: Fixture,
    len: usize,
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for fixture in fixtures() {
        let alt = last_alt_screen_exit(&fixture.bytes);
        cases.push(Case {
            stem: fixture.name.clone(),
            len: fixture.bytes.len(),
            fixture: fixture.clone(),
        });
        if let Some(len) = alt {
            cases.push(Case {
                stem: format!("{}.alt", fixture.name),
                len,
                fixture,
            });
        }
    }
    cases
}

fn replay(fixture: &Fixture, len: usize) -> Terminal {
    let mut term = Terminal::new(fixture.width, fixture.height);
    term.advance(&fixture.bytes[..len]);
    term
}

/// Structural checks every snapshot must pass, whatever its content.
fn check_well_formed(stem: &str, term: &Terminal, snapshot: &Snapshot, json: &str) {
    assert_eq!(
        snapshot.schema_version, SCHEMA_VERSION,
        "{stem}: schema version"
    );
    assert_eq!(snapshot.width as usize, term.width(), "{stem}: width");
    assert_eq!(snapshot.height as usize, term.height(), "{stem}: height");
    assert_eq!(snapshot.rows.len(), term.height(), "{stem}: row count");
    for (i, row) in snapshot.rows.iter().enumerate() {
        assert_eq!(
            row.cells.len(),
            snapshot.width as usize,
            "{stem}: row {i} has {} cells, not {}",
            row.cells.len(),
            snapshot.width
        );
        let mut col = 0;
        while col < row.cells.len() {
            let cell = &row.cells[col];
            assert!(
                (cell.s as usize) < snapshot.styles.len(),
                "{stem}: row {i} col {col}: style {} out of range",
                cell.s
            );
            if let Some(l) = cell.l {
                assert!(
                    (l as usize) < snapshot.links.len(),
                    "{stem}: row {i} col {col}: link {l} out of range"
                );
            }
            match cell.w {
                1 => assert!(!cell.t.is_empty(), "{stem}: row {i} col {col}: empty text"),
                2 => {
                    let spacer = row.cells.get(col + 1);
                    assert!(
                        spacer.is_some_and(|s| s.w == 0 && s.t.is_empty()),
                        "{stem}: row {i} col {col}: wide cell without spacer"
                    );
                    col += 1;
                }
                w => panic!("{stem}: row {i} col {col}: stray cell of width {w}"),
            }
            col += 1;
        }
    }
    assert!(
        (snapshot.cursor.row as usize) < term.height()
            && (snapshot.cursor.col as usize) < term.width(),
        "{stem}: cursor outside the screen"
    );
    assert_eq!(
        snapshot.styles.first(),
        Some(&Default::default()),
        "{stem}: style 0"
    );
    let back: Snapshot = serde_json::from_str(json)
        .unwrap_or_else(|e| panic!("{stem}: snapshot does not deserialise: {e}"));
    assert_eq!(&back, snapshot, "{stem}: snapshot does not round-trip");
    assert_eq!(
        snapshot.text(),
        term.text(),
        "{stem}: Snapshot::text != Terminal::text"
    );
}

/// A readable report of how `actual` differs from `expected`: the first differing lines with
/// a little context.
fn diff_lines(what: &str, expected: &str, actual: &str) -> String {
    let exp: Vec<&str> = expected.lines().collect();
    let act: Vec<&str> = actual.lines().collect();
    let mut out = String::new();
    let mut shown = 0;
    for i in 0..exp.len().max(act.len()) {
        let (e, a) = (exp.get(i), act.get(i));
        if e == a {
            continue;
        }
        if shown == 0 {
            let _ = writeln!(out, "  {what}: first difference at line {}:", i + 1);
        }
        let _ = writeln!(
            out,
            "    line {:>4} expected: {:?}",
            i + 1,
            e.unwrap_or(&"<none>")
        );
        let _ = writeln!(
            out,
            "    line {:>4} actual:   {:?}",
            i + 1,
            a.unwrap_or(&"<none>")
        );
        shown += 1;
        if shown == 8 {
            let _ = writeln!(out, "    …");
            break;
        }
    }
    out
}

#[test]
fn fixture_snapshots_match() {
    let dir = snapshots_dir();
    let update = updating();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut failures = String::new();
    let mut pinned = Vec::new();
    for case in cases() {
        let term = replay(&case.fixture, case.len);
        let snapshot = term.snapshot();
        let mut json = serde_json::to_string_pretty(&snapshot).unwrap();
        json.push('\n');
        let mut text = term.text();
        text.push('\n');
        check_well_formed(&case.stem, &term, &snapshot, &json);

        let json_path = dir.join(format!("{}.json", case.stem));
        let text_path = dir.join(format!("{}.txt", case.stem));
        pinned.push(json_path.clone());
        pinned.push(text_path.clone());
        if update {
            std::fs::write(&json_path, &json).unwrap();
            std::fs::write(&text_path, &text).unwrap();
            continue;
        }
        let read = |p: &Path| std::fs::read_to_string(p).ok();
        let (Some(want_json), Some(want_text)) = (read(&json_path), read(&text_path)) else {
            let _ = writeln!(
                failures,
                "{}: no pinned snapshot ({}); run with UPDATE_SNAPSHOTS=1",
                case.stem,
                json_path.display()
            );
            continue;
        };
        if want_text != text || want_json != json {
            let _ = writeln!(
                failures,
                "{} ({}x{}, {} of {} bytes) differs from the pinned snapshot:",
                case.stem,
                case.fixture.width,
                case.fixture.height,
                case.len,
                case.fixture.bytes.len()
            );
            if want_text != text {
                failures.push_str(&diff_lines("text", &want_text, &text));
            } else {
                failures.push_str(&diff_lines("json (text is equal)", &want_json, &json));
            }
        }
    }
    // Pinned files nobody produces any more are stale.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !pinned.contains(&path) {
            if update {
                std::fs::remove_file(&path).unwrap();
            } else {
                let _ = writeln!(failures, "stale pinned file {}", path.display());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "snapshots differ (UPDATE_SNAPSHOTS=1 rewrites them; review the .txt diff):\n{failures}"
    );
}

/// The `.alt` pins exist to show the TUI screen, so none of them may be blank. (dialog leaves
/// the alternate screen right after entering it and draws on the primary one; its pin is still
/// the state before the last `CSI ? 1049 l` in the stream, as for every other fixture.)
#[test]
fn alternate_screen_pins_are_not_blank() {
    let mut alt_cases = 0;
    for case in cases().into_iter().filter(|c| c.stem.ends_with(".alt")) {
        let term = replay(&case.fixture, case.len);
        assert!(
            !term.text().trim().is_empty(),
            "{}: blank screen before the last alternate-screen exit",
            case.stem
        );
        alt_cases += 1;
    }
    assert!(alt_cases > 0, "no fixture leaves the alternate screen");
}

/// The stream split at every chunk size gives the same screen as feeding it at once.
#[test]
fn split_feeding_gives_the_same_snapshot() {
    for fixture in fixtures() {
        let whole = replay(&fixture, fixture.bytes.len()).snapshot();
        for chunk in [1, 7, 64] {
            let mut term = Terminal::new(fixture.width, fixture.height);
            for part in fixture.bytes.chunks(chunk) {
                term.advance(part);
            }
            assert!(
                term.snapshot() == whole,
                "{}: feeding in chunks of {chunk} bytes changes the snapshot",
                fixture.name
            );
        }
    }
}

#[test]
fn render_json_through_the_binary() {
    for fixture in fixtures() {
        let output = Command::new(env!("CARGO_BIN_EXE_shotty"))
            // No config file of the machine's: only what the test gives.
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .arg("render")
            .arg("--format")
            .arg("json")
            .arg("--width")
            .arg(fixture.width.to_string())
            .arg("--height")
            .arg(fixture.height.to_string())
            .arg(fixture.path())
            .output()
            .expect("run shotty");
        assert!(
            output.status.success(),
            "{}: shotty render failed: {}",
            fixture.name,
            String::from_utf8_lossy(&output.stderr)
        );
        let snapshot: Snapshot = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!(
                "{}: render output is not a schema-1 snapshot: {e}",
                fixture.name
            )
        });
        assert_eq!(snapshot.schema_version, 1, "{}", fixture.name);
        assert_eq!(snapshot.width as usize, fixture.width, "{}", fixture.name);
        assert_eq!(snapshot.height as usize, fixture.height, "{}", fixture.name);
        assert_eq!(snapshot.rows.len(), fixture.height, "{}", fixture.name);
        assert!(
            snapshot.rows.iter().all(|r| r.cells.len() == fixture.width),
            "{}: a row of the rendered snapshot is not {} cells wide",
            fixture.name,
            fixture.width
        );
        let library = replay(&fixture, fixture.bytes.len()).snapshot();
        assert!(
            snapshot == library,
            "{}: `shotty render --format json` differs from Terminal::snapshot",
            fixture.name
        );
    }
}

#[test]
fn every_recording_is_in_the_manifest() {
    let names: Vec<String> = fixtures().into_iter().map(|f| f.name).collect();
    for entry in std::fs::read_dir(support::fixtures_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "bin") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(
                names.contains(&stem),
                "{} is not in manifest.json",
                path.display()
            );
        }
    }
}
