//! Running a checked tape's steps in a session of its own: the shell started as VHS starts
//! it, typing and keys through the one key encoder, `Wait` through the session's waits, the
//! screen kept after each shown step for a text output and at each `Screenshot`, and the
//! tape's clock ([`TimeMap`]) laid over the session's recording.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::clock::TimeMap;
use super::parser::{CommandKind, Location, Setting, WaitScope};
use super::{OutputKind, Step, Tape, TapeError};
use crate::pty::DEFAULT_GRACE;
use crate::recording::{Event, TimedEvent, Timeline};
use crate::session::instance::local_session_id;
use crate::session::send::SendStep;
use crate::session::wait::{Target, Until, WaitCondition, WaitResult, wait};
use crate::session::{Session, SessionSpec, StopReason};
use crate::term::{Snapshot, Terminal};

/// How long the shell may take to start and show its prompt.
pub const SHELL_START_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest a screen is waited for to settle before it is kept (for a text output, a
/// `Screenshot`, or the end of a hidden stretch): a program still busy after it is taken as it
/// is. It takes no time in the animation; a screen that has settled is taken at once.
pub const SETTLE_MAX: Duration = Duration::from_millis(500);
/// The scrollback of VHS's browser terminal (xterm.js's default), which its text output
/// reads from the top.
pub const SCROLLBACK: usize = 1000;

/// What a run leaves for the outputs.
pub struct TapeRun {
    /// The session's recording.
    pub timeline: Timeline,
    /// Where the recording falls in the animation.
    pub clock: TimeMap,
    /// The screen after each shown step, for text outputs.
    pub text: Vec<TextScreen>,
    /// The screens of `Screenshot` steps.
    pub screenshots: Vec<Screenshot>,
    /// Where the view moved through the scrollback (`ScrollUp`, `ScrollDown`, and back to the
    /// screen at the next input), on the recording's clock.
    pub views: Vec<TimedEvent>,
    /// What the run went on past (input after the shell ended), at the step.
    pub warnings: Vec<TapeError>,
}

/// The screen a `Screenshot` step took.
pub struct Screenshot {
    /// The file it goes to.
    pub path: PathBuf,
    /// The step (a file that cannot be written is reported at it).
    pub at: Location,
    /// The screen.
    pub snapshot: Snapshot,
}

/// The screen after a shown step, as VHS's text output has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextScreen {
    /// The step.
    pub after: Location,
    /// VHS's rows ([`buffer_rows`]).
    pub rows: Vec<String>,
}

/// How long `kind` lasts in the animation at `typing` speed: its pauses; `None` for a wait,
/// which lasts as long as it waited.
pub fn scripted_length(kind: &CommandKind, typing: Duration) -> Option<Duration> {
    let times = |n: usize, speed: Option<Duration>| speed.unwrap_or(typing) * n as u32;
    Some(match kind {
        CommandKind::Type { text, speed } => times(text.chars().count(), *speed),
        CommandKind::Key { speed, repeat, .. } | CommandKind::Scroll { speed, repeat, .. } => {
            times(*repeat as usize, *speed)
        }
        CommandKind::Sleep(d) => *d,
        CommandKind::Wait { .. } => return None,
        _ => Duration::ZERO,
    })
}

/// Runs `tape`'s steps; the first step that fails ends the run with its place and, for a
/// `Wait`, the screen.
pub fn run(tape: &Tape) -> Result<TapeRun, TapeError> {
    let settings = &tape.settings;
    let shell = settings.shell_start();
    let (cols, rows) = settings.terminal_size();
    let mut spec = SessionSpec::new(
        shell.command.iter().map(|s| (*s).to_owned()).collect(),
        cols,
        rows,
    );
    spec.env = shell
        .env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .chain(tape.env.iter().cloned())
        .collect();
    spec.scrollback = SCROLLBACK;
    spec.record_limit = crate::session::instance::MAX_RECORD_LIMIT as usize;
    let whole = |message: String| TapeError {
        path: tape.path.clone(),
        line: 0,
        column: 0,
        message,
    };
    let session = Session::start(local_session_id("tape"), spec)
        .map_err(|e| whole(format!("cannot start {}: {}", shell.name, e.message)))?;
    let mut run = Run {
        tape,
        session: Arc::clone(&session),
        keeps_text: tape.outputs.iter().any(|o| o.kind == OutputKind::Text),
        typing: settings.typing_speed,
        hidden: false,
        clipboard: String::new(),
        text: Vec::new(),
        screenshots: Vec::new(),
        clock: TimeMap::default(),
        view: None,
        views: Vec::new(),
        typed_after_end: false,
        warnings: Vec::new(),
    };
    let result = run.all();
    // Taken before the shell is stopped: what it writes as it goes is not the tape's.
    let timeline = session.lock().recording.clone();
    let _ = session.stop(StopReason::User, DEFAULT_GRACE);
    result?;
    Ok(TapeRun {
        timeline,
        clock: run.clock,
        text: run.text,
        screenshots: run.screenshots,
        views: run.views,
        warnings: run.warnings,
    })
}

