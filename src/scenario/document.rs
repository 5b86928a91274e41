//! The console2svg ScenarioDocument v1 (SPEC §10) as typed data: read from YAML or JSON (one
//! YAML reader for both: JSON is YAML's flow style), then checked completely — every key,
//! step type, duration, key name, pattern and size — before anything runs, each problem
//! naming the file, the line and what was expected.
//!
//! Keys are camelCase as console2svg writes them; the kebab-case spelling (`stable-for`,
//! `working-dir`) is accepted too.
//!
//! The types derive their JSON Schema too ([`schema`]), so what editors and validators are told
//! is what this reader accepts.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::duration::parse_duration;
use crate::session::send::SendStep;
use crate::session::wait::{Target, Until, WaitCondition};
use crate::term::{ANSI_COLOR_NAMES, Color};

pub mod schema;

/// The format version this reader reads (`$version`).
pub const VERSION: u32 = 1;

/// The largest scenario file read (a scenario is a page of steps, not data).
pub const MAX_FILE_SIZE: u64 = 4 << 20;

/// A scenario file that cannot run: where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, when the problem has one.
    pub line: Option<u64>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for DocumentError {}

/// A whole scenario file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Document {
    /// The format version: 1.
    #[serde(rename = "$version")]
    #[schemars(schema_with = "schema::version")]
    pub version: Spanned<u32>,
    /// A name for reports (default: the file name without its extension).
    #[serde(default)]
    pub name: Option<String>,
    /// Options for the whole run.
    #[serde(default)]
    pub options: DocumentOptions,
    /// The phases.
    #[schemars(with = "Scenario")]
    pub scenario: Spanned<Scenario>,
}

/// The options of the whole run: the screen's ([`Options`]) and how long the program may take
/// to exit once the execute steps are done.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DocumentOptions {
    /// The terminal's size.
    #[serde(default)]
    #[schemars(with = "Option<TerminalOptions>")]
    pub terminal: Option<Spanned<TerminalOptions>>,
    /// Appearance options by the command line's long option names, as in [`Options`].
    #[serde(default)]
    #[schemars(schema_with = "schema::appearance")]
    pub appearance: Option<Spanned<AppearanceOptions>>,
    /// How long the program may take to exit after the last execute step (default 10 s); one
    /// still running then is stopped and the run fails. `--exit-timeout` overrides it.
    #[serde(default, alias = "exit-timeout")]
    #[schemars(with = "Option<DurationValue>")]
    pub exit_timeout: Option<Spanned<DurationValue>>,
}

/// Terminal and appearance options (of the launch or a capture).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// The terminal's size.
    #[serde(default)]
    #[schemars(with = "Option<TerminalOptions>")]
    pub terminal: Option<Spanned<TerminalOptions>>,
    /// Appearance options by the command line's long option names (`theme`, `window`,
    /// `fontsize`, …); a list gives an option several values.
    #[serde(default)]
    #[schemars(schema_with = "schema::appearance")]
    pub appearance: Option<Spanned<AppearanceOptions>>,
}

/// Appearance options as written: option name → value.
pub type AppearanceOptions = BTreeMap<String, serde_json::Value>;

/// A terminal size; either side may be left to the defaults.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerminalOptions {
    /// Columns.
    #[serde(default)]
    #[schemars(range(min = 1, max = crate::session::instance::MAX_SIZE))]
    pub width: Option<u16>,
    /// Rows.
    #[serde(default)]
    #[schemars(range(min = 1, max = crate::session::instance::MAX_SIZE))]
    pub height: Option<u16>,
}

/// The phases, in the order they run.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Scenario {
    /// Where prepare, the program and verify run (default: a temporary directory).
    #[serde(default, alias = "working-dir")]
    #[schemars(with = "Option<WorkingDir>")]
    pub working_dir: Option<Spanned<WorkingDir>>,
    /// Commands before the program starts.
    #[serde(default)]
    #[schemars(schema_with = "schema::prepare_steps")]
    pub prepare: Vec<Spanned<Step>>,
    /// The program.
    #[schemars(with = "Launch")]
    pub launch: Spanned<Launch>,
    /// Steps while the program runs.
    #[serde(default)]
    #[schemars(schema_with = "schema::execute_steps")]
    pub execute: Vec<Spanned<Step>>,
    /// Checks after the program has ended.
    #[serde(default)]
    #[schemars(schema_with = "schema::verify_steps")]
    pub verify: Vec<Spanned<Step>>,
    /// Commands that always run last.
    #[serde(default)]
    #[schemars(schema_with = "schema::teardown_steps")]
    pub teardown: Vec<Spanned<Step>>,
}

