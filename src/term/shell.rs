//! Shell integration: the marks a shell prints around its prompt and each command (OSC 133,
//! the FinalTerm protocol that VS Code, WezTerm, kitty and iTerm2 read) turned into commands
//! with their text, exit code and output.
//!
//! `A` starts the prompt, `B` ends it (the command line is typed after it), `C` is printed
//! when the command runs (its output follows), `D;status` when it has finished. The command's
//! text is what the screen shows between `B` and `C`, its output what it shows between `C`
//! and `D`, read off the primary screen's history when `D` arrives. A `D` without a `C` before
//! it (the one a shell prints before its first prompt, or after Ctrl+C at the prompt) finishes
//! nothing. Marks received on the alternate screen are ignored: shells prompt on the primary.

use std::collections::VecDeque;

use super::grid::Row;

/// The longest command text kept, in characters.
pub const MAX_COMMAND_TEXT: usize = 10_000;
/// The most output kept of one command, in characters (its end: where errors are).
pub const MAX_COMMAND_OUTPUT: usize = 200_000;
/// Events held until [`Terminal::take_shell_events`](super::Terminal::take_shell_events)
/// takes them; the oldest go first past it.
pub const MAX_PENDING_EVENTS: usize = 256;

/// What the shell reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellEvent {
    /// A command started (`C`).
    Started,
    /// A command finished (`D`).
    Finished(FinishedCommand),
}

/// A command the shell ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedCommand {
    /// The command line as the screen showed it (lines of a multi-line command joined by
    /// line breaks).
    pub text: String,
    /// The status the shell reported (`None` when its `D` carried none).
    pub exit_code: Option<i32>,
    /// What the screen showed between the command's start and its end, trailing blanks of
    /// each line removed.
    pub output: String,
    /// The output was longer than [`MAX_COMMAND_OUTPUT`] characters or its start had left
    /// the scrollback: `output` is its end.
    pub output_truncated: bool,
}

/// A place in the primary screen's history: a line's global index and a column.
pub(super) type Place = (u64, usize);

/// Where the shell is, by the last mark.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Phase {
    /// No mark yet, or a command finished and no prompt followed yet.
    #[default]
    Idle,
    /// The prompt is being drawn.
    Prompt,
    /// The prompt is drawn; the command line starts here.
    Input(Place),
    /// A command runs; its text, and where its output starts.
    Running { text: String, output: Place },
}

/// The shell-integration state of a terminal.
#[derive(Clone, Debug, Default)]
pub(super) struct ShellState {
    /// Some mark has been seen.
    seen: bool,
    phase: Phase,
    events: VecDeque<ShellEvent>,
}

impl ShellState {
    /// `Some(true)` when the shell shows its prompt and waits for a command, `Some(false)`
    /// while one runs, `None` before any mark.
    pub(super) fn prompt_ready(&self) -> Option<bool> {
        self.seen
            .then_some(matches!(self.phase, Phase::Prompt | Phase::Input(_)))
    }

    /// Takes the events not yet taken.
    pub(super) fn take_events(&mut self) -> Vec<ShellEvent> {
        self.events.drain(..).collect()
    }

    fn push(&mut self, event: ShellEvent) {
        if self.events.len() == MAX_PENDING_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back(event);
    }

    /// `A`.
    pub(super) fn prompt_start(&mut self) {
        self.seen = true;
        self.phase = Phase::Prompt;
    }

    /// `B` at `here`.
    pub(super) fn command_start(&mut self, here: Place) {
        self.seen = true;
        self.phase = Phase::Input(here);
    }

    /// Where the command line started, for `C` to read its text up to the cursor.
    pub(super) fn input_start(&self) -> Option<Place> {
        match self.phase {
            Phase::Input(place) => Some(place),
            _ => None,
        }
    }

    /// `C` at `here`, the command line being `text`.
    pub(super) fn output_start(&mut self, here: Place, text: String) {
        self.seen = true;
        self.phase = Phase::Running { text, output: here };
        self.push(ShellEvent::Started);
    }

    /// Where the running command's output started, for `D` to read it up to the cursor.
    pub(super) fn output_place(&self) -> Option<Place> {
        match self.phase {
            Phase::Running { output, .. } => Some(output),
            _ => None,
        }
    }

    /// `D` with `exit_code`, the output being `output` (and whether it was cut).
    pub(super) fn command_end(&mut self, exit_code: Option<i32>, output: (String, bool)) {
        self.seen = true;
        if let Phase::Running { text, .. } = std::mem::take(&mut self.phase) {
            let (output, output_truncated) = output;
            self.push(ShellEvent::Finished(FinishedCommand {
                text,
                exit_code,
                output,
                output_truncated,
            }));
        }
    }
}