struct Run<'a> {
    tape: &'a Tape,
    session: Arc<Session>,
    keeps_text: bool,
    typing: Duration,
    hidden: bool,
    clipboard: String,
    text: Vec<TextScreen>,
    screenshots: Vec<Screenshot>,
    clock: TimeMap,
    /// The history line the view starts at while scrolled back.
    view: Option<u64>,
    views: Vec<TimedEvent>,
    /// Input was sent after the shell ended (and went nowhere).
    typed_after_end: bool,
    warnings: Vec<TapeError>,
}

impl Run<'_> {
    fn all(&mut self) -> Result<(), TapeError> {
        if !self.session.wait_ready(SHELL_START_TIMEOUT, false) {
            let live = self.session.lock();
            let why = if live.state.is_ended() {
                "ended"
            } else {
                "did not wait for input"
            };
            return Err(TapeError {
                path: self.tape.path.clone(),
                line: 0,
                column: 0,
                message: format!(
                    "the shell {} {why} within {} s; the screen:\n{}",
                    self.tape.settings.shell,
                    SHELL_START_TIMEOUT.as_secs(),
                    live.term.text().trim_end()
                ),
            });
        }
        self.clock = TimeMap::new(self.session.clock());
        for step in &self.tape.steps {
            let start = self.session.clock();
            let ended_before = self.typed_after_end;
            self.step(step).map_err(|message| step.at.error(message))?;
            if self.typed_after_end && !ended_before {
                self.warnings.push(step.at.error(
                    "the shell has ended: this input and what follows go nowhere (VHS goes on \
                     too)",
                ));
            }
            let length = match scripted_length(&step.kind, self.typing) {
                _ if self.hidden || matches!(step.kind, CommandKind::Show) => Duration::ZERO,
                Some(length) => length,
                None => self.session.clock().saturating_sub(start),
            };
            self.clock.push(start, length);
            if let CommandKind::Set(Setting::TypingSpeed(speed)) = step.kind {
                self.typing = speed;
            }
            if self.keeps_text && !self.hidden {
                let rows = buffer_rows(&self.settled().term);
                self.text.push(TextScreen {
                    after: step.at.clone(),
                    rows,
                });
            }
        }
        Ok(())
    }

    /// The session's state once the program has reacted to the last step.
    fn settled(&self) -> std::sync::MutexGuard<'_, crate::session::instance::Live> {
        self.session.settle(SETTLE_MAX)
    }

    /// Sends input; like a browser terminal, the view returns to the screen first.
    fn send(&mut self, steps: &[SendStep]) -> Result<(), String> {
        self.move_view(None);
        match self.session.send(steps) {
            Ok(_) => Ok(()),
            // An `exit` typed earlier: VHS types on into the closed terminal, and the tape goes
            // on to its outputs.
            Err(_) if self.session.lock().state.is_ended() => {
                self.typed_after_end = true;
                Ok(())
            }
            Err(e) => Err(e.message),
        }
    }

    /// Moves the view to start at history line `top` (`None`: the screen), noting when.
    fn move_view(&mut self, top: Option<u64>) {
        if top != self.view {
            self.view = top;
            self.views.push(TimedEvent {
                at: self.session.clock(),
                event: Event::View(top),
            });
        }
    }

    /// `ScrollUp`/`ScrollDown`: the view moves `lines` through the scrollback (down ends at
    /// the screen, up at the oldest line held; the alternate screen has no scrollback).
    fn scroll(&mut self, lines: i32, repeat: u32, speed: Duration) {
        for _ in 0..repeat {
            let (oldest, screen_top, alternate) = {
                let live = self.session.lock();
                let term = &live.term;
                let oldest = term.history().next().map_or(0, |(line, _)| line);
                (
                    oldest,
                    term.screen_top(),
                    term.screen().is_alternate_screen(),
                )
            };
            if !alternate {
                let from = self.view.unwrap_or(screen_top);
                let to = from.saturating_add_signed(i64::from(lines)).max(oldest);
                self.move_view((to < screen_top).then_some(to));
            }
            std::thread::sleep(speed);
        }
    }

    /// Sends `steps` `repeat` times, pausing `speed` after each.
    fn press(&mut self, steps: &[SendStep], repeat: u32, speed: Duration) -> Result<(), String> {
        for _ in 0..repeat {
            self.send(steps)?;
            std::thread::sleep(speed);
        }
        Ok(())
    }

    fn step(&mut self, step: &Step) -> Result<(), String> {
        match &step.kind {
            CommandKind::Type { text, speed } => {
                let speed = speed.unwrap_or(self.typing);
                for c in text.chars() {
                    self.press(&[SendStep::Text(c.to_string())], 1, speed)?;
                }
            }
            CommandKind::Key { key, speed, repeat } => {
                let keys = [SendStep::Keys(key.name().to_owned())];
                self.press(&keys, *repeat, speed.unwrap_or(self.typing))?;
            }
            CommandKind::Chord(keys) => {
                for key in keys {
                    self.send(&[SendStep::Keys(key.clone())])?;
                }
            }
            CommandKind::Scroll {
                lines,
                speed,
                repeat,
            } => self.scroll(*lines, *repeat, speed.unwrap_or(self.typing)),
            CommandKind::Sleep(d) => std::thread::sleep(*d),
            CommandKind::Hide => self.hidden = true,
            CommandKind::Show => {
                // What the hidden steps drew is on screen before anything is shown.
                drop(self.settled());
                self.hidden = false;
            }
            CommandKind::Wait {
                scope,
                timeout,
                pattern,
            } => self.wait(*scope, *timeout, pattern.as_deref())?,
            CommandKind::Screenshot(path) => {
                // What is shown: scrolled back by `ScrollUp`, as the animation shows it.
                let snapshot = self.settled().term.view_snapshot(self.view);
                self.screenshots.push(Screenshot {
                    path: path.clone(),
                    at: step.at.clone(),
                    snapshot,
                });
            }
            CommandKind::Copy(text) => self.clipboard = text.clone(),
            CommandKind::Paste => {
                if !self.clipboard.is_empty() {
                    self.send(&[SendStep::Text(self.clipboard.clone())])?;
                }
            }
            // Settings take effect when the run's clock is pushed; the rest were taken
            // before the run.
            CommandKind::Set(_)
            | CommandKind::Output(_)
            | CommandKind::Require(_)
            | CommandKind::Env { .. } => {}
        }
        Ok(())
    }

    /// `Wait`: the pattern (the tape's `WaitPattern` if none) on the cursor's line or the
    /// screen, within the timeout (the tape's `WaitTimeout` if none).
    fn wait(
        &self,
        scope: WaitScope,
        timeout: Option<Duration>,
        pattern: Option<&str>,
    ) -> Result<(), String> {
        let settings = &self.tape.settings;
        let pattern = pattern.unwrap_or(&settings.wait_pattern);
        let regex = regex::Regex::new(pattern).map_err(|e| format!("bad pattern: {e}"))?;
        let target = match scope {
            WaitScope::Line => Target::CursorRow(regex),
            WaitScope::Screen => Target::Regex(regex),
        };
        let timeout = timeout.unwrap_or(settings.wait_timeout);
        let condition = WaitCondition {
            target,
            until: Until::Present,
            stable_for: None,
            timeout: Some(timeout),
            fresh: false,
        };
        let started = Instant::now();
        let outcome = wait(&self.session, &condition, &AtomicBool::new(false));
        if outcome.result == WaitResult::Matched {
            return Ok(());
        }
        let live = self.session.lock();
        let (what, last) = match scope {
            WaitScope::Line => ("line", live.term.cursor_row_text()),
            WaitScope::Screen => ("screen", live.term.text().trim_end().to_owned()),
        };
        let why = match outcome.result {
            WaitResult::SessionEnded => "the shell ended".to_owned(),
            _ => format!("{:.1} s passed", started.elapsed().as_secs_f64()),
        };
        Err(format!(
            "Wait+{} /{pattern}/ did not match before {why}; the {what} was {last:?}; the \
             screen:\n{}",
            if scope == WaitScope::Line {
                "Line"
            } else {
                "Screen"
            },
            live.term.text().trim_end()
        ))
    }
}

/// The rows VHS's text output writes: the terminal's first rows from the top of its buffer
/// (xterm.js's `buffer.active.getLine(0…rows)`: the oldest scrollback first on the main
/// screen, the screen itself on the alternate one), each without trailing blanks.
pub fn buffer_rows(term: &Terminal) -> Vec<String> {
    let height = term.height();
    let mut rows: Vec<String> = if term.screen().is_alternate_screen() {
        term.text().split('\n').map(str::to_owned).collect()
    } else {
        term.history()
            .take(height)
            .map(|(_, row)| {
                let mut text = String::new();
                row.write_text(&mut text);
                text
            })
            .collect()
    };
    rows.resize(height, String::new());
    rows
}
