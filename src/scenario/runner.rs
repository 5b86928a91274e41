//! Running a checked scenario through the session core: working directory, prepare, launch,
//! execute, stop, verify, teardown — one [`Session`] of the scenario's own (no host, so runs in
//! parallel share nothing), every step timed and reported in the [`Summary`].

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::document::{
    Action, AppearanceOptions, Check, ColorExpectation, Content, DocumentError, Loaded, Occurrence,
    Phase, PlannedStep, StyleExpectation,
};
use super::report::{self, Trace};
use super::summary::{Artifact, ArtifactKind, RunStatus, StepResult, StepStatus, Summary};
use crate::pty::{ColorEnvFlags, DEFAULT_GRACE};
use crate::render::{Appearance, Format, encode};
use crate::session::artifacts::write_file_creating_dir;
use crate::session::golden::{self, ScreenCheck, Verdict};
use crate::session::host::READ_SETTLE_MAX;
use crate::session::instance::local_session_id;
use crate::session::wait::{until_passes, wait};
use crate::session::{Session, SessionSpec, State, StopReason};
use crate::term::Snapshot;
use crate::term::{Color, ColorValue};

/// The terminal size when neither the file nor the caller gives one (console2svg's).
pub const DEFAULT_SIZE: (u16, u16) = (100, 24);
/// How long a `command` step may run.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);
/// How long the program may take to exit after the last execute step, unless the file or the
/// caller says (SPEC §10).
pub const DEFAULT_EXIT_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of a failing command's output a report keeps (its end).
const COMMAND_OUTPUT_KEPT: usize = 4096;

/// Builds an [`Appearance`] from appearance options, the outermost layer first (the
/// document's, the launch's, the step's). The command line owns the option names, so it
/// supplies this.
pub type AppearanceResolver<'a> =
    &'a (dyn Fn(&[AppearanceOptions]) -> Result<Appearance, String> + Sync);

/// How to run a scenario (the command line's options).
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Columns, overriding the file's.
    pub width: Option<u16>,
    /// Rows, overriding the file's.
    pub height: Option<u16>,
    /// The colour environment switches (`--no-colorenv`, `--no-delete-envs`).
    pub color_env: ColorEnvFlags,
    /// Rewrite goldens that differ (`--update`).
    pub update: bool,
    /// How long the program may take to exit after the execute steps (`--exit-timeout`),
    /// overriding the file's `options.exitTimeout`.
    pub exit_timeout: Option<Duration>,
    /// A missing golden fails instead of being written (set when `CI` is).
    pub ci: bool,
    /// Where a failed run leaves its report (`failure.md`, `trace.html`, …); `None` writes
    /// none.
    pub report: Option<PathBuf>,
}

/// Checks every appearance a scenario's captures and snapshots will use, before it runs.
pub fn check_appearances(
    loaded: &Loaded,
    resolve: AppearanceResolver,
) -> Result<(), DocumentError> {
    for (_, steps) in &loaded.phases {
        for step in steps {
            if let Some(layers) = step_appearance(loaded, step) {
                resolve(&layers).map_err(|message| DocumentError {
                    path: loaded.path.clone(),
                    line: Some(step.line).filter(|&l| l > 0),
                    message: format!("appearance: {message}"),
                })?;
            }
        }
    }
    Ok(())
}

/// The appearance layers of a capture or snapshot step.
fn step_appearance(loaded: &Loaded, step: &PlannedStep) -> Option<Vec<AppearanceOptions>> {
    let own = match &step.action {
        Action::Capture { appearance, .. } | Action::Snapshot { appearance, .. } => appearance,
        _ => return None,
    };
    let mut layers = base_appearance(loaded);
    layers.extend(own.iter().cloned());
    Some(layers)
}

/// The appearance layers every screen of a run starts from: the document's, the launch's.
fn base_appearance(loaded: &Loaded) -> Vec<AppearanceOptions> {
    let document = &loaded.document;
    let launch = &document.scenario.value.launch.value;
    document
        .options
        .appearance
        .iter()
        .chain(launch.options.appearance.iter())
        .map(|a| a.value.clone())
        .collect()
}

