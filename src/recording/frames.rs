//! A recording played into frames: the screens an animation shows, on a grid of `fps` frames
//! a second.
//!
//! [`Frames`] feeds a recording's events into a [`Terminal`] and samples it once per frame
//! interval that had events, so the frames only exist where the screen changed and every
//! frame time is a whole number of intervals: the same recording and [`Timing`] always give
//! the same frames. Times are first cut to the window (`from`/`to`), then pauses longer than
//! the idle limit are shortened to it, then the result is divided by the speed, as asciinema
//! and agg do.
//!
//! ```
//! use std::time::Duration;
//! use shotty::recording::{Event, Timeline};
//! use shotty::recording::frames::Timing;
//!
//! let mut timeline = Timeline::new(10, 1, 1 << 20);
//! timeline.push(Duration::from_millis(0), Event::Output(b"a".to_vec()));
//! timeline.push(Duration::from_millis(10), Event::Output(b"b".to_vec()));
//! timeline.push(Duration::from_secs(9), Event::Output(b"c".to_vec()));
//! let mut frames = timeline.frames(Timing::default());
//! let shown: Vec<(u64, String)> = frames
//!     .by_ref()
//!     .map(|f| f.map(|f| (f.index, f.snapshot.text())))
//!     .collect::<Result<_, _>>()
//!     .unwrap();
//! // 30 fps: "a" and "b" share frame 0; the 9 s pause is cut to the 3 s idle limit.
//! assert_eq!(shown, [(0, "ab".to_string()), (90, "abc".to_string())]);
//! assert_eq!(frames.end_index(), 90 + 30);
//! ```

use std::convert::Infallible;

use super::{Event, Start, TimedEvent, Timeline};
use crate::term::{Snapshot, Terminal};

/// The largest frame rate.
pub const MAX_FPS: u32 = 120;

/// How a recording becomes an animation (SPEC §9's timing options).
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// Frames a second (1–[`MAX_FPS`]); events inside one interval collapse to its newest
    /// screen.
    pub fps: u32,
    /// Playback speed (greater than 0).
    pub speed: f64,
    /// Pauses longer than this many seconds are cut to it (before the speed applies).
    pub idle_time_limit: Option<f64>,
    /// Seconds into the recording the animation starts (the screen as it was then).
    pub from: f64,
    /// Seconds into the recording the animation ends, if before its end.
    pub to: Option<f64>,
    /// Seconds the last frame is held before the animation loops (or ends).
    pub sleep: f64,
    /// Whether the animation plays again from the start.
    pub looped: bool,
    /// Whether frames carry a caption of the keys being typed (`--show-keys`).
    pub show_keys: bool,
}

/// Seconds within which a time counts as on a frame's boundary: a nanosecond, the
/// recordings' resolution, far above the rounding of seconds as floats.
const BOUNDARY_TOLERANCE: f64 = 1e-9;

/// Seconds a caption stays after the last key in it.
pub const CAPTION_HOLD: f64 = 1.0;
/// The most characters a caption shows (the newest).
pub const MAX_CAPTION_CHARS: usize = 40;
/// Input bytes one caption collects before it starts again.
const MAX_CAPTION_BYTES: usize = 1024;

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            fps: 30,
            speed: 1.0,
            idle_time_limit: Some(3.0),
            from: 0.0,
            to: None,
            sleep: 1.0,
            looped: true,
            show_keys: false,
        }
    }
}

impl Timing {
    /// Checks the values, naming the option at fault.
    pub fn validate(&self) -> Result<(), String> {
        let seconds = |name: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!("{name} must be a non-negative number of seconds"))
            }
        };
        if !(1..=MAX_FPS).contains(&self.fps) {
            return Err(format!("fps must be 1–{MAX_FPS}"));
        }
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err("speed must be a positive number".into());
        }
        if let Some(limit) = self.idle_time_limit {
            seconds("idle time limit", limit)?;
        }
        seconds("from", self.from)?;
        seconds("sleep", self.sleep)?;
        if let Some(to) = self.to {
            seconds("to", to)?;
            if to <= self.from {
                return Err("to must be later than from".into());
            }
        }
        Ok(())
    }

    /// Frames the last one is held for before the loop restarts.
    pub fn sleep_frames(&self) -> u64 {
        (self.sleep * f64::from(self.fps)).round() as u64
    }
}