/// `working-dir`: a path (relative to the scenario file) or a temporary directory.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkingDir {
    /// This directory (created if missing).
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// A new temporary directory, removed after the run (the default).
    #[serde(default)]
    pub temporary: Option<bool>,
}

/// The program under test.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Launch {
    /// The program (looked up in `PATH`; no shell).
    pub executable: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Terminal (and appearance) options for this program.
    #[serde(default)]
    pub options: Options,
    /// Extra environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Its working directory, relative to the working directory.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Shell integration (OSC 133) for a bash, zsh or fish `executable`: `wait` steps can
    /// then wait for a `command` to finish (and check its exit code).
    #[serde(default, alias = "shell-integration")]
    #[schemars(with = "Option<bool>")]
    pub shell_integration: Option<Spanned<bool>>,
}

/// One step as written: its type and whatever keys the type takes (checked by
/// [`Step::action`]).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// What the step does.
    #[serde(rename = "type")]
    pub kind: StepKind,
    /// A name for reports.
    #[serde(default)]
    pub name: Option<String>,
    /// The step's arguments (`wait`, `resize`, `capture`, `snapshot`, `assert`, `sleep`,
    /// `mark`).
    #[serde(default)]
    pub args: Option<StepArgs>,
    /// The input of a `send`.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub inputs: Option<Vec<SendStep>>,
    /// The shell command of a `command` step.
    #[serde(default)]
    #[schemars(regex(pattern = r"\S"))]
    pub command: Option<String>,
    /// Appearance options of a `capture` or `snapshot`.
    #[serde(default)]
    pub options: Option<Options>,
}

/// The step types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StepKind {
    /// Wait for a screen condition.
    Wait,
    /// Type, press keys, paste, or send bytes.
    Send,
    /// Resize the terminal.
    Resize,
    /// Write the screen to a file.
    Capture,
    /// Run a shell command (`sh -c`) in the working directory.
    Command,
    /// Compare the screen with a golden file.
    Snapshot,
    /// Check text, a pattern, a style or the cursor on the screen.
    Assert,
    /// Pause.
    Sleep,
    /// Add a marker to the recording.
    Mark,
    /// Stop the program as `session stop` does (it has then ended as the scenario meant).
    Stop,
}

impl StepKind {
    /// Every step type.
    pub const ALL: [StepKind; 10] = [
        StepKind::Wait,
        StepKind::Send,
        StepKind::Resize,
        StepKind::Capture,
        StepKind::Command,
        StepKind::Snapshot,
        StepKind::Assert,
        StepKind::Sleep,
        StepKind::Mark,
        StepKind::Stop,
    ];

    /// What a step of this type takes besides `type` and `name`. [`Step::action`] refuses any
    /// other key or argument, and the JSON Schema is written from the same table, so the two
    /// cannot disagree; what a type cannot do without the reader checks in its own words, and
    /// the tests hold the table's `required` lists to it.
    pub fn keys(self) -> StepKeys {
        match self {
            StepKind::Wait => StepKeys {
                keys: &["args"],
                required: &["args"],
                args: &[
                    "text",
                    "regex",
                    "until",
                    "stableFor",
                    "timeout",
                    "idle",
                    "exit",
                    "command",
                ],
                required_args: &[],
            },
            StepKind::Send => StepKeys {
                keys: &["inputs"],
                required: &["inputs"],
                args: &[],
                required_args: &[],
            },
            StepKind::Resize => StepKeys {
                keys: &["args"],
                required: &["args"],
                args: &["width", "height"],
                required_args: &["width", "height"],
            },
            StepKind::Capture => StepKeys {
                keys: &["args", "options"],
                required: &["args"],
                args: &["output"],
                required_args: &["output"],
            },
            StepKind::Command => StepKeys {
                keys: &["command"],
                required: &["command"],
                args: &[],
                required_args: &[],
            },
            StepKind::Snapshot => StepKeys {
                keys: &["args", "options"],
                required: &["args"],
                args: &["golden", "timeout"],
                required_args: &["golden"],
            },
            StepKind::Assert => StepKeys {
                keys: &["args"],
                required: &["args"],
                args: &[
                    "text", "regex", "nth", "last", "row", "col", "style", "cursor", "timeout",
                ],
                required_args: &[],
            },
            StepKind::Sleep => StepKeys {
                keys: &["args"],
                required: &["args"],
                args: &["duration"],
                required_args: &["duration"],
            },
            StepKind::Mark => StepKeys {
                keys: &["args"],
                required: &[],
                args: &["label"],
                required_args: &[],
            },
            StepKind::Stop => StepKeys {
                keys: &[],
                required: &[],
                args: &[],
                required_args: &[],
            },
        }
    }