/// The terminal size: the caller's, else the launch's, else the document's, else
/// [`DEFAULT_SIZE`] (each side on its own).
fn terminal_size(loaded: &Loaded, options: &RunOptions) -> (u16, u16) {
    let document = &loaded.document;
    let launch = document
        .scenario
        .value
        .launch
        .value
        .options
        .terminal
        .as_ref();
    let whole = document.options.terminal.as_ref();
    let pick = |caller: Option<u16>,
                side: fn(&super::document::TerminalOptions) -> Option<u16>,
                default| {
        caller
            .or_else(|| launch.and_then(|t| side(&t.value)))
            .or_else(|| whole.and_then(|t| side(&t.value)))
            .unwrap_or(default)
    };
    (
        pick(options.width, |t| t.width, DEFAULT_SIZE.0),
        pick(options.height, |t| t.height, DEFAULT_SIZE.1),
    )
}

/// One run in progress.
struct Run<'a> {
    loaded: &'a Loaded,
    options: &'a RunOptions,
    resolve: AppearanceResolver<'a>,
    workdir: PathBuf,
    session: Option<Arc<Session>>,
    steps: Vec<StepResult>,
    artifacts: Vec<Artifact>,
    trace: Trace,
}

/// Runs a loaded scenario (its appearances already checked by [`check_appearances`]) and
/// reports every step. Never panics on what the program or the commands do.
pub fn run(loaded: &Loaded, options: &RunOptions, resolve: AppearanceResolver) -> Summary {
    let started = Instant::now();
    let mut temporary = None;
    let workdir = match working_dir(loaded, &mut temporary) {
        Ok(dir) => dir,
        Err(message) => {
            return Summary::error(
                loaded.name.clone(),
                loaded.path.display().to_string(),
                started,
                message,
            );
        }
    };
    let mut run = Run {
        loaded,
        options,
        resolve,
        workdir,
        session: None,
        steps: Vec::new(),
        artifacts: Vec::new(),
        trace: Trace::default(),
    };
    for (phase, steps) in &loaded.phases {
        match phase {
            Phase::Prepare | Phase::Verify | Phase::Teardown => {}
            Phase::Execute => {
                run.launch();
            }
        }
        for step in steps {
            // Teardown always runs; everything else stops at the first failure.
            if run.failed() && *phase != Phase::Teardown {
                run.skip(*phase, step.kind.name(), step.name.clone(), step.line);
            } else {
                run.step(*phase, step);
            }
        }
        if *phase == Phase::Execute {
            run.await_exit();
        }
    }
    let (session_id, exit_code) = match &run.session {
        Some(s) => {
            let live = s.lock();
            run.trace.recording = Some(live.recording.clone());
            (Some(s.id().to_owned()), live.exit_code)
        }
        None => (None, None),
    };
    drop(temporary);
    let failed = run.failed();
    let mut summary = Summary {
        schema_version: super::summary::SCHEMA_VERSION,
        name: loaded.name.clone(),
        file: loaded.path.display().to_string(),
        status: if failed {
            RunStatus::Failed
        } else {
            RunStatus::Ok
        },
        session_id,
        exit_code,
        duration_ms: millis(started.elapsed()),
        steps: std::mem::take(&mut run.steps),
        artifacts: std::mem::take(&mut run.artifacts),
        error: None,
    };
    match options.report.as_ref() {
        Some(dir) if failed => {
            let written = resolve(&base_appearance(loaded))
                .and_then(|appearance| report::write(dir, &summary, &run.trace, &appearance));
            match written {
                Ok(files) => summary.artifacts.extend(files),
                Err(e) => summary.error = Some(format!("the report was not written: {e}")),
            }
        }
        // A report of an earlier failure tells of a problem that is gone.
        Some(dir) => report::remove(dir),
        None => {}
    }
    summary
}