/// One frame: the screen from `index / fps` seconds of the animation until the next frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The frame's place on the frame grid.
    pub index: u64,
    /// The screen (its `scrollback_lines` is always 0: only the visible screen is shown).
    pub snapshot: Snapshot,
    /// The keys being typed while this frame shows ([`Timing::show_keys`]).
    pub caption: Option<String>,
}

/// The frames of a recording (see the [module documentation](self)), in order. After the
/// last one, [`Frames::end_index`] says where the animation ends.
pub struct Frames<I> {
    events: I,
    timing: Timing,
    term: Terminal,
    /// The recording time of the previous event placed.
    previous: Option<f64>,
    /// Seconds of the recording's pauses cut by the idle limit so far.
    cut: f64,
    /// Frame index of the events fed but not yet sampled.
    pending: Option<u64>,
    /// An event read past the pending frame, to be fed after it is sampled.
    held: Option<(u64, Event)>,
    /// Input of the caption shown, one entry per input event (each is decoded on its own),
    /// and the frame at which it goes.
    keys: Vec<Vec<u8>>,
    keys_until: Option<u64>,
    /// The last pending frame once the events have ended.
    final_pending: Option<u64>,
    last: Option<(Snapshot, Option<String>)>,
    last_index: u64,
    /// Where the newest event falls on the frame grid.
    newest_index: u64,
    /// The history line the view starts at, while scrolled back ([`Event::View`]).
    view: Option<u64>,
    done: bool,
}

impl Timeline {
    /// The frames of this timeline's held events, replayed from its start.
    pub fn frames(
        &self,
        timing: Timing,
    ) -> Frames<impl Iterator<Item = Result<TimedEvent, Infallible>> + '_> {
        Frames::new(self.start(), self.events().cloned().map(Ok), timing)
    }
}

impl<I, E> Frames<I>
where
    I: Iterator<Item = Result<TimedEvent, E>>,
{
    /// The frames of `events`, replayed from `start`.
    pub fn new(start: &Start, events: I, timing: Timing) -> Frames<I> {
        let (width, height) = start.size();
        let mut term = Terminal::new(usize::from(width), usize::from(height));
        if let Start::Keyframe(k) = start {
            term.advance(&k.bytes);
        }
        Frames {
            events,
            timing,
            term,
            previous: None,
            cut: 0.0,
            // The screen at the start of the window is always the first frame.
            pending: Some(0),
            held: None,
            keys: Vec::new(),
            keys_until: None,
            final_pending: None,
            last: None,
            last_index: 0,
            newest_index: 0,
            view: None,
            done: false,
        }
    }

    /// The timing the frames follow.
    pub fn timing(&self) -> &Timing {
        &self.timing
    }

    /// The frame grid index at which the animation ends: the newest event's frame plus the
    /// sleep. Meaningful once the iterator has returned `None`.
    pub fn end_index(&self) -> u64 {
        self.newest_index.max(self.last_index) + self.timing.sleep_frames()
    }

    /// Where an event at recording time `at` falls on the frame grid, or `None` before the
    /// window (fed, but not shown on its own).
    fn place(&mut self, at: f64) -> Option<u64> {
        let t = &self.timing;
        if at < t.from {
            return None;
        }
        // The wait before the first event counts from the window's start.
        let previous = self.previous.map_or(t.from, |p| p.max(t.from));
        if let Some(limit) = t.idle_time_limit {
            self.cut += (at - previous - limit).max(0.0);
        }
        self.previous = Some(at);
        // From the window's start in one subtraction, not summed gap by gap: the sum's
        // rounding would put an event on a frame's boundary in the frame before.
        let shown = (at - t.from - self.cut) / t.speed;
        Some(((shown + BOUNDARY_TOLERANCE) * f64::from(t.fps)).floor() as u64)
    }

    /// Feeds an event shown at frame `index` (`None` before the window).
    fn feed(&mut self, event: &Event, index: Option<u64>) {
        match event {
            Event::Output(bytes) => self.term.advance(bytes),
            Event::Resize { width, height } => {
                self.term.resize(usize::from(*width), usize::from(*height))
            }
            Event::Input(bytes) => {
                if let (true, Some(index)) = (self.timing.show_keys, index) {
                    let gone = self.keys_until.is_none_or(|until| index >= until);
                    let held: usize = self.keys.iter().map(Vec::len).sum();
                    if gone || held + bytes.len() > MAX_CAPTION_BYTES {
                        self.keys.clear();
                    }
                    self.keys
                        .push(bytes.iter().take(MAX_CAPTION_BYTES).copied().collect());
                    let hold = (CAPTION_HOLD * f64::from(self.timing.fps)).round() as u64;
                    self.keys_until = Some(index + hold.max(1));
                }
            }
            Event::Marker(_) => {}
            Event::View(top) => self.view = *top,
        }
    }

    /// The caption of the keys collected, its newest characters.
    fn caption(&self) -> Option<String> {
        let text = crate::term::keys::caption_of_writes(self.keys.iter().map(Vec::as_slice));
        let count = text.chars().count();
        let shown: String = text
            .chars()
            .skip(count.saturating_sub(MAX_CAPTION_CHARS))
            .collect();
        (!shown.is_empty()).then_some(shown)
    }

    /// Removes the caption if it goes after frame `after` and before frame `before`,
    /// returning the frame where it goes.
    fn expire_caption(&mut self, after: u64, before: Option<u64>) -> Option<u64> {
        let until = self.keys_until?;
        if until <= after || before.is_some_and(|b| until >= b) {
            return None;
        }
        self.keys.clear();
        self.keys_until = None;
        Some(until)
    }

    /// The pending frame, unless it shows what the previous frame showed.
    fn sample(&mut self, index: u64) -> Option<Frame> {
        let mut snapshot = self.term.view_snapshot(self.view);
        snapshot.scrollback_lines = 0;
        let caption = self.caption();
        if self
            .last
            .as_ref()
            .is_some_and(|(s, c)| *s == snapshot && *c == caption)
        {
            return None;
        }
        self.last = Some((snapshot.clone(), caption.clone()));
        self.last_index = index;
        Some(Frame {
            index,
            snapshot,
            caption,
        })
    }
}

