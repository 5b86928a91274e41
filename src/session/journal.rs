//! A session's journal: the steps that drove it and succeeded — sends, matched waits, resizes,
//! markers — in order, so `session export -o run.yaml` can write them as a scenario that
//! replays the session (SPEC §10). Reads, captures and failed steps are left out: they did
//! not change what the program saw.
//!
//! It knows nothing of sessions or waits (they use it): each step is kept in the scenario
//! file's own form (`{"type": "send", "inputs": […]}`), which is also how the host hands the journal to its clients.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::send::SendStep;

/// Steps a journal keeps at most; later ones are counted as dropped (an agent polling for
/// hours must not grow the host without end).
pub const MAX_STEPS: usize = 10_000;

/// The most a journal's steps hold, in bytes of their JSON form; later ones are counted as
/// dropped (a client sending megabytes to a program must not grow the host with them).
pub const MAX_BYTES: usize = 4 << 20;

/// The journal of one session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Journal {
    /// The steps, in the scenario file's form.
    pub steps: Vec<Value>,
    /// Steps not kept because the journal was full.
    pub dropped: u64,
    /// The steps' size, in bytes of their JSON form.
    #[serde(skip)]
    bytes: usize,
}

impl Journal {
    fn push(&mut self, step: Value) {
        let size = step.to_string().len();
        if self.steps.len() < MAX_STEPS && self.bytes + size <= MAX_BYTES {
            self.steps.push(step);
            self.bytes += size;
        } else {
            self.dropped += 1;
        }
    }

    /// Notes a send that was written (its steps in their own JSON form, which scenario
    /// files share).
    pub fn send(&mut self, steps: &[SendStep]) {
        self.push(send_step(steps));
    }

    /// Takes back the send [`send`](Self::send) noted last, when its input could not be
    /// written after all.
    pub fn unsend(&mut self, steps: &[SendStep]) {
        let noted = send_step(steps);
        if self.steps.last() == Some(&noted) {
            self.bytes -= noted.to_string().len();
            self.steps.pop();
        } else if self.dropped > 0 {
            // It did not fit, and was counted instead.
            self.dropped -= 1;
        }
    }

    /// Notes a wait whose condition was met, in the form `WaitCondition::to_step` writes.
    pub fn wait(&mut self, step: Value) {
        self.push(step);
    }

    /// Notes a resize.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.push(json!({ "type": "resize", "args": { "width": width, "height": height } }));
    }

    /// Notes a marker.
    pub fn mark(&mut self, label: &str) {
        self.push(json!({ "type": "mark", "args": { "label": label } }));
    }
}

/// A send in the scenario file's form.
fn send_step(steps: &[SendStep]) -> Value {
    json!({ "type": "send", "inputs": steps })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Big sends fill the journal by their size, long before its count of steps; what does
    /// not fit is counted, and small steps still fit after a big one was left out.
    #[test]
    fn the_journal_is_bounded_by_bytes_too() {
        let mut journal = Journal::default();
        let big = SendStep::Text("x".repeat(1 << 20));
        for _ in 0..10 {
            journal.send(std::slice::from_ref(&big));
        }
        assert_eq!(journal.steps.len(), 3, "three 1 MiB sends fit in 4 MiB");
        assert_eq!(journal.dropped, 7);
        journal.resize(80, 24);
        assert_eq!(journal.steps.len(), 4);
        let held: usize = journal.steps.iter().map(|s| s.to_string().len()).sum();
        assert!(held <= MAX_BYTES, "{held}");
    }

    /// A send taken back leaves the journal as it was, whether it was kept or only counted.
    #[test]
    fn a_send_taken_back_is_gone() {
        let mut journal = Journal::default();
        journal.mark("before");
        let before = journal.clone();
        let send = [SendStep::Text("exit".into())];
        journal.send(&send);
        journal.unsend(&send);
        assert_eq!(journal, before);
        assert_eq!(journal.bytes, before.bytes);
        let big = [SendStep::Text("x".repeat(MAX_BYTES))];
        journal.send(&big);
        assert_eq!(journal.dropped, 1);
        journal.unsend(&big);
        assert_eq!(journal, before);
    }
}