fn working_dir(
    loaded: &Loaded,
    temporary: &mut Option<tempfile::TempDir>,
) -> Result<PathBuf, String> {
    let dir = loaded.document.scenario.value.working_dir.as_ref();
    match dir.and_then(|d| d.value.path.as_ref()) {
        Some(path) => {
            let path = loaded.base.join(path);
            std::fs::create_dir_all(&path).map_err(|e| {
                format!(
                    "cannot create the working directory {}: {e}",
                    path.display()
                )
            })?;
            Ok(path)
        }
        None => {
            let dir = tempfile::Builder::new()
                .prefix("shotty-scenario-")
                .tempdir()
                .map_err(|e| format!("cannot create a temporary working directory: {e}"))?;
            let path = dir.path().to_owned();
            *temporary = Some(dir);
            Ok(path)
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The session id of a scenario run: its name (what of it is safe in an id) and a number.
fn session_id(name: &str) -> String {
    let short: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(32)
        .collect();
    local_session_id(&format!("scenario-{short}"))
}

impl Run<'_> {
    fn record(
        &mut self,
        phase: Phase,
        kind: &str,
        name: Option<String>,
        line: u64,
        duration: Duration,
        result: Result<StepStatus, String>,
    ) {
        let (status, message) = match result {
            Ok(status) => (status, None),
            Err(message) => (StepStatus::Failed, Some(message)),
        };
        self.steps.push(StepResult {
            index: self.steps.len(),
            phase: phase.name(),
            kind: kind.to_owned(),
            name,
            line,
            status,
            duration_ms: millis(duration),
            message,
        });
    }

    /// Whether a step has failed (the rest but teardown is then skipped).
    fn failed(&self) -> bool {
        self.steps.iter().any(|s| s.status == StepStatus::Failed)
    }

    fn skip(&mut self, phase: Phase, kind: &str, name: Option<String>, line: u64) {
        let skipped = Ok(StepStatus::Skipped);
        self.record(phase, kind, name, line, Duration::ZERO, skipped);
    }

    fn launch(&mut self) {
        let started = Instant::now();
        let launch = &self.loaded.document.scenario.value.launch;
        let line = launch.referenced.line();
        if self.failed() {
            self.skip(Phase::Execute, "launch", None, line);
            return;
        }
        let launch = &launch.value;
        let (width, height) = terminal_size(self.loaded, self.options);
        let mut command = vec![launch.executable.clone()];
        command.extend(launch.args.iter().cloned());
        let mut spec = SessionSpec::new(command, width, height);
        spec.cwd = Some(match &launch.cwd {
            Some(cwd) => self.workdir.join(cwd),
            None => self.workdir.clone(),
        });
        spec.env = launch
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        spec.color_env = self.options.color_env;
        let integrate = launch.shell_integration.as_ref().is_some_and(|s| s.value);
        let hooks = crate::session::paths::runtime_dir().join("shell-integration");
        let hooked = if integrate {
            crate::session::shell_integration::apply(&mut spec, &hooks)
        } else {
            Ok(())
        };
        let result = hooked
            .and_then(|()| Session::start(session_id(&self.loaded.name), spec))
            .map(|session| {
                self.session = Some(session);
                StepStatus::Passed
            })
            .map_err(|e| format!("cannot start {}: {}", launch.executable, e.message));
        self.record(
            Phase::Execute,
            "launch",
            None,
            line,
            started.elapsed(),
            result,
        );
        self.keep_screen();
    }

    /// The end of the execute phase (SPEC §10, as console2svg runs verify "after application
    /// exits"): the program must end by itself within the exit timeout, with status 0, or have
    /// been ended by a `stop` step. One still running then is stopped and the run fails; after
    /// a failed step it is stopped at once. Recorded as an `exit` step.
    fn await_exit(&mut self) {
        let line = self.loaded.document.scenario.value.launch.referenced.line();
        let session = match &self.session {
            Some(session) if !self.failed() => Arc::clone(session),
            session => {
                if let Some(session) = session {
                    let _ = session.stop(StopReason::User, DEFAULT_GRACE);
                }
                self.skip(Phase::Execute, "exit", None, line);
                return;
            }
        };
        let started = Instant::now();
        let limit = self
            .options
            .exit_timeout
            .or(self.loaded.exit_timeout)
            .unwrap_or(DEFAULT_EXIT_TIMEOUT);
        let result = exit_status(&session, limit);
        self.record(
            Phase::Execute,
            "exit",
            None,
            line,
            started.elapsed(),
            result,
        );
        self.keep_screen();
    }

    fn step(&mut self, phase: Phase, step: &PlannedStep) {
        let started = Instant::now();
        let result = self.perform(step);
        self.record(
            phase,
            step.kind.name(),
            step.name.clone(),
            step.line,
            started.elapsed(),
            result,
        );
        self.keep_screen();
    }

    /// Keeps the screen after the last recorded step for the report, once the program has
    /// reacted to the step: settled as `read` settles it.
    fn keep_screen(&mut self) {
        let index = self.steps.len() - 1;
        let screen = self
            .session
            .as_ref()
            .map(|s| s.settle(READ_SETTLE_MAX).term.snapshot());
        self.trace.screens.resize(index, None);
        self.trace.screens.push(screen);
    }

    fn session(&self) -> Result<&Arc<Session>, String> {
        self.session
            .as_ref()
            .ok_or_else(|| "the program is not running (launch failed)".to_owned())
    }

    fn perform(&mut self, step: &PlannedStep) -> Result<StepStatus, String> {
        match &step.action {
            Action::Command(command) => {
                run_command(command, &self.workdir).map(|()| StepStatus::Passed)
            }
            Action::Sleep(d) => {
                std::thread::sleep(*d);
                Ok(StepStatus::Passed)
            }
            Action::Wait(condition) => {
                let session = self.session()?;
                let outcome = wait(session, condition, &AtomicBool::new(false));
                match outcome.failure(condition, session) {
                    None => Ok(StepStatus::Passed),
                    Some(message) => Err(message),
                }
            }
            Action::WaitCommand {
                condition,
                exit_code,
            } => {
                let session = self.session()?;
                let outcome = wait(session, condition, &AtomicBool::new(false));
                if let Some(message) = outcome.failure(condition, session) {
                    return Err(message);
                }
                let live = session.lock();
                let command = live
                    .commands
                    .after_input(live.inputs)
                    .ok_or("the command that finished is no longer kept")?;
                match exit_code {
                    Some(code) if command.exit_code != Some(*code) => Err(format!(
                        "`{}` exited with {}, not {code}; its output ends:\n{}",
                        command.text,
                        command
                            .exit_code
                            .map_or_else(|| "no status".to_owned(), |c| c.to_string()),
                        last_lines(&command.output, 20)
                    )),
                    _ => Ok(StepStatus::Passed),
                }
            }
            Action::Send(steps) => {
                let session = self.session()?;
                session
                    .send(steps)
                    .map(|_| StepStatus::Passed)
                    .map_err(|e| e.message)
            }
            Action::Resize { width, height } => {
                let session = self.session()?;
                session
                    .resize(*width, *height)
                    .map(|()| StepStatus::Passed)
                    .map_err(|e| e.message)
            }
            Action::Mark(label) => {
                let session = self.session()?;
                session
                    .mark(label.clone())
                    .map(|_| StepStatus::Passed)
                    .map_err(|e| e.message)
            }
            Action::Stop => {
                let session = self.session()?;
                session
                    .stop(StopReason::User, DEFAULT_GRACE)
                    .map(|_| StepStatus::Passed)
                    .map_err(|e| e.message)
            }
            Action::Capture { output, .. } => {
                let snapshot = self.screen(Duration::from_secs(1))?;
                let appearance = self.appearance(step)?;
                let format = Format::from_path(output).ok_or("no format")?;
                let bytes = encode(&snapshot, format, &appearance).map_err(|e| e.to_string())?;
                write_file_creating_dir(output, &bytes)?;
                self.artifact(output, format.name(), ArtifactKind::Capture);
                Ok(StepStatus::Passed)
            }
            Action::Snapshot {
                golden, timeout, ..
            } => self.snapshot(step, golden, *timeout),
            Action::Assert { check, timeout } => {
                let session = Arc::clone(self.session()?);
                until_passes(&session, *timeout, |term| {
                    check_screen(check, &term.snapshot())
                })
                .map(|()| StepStatus::Passed)
            }
        }
    }

    /// The settled screen (at most `max` spent waiting for the program to settle).
    fn screen(&self, max: Duration) -> Result<Snapshot, String> {
        Ok(self.session()?.settle(max).term.snapshot())
    }

    fn appearance(&self, step: &PlannedStep) -> Result<Appearance, String> {
        let layers = step_appearance(self.loaded, step).unwrap_or_default();
        let mut appearance = (self.resolve)(&layers)?;
        if appearance.title.is_none() {
            let launch = &self.loaded.document.scenario.value.launch.value;
            let title = self
                .session
                .as_ref()
                .map(|s| s.lock().term.screen().title().to_owned())
                .filter(|t| !t.is_empty());
            appearance.title = Some(title.unwrap_or_else(|| {
                std::iter::once(launch.executable.as_str())
                    .chain(launch.args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ")
            }));
        }
        Ok(appearance)
    }

    fn artifact(&mut self, path: &Path, format: &str, kind: ArtifactKind) {
        self.artifacts.push(Artifact {
            path: path.display().to_string(),
            format: format.to_owned(),
            kind,
        });
    }

    /// The `snapshot` step: the screen against its golden, given `timeout` to come to match
    /// (the comparison is [`golden::compare_screen`]'s; this records what it left).
    fn snapshot(
        &mut self,
        step: &PlannedStep,
        golden: &Path,
        timeout: Duration,
    ) -> Result<StepStatus, String> {
        let session = Arc::clone(self.session()?);
        let appearance = self.appearance(step)?;
        let check = ScreenCheck {
            update: self.options.update,
            missing_fails: self.options.ci && !self.options.update,
            timeout,
            appearance: &appearance,
        };
        let format = golden::screen_format(golden)?.name();
        match golden::compare_screen(golden::Screen::Live(&session), golden, &check) {
            Ok(Verdict::Matched) => Ok(StepStatus::Passed),
            Ok(written) => {
                self.artifact(golden, format, ArtifactKind::Golden);
                Ok(if written == Verdict::New {
                    StepStatus::New
                } else {
                    StepStatus::Updated
                })
            }
            Err(failure) => {
                if let Some(expected) = failure.expected {
                    self.trace.expected = Some(*expected);
                }
                if let Some(actual) = &failure.actual_svg {
                    self.artifact(actual, "svg", ArtifactKind::Capture);
                }
                if let Some(marked) = &failure.diff_svg {
                    self.artifact(marked, "svg", ArtifactKind::Diff);
                }
                Err(failure.message)
            }
        }
    }
}

/// Waits (at most `limit`) for the program to end and judges how it ended: status 0 or a
/// `stop` step passes; another status, a signal, or still running (then stopped) fails.
fn exit_status(session: &Session, limit: Duration) -> Result<StepStatus, String> {
    let deadline = Instant::now() + limit;
    let mut live = session.lock();
    while !live.state.is_ended() && Instant::now() < deadline {
        live = session.wait_lifecycle(live, Some(deadline));
    }
    match (live.state, live.exit_code, &live.signal) {
        (State::Exited, Some(0), _) | (State::Stopped, ..) => Ok(StepStatus::Passed),
        (State::Exited, Some(code), _) => Err(format!(
            "the program exited with code {code}; a scenario's program must exit with 0"
        )),
        (State::Exited, None, Some(signal)) => Err(format!("the program was killed by {signal}")),
        (State::Exited | State::Unavailable, ..) => {
            Err("the program ended, and how is not known".into())
        }
        (State::Starting | State::Running | State::Stopping, ..) => {
            drop(live);
            let _ = session.stop(StopReason::User, DEFAULT_GRACE);
            Err(format!(
                "the program was still running {:.1} s after the last execute step, so it was \
                 stopped: end it in the scenario (`:wq`, `exit`, Ctrl+D, a `stop` step) or give \
                 it longer (--exit-timeout, options.exitTimeout)",
                limit.as_secs_f64()
            ))
        }
    }
}

/// Runs `sh -c command` in `dir`; an exit status other than 0 (or running past
/// [`COMMAND_TIMEOUT`]) is an error with the end of its output.
fn run_command(command: &str, dir: &Path) -> Result<(), String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run sh: {e}"))?;
    // Both pipes are read on threads so a chatty command never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut kept: Vec<u8> = Vec::new();
            if let Some(mut pipe) = pipe {
                let mut buf = [0u8; 8192];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    kept.extend_from_slice(&buf[..n]);
                    if kept.len() > 2 * COMMAND_OUTPUT_KEPT {
                        kept.drain(..kept.len() - COMMAND_OUTPUT_KEPT);
                    }
                }
            }
            kept
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + COMMAND_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Err(e) => return Err(format!("cannot wait for sh: {e}")),
        }
    };
    let output = |h: std::thread::JoinHandle<Vec<u8>>| {
        let bytes = h.join().unwrap_or_default();
        let start = bytes.len().saturating_sub(COMMAND_OUTPUT_KEPT);
        String::from_utf8_lossy(&bytes[start..])
            .trim_end()
            .to_owned()
    };
    let (out, err) = (output(stdout), output(stderr));
    let tail = || {
        let mut t = String::new();
        for (name, text) in [("stdout", &out), ("stderr", &err)] {
            if !text.is_empty() {
                t.push_str(&format!("\n{name}:\n{text}"));
            }
        }
        t
    };
    match status {
        None => Err(format!(
            "`{command}` ran longer than {} s and was killed{}",
            COMMAND_TIMEOUT.as_secs(),
            tail()
        )),
        Some(s) if s.success() => Ok(()),
        Some(s) => Err(format!(
            "`{command}` failed ({}){}",
            match s.code() {
                Some(code) => format!("exit code {code}"),
                None => "killed by a signal".to_owned(),
            },
            tail()
        )),
    }
}

