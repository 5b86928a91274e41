//! `shotty test`: every scenario file under some paths, run in parallel (each in a session of
//! its own, so runs share nothing), one line each as they finish, totals, and JUnit XML.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::document;
use super::report;
use super::runner::{self, AppearanceResolver, RunOptions};
use super::summary::{ArtifactKind, RunStatus, StepStatus, Summary};
use crate::render::svg::{xml_text, xml_value};

/// The file names `shotty test` runs: `*.scenario.yaml`, `*.scenario.yml`, `*.scenario.json`,
/// and VHS tapes (`*.tape`) that name a text output (their golden; see [`crate::tape::golden`]).
pub const SUFFIXES: [&str; 4] = [
    ".scenario.yaml",
    ".scenario.yml",
    ".scenario.json",
    TAPE_SUFFIX,
];

/// The suffix of VHS tapes.
const TAPE_SUFFIX: &str = ".tape";

/// Directories discovery never enters: build output, dependencies, reports, hidden ones.
const SKIPPED_DIRS: [&str; 3] = ["target", "node_modules", "shotty-report"];

/// How many directory levels discovery descends at most (a loop of links ends here).
const MAX_DEPTH: usize = 32;

/// Every scenario file under `paths`, sorted (a file named explicitly is taken whatever its
/// name). An error names a path that does not exist or cannot be read.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for path in paths {
        let meta =
            std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if meta.is_dir() {
            walk(path, 0, &mut found)?;
        } else {
            found.push(path.clone());
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_str()) {
                walk(&path, depth + 1, found)?;
            }
        } else if name.ends_with(TAPE_SUFFIX) {
            // A tape is a test when it names a text output; others make pictures.
            if is_tape_test(&path) {
                found.push(path);
            }
        } else if SUFFIXES.iter().any(|s| name.ends_with(s)) {
            found.push(path);
        }
    }
    Ok(())
}

/// One scenario's run in a suite.
#[derive(Debug)]
pub struct Outcome {
    /// The file.
    pub path: PathBuf,
    /// How it went (an unreadable file is a summary with status `error`).
    pub summary: Summary,
}

impl Outcome {
    /// The line `shotty test` prints for it.
    pub fn line(&self) -> String {
        let s = &self.summary;
        let seconds = s.duration_ms as f64 / 1000.0;
        let path = self.path.display();
        match s.status {
            RunStatus::Ok => {
                let new = s
                    .steps
                    .iter()
                    .filter(|st| matches!(st.status, StepStatus::New | StepStatus::Updated))
                    .count();
                if new > 0 {
                    format!("ok      {path} ({seconds:.2} s; {new} golden(s) written)")
                } else {
                    format!("ok      {path} ({seconds:.2} s)")
                }
            }
            RunStatus::Failed => {
                let why = s.failed_step().map_or_else(String::new, |st| {
                    format!(
                        ": step {} {} (line {}): {}",
                        st.index,
                        st.kind,
                        st.line,
                        st.message
                            .as_deref()
                            .and_then(|m| m.lines().next())
                            .unwrap_or("")
                            .trim_end_matches(':')
                    )
                });
                // Where to look next: the report's page, on a line of its own; without one
                // (a tape), the rest of the message.
                let report = match s
                    .artifacts
                    .iter()
                    .find(|a| a.kind == ArtifactKind::Report && a.path.ends_with(".html"))
                {
                    Some(a) => format!("\n        report: {}", a.path),
                    None => s
                        .failed_step()
                        .and_then(|st| st.message.as_deref())
                        .map(|m| {
                            m.lines()
                                .skip(1)
                                .map(|l| format!("\n        {l}"))
                                .collect::<String>()
                        })
                        .unwrap_or_default(),
                };
                format!("FAILED  {path} ({seconds:.2} s){why}{report}")
            }
            RunStatus::Error => format!(
                "ERROR   {path}: {}",
                s.error.as_deref().unwrap_or("cannot run")
            ),
        }
    }
}

