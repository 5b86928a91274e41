//! Waiting for a condition on a session's screen: text or a pattern appearing or going away,
//! optionally held for a while, the screen going idle, or the program ending. Event-driven:
//! the waiter sleeps on the session's change notification and wakes exactly at the moments a
//! time-based condition could become true.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

use super::error::{ErrorCode, SessionError};
use super::instance::{Live, Session};
use crate::term::{FindScope, Terminal};

/// How long output must have paused before [`until_passes`] asks whether the program is at
/// rest (a program that has just written is still at work).
const REST_QUIET: Duration = Duration::from_millis(5);
/// How often [`until_passes`] asks again whether a program that was busy has come to rest.
const REST_RECHECK: Duration = Duration::from_millis(100);
/// How long a program [`until_passes`] found at rest must stay so, the screen unchanged.
const REST_CONFIRM: Duration = Duration::from_millis(40);

/// The longest a check waits for the program to settle (see [`Session::settle`]) before it
/// judges the screen: a program that keeps running is judged as it is after this.
const SETTLE_AT_MOST: Duration = Duration::from_secs(1);

/// How long to let the program settle before judging a screen, within `timeout`.
fn settle_bound(timeout: Option<Duration>) -> Duration {
    timeout.map_or(SETTLE_AT_MOST, |t| t.min(SETTLE_AT_MOST))
}

/// The longest regex source accepted.
pub const MAX_PATTERN_LEN: usize = 4096;

/// What to wait for.
#[derive(Clone, Debug)]
pub enum Target {
    /// A literal substring of the viewport text (case-sensitive).
    Text(String),
    /// A regular expression matched against the viewport text.
    Regex(Regex),
    /// A regular expression matched against the cursor's row (trailing blanks removed), as
    /// a VHS tape's `Wait` matches it.
    CursorRow(Regex),
    /// The screen's content (not just the cursor) unchanged for this long.
    Idle(Duration),
    /// The program has ended.
    Exit,
    /// A shell command finished after the session's last input (shell integration; see
    /// [`Commands::after_input`](super::commands::Commands::after_input)).
    Command,
    /// The window title contains this text.
    Title(String),
    /// The terminal rang its bell after the session's last input.
    Bell,
    /// The screen's content (not just the cursor) changed after this version; `None`: after
    /// the wait began.
    Changed(Option<u64>),
}

/// Whether the text must appear or go away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
// Scenario files name it too; their JSON Schema is derived.
#[cfg_attr(feature = "scenario", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Until {
    /// Wait until it is on screen.
    #[default]
    Present,
    /// Wait until it has been on screen and is gone: text that has not appeared yet (a
    /// "Working…" the program is about to print) is waited for first.
    Absent,
    /// Wait until it is not on the screen once the program has reacted to the input sent
    /// before the wait, whether or not it was ever seen (a test's "the dialog is closed").
    Gone,
}

impl Until {
    /// Every value, in the order documentation lists them.
    pub const ALL: [Until; 3] = [Until::Present, Until::Absent, Until::Gone];

    /// Its name in requests and scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Until::Present => "present",
            Until::Absent => "absent",
            Until::Gone => "gone",
        }
    }

    /// The value named `name`, if any.
    pub fn from_name(name: &str) -> Option<Until> {
        Until::ALL.into_iter().find(|u| u.name() == name)
    }
}

/// A complete wait request.
#[derive(Clone, Debug)]
pub struct WaitCondition {
    /// What to wait for.
    pub target: Target,
    /// Appear or go away (text and regex targets only).
    pub until: Until,
    /// The condition must hold continuously this long.
    pub stable_for: Option<Duration>,
    /// Give up after this long; `None` waits until met, the session ends or cancellation.
    pub timeout: Option<Duration>,
    /// The condition must become true after the wait began: a text or pattern counts only
    /// where the screen did not show it then (so the echo of a typed command line does not
    /// satisfy it), a title only once the title has changed, a bell only if it rings after.
    pub fresh: bool,
}

