//! Golden tests of terminal programs from a Rust `#[test]` (SPEC §10; the `testing` feature,
//! part of the default features).
//!
//! [`Tui::new`] describes a program, [`TuiBuilder::start`] runs it in a pseudo-terminal, and
//! the [`Tui`] it returns types into it, waits for its screen and pins the screen against a
//! golden file:
//!
//! ```no_run
//! use shotty::testing::Tui;
//!
//! #[test]
//! fn vim_inserts_text() {
//!     let mut vim = Tui::new(["vim", "-u", "NONE", "-i", "NONE", "-N", "-n"]).size(60, 10).start();
//!     vim.wait_for_text("~");
//!     vim.keys("i").text("hello").keys("Escape");
//!     vim.wait_until_gone("-- INSERT --");
//!     vim.assert_screen("golden/vim-hello.svg");
//! }
//! ```
//!
//! A program that answers (this one runs as a doctest):
//!
//! ```
//! use shotty::testing::Tui;
//!
//! let mut greeter = Tui::new(["sh", "-c", "printf 'name? '; read name; echo \"hello, $name\""])
//!     .size(30, 3)
//!     .start();
//! greeter.wait_for_text("name?");
//! greeter.text("world").keys("Enter");
//! greeter.wait_for_text("hello, world");
//! assert_eq!(greeter.wait_for_exit(), Some(0));
//! assert!(greeter.screen_text().starts_with("name? world\nhello, world"));
//! ```
//!
//! # Failures are panics
//!
//! Every method that waits or checks panics when it fails — the program cannot start, a wait
//! times out or the program ends first, a key name is unknown, the screen differs from its
//! golden — with a message that says what was expected and shows the screen. In a test the
//! panic *is* the failure and its message is what `cargo test` prints, so this module
//! deliberately has no `Result`s; the panic points at the test's line (`#[track_caller]`).
//! Outside tests, drive a [`Session`] directly: its methods return errors.
//!
//! # Goldens
//!
//! [`Tui::assert_screen`] compares the screen with a golden `.svg` (written by shotty; its
//! metadata carries the screen) or `.json` cell by cell — text, width, style, link, the
//! cursor, the title and the size, the [`diff`](crate::diff) semantics, not the picture's
//! bytes — giving the program up to the [timeout](Tui::set_timeout) to come to match. On a
//! difference it panics with the cell report and leaves `NAME.actual.svg` (the screen) and
//! `NAME.diff.svg` (the differing cells marked) beside the golden. A missing golden is
//! written from the screen and the test fails, asking for it to be reviewed; with
//! `UPDATE_GOLDEN=1` every golden is (re)written and the assert passes. A relative path is
//! relative to the crate (`CARGO_MANIFEST_DIR`). It is the comparison of the scenario
//! `snapshot` step ([`golden::compare_screen`]).
//!
//! # Isolation
//!
//! Each [`Tui`] is a [`Session`] of its own in the test process — no session host, nothing
//! shared between tests, so they run in parallel. The program gets the test's working
//! directory and environment with shotty's colour environment (`TERM=xterm-256color`,
//! `COLORTERM`, `FORCE_COLOR`; `CI` removed), unless [`TuiBuilder::cwd`] and
//! [`TuiBuilder::env`] say otherwise. Dropping a [`Tui`] — also when the test panicked —
//! stops the program and its whole process tree, so no process outlives the test.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::pty::DEFAULT_GRACE;
use crate::render::Appearance;
use crate::session::golden::{self, ScreenCheck, Verdict};
use crate::session::instance::{check_size, local_session_id};
use crate::session::send::SendStep;
use crate::session::wait::{Target, Until, WaitCondition, wait};
use crate::session::{Session, SessionSpec, StopReason};
use crate::term::Snapshot;

/// How long waits and screen assertions wait unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The terminal size unless [`TuiBuilder::size`] gives one.
pub const DEFAULT_SIZE: (u16, u16) = (80, 24);

/// The longest [`Tui::screen`] waits for the program to settle: a program that keeps drawing
/// (a clock, a spinner) is read as it is then.
const SETTLE_MAX: Duration = Duration::from_secs(1);

/// A program to start in a pseudo-terminal: [`Tui::new`], the settings, then
/// [`start`](TuiBuilder::start).
#[derive(Clone, Debug)]
#[must_use = "a TuiBuilder does nothing until it is started"]
pub struct TuiBuilder {
    spec: SessionSpec,
    timeout: Duration,
    appearance: Appearance,
}

