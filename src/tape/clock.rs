//! The tape's clock: where each moment of the session's recording falls in the animation.
//!
//! A tape scripts its own time: `Type` takes its characters times the typing speed, `Sleep`
//! what it says, `Hide`…`Show` nothing at all. The session's recording is in real time,
//! which also holds what running a command costs (writing to the program, reading the screen
//! for a text output). So each command's stretch of real time is laid on its scripted
//! length — output during it keeps its offset from the command's start, up to that length —
//! and the time between commands and under `Hide` takes none: the animation lasts what the
//! tape scripts.

use std::time::Duration;

/// One command's stretch of the recording.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Segment {
    /// When it began, on the recording's clock.
    start: Duration,
    /// How long it lasts in the animation (0 when hidden).
    length: Duration,
    /// When it begins in the animation.
    shown_at: Duration,
}

/// The map from the recording's clock to the animation's (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeMap {
    /// When the animation begins, on the recording's clock.
    origin: Duration,
    segments: Vec<Segment>,
    /// The animation's length so far.
    length: Duration,
}

impl TimeMap {
    /// A map whose animation begins at `origin` on the recording's clock.
    pub fn new(origin: Duration) -> TimeMap {
        TimeMap {
            origin,
            segments: Vec::new(),
            length: Duration::ZERO,
        }
    }

    /// Adds a command that began at `start` (after the previous one) and lasts `length` in the
    /// animation.
    pub fn push(&mut self, start: Duration, length: Duration) {
        self.segments.push(Segment {
            start: start.max(self.origin),
            length,
            shown_at: self.length,
        });
        self.length += length;
    }

    /// How long the animation lasts.
    pub fn length(&self) -> Duration {
        self.length
    }

    /// When the animation begins on the recording's clock.
    pub fn origin(&self) -> Duration {
        self.origin
    }

    /// Where `at` (on the recording's clock) falls in the animation, as a time on the
    /// recording's clock again (the animation's time plus the origin), so that what comes
    /// before the origin keeps its own time.
    pub fn map(&self, at: Duration) -> Duration {
        if at <= self.origin {
            return at;
        }
        // The last segment that began at or before `at`.
        let index = self.segments.partition_point(|s| s.start <= at);
        let shown = match index.checked_sub(1).map(|i| self.segments[i]) {
            Some(s) => s.shown_at + (at - s.start).min(s.length),
            None => Duration::ZERO,
        };
        self.origin + shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn each_command_lasts_its_scripted_time_and_hidden_ones_none() {
        let mut map = TimeMap::new(ms(1000));
        map.push(ms(1000), ms(500)); // Type, took 540 ms
        map.push(ms(1560), ms(0)); // Hide…
        map.push(ms(1700), ms(0)); // …Show, 300 ms of hidden work
        map.push(ms(2000), ms(1000)); // Sleep 1s
        assert_eq!(map.length(), ms(1500));
        assert_eq!(map.map(ms(400)), ms(400), "before the origin");
        assert_eq!(map.map(ms(1200)), ms(1200));
        assert_eq!(map.map(ms(1530)), ms(1500), "overhead is clamped");
        assert_eq!(
            map.map(ms(1800)),
            ms(1500),
            "hidden output shows when shown"
        );
        assert_eq!(map.map(ms(2500)), ms(2000));
        assert_eq!(map.map(ms(9000)), ms(2500), "after the end");
    }
}