impl WaitCondition {
    /// This wait as a scenario file's `wait` step (`{"type": "wait", "args": {…}}`), if the
    /// format can say it.
    pub fn to_step(&self) -> Option<serde_json::Value> {
        use serde_json::json;
        let mut args = serde_json::Map::new();
        match &self.target {
            Target::Text(t) => {
                args.insert("text".into(), json!(t));
            }
            Target::Regex(r) => {
                args.insert("regex".into(), json!(r.as_str()));
            }
            Target::Idle(d) => {
                args.insert("idle".into(), json!(format!("{}ms", d.as_millis())));
            }
            Target::Exit => {
                args.insert("exit".into(), json!(true));
            }
            Target::Command => {
                args.insert("command".into(), json!(true));
            }
            Target::CursorRow(_) | Target::Title(_) | Target::Bell | Target::Changed(_) => {
                return None;
            }
        }
        if self.until != Until::Present {
            args.insert("until".into(), json!(self.until.name()));
        }
        if let Some(s) = self.stable_for {
            args.insert("stableFor".into(), json!(format!("{}ms", s.as_millis())));
        }
        if let Some(t) = self.timeout {
            args.insert("timeout".into(), json!(format!("{}ms", t.as_millis())));
        }
        Some(json!({ "type": "wait", "args": args }))
    }

    /// Compiles a regex target, naming the problem (`invalid_condition`) if it is bad.
    pub fn regex(pattern: &str) -> Result<Target, SessionError> {
        if pattern.len() > MAX_PATTERN_LEN {
            return Err(SessionError::new(
                ErrorCode::InvalidCondition,
                format!("the pattern is longer than {MAX_PATTERN_LEN} bytes"),
            ));
        }
        // `^` and `$` anchor lines: the screen is many lines, and a prompt is at a line start.
        RegexBuilder::new(pattern)
            .multi_line(true)
            .build()
            .map(Target::Regex)
            .map_err(|e| SessionError::new(ErrorCode::InvalidCondition, format!("bad regex: {e}")))
    }

    /// What is waited for, in words: `text "x" to appear`, `the program to exit`.
    pub fn describe(&self) -> String {
        let what = match &self.target {
            Target::Text(t) => format!("text {t:?}"),
            Target::Regex(r) => format!("pattern /{}/", r.as_str()),
            Target::CursorRow(r) => format!("pattern /{}/ on the cursor's line", r.as_str()),
            Target::Idle(d) => {
                return format!("the screen to be idle for {:.1} s", d.as_secs_f64());
            }
            Target::Exit => return "the program to exit".into(),
            Target::Command => {
                return "a shell command to finish (the shell must send OSC 133 marks: start \
                        --shell-integration)"
                    .into();
            }
            Target::Title(t) => return format!("the title to contain {t:?}"),
            Target::Bell => return "the bell".into(),
            Target::Changed(_) => return "the screen to change".into(),
        };
        match self.until {
            Until::Present => format!("{what} to appear"),
            Until::Absent | Until::Gone => format!("{what} to go away"),
        }
    }
}

/// How a wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaitResult {
    /// The condition was met.
    Matched,
    /// The timeout passed first.
    Timeout,
    /// The program ended first.
    SessionEnded,
    /// The caller cancelled.
    Cancelled,
}

/// The result of [`wait`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitOutcome {
    /// How it ended.
    pub result: WaitResult,
    /// Time spent waiting.
    pub waited: Duration,
    /// The screen version at the end.
    pub version: u64,
}

impl WaitOutcome {
    /// Why the wait for `condition` on `session` did not succeed, in words (`timed out after
    /// 10.0 s waiting for text "x" to appear`), or `None` when it matched.
    pub fn failure(&self, condition: &WaitCondition, session: &Session) -> Option<String> {
        match self.result {
            WaitResult::Matched => None,
            WaitResult::Timeout => Some(format!(
                "timed out after {:.1} s waiting for {}",
                self.waited.as_secs_f64(),
                condition.describe()
            )),
            WaitResult::SessionEnded => Some(format!(
                "the program ended{} while waiting for {}",
                exit_note(session),
                condition.describe()
            )),
            WaitResult::Cancelled => Some("cancelled".into()),
        }
    }
}

/// How the program ended, to follow "the program ended": ` with exit code 1`, ` by SIGKILL`.
pub fn exit_note(session: &Session) -> String {
    let live = session.lock();
    match (live.exit_code, &live.signal) {
        (Some(code), _) => format!(" with exit code {code}"),
        (None, Some(signal)) => format!(" by {signal}"),
        _ => String::new(),
    }
}