    /// The name written in files.
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Wait => "wait",
            StepKind::Send => "send",
            StepKind::Resize => "resize",
            StepKind::Capture => "capture",
            StepKind::Command => "command",
            StepKind::Snapshot => "snapshot",
            StepKind::Assert => "assert",
            StepKind::Sleep => "sleep",
            StepKind::Mark => "mark",
            StepKind::Stop => "stop",
        }
    }
}

/// What a step type takes besides `type` and `name` ([`StepKind::keys`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepKeys {
    /// Its keys (`args`, `inputs`, `command`, `options`).
    pub keys: &'static [&'static str],
    /// Those of its keys a step of the type cannot do without.
    pub required: &'static [&'static str],
    /// The names its `args` may have.
    pub args: &'static [&'static str],
    /// Those of its `args` it cannot do without.
    pub required_args: &'static [&'static str],
}

/// Every argument any step takes; [`Step::action`] checks which ones its type allows.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StepArgs {
    /// Literal text (`wait`, `assert`).
    pub text: Option<String>,
    /// A regular expression (`wait`, `assert`).
    pub regex: Option<String>,
    /// `present` or `absent` (`wait`).
    pub until: Option<Until>,
    /// How long the condition must hold (`wait`).
    #[serde(alias = "stable-for")]
    pub stable_for: Option<DurationValue>,
    /// How long to wait before failing (`wait`, `snapshot`, `assert`).
    pub timeout: Option<DurationValue>,
    /// The screen unchanged this long (`wait`).
    pub idle: Option<DurationValue>,
    /// The program has ended (`wait`).
    pub exit: Option<bool>,
    /// A finished shell command (`wait`; needs shell integration): `true` or
    /// `{exitCode: N}`.
    #[schemars(schema_with = "schema::wait_command")]
    pub command: Option<serde_json::Value>,
    /// Columns (`resize`).
    #[schemars(range(min = 1, max = crate::session::instance::MAX_SIZE))]
    pub width: Option<u16>,
    /// Rows (`resize`).
    #[schemars(range(min = 1, max = crate::session::instance::MAX_SIZE))]
    pub height: Option<u16>,
    /// The file to write (`capture`), relative to the scenario file.
    pub output: Option<PathBuf>,
    /// The golden file (`snapshot`), relative to the scenario file.
    pub golden: Option<PathBuf>,
    /// Which occurrence of the text or pattern, counted from 1 in screen order (`assert`;
    /// the first by default).
    #[schemars(range(min = 1))]
    pub nth: Option<usize>,
    /// The last occurrence of the text or pattern (`assert`): the program's answer rather
    /// than the command line that asked for it.
    pub last: Option<bool>,
    /// A 0-based row (`assert`).
    pub row: Option<u32>,
    /// A 0-based column (`assert`).
    pub col: Option<u32>,
    /// The style the cell must have (`assert`).
    pub style: Option<StyleExpectation>,
    /// Where the cursor must be (`assert`).
    pub cursor: Option<CursorExpectation>,
    /// How long (`sleep`).
    pub duration: Option<DurationValue>,
    /// The marker's label (`mark`).
    pub label: Option<String>,
}

/// A duration as written: a string with a unit (`500ms`, `2s`, `3m`) or a number of seconds.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum DurationValue {
    /// Seconds.
    Seconds(#[schemars(range(min = 0, max = crate::duration::MAX_DURATION.as_secs()))] f64),
    /// With a unit.
    Text(#[schemars(regex(pattern = schema::DURATION_PATTERN))] String),
}

impl DurationValue {
    fn to_duration(&self) -> Result<Duration, String> {
        match self {
            DurationValue::Text(s) => parse_duration(s),
            DurationValue::Seconds(n) => parse_duration(&n.to_string()),
        }
    }
}

/// The style an `assert` expects; only the attributes given are checked.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StyleExpectation {
    /// Foreground: a palette index 0–255, an ANSI colour name (`red`, `bright-blue`),
    /// `#rrggbb`, or `default`.
    pub fg: Option<ColorExpectation>,
    /// Background, as `fg`.
    pub bg: Option<ColorExpectation>,
    /// Bold.
    pub bold: Option<bool>,
    /// Dim.
    pub dim: Option<bool>,
    /// Italic.
    pub italic: Option<bool>,
    /// Underlined (any style).
    pub underline: Option<bool>,
    /// Inverse video.
    pub inverse: Option<bool>,
    /// Struck through.
    pub strike: Option<bool>,
    /// Blinking.
    pub blink: Option<bool>,
    /// Hidden.
    pub hidden: Option<bool>,
}