/// Checks an `assert` against a screen; the error says what was expected and what is there.
fn check_screen(check: &Check, snapshot: &Snapshot) -> Result<(), String> {
    let rows: Vec<String> = snapshot.text().split('\n').map(str::to_owned).collect();
    let mut at: Option<(usize, usize)> = check
        .row
        .zip(check.col)
        .map(|(r, c)| (r as usize, c as usize));
    if let Some(content) = &check.content {
        let found = find(content, &rows, check.row, check.col);
        let picked = match check.occurrence {
            Occurrence::First => found.first(),
            Occurrence::Nth(n) => found.get(n - 1),
            Occurrence::Last => found.last(),
        };
        match picked {
            Some(&position) => at = Some(position),
            None => {
                let what = match content {
                    Content::Text(t) => format!("text {t:?}"),
                    Content::Regex(r) => format!("pattern /{}/", r.as_str()),
                };
                let what = match check.occurrence {
                    Occurrence::Nth(n) if !found.is_empty() => {
                        format!("occurrence {n} of {what} (there are {})", found.len())
                    }
                    _ => what,
                };
                let place = match (check.row, check.col) {
                    (Some(r), Some(c)) => format!(" at row {r}, column {c}"),
                    (Some(r), None) => format!(" on row {r}"),
                    _ => " on the screen".to_owned(),
                };
                let shown = match check.row {
                    Some(r) => format!(
                        "row {r} is {:?}",
                        rows.get(r as usize).map_or("(no such row)", String::as_str)
                    ),
                    None => format!("the screen is:\n{}", rows.join("\n")),
                };
                return Err(format!("expected {what}{place}; {shown}"));
            }
        }
    }
    if let Some(style) = &check.style {
        let (row, col) = at.ok_or("no cell to check the style of")?;
        let cell = cell_at(snapshot, row, col)
            .ok_or_else(|| format!("there is no cell at row {row}, column {col}"))?;
        let actual = snapshot
            .styles
            .get(cell.s as usize)
            .cloned()
            .unwrap_or_default();
        check_style(style, &actual)
            .map_err(|m| format!("the cell at row {row}, column {col} ({:?}): {m}", cell.t))?;
    }
    if let Some(cursor) = check.cursor {
        let c = &snapshot.cursor;
        if (c.row, c.col) != (cursor.row, cursor.col) {
            return Err(format!(
                "expected the cursor at row {}, column {}; it is at row {}, column {}",
                cursor.row, cursor.col, c.row, c.col
            ));
        }
    }
    Ok(())
}