impl<I, E> Iterator for Frames<I>
where
    I: Iterator<Item = Result<TimedEvent, E>>,
{
    type Item = Result<Frame, E>;

    fn next(&mut self) -> Option<Result<Frame, E>> {
        loop {
            if let Some((index, event)) = self.held.take() {
                // A caption that goes before this event gets a frame of its own.
                let sampled = self.pending.unwrap_or(0);
                if let Some(gone) = self.expire_caption(sampled, Some(index)) {
                    self.held = Some((index, event));
                    self.pending = Some(gone);
                    if let Some(frame) = self.sample(gone) {
                        return Some(Ok(frame));
                    }
                    continue;
                }
                self.pending = Some(index);
                self.feed(&event, Some(index));
                continue;
            }
            if self.done {
                if let Some(index) = self.pending.take() {
                    self.final_pending = Some(index);
                    if let Some(frame) = self.sample(index) {
                        return Some(Ok(frame));
                    }
                }
                // After the last frame, the caption still goes when its time is up.
                let after = self.final_pending.take()?;
                let gone = self.expire_caption(after, None)?;
                self.newest_index = self.newest_index.max(gone);
                return self.sample(gone).map(Ok);
            }
            let event = match self.events.next() {
                Some(Ok(e)) => Some(e),
                Some(Err(e)) => {
                    self.done = true;
                    self.pending = None;
                    return Some(Err(e));
                }
                None => None,
            };
            let at = event.as_ref().map(|e| e.at.as_secs_f64());
            let past_window = match (at, self.timing.to) {
                (Some(at), Some(to)) if at > to => {
                    // The animation ends at the window's end; nothing after it is read.
                    if let Some(end) = self.place(to) {
                        self.newest_index = self.newest_index.max(end);
                    }
                    true
                }
                _ => false,
            };
            let (Some(event), Some(at), false) = (event, at, past_window) else {
                self.done = true;
                continue;
            };
            let Some(index) = self.place(at) else {
                self.feed(&event.event, None);
                continue;
            };
            self.newest_index = self.newest_index.max(index);
            match self.pending {
                Some(pending) if index > pending => {
                    self.held = Some((index, event.event));
                    if let Some(frame) = self.sample(pending) {
                        return Some(Ok(frame));
                    }
                }
                _ => {
                    self.pending = Some(index);
                    self.feed(&event.event, Some(index));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn timeline(events: &[(f64, &str)]) -> Timeline {
        let mut timeline = Timeline::new(20, 2, 1 << 20);
        for &(at, text) in events {
            let event = Event::Output(text.as_bytes().to_vec());
            timeline.push(Duration::from_secs_f64(at), event);
        }
        timeline
    }

    /// Each frame's index and first line, and the end index.
    fn frames(timeline: &Timeline, timing: Timing) -> (Vec<(u64, String)>, u64) {
        let mut frames = timeline.frames(timing);
        let shown = frames
            .by_ref()
            .map(|f| {
                let f = f.unwrap_or_else(|e: Infallible| match e {});
                (
                    f.index,
                    f.snapshot.text().lines().next().unwrap_or("").to_owned(),
                )
            })
            .collect();
        (shown, frames.end_index())
    }

    /// A window that starts at an arbitrary moment of a recording (a tape's, whose origin is
    /// when its shell was ready) ends on the frame its length says, wherever it starts: float
    /// seconds summed event by event used to land 1.6 s on 79.999… frames of 50 fps.
    #[test]
    fn a_window_lasts_its_whole_frames_wherever_it_starts() {
        let timing = |origin: Duration| Timing {
            fps: 50,
            idle_time_limit: None,
            from: origin.as_secs_f64(),
            sleep: 0.0,
            ..Timing::default()
        };
        let mut short = Vec::new();
        for step in 0..2_000u64 {
            let origin = Duration::from_nanos(300_000_000 + step * 1_234_567);
            let mut t = Timeline::new(20, 2, 1 << 20);
            // Typing at uneven moments, then the end of the window 1.6 s in.
            for k in 0..12u64 {
                let at = origin + Duration::from_nanos(k * 51_234_567 + step % 7);
                t.push(at, Event::Output(b"x".to_vec()));
            }
            t.push(
                origin + Duration::from_millis(1600),
                Event::Marker(String::new()),
            );
            let (_, end) = frames(&t, timing(origin));
            if end != 80 {
                short.push((origin, end));
            }
        }
        assert!(
            short.is_empty(),
            "{} windows of 1.6 s at 50 fps did not end at frame 80, first {:?}",
            short.len(),
            &short[..short.len().min(3)]
        );
    }

    #[test]
    fn a_view_scrolled_back_shows_the_history_until_it_returns() {
        // Four lines on a screen of two: lines 0 and 1 ("1", "2") are in the scrollback.
        let mut t = timeline(&[(0.0, "1\r\n2\r\n3\r\n4")]);
        t.push(Duration::from_secs(1), Event::View(Some(0)));
        t.push(Duration::from_secs(2), Event::View(Some(1)));
        t.push(Duration::from_secs(3), Event::Output(b"\r\n5".to_vec()));
        t.push(Duration::from_secs(4), Event::View(None));
        let (shown, _) = frames(&t, Timing::default());
        // Output while scrolled back leaves the view where it is, as a browser terminal does.
        assert_eq!(
            shown,
            [
                (0, "3".into()),
                (30, "1".into()),
                (60, "2".into()),
                (120, "4".into())
            ]
        );
    }

    #[test]
    fn output_that_changes_nothing_makes_no_frame() {
        let t = timeline(&[(0.0, "a"), (1.0, "\x1b[0m"), (2.0, "b")]);
        let (shown, end) = frames(&t, Timing::default());
        assert_eq!(shown, [(0, "a".into()), (60, "ab".into())]);
        assert_eq!(end, 90);
    }

    #[test]
    fn the_window_starts_on_the_screen_of_its_start() {
        let t = timeline(&[(0.0, "a"), (1.0, "b"), (2.0, "c"), (3.0, "d"), (4.0, "e")]);
        let timing = Timing {
            from: 1.5,
            to: Some(3.5),
            fps: 10,
            sleep: 0.5,
            ..Timing::default()
        };
        let (shown, end) = frames(&t, timing);
        assert_eq!(
            shown,
            [(0, "ab".into()), (5, "abc".into()), (15, "abcd".into())]
        );
        assert_eq!(end, 20 + 5);
    }

    #[test]
    fn pauses_are_cut_to_the_idle_limit_before_the_speed_applies() {
        let t = timeline(&[(0.0, "a"), (10.0, "b"), (10.5, "c")]);
        let timing = Timing {
            speed: 2.0,
            idle_time_limit: Some(2.0),
            fps: 10,
            sleep: 0.0,
            ..Timing::default()
        };
        let (shown, end) = frames(&t, timing.clone());
        assert_eq!(
            shown,
            [(0, "a".into()), (10, "ab".into()), (12, "abc".into())]
        );
        assert_eq!(end, 12);
        let unlimited = Timing {
            idle_time_limit: None,
            ..timing
        };
        assert_eq!(frames(&t, unlimited).0[1], (50, "ab".into()));
    }

    #[test]
    fn changes_within_one_frame_show_as_its_last_screen() {
        let t = timeline(&[(0.0, "a"), (0.51, "b"), (0.52, "\x08c"), (0.6, "d")]);
        let timing = Timing {
            fps: 2,
            ..Timing::default()
        };
        let (shown, _) = frames(&t, timing);
        assert_eq!(shown, [(0, "a".into()), (1, "acd".into())]);
    }

    /// Keys are told apart as the recording's input events hold them: Escape in a write of
    /// its own and `:` half a second later are two keys; ESC and `x` in one write are Alt+x.
    #[test]
    fn each_input_event_is_captioned_on_its_own() {
        let mut t = timeline(&[(0.0, "~")]);
        for (at, keys) in [(1.0, "\x1b"), (1.5, ":"), (1.6, "wq\r"), (1.7, "\x1bx")] {
            t.push(
                Duration::from_secs_f64(at),
                Event::Input(keys.as_bytes().to_vec()),
            );
        }
        let timing = Timing {
            fps: 10,
            show_keys: true,
            ..Timing::default()
        };
        let captions: Vec<Option<String>> = t
            .frames(timing)
            .map(|f| f.map(|f| f.caption).unwrap_or_else(|e| match e {}))
            .collect();
        let c = |s: &str| Some(s.to_owned());
        assert_eq!(
            captions,
            [
                None,
                c("Esc"),
                c("Esc :"),
                c("Esc :wq⏎"),
                c("Esc :wq⏎ Alt+x"),
                None
            ]
        );
    }

    #[test]
    fn typed_keys_are_captioned_while_they_happen() {
        let mut t = timeline(&[(0.0, "$ ")]);
        for (at, keys) in [(1.0, "l"), (1.2, "s"), (1.4, "\r")] {
            t.push(
                Duration::from_secs_f64(at),
                Event::Input(keys.as_bytes().to_vec()),
            );
        }
        t.push(
            Duration::from_secs_f64(1.5),
            Event::Output(b"\r\nfile\r\n$ ".to_vec()),
        );
        t.push(Duration::from_secs(5), Event::Input(b"\x03".to_vec()));
        let timing = Timing {
            fps: 10,
            show_keys: true,
            ..Timing::default()
        };
        let mut frames = t.frames(timing.clone());
        let shown: Vec<(u64, Option<String>)> = frames
            .by_ref()
            .map(|f| {
                f.map(|f| (f.index, f.caption))
                    .unwrap_or_else(|e| match e {})
            })
            .collect();
        let c = |s: &str| Some(s.to_owned());
        assert_eq!(
            shown,
            [
                (0, None),
                (10, c("l")),
                (12, c("ls")),
                (14, c("ls⏎")),
                (15, c("ls⏎")),
                (24, None),
                (45, c("Ctrl+C")),
                (55, None),
            ]
        );
        assert_eq!(frames.end_index(), 65);
        // Without --show-keys input makes no frame.
        let plain = Timing {
            show_keys: false,
            ..timing
        };
        assert_eq!(frames_of(&t, plain), [0, 15]);
    }

    fn frames_of(t: &Timeline, timing: Timing) -> Vec<u64> {
        t.frames(timing)
            .map(|f| f.map(|f| f.index).unwrap_or_else(|e| match e {}))
            .collect()
    }

    #[test]
    fn resizes_apply_in_order() {
        let mut t = timeline(&[(0.0, "abc")]);
        t.push(
            Duration::from_secs(1),
            Event::Resize {
                width: 2,
                height: 2,
            },
        );
        let mut frames = t.frames(Timing::default());
        let last = frames
            .by_ref()
            .last()
            .map(|f| f.unwrap_or_else(|e| match e {}));
        assert_eq!(last.map(|f| f.snapshot.width), Some(2));
    }

    #[test]
    fn bad_timing_is_refused_by_name() {
        let bad = |t: Timing| t.validate().unwrap_err();
        assert!(
            bad(Timing {
                fps: 0,
                ..Timing::default()
            })
            .contains("fps")
        );
        assert!(
            bad(Timing {
                speed: 0.0,
                ..Timing::default()
            })
            .contains("speed")
        );
        let window = Timing {
            from: 2.0,
            to: Some(1.0),
            ..Timing::default()
        };
        assert!(bad(window).contains("to"));
        assert!(
            bad(Timing {
                sleep: f64::NAN,
                ..Timing::default()
            })
            .contains("sleep")
        );
    }
}
