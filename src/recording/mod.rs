//! A terminal's timeline: output with its times, input as sent, resizes and markers — what
//! a session records and what asciicast files, animations and scenario traces are made from.
//!
//! A [`Timeline`] is bounded by the output it holds. It is cut only at a [`Keyframe`]: bytes
//! that redraw the screen as it was at that moment (taken every [`Timeline::keyframe_interval`]
//! bytes of output), so a timeline whose oldest part was dropped still replays to the right
//! screen: feed the keyframe to a fresh terminal of its size, then the events after it.
//!
//! ```
//! use std::time::Duration;
//! use shotty::recording::{Event, Timeline};
//!
//! let mut timeline = Timeline::new(80, 24, 1 << 20);
//! timeline.push(Duration::from_millis(0), Event::Output(b"$ ".to_vec()));
//! timeline.push(Duration::from_millis(250), Event::Input(b"ls\r".to_vec()));
//! timeline.push(Duration::from_millis(260), Event::Marker("listed".into()));
//! assert_eq!(timeline.events().count(), 3);
//! assert_eq!(timeline.output_bytes(), 2);
//! ```

#[cfg(feature = "serde")]
pub mod asciicast;
pub mod frames;
#[cfg(feature = "session")]
pub mod live;
mod recorder;

pub use recorder::Recorder;

use std::collections::VecDeque;
use std::time::Duration;

use crate::term::Terminal;

/// The longest marker label, in characters.
pub const MAX_MARKER_LABEL: usize = 1024;

/// One thing that happened to the terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Bytes the program wrote (any bytes; a UTF-8 sequence may continue in the next event).
    Output(Vec<u8>),
    /// Bytes written to the program, as sent (keys already encoded).
    Input(Vec<u8>),
    /// The terminal was resized to `width × height` cells.
    Resize {
        /// Columns.
        width: u16,
        /// Rows.
        height: u16,
    },
    /// A marker the user set (its label, possibly empty).
    Marker(String),
    /// The view moved through the scrollback, as a viewer scrolls back: it shows the lines
    /// of the history from this one on (numbered as [`Terminal::history`] numbers them), or
    /// (`None`) the screen again. Only animations show it; a cast has no such event.
    View(Option<u64>),
}

impl Event {
    /// What the event counts against a timeline's bound: its data and a fixed cost, so that
    /// input and markers are bounded too, however small each one is.
    fn weight(&self) -> usize {
        const PER_EVENT: usize = 32;
        PER_EVENT
            + match self {
                Event::Output(bytes) | Event::Input(bytes) => bytes.len(),
                Event::Marker(label) => label.len(),
                Event::Resize { .. } | Event::View(_) => 0,
            }
    }
}

/// An event and when it happened, from the start of the recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedEvent {
    /// Time since the recording started.
    pub at: Duration,
    /// What happened.
    pub event: Event,
}

/// The screen at one moment, as bytes that redraw it on a fresh terminal of its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keyframe {
    /// When it was taken, from the start of the recording.
    pub at: Duration,
    /// The terminal's size then.
    pub width: u16,
    /// Rows.
    pub height: u16,
    /// The redrawing bytes.
    pub bytes: Vec<u8>,
}

/// Where the held events begin: at the recording's start, or at a keyframe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// Nothing was dropped: a blank terminal of this size.
    Blank {
        /// Columns.
        width: u16,
        /// Rows.
        height: u16,
    },
    /// The oldest part was dropped; replay starts from this screen.
    Keyframe(Keyframe),
}

impl Start {
    /// The terminal size replay starts with.
    pub fn size(&self) -> (u16, u16) {
        match self {
            Start::Blank { width, height } => (*width, *height),
            Start::Keyframe(k) => (k.width, k.height),
        }
    }
}

/// The figures of a recording, as `export` reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct RecordingSummary {
    /// Events written (a keyframe start counts as one).
    pub events: usize,
    /// Output bytes held.
    pub output_bytes: usize,
    /// Whether the oldest part was dropped.
    pub truncated: bool,
}

/// A bounded timeline (see the [module documentation](self)).
#[derive(Clone, Debug)]
pub struct Timeline {
    start: Start,
    /// Held events, oldest first; `checkpoints` index into it.
    events: VecDeque<TimedEvent>,
    /// Keyframes taken while recording, oldest first, each with the number of events
    /// dropped-or-held before it (an absolute event index).
    checkpoints: VecDeque<(u64, Keyframe)>,
    /// Absolute index of `events[0]`.
    first_index: u64,
    output_bytes: usize,
    /// What the bound counts: every event's data and a fixed cost per event.
    held: usize,
    since_keyframe: usize,
    limit: usize,
    dropped: u64,
}

