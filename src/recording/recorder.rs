//! Recording a live terminal into a [`Timeline`]: the recorder keeps its own [`Terminal`] fed
//! with the output, because a bounded timeline can only drop its oldest part at a keyframe,
//! and a keyframe is the screen as that terminal shows it.

use std::time::Duration;

use super::{Event, Timeline};
use crate::term::{Terminal, TerminalOptions};

/// A [`Timeline`] being recorded, with the terminal its keyframes are taken from.
#[derive(Debug)]
pub struct Recorder {
    term: Terminal,
    timeline: Timeline,
}

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
        }
    }

    /// Records output the program wrote `at` its time.
    pub fn output(&mut self, at: Duration, bytes: Vec<u8>) {
        self.term.advance(&bytes);
        // The user's own terminal answers the program's queries; these copies would only pile
        // up.
        drop(self.term.take_replies());
        self.timeline.push(at, Event::Output(bytes));
        self.keyframe_if_due(at);
    }

    /// Records bytes sent to the program.
    pub fn input(&mut self, at: Duration, bytes: Vec<u8>) {
        self.timeline.push(at, Event::Input(bytes));
        self.keyframe_if_due(at);
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