/// The cell at `row` and column `col` (a column counts cells, wide characters two).
fn cell_at(snapshot: &Snapshot, row: usize, col: usize) -> Option<&crate::term::CellSnapshot> {
    snapshot.rows.get(row)?.cells.get(col)
}

/// Where `content` is, in screen order: (row, column) of the first character of each
/// occurrence, within `row` (and at `col`) when given. Columns count cells, so a match after a
/// wide character is where it is drawn.
fn find(
    content: &Content,
    rows: &[String],
    row: Option<u32>,
    col: Option<u32>,
) -> Vec<(usize, usize)> {
    let candidates = match row {
        Some(r) => r as usize..r as usize + 1,
        None => 0..rows.len(),
    };
    let mut found = Vec::new();
    for r in candidates {
        let Some(line) = rows.get(r) else {
            break;
        };
        let starts: Vec<usize> = match content {
            Content::Text(t) => line.match_indices(t.as_str()).map(|(i, _)| i).collect(),
            Content::Regex(re) => re.find_iter(line).map(|m| m.start()).collect(),
        };
        for byte in starts {
            let column = unicode_width::UnicodeWidthStr::width(&line[..byte]);
            if col.is_none_or(|c| c as usize == column) {
                found.push((r, column));
            }
        }
    }
    found
}