/// A colour an `assert` expects.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(untagged)]
pub enum ColorExpectation {
    /// A palette index.
    Index(u8),
    /// An ANSI colour name (`red`, `bright-blue`), `#rrggbb` or `default`.
    Named(#[schemars(regex(pattern = schema::COLOR_PATTERN))] String),
}

/// Where an `assert` expects the cursor (0-based).
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CursorExpectation {
    /// Row.
    pub row: u32,
    /// Column.
    pub col: u32,
}

/// A step checked and ready to run.
#[derive(Debug)]
pub enum Action {
    /// Wait for a condition.
    Wait(WaitCondition),
    /// Wait for a shell command to finish after the last input (shell integration), and
    /// check its exit code when one is expected.
    WaitCommand {
        /// The wait (its target is [`Target::Command`]).
        condition: WaitCondition,
        /// The exit code it must have.
        exit_code: Option<i32>,
    },
    /// Send input.
    Send(Vec<SendStep>),
    /// Resize.
    Resize {
        /// Columns.
        width: u16,
        /// Rows.
        height: u16,
    },
    /// Write the screen to `output` (resolved against the scenario's directory).
    Capture {
        /// The file.
        output: PathBuf,
        /// Appearance options for this capture.
        appearance: Vec<AppearanceOptions>,
    },
    /// A shell command.
    Command(String),
    /// Compare with a golden file.
    Snapshot {
        /// The golden file (resolved).
        golden: PathBuf,
        /// How long the screen may take to match.
        timeout: Duration,
        /// Appearance options for the golden and the diff images.
        appearance: Vec<AppearanceOptions>,
    },
    /// Check the screen.
    Assert {
        /// What to check.
        check: Check,
        /// How long the screen may take to pass.
        timeout: Duration,
    },
    /// Pause.
    Sleep(Duration),
    /// A marker.
    Mark(String),
    /// Stop the program.
    Stop,
}

/// Which occurrence of its text an `assert` looks at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Occurrence {
    /// The first, in screen order.
    #[default]
    First,
    /// The n-th, counted from 1.
    Nth(usize),
    /// The last.
    Last,
}

/// What an `assert` checks.
#[derive(Debug)]
pub struct Check {
    /// Text or a pattern that must be on the screen (at `row`, starting at `col`, if given).
    pub content: Option<Content>,
    /// Which of its occurrences.
    pub occurrence: Occurrence,
    /// A 0-based row to look in.
    pub row: Option<u32>,
    /// A 0-based column the text must start at (with `row`) or the cell whose style is
    /// checked.
    pub col: Option<u32>,
    /// The style of the first cell of the match (or of the cell at `row`/`col`).
    pub style: Option<StyleExpectation>,
    /// The cursor position.
    pub cursor: Option<CursorExpectation>,
}

/// Text or a compiled pattern.
#[derive(Debug)]
pub enum Content {
    /// A literal.
    Text(String),
    /// A pattern.
    Regex(Regex),
}

/// How long a `wait` waits when the step gives no timeout: a scenario is a test, and a test
/// that can hang forever is worse than one that fails.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a `snapshot` or `assert` lets the screen settle into passing.
pub const DEFAULT_CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// Where the phases' steps may appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Before launch: commands only.
    Prepare,
    /// While the program runs: every step.
    Execute,
    /// After the program ended: commands and checks of the last screen.
    Verify,
    /// Always last: commands only.
    Teardown,
}

impl Phase {
    /// Every phase with steps, in the order they run.
    pub const ALL: [Phase; 4] = [
        Phase::Prepare,
        Phase::Execute,
        Phase::Verify,
        Phase::Teardown,
    ];

    /// The phase's name in files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Prepare => "prepare",
            Phase::Execute => "execute",
            Phase::Verify => "verify",
            Phase::Teardown => "teardown",
        }
    }

    /// Whether a step of type `kind` may be in this phase.
    pub fn allows(self, kind: StepKind) -> bool {
        match self {
            Phase::Prepare | Phase::Teardown => kind == StepKind::Command,
            Phase::Execute => true,
            Phase::Verify => matches!(
                kind,
                StepKind::Command | StepKind::Assert | StepKind::Snapshot | StepKind::Capture
            ),
        }
    }
}