/// Where a suite's scenario leaves its report: `root/<its path, as one name>/`, so two
/// scenarios of the same name in different directories do not share one.
pub fn report_dir(root: &Path, path: &Path) -> PathBuf {
    let mut name = path.to_string_lossy().into_owned();
    for suffix in SUFFIXES {
        if let Some(stripped) = name.strip_suffix(suffix) {
            name = stripped.to_owned();
        }
    }
    let name = name.trim_start_matches("./").replace(['/', '\\'], "_");
    root.join(report::dir_name(&name))
}

/// Runs `files` with up to `jobs` at once; `options.report` is the root of the reports
/// (each scenario's under [`report_dir`]). `done` is told of each as it finishes (from the
/// worker threads); the result is in `files` order.
pub fn run_all(
    files: &[PathBuf],
    jobs: usize,
    options: &RunOptions,
    resolve: AppearanceResolver,
    done: &(dyn Fn(&Outcome) + Sync),
) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(files.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, files.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(path) = files.get(i) else { break };
                    let outcome = run_one(path, options, resolve);
                    done(&outcome);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(outcome);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

/// Whether the tape at `path` names a text output (or does not parse, which its run then
/// reports).
fn is_tape_test(path: &Path) -> bool {
    use crate::tape::{CommandKind, OutputKind, parser};
    parser::parse_file(path).map_or(true, |commands| {
        commands.iter().any(|c| match &c.kind {
            CommandKind::Output(out) => OutputKind::of(out) == Ok(OutputKind::Text),
            _ => false,
        })
    })
}

/// A tape as a test: run, its text outputs compared with their goldens, as a summary of one
/// `golden` step per text output.
fn run_tape(path: &Path, options: &RunOptions) -> Summary {
    use super::summary::{Artifact, StepResult};
    use crate::tape::golden::{self, GoldenOptions, TextVerdict};
    let started = Instant::now();
    let name = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let file = path.display().to_string();
    let tape = match crate::tape::load(path) {
        Ok(tape) => tape,
        Err(e) => {
            let messages: Vec<String> = e.errors.iter().map(ToString::to_string).collect();
            return Summary::error(name, file, started, messages.join("\n"));
        }
    };
    let millis = |since: Instant| u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut steps = Vec::new();
    let mut artifacts = Vec::new();
    match crate::tape::runner::run(&tape) {
        Err(e) => steps.push(StepResult {
            index: 0,
            phase: "execute",
            kind: "tape".into(),
            name: None,
            line: u64::from(e.line),
            status: StepStatus::Failed,
            duration_ms: millis(started),
            message: Some(e.message),
        }),
        Ok(run) => {
            let golden_options = GoldenOptions {
                update: options.update,
                missing_fails: options.ci && !options.update,
            };
            for output in golden::text_outputs(&tape) {
                let checked = Instant::now();
                let (status, message) = match golden::check(output, &run, golden_options) {
                    TextVerdict::Matched => (StepStatus::Passed, None),
                    TextVerdict::Written => (StepStatus::New, None),
                    TextVerdict::Updated => (StepStatus::Updated, None),
                    TextVerdict::Failed(message) => (StepStatus::Failed, Some(message)),
                };
                if matches!(status, StepStatus::New | StepStatus::Updated) {
                    artifacts.push(Artifact {
                        path: output.path.display().to_string(),
                        format: "text".into(),
                        kind: ArtifactKind::Golden,
                    });
                }
                steps.push(StepResult {
                    index: steps.len(),
                    phase: "verify",
                    kind: "golden".into(),
                    name: Some(output.path.display().to_string()),
                    line: u64::from(output.at.line),
                    status,
                    duration_ms: millis(checked),
                    message,
                });
            }
        }
    }
    let failed = steps.iter().any(|s| s.status == StepStatus::Failed);
    Summary {
        schema_version: super::summary::SCHEMA_VERSION,
        name,
        file,
        status: if failed {
            RunStatus::Failed
        } else {
            RunStatus::Ok
        },
        session_id: None,
        exit_code: None,
        duration_ms: millis(started),
        steps,
        artifacts,
        error: None,
    }
}

fn run_one(path: &Path, options: &RunOptions, resolve: AppearanceResolver) -> Outcome {
    if path.to_string_lossy().ends_with(TAPE_SUFFIX) {
        return Outcome {
            path: path.to_owned(),
            summary: run_tape(path, options),
        };
    }
    let started = Instant::now();
    let checked = document::load(path)
        .and_then(|loaded| runner::check_appearances(&loaded, resolve).map(|()| loaded));
    let summary = match checked {
        Ok(loaded) => {
            let mut own = options.clone();
            own.report = options.report.as_ref().map(|root| report_dir(root, path));
            runner::run(&loaded, &own, resolve)
        }
        Err(e) => Summary::error(
            document::scenario_name(path),
            path.display().to_string(),
            started,
            e.to_string(),
        ),
    };
    Outcome {
        path: path.to_owned(),
        summary,
    }
}

/// The counts of a suite: passed, failed, errors.
pub fn totals(outcomes: &[Outcome]) -> (usize, usize, usize) {
    let count = |status| {
        outcomes
            .iter()
            .filter(|o| o.summary.status == status)
            .count()
    };
    (
        count(RunStatus::Ok),
        count(RunStatus::Failed),
        count(RunStatus::Error),
    )
}

/// The suite as JUnit XML (the schema Jenkins, GitLab and GitHub's reporters read): one
/// `<testcase>` per scenario, in the given order, a failed step as `<failure>`, a file that
/// cannot run as `<error>`.
pub fn junit(outcomes: &[Outcome], elapsed: Duration) -> String {
    let (_, failed, errors) = totals(outcomes);
    let seconds = |ms: u64| format!("{:.3}", ms as f64 / 1000.0);
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let head = format!(
        "tests=\"{}\" failures=\"{failed}\" errors=\"{errors}\" time=\"{:.3}\"",
        outcomes.len(),
        elapsed.as_secs_f64()
    );
    xml.push_str(&format!("<testsuites name=\"shotty\" {head}>\n"));
    xml.push_str(&format!(
        "  <testsuite name=\"shotty scenarios\" {head} skipped=\"0\">\n"
    ));
    for o in outcomes {
        let s = &o.summary;
        let file = o.path.display().to_string();
        let classname = file
            .trim_start_matches("./")
            .rsplit_once('/')
            .map_or("scenarios", |(dir, _)| dir)
            .replace('/', ".");
        xml.push_str(&format!(
            "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" time=\"{}\"",
            xml_value(&s.name),
            xml_value(&classname),
            xml_value(&file),
            seconds(s.duration_ms)
        ));
        match s.status {
            RunStatus::Ok => xml.push_str("/>\n"),
            RunStatus::Failed => {
                let (message, kind, detail) = match s.failed_step() {
                    Some(st) => (
                        format!("step {} {} (line {}) failed", st.index, st.kind, st.line),
                        st.kind.clone(),
                        st.message.clone().unwrap_or_default(),
                    ),
                    None => ("failed".to_owned(), "failure".to_owned(), String::new()),
                };
                let reports: Vec<&str> = s
                    .artifacts
                    .iter()
                    .filter(|a| a.path.ends_with("failure.md") || a.path.ends_with("trace.html"))
                    .map(|a| a.path.as_str())
                    .collect();
                xml.push_str(&format!(
                    ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                    xml_value(&message),
                    xml_value(&kind),
                    xml_text(&detail)
                ));
                if !reports.is_empty() {
                    xml.push_str(&format!(
                        "      <system-out>{}</system-out>\n",
                        xml_text(&format!("report: {}", reports.join(" ")))
                    ));
                }
                xml.push_str("    </testcase>\n");
            }
            RunStatus::Error => {
                xml.push_str(&format!(
                    ">\n      <error message=\"{}\" type=\"invalid\"/>\n    </testcase>\n",
                    xml_value(s.error.as_deref().unwrap_or("cannot run"))
                ));
            }
        }
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}
