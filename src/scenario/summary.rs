//! The JSON document a scenario run prints (SPEC §10): what ran, how each step went, and the
//! files it wrote.

use std::time::Instant;

use serde::Serialize;

/// The summary's schema version.
pub const SCHEMA_VERSION: u32 = 1;

/// How a run went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Every step passed.
    Ok,
    /// A step failed.
    Failed,
    /// The scenario could not run (a bad file, no working directory).
    Error,
}

/// How a step went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    /// It did what it should.
    Passed,
    /// It did not.
    Failed,
    /// An earlier step failed, so it did not run.
    Skipped,
    /// A `snapshot` whose golden did not exist wrote it.
    New,
    /// A `snapshot` rewrote its golden (`--update`).
    Updated,
}

/// One step's result.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepResult {
    /// Position in the run, from 0 (the launch counts as a step).
    pub index: usize,
    /// `prepare`, `execute`, `verify` or `teardown`.
    pub phase: &'static str,
    /// The step type (`launch` for starting the program).
    #[serde(rename = "type")]
    pub kind: String,
    /// The step's name, if the file gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The line of the file it is written on.
    pub line: u64,
    /// How it went.
    pub status: StepStatus,
    /// How long it took.
    pub duration_ms: u64,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What a written file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactKind {
    /// A `capture` step's image or text, or the actual screen of a failed snapshot.
    Capture,
    /// A golden file written or rewritten.
    Golden,
    /// A highlighted difference.
    Diff,
    /// The run's recording.
    Recording,
    /// A failure report.
    Report,
}

/// A file the run wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Artifact {
    /// Where.
    pub path: String,
    /// `svg`, `png`, `txt`, `json`, `cast`, `md`, `html`.
    pub format: String,
    /// What it is.
    pub kind: ArtifactKind,
}

/// The run's summary.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The scenario's name.
    pub name: String,
    /// The scenario file.
    pub file: String,
    /// How the run went.
    pub status: RunStatus,
    /// The session the program ran in.
    pub session_id: Option<String>,
    /// The program's exit code, when it exited by itself.
    pub exit_code: Option<i32>,
    /// How long the whole run took.
    pub duration_ms: u64,
    /// Every step, in order.
    pub steps: Vec<StepResult>,
    /// Every file written.
    pub artifacts: Vec<Artifact>,
    /// Why the scenario could not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Summary {
    /// A run that could not start (a bad file, no working directory).
    pub fn error(name: String, file: String, started: Instant, message: String) -> Summary {
        Summary {
            schema_version: SCHEMA_VERSION,
            name,
            file,
            status: RunStatus::Error,
            session_id: None,
            exit_code: None,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            steps: Vec::new(),
            artifacts: Vec::new(),
            error: Some(message),
        }
    }

    /// The process exit code for this run: 0 when every step passed, 1 when one failed, 2
    /// when the scenario could not run.
    pub fn exit_code(&self) -> i32 {
        match self.status {
            RunStatus::Ok => 0,
            RunStatus::Failed => 1,
            RunStatus::Error => 2,
        }
    }

    /// The first failed step.
    pub fn failed_step(&self) -> Option<&StepResult> {
        self.steps.iter().find(|s| s.status == StepStatus::Failed)
    }
}
