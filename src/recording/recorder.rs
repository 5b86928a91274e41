//! Recording a live terminal into a [`Timeline`]: the recorder keeps its own [`Terminal`] fed
//! with the output, because a bounded timeline can only drop its oldest part at a keyframe,
//! and a keyframe is the screen as that terminal shows it.

use std::time::Duration;

use super::{Event, Timeline};
use crate::term::{Terminal, TerminalOptions, queries};

/// A [`Timeline`] being recorded, with the terminal its keyframes are taken from.
#[derive(Debug)]
pub struct Recorder {
    term: Terminal,
    timeline: Timeline,
    /// Replies of the user's terminal still to come: the queries the program wrote, counted
    /// by the answers this recorder's terminal gave them.
    replies_due: usize,
}

/// The most replies awaited at once (a program that queries without reading the answers
/// must not make every later key look like one).
const MAX_REPLIES_DUE: usize = 64;

impl Recorder {
    /// A recorder of a `width × height` terminal whose timeline holds about `limit` bytes
    /// (see [`Timeline::new`]).
    pub fn new(width: u16, height: u16, limit: usize) -> Recorder {
        // Keyframes redraw the visible screen only, so no scrollback is kept.
        let options = TerminalOptions {
            scrollback: 0,
            ..TerminalOptions::default()
        };
        Recorder {
            term: Terminal::with_options(usize::from(width), usize::from(height), options),
            timeline: Timeline::new(width, height, limit),
            replies_due: 0,
        }
    }

    /// Records output the program wrote `at` its time.
    pub fn output(&mut self, at: Duration, bytes: Vec<u8>) {
        self.term.advance(&bytes);
        // The user's own terminal answers the program's queries; these answers only say how
        // many of its replies will come in with the keys.
        let answers = self.term.take_replies();
        let mut rest = &answers[..];
        while let Some(len) = queries::reply_len(rest) {
            rest = &rest[len..];
            self.replies_due = (self.replies_due + 1).min(MAX_REPLIES_DUE);
        }
        self.timeline.push(at, Event::Output(bytes));
        self.keyframe_if_due(at);
    }

    /// Records bytes sent to the program, but for the user's terminal's replies to the
    /// program's queries (a cursor position, device attributes …), which nobody typed.
    pub fn input(&mut self, at: Duration, bytes: Vec<u8>) {
        let keys = self.without_replies(bytes);
        if !keys.is_empty() {
            self.timeline.push(at, Event::Input(keys));
        }
        self.keyframe_if_due(at);
    }

    /// `bytes` without the replies due in them.
    fn without_replies(&mut self, bytes: Vec<u8>) -> Vec<u8> {
        if self.replies_due == 0 {
            return bytes;
        }
        let mut keys = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match queries::reply_len(&bytes[i..]) {
                Some(len) if self.replies_due > 0 => {
                    self.replies_due -= 1;
                    i += len;
                }
                _ => {
                    keys.push(bytes[i]);
                    i += 1;
                }
            }
        }
        keys
    }

    /// Records a resize to `width × height`.
    pub fn resize(&mut self, at: Duration, width: u16, height: u16) {
        self.term.resize(usize::from(width), usize::from(height));
        self.timeline.push(at, Event::Resize { width, height });
    }

    /// The terminal size now.
    pub fn size(&self) -> (u16, u16) {
        let clamp = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
        (clamp(self.term.width()), clamp(self.term.height()))
    }

    /// The timeline recorded so far.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Ends the recording.
    pub fn into_timeline(self) -> Timeline {
        self.timeline
    }

    /// Takes a keyframe once enough was recorded since the last, which lets the timeline drop
    /// its oldest part.
    fn keyframe_if_due(&mut self, at: Duration) {
        self.timeline.keyframe_if_due(at, &self.term);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_limit_drops_the_oldest_part_and_replays_from_a_keyframe() {
        let mut recorder = Recorder::new(20, 2, 8 << 10);
        for i in 0..2000u32 {
            let at = Duration::from_millis(u64::from(i));
            recorder.output(at, format!("line {i}\r\n").into_bytes());
        }
        recorder.input(Duration::from_secs(3), b"q".to_vec());
        let timeline = recorder.into_timeline();
        assert!(timeline.dropped_events() > 0);
        assert!(matches!(timeline.start(), super::super::Start::Keyframe(_)));
        // The replay ends on the screen the terminal showed.
        let mut frames = timeline.frames(Default::default());
        let last = frames
            .by_ref()
            .last()
            .and_then(Result::ok)
            .map(|f| f.snapshot.text());
        assert_eq!(last.as_deref(), Some("line 1999\n"));
    }

    /// The user's terminal's answers to the program's queries are not recorded as typed
    /// input; the same bytes with no query before them are keys (Shift+F3 has a cursor
    /// report's shape), and keys around a reply stay.
    #[test]
    fn replies_to_queries_are_not_recorded_as_input() {
        let mut recorder = Recorder::new(80, 24, 1 << 20);
        let ms = Duration::from_millis;
        recorder.input(ms(1), b"\x1b[1;2R".to_vec());
        recorder.output(ms(2), b"\x1b[6n\x1b[c".to_vec());
        recorder.input(ms(3), b"\x1b[12;40R".to_vec());
        recorder.input(ms(4), b"l\x1b[?62;22cs".to_vec());
        // Both replies came: the next cursor-report shape is a key again.
        recorder.input(ms(5), b"\x1b[1;2R".to_vec());
        let inputs: Vec<Vec<u8>> = recorder
            .timeline()
            .events()
            .filter_map(|e| match &e.event {
                Event::Input(bytes) => Some(bytes.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            inputs,
            [b"\x1b[1;2R".to_vec(), b"ls".to_vec(), b"\x1b[1;2R".to_vec()]
        );
    }

    #[test]
    fn resizes_are_recorded_and_followed() {
        let mut recorder = Recorder::new(80, 24, 1 << 20);
        recorder.resize(Duration::from_millis(5), 100, 30);
        assert_eq!(recorder.size(), (100, 30));
        let events: Vec<_> = recorder
            .timeline()
            .events()
            .map(|e| e.event.clone())
            .collect();
        assert_eq!(
            events,
            [Event::Resize {
                width: 100,
                height: 30
            }]
        );
    }
}