/// A program running in a pseudo-terminal of its own, driven by a test. Every method that
/// fails panics (see [the module](self)); dropping it stops the program.
pub struct Tui {
    session: Arc<Session>,
    /// The command line, for messages.
    command: String,
    timeout: Duration,
    appearance: Appearance,
}

impl Tui {
    /// Describes `command` (the program and its arguments; no shell is involved) in an 80×24
    /// terminal, with a [`DEFAULT_TIMEOUT`]; [`TuiBuilder::start`] runs it.
    // The builder is a type of its own so that a `Tui` is always a running program, and
    // `Tui::new(…).start()` reads as `Command::new(…).spawn()` does.
    #[allow(clippy::new_ret_no_self)]
    pub fn new<I, S>(command: I) -> TuiBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let command = command.into_iter().map(Into::into).collect();
        TuiBuilder {
            spec: SessionSpec::new(command, DEFAULT_SIZE.0, DEFAULT_SIZE.1),
            timeout: DEFAULT_TIMEOUT,
            appearance: Appearance::default(),
        }
    }
}

impl TuiBuilder {
    /// The terminal's size in columns and rows (1–500 each).
    pub fn size(mut self, width: u16, height: u16) -> TuiBuilder {
        (self.spec.width, self.spec.height) = (width, height);
        self
    }

    /// Sets an environment variable for the program (after the colour environment, so it can
    /// override `TERM`).
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> TuiBuilder {
        self.spec.env.push((name.into(), value.into()));
        self
    }

    /// The program's working directory (default: the test's).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> TuiBuilder {
        self.spec.cwd = Some(dir.into());
        self
    }

    /// How long waits and screen assertions wait (default [`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> TuiBuilder {
        self.timeout = timeout;
        self
    }

    /// How goldens and the pictures of a failed [`Tui::assert_screen`] are drawn (theme,
    /// window, font size …; the comparison itself is of cells, not of pictures).
    pub fn appearance(mut self, appearance: Appearance) -> TuiBuilder {
        self.appearance = appearance;
        self
    }

    /// Starts the program. Panics if it cannot be started (not found, a bad size or working
    /// directory).
    #[track_caller]
    pub fn start(self) -> Tui {
        let command = self.spec.command.join(" ");
        if let Err(e) = check_size(self.spec.width, self.spec.height) {
            panic!("shotty::testing: cannot start `{command}`: {}", e.message);
        }
        match Session::start(local_session_id("testing"), self.spec) {
            Ok(session) => Tui {
                session,
                command,
                timeout: self.timeout,
                appearance: self.appearance,
            },
            Err(e) => panic!("shotty::testing: cannot start `{command}`: {}", e.message),
        }
    }
}

/// A relative golden path is relative to the crate under test: `cargo test` sets
/// `CARGO_MANIFEST_DIR` when it runs a test, whatever the working directory.
fn resolve(golden: &Path) -> PathBuf {
    match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(root) if golden.is_relative() => Path::new(&root).join(golden),
        _ => golden.to_owned(),
    }
}

impl Tui {
    /// Types `text` as it is (`"\r"` is Enter, as a terminal sends it).
    #[track_caller]
    pub fn text(&mut self, text: &str) -> &mut Tui {
        self.send(SendStep::Text(text.to_owned()), "text")
    }

    /// Presses one key or combination, by name: `Enter`, `Escape`, `Ctrl+C` (or `C-c`),
    /// `Alt+x`, `Shift+Tab`, `F5`, `Up`, or one character (`i`). It is encoded for the modes
    /// the program has set (application cursor keys, the kitty keyboard protocol …).
    #[track_caller]
    pub fn keys(&mut self, key: &str) -> &mut Tui {
        self.send(SendStep::Keys(key.to_owned()), "key")
    }

    /// Pastes `text` (bracketed when the program asked for bracketed paste).
    #[track_caller]
    pub fn paste(&mut self, text: &str) -> &mut Tui {
        self.send(SendStep::Paste(text.to_owned()), "paste")
    }

    #[track_caller]
    fn send(&mut self, step: SendStep, what: &str) -> &mut Tui {
        if let Err(e) = self.session.send(std::slice::from_ref(&step)) {
            let shown = match &step {
                SendStep::Text(t)
                | SendStep::Paste(t)
                | SendStep::Keys(t)
                | SendStep::RawHex(t) => t.clone(),
                other => format!("{other:?}"),
            };
            self.fail(&format!("cannot send the {what} {shown:?}: {}", e.message));
        }
        self
    }