/// What the screen showed when a `fresh` wait began, to tell what is new since.
enum Fresh {
    /// Where the text or pattern was: (row, column), rows counted from `first` in the
    /// primary history, or screen rows on the alternate screen.
    Places {
        first: Option<u64>,
        places: std::collections::HashSet<(u64, usize)>,
    },
    /// The title then.
    Title(String),
    /// Bells rung by then.
    Bells(u64),
    /// Nothing to compare.
    Nothing,
}

impl Fresh {
    fn of(live: &Live, target: &Target) -> Fresh {
        let term = &live.term;
        match target {
            Target::Text(_) | Target::Regex(_) => {
                let first = (!term.screen().is_alternate_screen()).then(|| screen_top(term));
                Fresh::Places {
                    first,
                    places: places(term, target, first).collect(),
                }
            }
            Target::Title(_) => Fresh::Title(term.screen().title().to_owned()),
            Target::Bell => Fresh::Bells(term.screen().bell_count()),
            _ => Fresh::Nothing,
        }
    }

    /// Whether the condition holds on something new since the wait began.
    fn is_new(&self, live: &Live, condition: &WaitCondition) -> bool {
        let term = &live.term;
        match self {
            Fresh::Places { first, places: old } => {
                let first = first.filter(|_| !term.screen().is_alternate_screen());
                let mut now = places(term, &condition.target, first);
                now.any(|place| !old.contains(&place))
            }
            Fresh::Title(then) => term.screen().title() != then,
            Fresh::Bells(then) => term.screen().bell_count() > *then,
            Fresh::Nothing => true,
        }
    }
}

/// The global index of the primary screen's top row.
fn screen_top(term: &Terminal) -> u64 {
    let scrollback = term.screen().scrollback();
    scrollback.dropped() + scrollback.len() as u64
}

/// Where a text (its first line) or a pattern is: in the history from line `first` on, or on
/// the screen when `first` is `None`.
fn places<'a>(
    term: &'a Terminal,
    target: &'a Target,
    first: Option<u64>,
) -> impl Iterator<Item = (u64, usize)> + 'a {
    let scope = first.map_or(FindScope::Screen, FindScope::History);
    let found = term.find(scope, None, |row| match target {
        Target::Text(t) => {
            let line = t.split('\n').next().unwrap_or(t);
            row.match_indices(line)
                .map(|(i, m)| i..i + m.len())
                .collect()
        }
        Target::Regex(r) => r.find_iter(row).map(|m| m.range()).collect(),
        _ => Vec::new(),
    });
    found.into_iter().map(|f| (f.row, f.col))
}

/// Checks the screen with `check` once it has settled (see [`Session::settle`]), then again
/// after every change, until it passes, `timeout` passes, or the screen can no longer change
/// by itself: the program has ended or waits for input with no timer running
/// ([`Session::is_at_rest`]); the error is the last check's. For conditions a
/// [`WaitCondition`] cannot express (a whole screen against a golden, a cell's style): the
/// screen is taken settled, so a check does not judge a screen the program is still drawing.
pub fn until_passes<E>(
    session: &Session,
    timeout: Duration,
    mut check: impl FnMut(&Terminal) -> Result<(), E>,
) -> Result<(), E> {
    let deadline = Instant::now() + timeout;
    let mut live = session.settle(settle_bound(Some(timeout)));
    loop {
        let version = live.version;
        let result = check(&live.term);
        // Until the screen changes: is the failure final? A program that has just written
        // is asked again once its output paused, and one still busy every REST_RECHECK; one
        // found at rest must still be a moment later (a process starting up may be seen in a
        // wait for an instant).
        let mut resting_since: Option<Instant> = None;
        loop {
            let now = Instant::now();
            if result.is_ok() || now >= deadline || live.state.is_ended() {
                return result;
            }
            let quiet = now.duration_since(live.output_at) >= REST_QUIET;
            if quiet && session.is_at_rest(&live) {
                let since = *resting_since.get_or_insert(now);
                if now >= since + REST_CONFIRM {
                    return result;
                }
            } else {
                resting_since = None;
            }
            let wake = match resting_since {
                Some(since) => since + REST_CONFIRM,
                None if quiet => now + REST_RECHECK,
                None => live.output_at + REST_QUIET,
            };
            live = session.wait_change(live, Some(wake.min(deadline)));
            if live.version != version {
                break;
            }
        }
    }
}

