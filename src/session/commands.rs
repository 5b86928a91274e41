//! The commands a shell ran in a session, from its shell-integration marks (see
//! [`term::shell`](crate::term::shell)), timed by the session: what `wait --command`,
//! `read`'s `prompt` and `session commands` report.

use std::collections::VecDeque;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::term::shell::ShellEvent;

/// Commands kept per session; the oldest go first.
pub const MAX_COMMANDS: usize = 1000;

/// A command the shell reported finished.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandRecord {
    /// Its number in the session, from 0.
    pub index: u64,
    /// The command line.
    pub text: String,
    /// The status the shell reported (`null` when it reported none).
    pub exit_code: Option<i32>,
    /// What it printed, as the screen showed it (its end, when `outputTruncated`).
    pub output: String,
    /// The output was cut to its last 200,000 characters or its start had left the
    /// scrollback.
    pub output_truncated: bool,
    /// From its start to its end, in milliseconds.
    pub duration_ms: u64,
    /// When it finished, in milliseconds from the session's start.
    pub finished_at_ms: u64,
    /// Inputs written to the session before it finished (see [`Commands::after_input`]).
    #[serde(skip)]
    inputs_before: u64,
}

/// A session's finished commands.
#[derive(Clone, Debug, Default)]
pub struct Commands {
    finished: VecDeque<CommandRecord>,
    /// When the running command started (from the session's start).
    started: Option<Duration>,
    next_index: u64,
}

impl Commands {
    /// Takes in the terminal's events, which happened `at` (from the session's start) after
    /// `inputs` writes to the session.
    pub fn record(&mut self, events: Vec<ShellEvent>, at: Duration, inputs: u64) {
        for event in events {
            match event {
                ShellEvent::Started => self.started = Some(at),
                ShellEvent::Finished(c) => {
                    let started = self.started.take().unwrap_or(at);
                    if self.finished.len() == MAX_COMMANDS {
                        self.finished.pop_front();
                    }
                    self.finished.push_back(CommandRecord {
                        index: self.next_index,
                        text: c.text,
                        exit_code: c.exit_code,
                        output: c.output,
                        output_truncated: c.output_truncated,
                        duration_ms: millis(at.saturating_sub(started)),
                        finished_at_ms: millis(at),
                        inputs_before: inputs,
                    });
                    self.next_index += 1;
                }
            }
        }
    }

    /// The first command that finished after the last of `inputs` writes: the one a
    /// `send` followed by `wait --command` is about. (A command finished before that input
    /// is older news; one still running has not finished.)
    pub fn after_input(&self, inputs: u64) -> Option<&CommandRecord> {
        self.finished.iter().find(|c| c.inputs_before == inputs)
    }

    /// The last `n` finished commands, oldest first.
    pub fn last(&self, n: usize) -> Vec<CommandRecord> {
        let skip = self.finished.len().saturating_sub(n);
        self.finished.iter().skip(skip).cloned().collect()
    }

    /// Commands no longer kept.
    pub fn dropped(&self) -> u64 {
        self.next_index - self.finished.len() as u64
    }
}

fn millis(d: Duration) -> u64 {
    d.as_millis().try_into().unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::shell::FinishedCommand;

    fn finished(text: &str) -> ShellEvent {
        ShellEvent::Finished(FinishedCommand {
            text: text.into(),
            exit_code: Some(0),
            output: String::new(),
            output_truncated: false,
        })
    }

    #[test]
    fn the_command_after_an_input_is_the_first_that_finished_after_it() {
        let mut c = Commands::default();
        let s = Duration::from_secs;
        c.record(vec![ShellEvent::Started, finished("one")], s(1), 1);
        assert_eq!(c.after_input(1).map(|r| r.text.as_str()), Some("one"));
        // A new input: nothing has finished since.
        assert!(c.after_input(2).is_none());
        c.record(vec![ShellEvent::Started], s(2), 2);
        c.record(vec![finished("two")], s(5), 2);
        c.record(vec![ShellEvent::Started, finished("three")], s(6), 2);
        let two = c.after_input(2).unwrap();
        assert_eq!((two.text.as_str(), two.duration_ms), ("two", 3000));
        assert_eq!(c.last(2).len(), 2);
        assert_eq!(c.last(9)[0].index, 0);
    }

    #[test]
    fn the_list_is_bounded() {
        let mut c = Commands::default();
        for i in 0..MAX_COMMANDS + 5 {
            c.record(vec![finished(&i.to_string())], Duration::ZERO, 0);
        }
        assert_eq!(c.dropped(), 5);
        assert_eq!(c.last(1)[0].index, (MAX_COMMANDS + 4) as u64);
    }
}