/// The text of history lines (`newest_first`: global index and row, the newest first) from
/// `from` up to (not
/// including) `to`, each line's trailing blanks removed, soft-wrapped rows joined without a
/// break, trailing empty lines dropped; at most `max` characters, the end kept. The flag says
/// whether anything was cut (also when `from`'s line is no longer held).
pub(super) fn text_between<'a>(
    newest_first: impl Iterator<Item = (u64, &'a Row)>,
    from: Place,
    to: Place,
    max: usize,
) -> (String, bool) {
    let mut pieces: Vec<String> = Vec::new();
    let mut chars = 0;
    let mut truncated = true;
    for (index, row) in newest_first {
        if index > to.0 {
            continue;
        }
        if index < from.0 {
            break;
        }
        let start = if index == from.0 { from.1 } else { 0 };
        let end = if index == to.0 { to.1 } else { usize::MAX };
        let mut line = String::new();
        for (col, cell) in row.cells().iter().enumerate() {
            if col < start || col >= end || cell.is_spacer() {
                continue;
            }
            line.push(cell.ch);
            if let Some(extra) = row.extra(col) {
                line.push_str(extra);
            }
        }
        // A soft-wrapped row continues on the next one: no break, blanks kept.
        let continues = row.wrapped && index != to.0;
        if !continues {
            line.truncate(line.trim_end_matches(' ').len());
            line.push('\n');
        }
        chars += line.chars().count();
        pieces.push(line);
        if index == from.0 {
            truncated = false;
        }
        if chars > max {
            truncated = true;
            break;
        }
    }
    let mut text: String = pieces.iter().rev().map(String::as_str).collect();
    text.truncate(text.trim_end().len());
    let count = text.chars().count();
    if count > max {
        let cut = text
            .char_indices()
            .nth(count - max)
            .map_or(text.len(), |(i, _)| i);
        text.drain(..cut);
        truncated = true;
    }
    (text, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Terminal;

    const A: &str = "\x1b]133;A\x07";
    const B: &str = "\x1b]133;B\x07";
    const C: &str = "\x1b]133;C\x07";

    fn d(status: i32) -> String {
        format!("\x1b]133;D;{status}\x07")
    }

    fn finished(t: &mut Terminal) -> Vec<FinishedCommand> {
        t.take_shell_events()
            .into_iter()
            .filter_map(|e| match e {
                ShellEvent::Finished(c) => Some(c),
                ShellEvent::Started => None,
            })
            .collect()
    }

    #[test]
    fn a_command_has_its_line_status_and_output() {
        let mut t = Terminal::new(20, 4);
        assert_eq!(t.prompt_ready(), None);
        // The D before the first prompt finishes nothing.
        t.advance(format!("{}{A}$ {B}", d(0)).as_bytes());
        assert_eq!(t.prompt_ready(), Some(true));
        assert!(finished(&mut t).is_empty());
        t.advance(format!("ls -l\r\n{C}").as_bytes());
        assert_eq!(t.prompt_ready(), Some(false));
        // Output longer than the screen: its start is in the scrollback.
        t.advance(b"one\r\n  two  \r\nthree\r\nfour\r\n");
        t.advance(format!("{}{A}$ {B}", d(2)).as_bytes());
        let commands = finished(&mut t);
        assert_eq!(commands.len(), 1);
        let c = &commands[0];
        assert_eq!(c.text, "ls -l");
        assert_eq!(c.exit_code, Some(2));
        assert_eq!(c.output, "one\n  two\nthree\nfour");
        assert!(!c.output_truncated);
    }

    #[test]
    fn wrapped_lines_join_and_wide_characters_count_once() {
        let mut t = Terminal::new(10, 6);
        t.advance(format!("{A}> {B}echo 0123456789abc\r\n{C}日本語の出力です\r\n").as_bytes());
        t.advance(d(0).as_bytes());
        let c = &finished(&mut t)[0];
        assert_eq!(c.text, "echo 0123456789abc");
        assert_eq!(c.output, "日本語の出力です");
    }

    #[test]
    fn output_past_the_limit_keeps_its_end_and_says_so() {
        let mut t = Terminal::with_options(
            10,
            3,
            crate::term::TerminalOptions {
                scrollback: 100,
                ..Default::default()
            },
        );
        t.advance(format!("{A}{B}x\r\n{C}").as_bytes());
        for i in 0..500 {
            t.advance(format!("line {i}\r\n").as_bytes());
        }
        t.advance(d(0).as_bytes());
        let c = &finished(&mut t)[0];
        assert!(c.output_truncated);
        assert!(c.output.ends_with("line 499"), "{:?}", &c.output);
        assert!(!c.output.contains("line 0\n"));
    }

    #[test]
    fn marks_on_the_alternate_screen_and_a_ctrl_c_at_the_prompt_finish_nothing() {
        let mut t = Terminal::new(20, 4);
        t.advance(format!("{A}$ {B}\x1b[?1049h{C}{}\x1b[?1049l", d(0)).as_bytes());
        assert_eq!(t.prompt_ready(), Some(true));
        t.advance(format!("^C\r\n{}{A}$ {B}", d(130)).as_bytes());
        assert!(finished(&mut t).is_empty());
        // A D without a status is a command whose status is not known.
        t.advance(format!("true\r\n{C}\x1b]133;D\x07").as_bytes());
        assert_eq!(finished(&mut t)[0].exit_code, None);
    }
}
