//! VHS tapes (SPEC §13): charmbracelet/vhs `.tape` files run unchanged, through the session
//! core, with no browser, ttyd or ffmpeg.
//!
//! [`parser`] reads a tape (and what it `Source`s) into commands, every problem with its
//! file and line; [`load`] checks all of it before anything runs — settings and their
//! values ([`settings`]), outputs, `Require`d programs — and splits it into what is set up
//! front and the steps to run; [`runner`] runs the steps in a session of the tape's own,
//! timing the animation by the tape's script ([`clock`]); [`output`] makes every output
//! from that one recording and puts them in place together (`staging`).
//!
//! ```no_run
//! let tape = shotty::tape::load("demo.tape".as_ref()).map_err(|e| e.errors[0].clone())?;
//! let run = shotty::tape::runner::run(&tape)?;
//! shotty::tape::output::write_all(&tape, &run)?;
//! # Ok::<(), shotty::tape::TapeError>(())
//! ```

pub mod clock;
pub mod export;
pub mod golden;
pub mod lexer;
pub mod output;
pub mod parser;
pub mod runner;
pub mod settings;
mod staging;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::render::animation::AnimationFormat;

pub use parser::{Command, CommandKind, Location, Setting, TapeError};
pub use settings::Settings;

/// What an `Output` writes, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// `.gif`, `.apng`, `.svg`, `.mp4`, `.webm`: the animation.
    Animation(AnimationFormat),
    /// `.png`: the last frame.
    Png,
    /// `.cast`: an asciicast v2 recording of what the animation shows.
    Cast,
    /// A path ending in `/`: one PNG per frame.
    Frames,
    /// `.txt`, `.ascii` or `.test`: VHS's text format, the screen after each command.
    Text,
}

impl OutputKind {
    /// The kind a path asks for, or why there is none (in this build).
    pub fn of(path: &Path) -> Result<OutputKind, String> {
        if path.as_os_str().to_string_lossy().ends_with('/') {
            return Ok(OutputKind::Frames);
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        match ext.as_str() {
            "png" => Ok(OutputKind::Png),
            "cast" => Ok(OutputKind::Cast),
            "txt" | "ascii" | "test" => Ok(OutputKind::Text),
            _ => match AnimationFormat::from_path(path) {
                Some(format) => match format.unavailable() {
                    None => Ok(OutputKind::Animation(format)),
                    Some(why) => Err(format!(
                        "{why}. Write .mp4 (H.264), .gif, .apng, .svg (animated), .png (the last \
                         frame), .cast, .txt/.ascii or a directory of frames (a path ending in \
                         /); `ffmpeg -i x.mp4 x.{ext}` converts"
                    )),
                },
                None => Err(format!(
                    "shotty cannot write .{ext} (it writes .gif, .apng, .svg, .mp4, .png, .cast, \
                     .txt/.ascii, or a directory of frames ending in /)"
                )),
            },
        }
    }
}

/// An output the tape asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Where.
    pub path: PathBuf,
    /// What.
    pub kind: OutputKind,
    /// The `Output` command.
    pub at: Location,
}

/// A step of the run: a command with where it was written.
pub type Step = Command;

/// A checked tape, ready to run.
#[derive(Clone, Debug)]
pub struct Tape {
    /// The file.
    pub path: PathBuf,
    /// The settings made before the first step.
    pub settings: Settings,
    /// Variables the shell starts with (every `Env`, as VHS sets them before it starts).
    pub env: Vec<(String, String)>,
    /// What to write.
    pub outputs: Vec<Output>,
    /// What to run, in order (`Set TypingSpeed` among them; other settings after the first
    /// step are ignored, as VHS ignores them, with a warning).
    pub steps: Vec<Step>,
    /// What was ignored, each with its place.
    pub warnings: Vec<String>,
}

impl Tape {
    /// How long the animation lasts by the tape's script: every shown pause (typing, keys,
    /// `Sleep`), waits aside (they last as long as they wait).
    pub fn scripted_time(&self) -> Duration {
        let mut typing = self.settings.typing_speed;
        let mut hidden = false;
        let mut total = Duration::ZERO;
        for step in &self.steps {
            match &step.kind {
                CommandKind::Set(Setting::TypingSpeed(speed)) => typing = *speed,
                CommandKind::Hide => hidden = true,
                CommandKind::Show => hidden = false,
                kind if !hidden => {
                    total += runner::scripted_length(kind, typing).unwrap_or_default();
                }
                _ => {}
            }
        }
        total
    }
}

/// Why a tape cannot run: every problem found, and whether the tape did not even parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The problems, each with its place.
    pub errors: Vec<TapeError>,
    /// The tape does not parse (its grammar), rather than asking for what cannot be done.
    pub unparsed: bool,
}

/// Reads a tape and checks everything before anything runs: the grammar, every setting's
/// value, the size, every output's kind, that each `Require`d program and the shell are
/// installed. All problems are reported, each with its place.
pub fn load(path: &Path) -> Result<Tape, LoadError> {
    let commands = parser::parse_file(path).map_err(|errors| LoadError {
        errors,
        unparsed: true,
    })?;
    check(path, commands)
}

/// [`load`] for tape text already read (`path` names it).
pub fn load_str(path: &Path, source: &str) -> Result<Tape, LoadError> {
    let commands = parser::parse_str(path, source).map_err(|errors| LoadError {
        errors,
        unparsed: true,
    })?;
    check(path, commands)
}