    /// Waits until `text` is on the screen (it may span rows: `"a\nb"` is `a` ending one row
    /// and `b` starting the next).
    #[track_caller]
    pub fn wait_for_text(&mut self, text: &str) -> &mut Tui {
        self.wait_for(Target::Text(text.to_owned()))
    }

    /// Waits until the regular expression `pattern` matches the screen's text (`^` and `$`
    /// match at row starts and ends). Panics on a bad pattern.
    #[track_caller]
    pub fn wait_for_regex(&mut self, pattern: &str) -> &mut Tui {
        match WaitCondition::regex(pattern) {
            Ok(target) => self.wait_for(target),
            Err(e) => self.fail(&format!("wait_for_regex({pattern:?}): {}", e.message)),
        }
    }

    #[track_caller]
    fn wait_for(&mut self, target: Target) -> &mut Tui {
        self.wait_for_until(target, Until::Present)
    }

    #[track_caller]
    fn wait_for_until(&mut self, target: Target, until: Until) -> &mut Tui {
        let condition = WaitCondition {
            target,
            until,
            stable_for: None,
            timeout: Some(self.timeout),
            fresh: false,
        };
        let outcome = wait(&self.session, &condition, &AtomicBool::new(false));
        if let Some(message) = outcome.failure(&condition, &self.session) {
            self.fail(&message);
        }
        self
    }

    /// Waits until `text` is not on the screen once the program has settled — whether or not
    /// it was ever seen: input that a program has not reacted to yet is given its moment
    /// first, so `keys("Escape")` then `wait_until_gone("-- INSERT --")` does not pass before
    /// vim has read the key.
    #[track_caller]
    pub fn wait_until_gone(&mut self, text: &str) -> &mut Tui {
        self.wait_for_until(Target::Text(text.to_owned()), Until::Gone)
    }

    /// Waits for the program to end and returns its exit code (`None` when a signal ended
    /// it). Panics if it is still running after the timeout.
    #[track_caller]
    pub fn wait_for_exit(&mut self) -> Option<i32> {
        self.wait_for(Target::Exit);
        self.session.lock().exit_code
    }

    /// Resizes the terminal (the program gets `SIGWINCH`). Panics on a size outside 1–500 or
    /// when the program has ended.
    #[track_caller]
    pub fn resize(&mut self, width: u16, height: u16) -> &mut Tui {
        if let Err(e) = self.session.resize(width, height) {
            self.fail(&format!("cannot resize to {width}x{height}: {}", e.message));
        }
        self
    }

    /// Sets how long waits and screen assertions wait from here on.
    pub fn set_timeout(&mut self, timeout: Duration) -> &mut Tui {
        self.timeout = timeout;
        self
    }

    /// The screen once the program has settled (see [`Session::settle`]; at most a second is
    /// spent waiting for that): its cells, cursor and title.
    pub fn screen(&self) -> Snapshot {
        self.session
            .settle(self.timeout.min(SETTLE_MAX))
            .term
            .snapshot()
    }

    /// The text of [`screen`](Self::screen): its rows, trailing spaces removed, joined by
    /// `\n`.
    pub fn screen_text(&self) -> String {
        self.screen().text()
    }

    /// Asserts that the screen matches the golden file `golden` (`.svg` or `.json`; relative
    /// to the crate), as the [module](self#goldens) describes: a difference panics with the
    /// cell report and leaves `NAME.actual.svg` and `NAME.diff.svg` beside it; a missing
    /// golden is written and the test fails asking for a review; `UPDATE_GOLDEN=1` rewrites
    /// the golden and passes.
    #[track_caller]
    pub fn assert_screen(&mut self, golden: impl AsRef<Path>) -> &mut Tui {
        let path = resolve(golden.as_ref());
        if let Err(message) = self.check_golden(&path, golden::update_requested()) {
            panic!("shotty::testing: `{}`: {message}", self.command);
        }
        self
    }

    /// [`assert_screen`](Self::assert_screen)'s verdict, `update` standing for `UPDATE_GOLDEN`.
    fn check_golden(&self, path: &Path, update: bool) -> Result<(), String> {
        let check = ScreenCheck {
            update,
            missing_fails: false,
            timeout: self.timeout,
            appearance: &self.appearance,
        };
        match golden::compare_screen(golden::Screen::Live(&self.session), path, &check) {
            Ok(Verdict::Matched | Verdict::Updated) => Ok(()),
            Ok(Verdict::New) if update => Ok(()),
            Ok(Verdict::New) => Err(format!(
                "there was no golden {}: the screen was written there. Review it, commit it and \
                 run the test again ({}=1 rewrites every golden)",
                path.display(),
                golden::UPDATE_VAR
            )),
            Err(failure) => {
                let mut message = failure.message.trim_end().to_owned();
                if let (Some(actual), Some(marked)) = (&failure.actual_svg, &failure.diff_svg) {
                    message.push_str(&format!(
                        "\nthe screen is in {}, the differing cells marked in {}; if the new \
                         screen is right, run with {}=1 to rewrite the golden",
                        actual.display(),
                        marked.display(),
                        golden::UPDATE_VAR
                    ));
                }
                Err(message)
            }
        }
    }