/// Waits on `session` until `condition` is met, it times out, the session ends, or `cancel`
/// is set (whoever sets it must call [`Session::notify`] to wake the waiter).
pub fn wait(session: &Session, condition: &WaitCondition, cancel: &AtomicBool) -> WaitOutcome {
    let start = Instant::now();
    let deadline = condition.timeout.map(|t| start + t);
    let mut holding_since: Option<Instant> = None;
    let (mut live, mut seen) = match condition.until {
        // The settled screen stands for "seen": what is not on it is gone.
        Until::Gone => (session.settle(settle_bound(condition.timeout)), true),
        Until::Present | Until::Absent => (session.lock(), false),
    };
    let at_start = Fresh::of(&live, &condition.target);
    let changed_since = match condition.target {
        Target::Changed(Some(version)) => version,
        _ => live.version,
    };
    loop {
        let now = Instant::now();
        let ended = live.state.is_ended();
        let visible = |present: bool, seen: &mut bool| match condition.until {
            Until::Present => present,
            Until::Absent | Until::Gone => {
                *seen |= present;
                *seen && !present
            }
        };
        let fresh = |holds: bool| holds && (!condition.fresh || at_start.is_new(&live, condition));
        let holds = match &condition.target {
            Target::Text(t) => visible(fresh(live.term.contains_text(t)), &mut seen),
            Target::Regex(r) => visible(fresh(r.is_match(&live.term.text())), &mut seen),
            Target::CursorRow(r) => {
                visible(fresh(r.is_match(&live.term.cursor_row_text())), &mut seen)
            }
            Target::Idle(d) => now.duration_since(live.content_changed_at) >= *d,
            Target::Exit => ended,
            Target::Command => live.commands.after_input(live.inputs).is_some(),
            Target::Title(t) => fresh(live.term.screen().title().contains(t.as_str())),
            Target::Bell => {
                let rung = live.term.screen().bell_count();
                rung > live.bells_at_input
                    && (!condition.fresh || at_start.is_new(&live, condition))
            }
            Target::Changed(_) => live.content_version > changed_since,
        };
        let outcome = |result| WaitOutcome {
            result,
            waited: start.elapsed(),
            version: live.version,
        };
        if holds {
            let since = *holding_since.get_or_insert(now);
            if condition
                .stable_for
                .is_none_or(|s| now.duration_since(since) >= s)
            {
                let matched = outcome(WaitResult::Matched);
                if let Some(step) = condition.to_step() {
                    live.journal.wait(step);
                }
                return matched;
            }
        } else {
            holding_since = None;
        }
        // Once the program has ended the screen can no longer change, so a condition that
        // does not hold now never will (except staying stable, which needs no more output).
        if ended && !holds {
            return outcome(WaitResult::SessionEnded);
        }
        if cancel.load(Ordering::SeqCst) {
            return outcome(WaitResult::Cancelled);
        }
        if deadline.is_some_and(|d| now >= d) {
            return outcome(WaitResult::Timeout);
        }
        // Sleep until something changes or a time-based condition could become true.
        let mut wake = deadline;
        let mut at = |t: Instant| wake = Some(wake.map_or(t, |w| w.min(t)));
        if let (Some(since), Some(s)) = (holding_since, condition.stable_for) {
            at(since + s);
        }
        live = match condition.target {
            Target::Text(_)
            | Target::Regex(_)
            | Target::CursorRow(_)
            | Target::Command
            | Target::Title(_)
            | Target::Bell
            | Target::Changed(_) => session.wait_change(live, wake),
            // Idleness comes with time, and output only moves it later, so these waiters
            // need no wake-up per output.
            Target::Idle(d) => {
                at(live.content_changed_at + d);
                session.wait_lifecycle(live, wake)
            }
            Target::Exit => session.wait_lifecycle(live, wake),
        };
    }
}