fn check(path: &Path, commands: Vec<Command>) -> Result<Tape, LoadError> {
    let mut errors = Vec::new();
    let mut settings = Settings::default();
    let mut tape = Tape {
        path: path.to_owned(),
        settings: Settings::default(),
        env: Vec::new(),
        outputs: Vec::new(),
        steps: Vec::new(),
        warnings: Vec::new(),
    };
    let mut size_at: Option<Location> = None;
    let mut shell_at: Option<Location> = None;
    let mut started = false;
    for command in commands {
        match &command.kind {
            CommandKind::Set(setting) => {
                // A setting after the first step is checked, but only the typing speed
                // changes anything (at its place in the run).
                let mut applied = settings.clone();
                let target = if started { &mut applied } else { &mut settings };
                match target.apply(setting, &command.at) {
                    Ok(warning) => tape.warnings.extend(warning),
                    Err(e) => {
                        errors.push(e);
                        continue;
                    }
                }
                if !started {
                    match setting {
                        Setting::Width(_) | Setting::Height(_) => {
                            size_at = Some(command.at.clone());
                        }
                        Setting::Shell(_) => shell_at = Some(command.at.clone()),
                        _ => {}
                    }
                    continue;
                }
                if matches!(setting, Setting::TypingSpeed(_)) {
                    tape.steps.push(command);
                } else {
                    tape.warnings.push(format!(
                        "{}:{}: a setting after the first command is ignored (as VHS ignores \
                         it): move it to the top",
                        command.at.path.display(),
                        command.at.line
                    ));
                }
            }
            CommandKind::Output(out) => match OutputKind::of(out) {
                Ok(kind) => tape.outputs.push(Output {
                    path: out.clone(),
                    kind,
                    at: command.at.clone(),
                }),
                Err(message) => errors.push(command.at.error(message)),
            },
            CommandKind::Require(program) => {
                if crate::pty::find_program(program).is_none() {
                    errors.push(command.at.error(format!(
                        "the tape requires {program}, which is not installed (not on PATH)"
                    )));
                }
            }
            CommandKind::Env { name, value } => tape.env.push((name.clone(), value.clone())),
            _ => {
                started = true;
                tape.steps.push(command);
            }
        }
    }
    let program = settings.shell_start().command[0];
    if crate::pty::find_program(program).is_none() {
        // At the `Set Shell` that chose it; VHS's default shell has no line.
        let at = shell_at.unwrap_or_else(|| Location::whole(path));
        errors.push(at.error(format!(
            "the shell {program} is not installed (not on PATH)"
        )));
    }
    let (min_w, min_h) = settings.minimum_size();
    if settings.size.0 < min_w || settings.size.1 < min_h {
        let at = size_at.unwrap_or_else(|| Location::whole(path));
        errors.push(at.error(format!(
            "the picture is {}×{} px; the padding, margin and window bar need at least \
             {min_w}×{min_h}",
            settings.size.0, settings.size.1
        )));
    }
    if tape.steps.is_empty() && errors.is_empty() {
        errors.push(TapeError {
            path: path.to_owned(),
            line: 0,
            column: 0,
            message: "the tape runs nothing (it has settings and outputs only)".into(),
        });
    }
    if !errors.is_empty() {
        return Err(LoadError {
            errors,
            unparsed: false,
        });
    }
    tape.settings = settings;
    Ok(tape)
}

/// `name` made fit to name a tape's outputs, written quoted (`Output "NAME.gif"`), and to
/// stand in its comments and typed text: ASCII letters, digits, `-`, `_` and `.`, the rest `_`.
pub(crate) fn output_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A commented starting tape whose outputs are named `name` (what `shotty tape new` writes):
/// it runs as it is, and says what to change.
pub fn starter(name: &str) -> String {
    let name = output_stem(name);
    format!(
        "\
# {name}.tape: a terminal recording as code, in VHS's tape format.
# Run it with `shotty tape {name}.tape` (VHS runs it unchanged too).

# Where to write it: .gif, .apng, .svg (animated), .png (the last screen), .cast,
# .txt or .ascii (the screen after each command, for tests), or frames/ (one PNG each).
Output \"{name}.gif\"
Output \"{name}.ascii\"

# Settings come first. The picture in px; the terminal gets the columns and rows that fit.
Set Width 1200
Set Height 600
Set FontSize 22
Set Padding 40
# A theme from VHS's list (\"Catppuccin Mocha\", \"Dracula\", \"Nord\" …) or inline JSON.
Set Theme \"Catppuccin Mocha\"
# A window bar: Colorful, ColorfulRight, Rings or RingsRight.
Set WindowBar Colorful
Set TypingSpeed 50ms

# Steps run before Show are not shown: set up quietly.
Hide
Type \"cd $(mktemp -d) && clear\"
Enter
Show

# Type, press keys, wait for the screen, pause.
Type \"echo 'Hello from {name}'\"
Sleep 300ms
Enter
# Wait for the prompt (or Wait /pattern/, Wait+Screen /pattern/).
Wait
Sleep 2s
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_shell_is_reported_at_the_set_shell_that_chose_it() {
        if crate::pty::find_program("cmd.exe").is_some() {
            return;
        }
        let tape = "Output a.txt\nSet Shell \"cmd\"\nType \"x\"\n";
        let err = load_str(Path::new("t.tape"), tape).expect_err("cmd.exe is not installed");
        let messages: Vec<String> = err.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            ["t.tape:2: the shell cmd.exe is not installed (not on PATH)"]
        );
    }
}