    /// The session underneath, for what this API does not cover (raw input, the recording,
    /// idle and regex waits with a hold time, …).
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Panics with `message`, the command and the screen as it is now.
    #[track_caller]
    fn fail(&self, message: &str) -> ! {
        let screen = self.session.lock().term.snapshot();
        let rows: Vec<String> = screen
            .text()
            .split('\n')
            .map(|row| format!("  |{row}"))
            .collect();
        panic!(
            "shotty::testing: `{}`: {message}\nthe screen ({}x{}):\n{}",
            self.command,
            screen.width,
            screen.height,
            rows.join("\n")
        );
    }
}

impl std::fmt::Debug for Tui {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tui")
            .field("command", &self.command)
            .field("session", &self.session.id())
            .field("state", &self.session.lock().state)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Drop for Tui {
    /// Stops the program and its process tree (SIGHUP, SIGTERM, then SIGKILL after a grace
    /// period) unless it has ended, so no process outlives the test — also when it panicked.
    fn drop(&mut self) {
        // Nothing to report to from a drop, and an ended program needs no stop.
        let _ = self.session.stop(StopReason::User, DEFAULT_GRACE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str) -> Tui {
        Tui::new(["sh", "-c", script])
            .size(20, 3)
            .timeout(Duration::from_secs(5))
            .start()
    }

    #[test]
    fn relative_goldens_are_the_crates() {
        let resolved = resolve(Path::new("golden/x.svg"));
        assert_eq!(
            resolved,
            Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/x.svg")
        );
        assert_eq!(resolve(Path::new("/tmp/x.svg")), Path::new("/tmp/x.svg"));
    }

    #[test]
    fn update_rewrites_and_passes_where_a_compare_fails() {
        let dir = tempfile::tempdir().unwrap();
        let golden = dir.path().join("g.json");
        let mut first = shell("echo one; exec cat");
        first.wait_for_text("one");
        // Missing: written, and a failure asking for a review …
        let new = first.check_golden(&golden, false).unwrap_err();
        assert!(new.contains("there was no golden"), "{new}");
        assert!(golden.exists());
        // … unless updating.
        std::fs::remove_file(&golden).unwrap();
        first.check_golden(&golden, true).unwrap();
        first.check_golden(&golden, false).unwrap();
        let mut second = shell("echo two; exec cat");
        second
            .wait_for_text("two")
            .set_timeout(Duration::from_millis(200));
        let differs = second.check_golden(&golden, false).unwrap_err();
        assert!(differs.contains("- one\n  + two"), "{differs}");
        second.check_golden(&golden, true).unwrap();
        second.check_golden(&golden, false).unwrap();
    }

    #[test]
    fn failures_show_what_was_awaited_and_the_screen() {
        let mut tui = shell("echo ready; exec cat");
        tui.wait_for_text("ready")
            .set_timeout(Duration::from_millis(200));
        let timed_out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tui.wait_for_text("never");
        }));
        let message = panic_message(timed_out.unwrap_err());
        assert!(
            message.contains("`sh -c echo ready; exec cat`: timed out after 0.2 s waiting for text \"never\" to appear"),
            "{message}"
        );
        assert!(
            message.contains("the screen (20x3):\n  |ready\n"),
            "{message}"
        );
        let bad_key = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tui.keys("Nope");
        }));
        let message = panic_message(bad_key.unwrap_err());
        assert!(
            message.contains("cannot send the key \"Nope\""),
            "{message}"
        );
        let not_gone = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tui.wait_until_gone("ready");
        }));
        let message = panic_message(not_gone.unwrap_err());
        assert!(
            message.contains(": timed out after")
                && message.contains("waiting for text \"ready\" to go away"),
            "{message}"
        );
    }

    fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
        match payload.downcast::<String>() {
            Ok(s) => *s,
            Err(payload) => payload
                .downcast::<&str>()
                .map(|s| (*s).to_owned())
                .unwrap_or_default(),
        }
    }
}