impl Step {
    /// Checks the step for `phase` and turns it into what runs; `base` resolves relative
    /// paths. The error says what the step type takes.
    pub fn action(&self, phase: Phase, base: &Path) -> Result<Action, String> {
        let kind = self.kind;
        if !phase.allows(kind) {
            return Err(format!(
                "a `{}` step cannot be in {} (it takes {})",
                kind.name(),
                phase.name(),
                match phase {
                    Phase::Prepare | Phase::Teardown => "`command` steps",
                    Phase::Verify => "`command`, `assert`, `snapshot` and `capture` steps",
                    Phase::Execute => "every step",
                }
            ));
        }
        let takes = |keys: &[&str]| -> Result<(), String> {
            let given = [
                ("args", self.args.is_some()),
                ("inputs", self.inputs.is_some()),
                ("command", self.command.is_some()),
                ("options", self.options.is_some()),
            ];
            for (key, present) in given {
                if present && !keys.contains(&key) {
                    return Err(format!(
                        "a `{}` step takes {}, not `{key}`",
                        kind.name(),
                        if keys.is_empty() {
                            "no keys but `type` and `name`".to_owned()
                        } else {
                            keys.iter()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    ));
                }
            }
            Ok(())
        };
        let shape = kind.keys();
        takes(shape.keys)?;
        let empty = StepArgs::default();
        let args = self.args.as_ref().unwrap_or(&empty);
        args.only(kind, shape.args)?;
        let appearance = || {
            self.options
                .iter()
                .filter_map(|o| o.appearance.as_ref().map(|a| a.value.clone()))
                .collect::<Vec<_>>()
        };
        match kind {
            StepKind::Wait if args.command.is_some() => wait_command(args),
            StepKind::Wait => Ok(Action::Wait(wait_condition(args)?)),
            StepKind::Send => {
                let inputs = self.inputs.as_ref().filter(|i| !i.is_empty()).ok_or(
                    "a `send` step needs `inputs`: a list of {text}, {keys}, {paste}, {rawHex}, {mouse} or {delay}",
                )?;
                let steps: Vec<SendStep> = inputs.clone();
                // Key names, hex digits and mouse steps are checked now; the bytes are
                // encoded for the modes the program has when the step runs.
                SendStep::check_all(&steps).map_err(|e| e.message)?;
                Ok(Action::Send(steps))
            }
            StepKind::Resize => {
                let (Some(width), Some(height)) = (args.width, args.height) else {
                    return Err("a `resize` step needs `args: {width, height}`".into());
                };
                check_size(width, height)?;
                Ok(Action::Resize { width, height })
            }
            StepKind::Capture => {
                let output = args.output.as_ref().ok_or(
                    "a `capture` step needs `args: {output: FILE}` (.svg, .png, .txt or .json)",
                )?;
                if crate::render::Format::from_path(output).is_none() {
                    return Err(format!(
                        "cannot tell the format of {} from its extension (.svg, .png, .txt or .json)",
                        output.display()
                    ));
                }
                Ok(Action::Capture {
                    output: base.join(output),
                    appearance: appearance(),
                })
            }
            StepKind::Command => {
                let command = self
                    .command
                    .as_ref()
                    .filter(|c| !c.trim().is_empty())
                    .ok_or("a `command` step needs `command: \"…\"` (run by sh -c)")?;
                Ok(Action::Command(command.clone()))
            }
            StepKind::Snapshot => {
                let golden = args
                    .golden
                    .as_ref()
                    .ok_or("a `snapshot` step needs `args: {golden: FILE}` (.svg or .json)")?;
                let ext = golden.extension().and_then(|e| e.to_str());
                if !matches!(ext, Some("svg" | "json")) {
                    return Err(format!(
                        "a golden file is .svg or .json, not {}",
                        golden.display()
                    ));
                }
                Ok(Action::Snapshot {
                    golden: base.join(golden),
                    timeout: timeout(args, DEFAULT_CHECK_TIMEOUT)?,
                    appearance: appearance(),
                })
            }
            StepKind::Assert => {
                let content = match (&args.text, &args.regex) {
                    (Some(_), Some(_)) => {
                        return Err("an `assert` takes `text` or `regex`, not both".into());
                    }
                    (Some(t), None) => Some(Content::Text(t.clone())),
                    (None, Some(r)) => Some(Content::Regex(regex(r)?)),
                    (None, None) => None,
                };
                if content.is_none() && args.style.is_none() && args.cursor.is_none() {
                    return Err("an `assert` needs `text`, `regex`, `style` or `cursor`".into());
                }
                if content.is_none()
                    && args.style.is_some()
                    && (args.row.is_none() || args.col.is_none())
                {
                    return Err(
                        "an `assert` of a `style` needs the `text` it is on, or `row` and `col`"
                            .into(),
                    );
                }
                if let Some(style) = &args.style {
                    style.check()?;
                }
                let occurrence = match (args.nth, args.last.unwrap_or(false)) {
                    (Some(_), true) => {
                        return Err("an `assert` takes `nth` or `last`, not both".into());
                    }
                    (Some(0), false) => return Err("`nth` counts from 1".into()),
                    (Some(n), false) => Occurrence::Nth(n),
                    (None, true) => Occurrence::Last,
                    (None, false) => Occurrence::First,
                };
                if occurrence != Occurrence::First && content.is_none() {
                    return Err("`nth` and `last` go with `text` or `regex`".into());
                }
                Ok(Action::Assert {
                    check: Check {
                        content,
                        occurrence,
                        row: args.row,
                        col: args.col,
                        style: args.style.clone(),
                        cursor: args.cursor,
                    },
                    timeout: timeout(args, DEFAULT_CHECK_TIMEOUT)?,
                })
            }
            StepKind::Sleep => {
                let duration = args
                    .duration
                    .as_ref()
                    .ok_or("a `sleep` step needs `args: {duration: 500ms}`")?;
                Ok(Action::Sleep(duration.to_duration()?))
            }
            StepKind::Mark => Ok(Action::Mark(args.label.clone().unwrap_or_default())),
            StepKind::Stop => Ok(Action::Stop),
        }
    }
}

impl StepArgs {
    /// Refuses arguments a step of `kind` does not take, naming the ones it does.
    fn only(&self, kind: StepKind, allowed: &[&str]) -> Result<(), String> {
        let given = [
            ("text", self.text.is_some()),
            ("regex", self.regex.is_some()),
            ("until", self.until.is_some()),
            ("stableFor", self.stable_for.is_some()),
            ("timeout", self.timeout.is_some()),
            ("idle", self.idle.is_some()),
            ("exit", self.exit.is_some()),
            ("command", self.command.is_some()),
            ("width", self.width.is_some()),
            ("height", self.height.is_some()),
            ("output", self.output.is_some()),
            ("golden", self.golden.is_some()),
            ("nth", self.nth.is_some()),
            ("last", self.last.is_some()),
            ("row", self.row.is_some()),
            ("col", self.col.is_some()),
            ("style", self.style.is_some()),
            ("cursor", self.cursor.is_some()),
            ("duration", self.duration.is_some()),
            ("label", self.label.is_some()),
        ];
        match given
            .iter()
            .find(|(k, present)| *present && !allowed.contains(k))
        {
            Some((key, _)) => Err(format!(
                "a `{}` step's args are {}, not `{key}`",
                kind.name(),
                allowed
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => Ok(()),
        }
    }
}

impl StyleExpectation {
    fn check(&self) -> Result<(), String> {
        for colour in [&self.fg, &self.bg].into_iter().flatten() {
            colour.check()?;
        }
        Ok(())
    }
}

impl ColorExpectation {
    /// The colour it names.
    pub fn color(&self) -> Result<Color, String> {
        match self {
            ColorExpectation::Index(i) => Ok(Color::Indexed(*i)),
            ColorExpectation::Named(s) => Color::parse(s).filter(|_| !is_number(s)).ok_or_else(|| {
                format!(
                    "a colour is a palette index 0-255, a name ({}), #rrggbb or default, not {s:?}",
                    ANSI_COLOR_NAMES.join(", ")
                )
            }),
        }
    }

    fn check(&self) -> Result<(), String> {
        self.color().map(drop)
    }
}

/// Whether `text` is all digits: an index is written as a number, not a string.
fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn regex(pattern: &str) -> Result<Regex, String> {
    match WaitCondition::regex(pattern) {
        Ok(Target::Regex(r)) => Ok(r),
        Ok(_) => Err("not a pattern".into()),
        Err(e) => Err(e.message),
    }
}

fn timeout(args: &StepArgs, default: Duration) -> Result<Duration, String> {
    args.timeout
        .as_ref()
        .map_or(Ok(default), DurationValue::to_duration)
}

/// A `wait` for a finished shell command: `command: true`, or `command: {exitCode: N}` to
/// require its exit code too.
fn wait_command(args: &StepArgs) -> Result<Action, String> {
    use serde_json::Value;
    let others = [
        args.text.is_some(),
        args.regex.is_some(),
        args.idle.is_some(),
        args.exit.is_some(),
        args.until.is_some(),
    ];
    if others.contains(&true) {
        return Err("a `wait` for a `command` takes only `timeout` and `stableFor` with it".into());
    }
    let exit_code = match &args.command {
        Some(Value::Bool(true)) => None,
        Some(Value::Object(o)) if o.len() == 1 => match o.get("exitCode").or(o.get("exit-code")) {
            Some(code) => Some(
                code.as_i64()
                    .and_then(|c| i32::try_from(c).ok())
                    .ok_or("`exitCode` is a whole number")?,
            ),
            None => return Err("`command` takes `{exitCode: N}`".into()),
        },
        _ => {
            return Err(
                "`command` is `true` (the next command to finish) or `{exitCode: N}`".into(),
            );
        }
    };
    Ok(Action::WaitCommand {
        condition: timed_wait(Target::Command, Until::Present, args)?,
        exit_code,
    })
}

/// A wait for `target` with the step's `stableFor` and `timeout`.
fn timed_wait(target: Target, until: Until, args: &StepArgs) -> Result<WaitCondition, String> {
    Ok(WaitCondition {
        target,
        until,
        stable_for: args
            .stable_for
            .as_ref()
            .map(DurationValue::to_duration)
            .transpose()?,
        timeout: Some(timeout(args, DEFAULT_WAIT_TIMEOUT)?),
        fresh: false,
    })
}

fn wait_condition(args: &StepArgs) -> Result<WaitCondition, String> {
    let mut targets = Vec::new();
    if let Some(text) = &args.text {
        if text.is_empty() {
            return Err("`text` to wait for is empty".into());
        }
        targets.push(Target::Text(text.clone()));
    }
    if let Some(pattern) = &args.regex {
        targets.push(Target::Regex(regex(pattern)?));
    }
    if let Some(idle) = &args.idle {
        targets.push(Target::Idle(idle.to_duration()?));
    }
    match args.exit {
        Some(true) => targets.push(Target::Exit),
        Some(false) => return Err("`exit: false` waits for nothing; leave it out".into()),
        None => {}
    }
    if targets.len() != 1 {
        return Err(
            "a `wait` step waits for one of `text`, `regex`, `idle: DURATION` or `exit: true`"
                .into(),
        );
    }
    let target = targets.remove(0);
    if args.until.is_some() && !matches!(target, Target::Text(_) | Target::Regex(_)) {
        return Err("`until` goes with `text` or `regex`".into());
    }
    timed_wait(target, args.until.unwrap_or_default(), args)
}

fn check_size(width: u16, height: u16) -> Result<(), String> {
    crate::session::instance::check_size(width, height).map_err(|e| e.message)
}

/// A scenario read and checked: every step already an [`Action`].
#[derive(Debug)]
pub struct Loaded {
    /// The file it came from.
    pub path: PathBuf,
    /// The directory relative paths are resolved against.
    pub base: PathBuf,
    /// The name for reports.
    pub name: String,
    /// The document as written.
    pub document: Document,
    /// The steps of each phase, checked, with their line.
    pub phases: Vec<(Phase, Vec<PlannedStep>)>,
    /// How long the program may take to exit after the execute steps (`options.exitTimeout`),
    /// when the file says.
    pub exit_timeout: Option<Duration>,
}

/// A checked step with where it was written.
#[derive(Debug)]
pub struct PlannedStep {
    /// Its type.
    pub kind: StepKind,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// The line it starts on.
    pub line: u64,
    /// What it does.
    pub action: Action,
}

/// Reads and checks a scenario file.
pub fn load(path: &Path) -> Result<Loaded, DocumentError> {
    let error = |line: Option<u64>, message: String| DocumentError {
        path: path.to_owned(),
        line,
        message,
    };
    let size = std::fs::metadata(path)
        .map_err(|e| error(None, format!("cannot read it: {e}")))?
        .len();
    if size > MAX_FILE_SIZE {
        return Err(error(
            None,
            format!("it is {size} bytes; a scenario file has at most {MAX_FILE_SIZE}"),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| error(None, format!("cannot read it: {e}")))?;
    let text =
        String::from_utf8(bytes).map_err(|e| error(None, format!("it is not UTF-8 text: {e}")))?;
    // A file in the current directory has the empty parent: its paths stay relative as
    // written (`shot.svg`, not `./shot.svg`).
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    parse(&text, path, &base)
}

/// Parses and checks scenario `text` (YAML or JSON) read from `path`; `base` resolves
/// relative paths.
pub fn parse(text: &str, path: &Path, base: &Path) -> Result<Loaded, DocumentError> {
    let error = |line: Option<u64>, message: String| DocumentError {
        path: path.to_owned(),
        line,
        message,
    };
    let document: Document = serde_saphyr::from_str(text).map_err(|e| {
        let line = e.location().map(|l| l.line()).filter(|&l| l > 0);
        error(line, plain_message(&e))
    })?;
    let at = |loc: serde_saphyr::Location| Some(loc.line()).filter(|&l| l > 0);
    if document.version.value != VERSION {
        return Err(error(
            at(document.version.referenced),
            format!(
                "$version is {}; this shotty reads version {VERSION}",
                document.version.value
            ),
        ));
    }
    check_terminal(document.options.terminal.as_ref()).map_err(|(loc, m)| error(at(loc), m))?;
    let exit_timeout = match &document.options.exit_timeout {
        Some(t) => Some(
            t.value
                .to_duration()
                .map_err(|m| error(at(t.referenced), format!("`exitTimeout`: {m}")))?,
        ),
        None => None,
    };
    let scenario = &document.scenario.value;
    let launch = &scenario.launch;
    if launch.value.executable.trim().is_empty() {
        return Err(error(
            at(launch.referenced),
            "`launch` needs an `executable`".into(),
        ));
    }
    check_terminal(launch.value.options.terminal.as_ref()).map_err(|(loc, m)| error(at(loc), m))?;
    if let Some(si) = &launch.value.shell_integration
        && si.value
        && crate::session::shell_integration::Shell::of(&launch.value.executable).is_none()
    {
        return Err(error(
            at(si.referenced),
            format!(
                "`shellIntegration` works with bash, zsh and fish, not {:?}",
                launch.value.executable
            ),
        ));
    }
    if let Some(dir) = &scenario.working_dir
        && dir.value.path.is_some()
        && dir.value.temporary == Some(true)
    {
        return Err(error(
            at(dir.referenced),
            "`working-dir` is a `path` or `temporary: true`, not both".into(),
        ));
    }
    let mut phases = Vec::new();
    for (phase, steps) in [
        (Phase::Prepare, &scenario.prepare),
        (Phase::Execute, &scenario.execute),
        (Phase::Verify, &scenario.verify),
        (Phase::Teardown, &scenario.teardown),
    ] {
        let mut planned = Vec::new();
        for step in steps {
            let line = at(step.referenced).unwrap_or(0);
            if let Some(options) = &step.value.options {
                check_terminal(options.terminal.as_ref()).map_err(|(loc, m)| error(at(loc), m))?;
            }
            let action = step
                .value
                .action(phase, base)
                .map_err(|m| error(Some(line).filter(|&l| l > 0), m))?;
            planned.push(PlannedStep {
                kind: step.value.kind,
                name: step.value.name.clone(),
                line,
                action,
            });
        }
        phases.push((phase, planned));
    }
    let name = document.name.clone().unwrap_or_else(|| scenario_name(path));
    Ok(Loaded {
        path: path.to_owned(),
        base: base.to_owned(),
        name,
        document,
        phases,
        exit_timeout,
    })
}

/// A camelCase name in the kebab case the file also accepts (`stableFor` → `stable-for`,
/// `lineHeight` → `line-height`); a kebab-case name stays as it is.
pub fn kebab_case(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A scenario's name from its file: `vim.scenario.yaml` → `vim`.
pub fn scenario_name(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut name = file.as_str();
    for ext in [".yaml", ".yml", ".json"] {
        name = name.strip_suffix(ext).unwrap_or(name);
    }
    name = name.strip_suffix(".scenario").unwrap_or(name);
    if name.is_empty() {
        "scenario".to_owned()
    } else {
        name.to_owned()
    }
}

fn check_terminal(
    terminal: Option<&Spanned<TerminalOptions>>,
) -> Result<(), (serde_saphyr::Location, String)> {
    if let Some(terminal) = terminal {
        let t = terminal.value;
        crate::session::instance::check_size(t.width.unwrap_or(1), t.height.unwrap_or(1))
            .map_err(|e| (terminal.referenced, e.message))?;
    }
    Ok(())
}

/// The parser's message without the snippet it draws and the position it starts with (the
/// caller names file and line).
fn plain_message(e: &serde_saphyr::Error) -> String {
    let full = e.to_string();
    let mut message = full.lines().next().unwrap_or("").trim();
    message = message
        .strip_prefix("error:")
        .unwrap_or(message)
        .trim_start();
    // "line 5 column 14: unknown field …"
    if let Some(rest) = message.strip_prefix("line ")
        && let Some((position, text)) = rest.split_once(": ")
        && position
            .chars()
            .all(|c| c.is_ascii_digit() || c == ' ' || c.is_ascii_alphabetic())
    {
        message = text;
    }
    match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