fn check_style(want: &StyleExpectation, got: &crate::term::StyleSnapshot) -> Result<(), String> {
    let mut wrong = Vec::new();
    let colour = |name: &str,
                  want: &Option<ColorExpectation>,
                  got: &Option<ColorValue>,
                  wrong: &mut Vec<String>| {
        let Some(want) = want else { return };
        let matches = match (want.color(), got) {
            (Ok(Color::Default), None) => true,
            (Ok(Color::Indexed(i)), Some(ColorValue::Index(g))) => i == *g,
            (Ok(Color::Rgb(r, g, b)), Some(ColorValue::Rgb(got))) => {
                format!("#{r:02x}{g:02x}{b:02x}").eq_ignore_ascii_case(got)
            }
            _ => false,
        };
        if !matches {
            let shown = match got {
                None => "default".to_owned(),
                Some(ColorValue::Index(i)) => i.to_string(),
                Some(ColorValue::Rgb(s)) => s.clone(),
            };
            let wanted = match want {
                ColorExpectation::Index(i) => i.to_string(),
                ColorExpectation::Named(n) => n.clone(),
            };
            wrong.push(format!("{name} is {shown}, not {wanted}"));
        }
    };
    colour("fg", &want.fg, &got.fg, &mut wrong);
    colour("bg", &want.bg, &got.bg, &mut wrong);
    let flags = [
        ("bold", want.bold, got.bold),
        ("dim", want.dim, got.dim),
        ("italic", want.italic, got.italic),
        ("underline", want.underline, got.underline.is_some()),
        ("inverse", want.inverse, got.inverse),
        ("strike", want.strike, got.strike),
        ("blink", want.blink, got.blink),
        ("hidden", want.hidden, got.hidden),
    ];
    for (name, want, got) in flags {
        if let Some(want) = want
            && want != got
        {
            wrong.push(format!("{name} is {got}, not {want}"));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join(", "))
    }
}

/// The last `n` lines of `text`, for a failure message.
fn last_lines(text: &str, n: usize) -> &str {
    let start = text
        .char_indices()
        .rev()
        .filter(|&(_, c)| c == '\n')
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i + 1);
    &text[start..]
}