impl Timeline {
    /// An empty timeline of a `width × height` terminal that holds about `limit` bytes:
    /// output, input and marker labels, plus 32 bytes per event. Cut only at keyframes, it
    /// holds at most `limit` plus what came since the last keyframe: a
    /// [`Timeline::keyframe_interval`], or up to `limit` while the output stays inside a long
    /// string (see [`Timeline::keyframe_if_due`]).
    pub fn new(width: u16, height: u16, limit: usize) -> Timeline {
        Timeline {
            start: Start::Blank { width, height },
            events: VecDeque::new(),
            checkpoints: VecDeque::new(),
            first_index: 0,
            output_bytes: 0,
            held: 0,
            since_keyframe: 0,
            limit,
            dropped: 0,
        }
    }

    /// A timeline whose replay starts from `frame` (a terminal that already shows something
    /// when recording begins).
    pub fn starting_from(frame: Keyframe, limit: usize) -> Timeline {
        let mut timeline = Timeline::new(frame.width, frame.height, limit);
        timeline.start = Start::Keyframe(frame);
        timeline
    }

    /// Output bytes between keyframes: an eighth of the limit (so at most that share of
    /// the limit is dropped at once), between 4 KiB and 1 MiB.
    pub fn keyframe_interval(&self) -> usize {
        (self.limit / 8).clamp(4096, 1 << 20)
    }

    /// Appends an event. Times are expected in order; an earlier one is recorded at the
    /// previous event's time.
    pub fn push(&mut self, at: Duration, event: Event) {
        let at = self.events.back().map_or(at, |last| at.max(last.at));
        if let Event::Output(bytes) = &event {
            self.output_bytes += bytes.len();
        }
        self.held += event.weight();
        self.since_keyframe += event.weight();
        self.events.push_back(TimedEvent { at, event });
    }

    /// Whether the recorder should take a keyframe now ([`Timeline::keyframe`]): enough
    /// has been recorded since the last one.
    pub fn wants_keyframe(&self) -> bool {
        self.since_keyframe >= self.keyframe_interval()
    }

    /// Records the screen as it is after the events so far (`bytes` redraw it on a fresh
    /// terminal of `width × height`), then drops the oldest part while the output held is over
    /// the limit and a later keyframe exists to start from.
    pub fn keyframe(&mut self, at: Duration, width: u16, height: u16, bytes: Vec<u8>) {
        self.since_keyframe = 0;
        let index = self.first_index + self.events.len() as u64;
        let at = self.events.back().map_or(at, |last| at.max(last.at));
        let frame = Keyframe {
            at,
            width,
            height,
            bytes,
        };
        self.checkpoints.push_back((index, frame));
        while self.held > self.limit {
            let Some((index, frame)) = self.checkpoints.pop_front() else {
                break;
            };
            let count = (index - self.first_index) as usize;
            for event in self.events.drain(..count) {
                if let Event::Output(bytes) = &event.event {
                    self.output_bytes -= bytes.len();
                }
                self.held -= event.event.weight();
                self.dropped += 1;
            }
            self.first_index = index;
            self.start = Start::Keyframe(frame);
        }
    }

    /// Takes a keyframe of `term` (the terminal this timeline records) when one is due
    /// ([`Timeline::wants_keyframe`]), which also lets the oldest part go — once `term` can
    /// take a whole one ([`Terminal::keyframe_ready`]: not inside a long string). Output that
    /// never leaves such a string gets its keyframe once the limit's worth has come since the
    /// last, so the bound holds.
    pub fn keyframe_if_due(&mut self, at: Duration, term: &Terminal) {
        let overdue = self.since_keyframe >= self.limit.max(2 * self.keyframe_interval());
        if self.wants_keyframe() && (term.keyframe_ready() || overdue) {
            let clamp = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
            let (width, height) = (clamp(term.width()), clamp(term.height()));
            self.keyframe(at, width, height, term.keyframe());
        }
    }

    /// Where replay of [`Timeline::events`] starts.
    pub fn start(&self) -> &Start {
        &self.start
    }

    /// The held events, oldest first.
    pub fn events(&self) -> impl ExactSizeIterator<Item = &TimedEvent> {
        self.events.iter()
    }

    /// Output bytes held.
    pub fn output_bytes(&self) -> usize {
        self.output_bytes
    }

    /// Events dropped from the start to stay within the limit.
    pub fn dropped_events(&self) -> u64 {
        self.dropped
    }

    /// What an export of this timeline holds.
    pub fn summary(&self) -> RecordingSummary {
        let truncated = matches!(self.start, Start::Keyframe(_));
        RecordingSummary {
            events: self.events.len() + usize::from(truncated),
            output_bytes: self.output_bytes,
            truncated,
        }
    }

    /// The markers held, with their times.
    pub fn markers(&self) -> impl Iterator<Item = (Duration, &str)> {
        self.events.iter().filter_map(|e| match &e.event {
            Event::Marker(label) => Some((e.at, label.as_str())),
            _ => None,
        })
    }
}
