//! Every output of a tape from its one run: the session's recording, on the tape's clock,
//! played into frames for the animations, the last frame and the frame directory; written as
//! a cast; and the screens kept for the text output and the screenshots. Everything is made
//! before anything is written, and the files are put in place together (`staging`), so a
//! run that fails leaves no output, neither half-made nor some of its outputs.

use std::convert::Infallible;
use std::path::PathBuf;
use std::time::Duration;

use super::runner::{TapeRun, TextScreen};
use super::staging::Staging;
use super::{Location, Output, OutputKind, Tape, TapeError};
use crate::recording::frames::{Frames, Timing};
use crate::recording::{Event, Start, TimedEvent, Timeline, asciicast};
use crate::render::animation::{AnimationFormat, animate_parts};
use crate::render::{Appearance, Format, encode};

/// The rule VHS's text output writes after each screen: 80 `─`.
pub const TEXT_RULE_WIDTH: usize = 80;

/// Makes every output of `tape` from `run`, then puts them all in place — none if one cannot
/// be written (`staging`); returns the files written. A problem names the `Output` or
/// `Screenshot` it is about.
pub fn write_all(tape: &Tape, run: &TapeRun) -> Result<Vec<PathBuf>, TapeError> {
    let appearance = tape.settings.appearance();
    let mut files: Vec<(PathBuf, Vec<u8>, &Location)> = Vec::new();
    for output in &tape.outputs {
        let made = made(tape, run, output, &appearance)
            .map_err(|e| output.at.error(format!("{}: {e}", output.path.display())))?;
        files.extend(
            made.into_iter()
                .map(|(path, bytes)| (path, bytes, &output.at)),
        );
    }
    for shot in &run.screenshots {
        let bytes = encode(&shot.snapshot, Format::Png, &appearance)
            .map_err(|e| shot.at.error(format!("{}: {e}", shot.path.display())))?;
        files.push((shot.path.clone(), bytes, &shot.at));
    }
    // Everything is made before anything is written, so a run killed while it encodes
    // leaves no temporary file behind.
    let mut staging = Staging::default();
    for (path, bytes, at) in files {
        staging.add(&path, &bytes, at)?;
    }
    staging.commit()
}

/// The files `output` is made of (one, or a directory's frames), with their bytes.
fn made(
    tape: &Tape,
    run: &TapeRun,
    output: &Output,
    appearance: &Appearance,
) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let one = |bytes: Vec<u8>| Ok(vec![(output.path.clone(), bytes)]);
    match output.kind {
        OutputKind::Animation(format) => one(animation(tape, run, format, appearance)?),
        OutputKind::Png => {
            let Some(Ok(last)) = frames(tape, run, 0.0, None).last() else {
                return Err("the run showed nothing".into());
            };
            one(encode(&last.snapshot, Format::Png, appearance).map_err(|e| e.to_string())?)
        }
        OutputKind::Frames => frames(tape, run, 0.0, None)
            .map(|frame| {
                let Ok(frame) = frame;
                let bytes =
                    encode(&frame.snapshot, Format::Png, appearance).map_err(|e| e.to_string())?;
                let name = format!("frame-{:05}.png", frame.index + 1);
                Ok((output.path.join(name), bytes))
            })
            .collect(),
        OutputKind::Cast => {
            let mut bytes = Vec::new();
            asciicast::write_v2(&shown_timeline(run), &Default::default(), &mut bytes)
                .map_err(|e| e.to_string())?;
            one(bytes)
        }
        OutputKind::Text => one(text(&run.text).into_bytes()),
    }
}

/// VHS's text format: every row of each kept screen, then a rule.
pub fn text(screens: &[TextScreen]) -> String {
    let rule = "─".repeat(TEXT_RULE_WIDTH);
    let mut out = String::new();
    for screen in screens {
        for row in &screen.rows {
            out.push_str(row);
            out.push('\n');
        }
        out.push_str(&rule);
        out.push('\n');
    }
    out
}

/// The recording's events on the tape's clock, with a marker where the animation ends (so
/// it lasts the tape's time even when the screen stops changing earlier).
fn shown_events(run: &TapeRun) -> impl Iterator<Item = TimedEvent> + '_ {
    let end = run.clock.origin() + run.clock.length();
    let mut views = run.views.iter().peekable();
    let mut events = run.timeline.events().peekable();
    // The recording and the view's moves, merged in time order (a move after output of the
    // same moment).
    std::iter::from_fn(move || {
        let view_first = match (events.peek(), views.peek()) {
            (Some(e), Some(v)) => v.at < e.at,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if view_first {
            views.next()
        } else {
            events.next()
        }
        .cloned()
    })
    .map(|e| TimedEvent {
        at: run.clock.map(e.at),
        event: e.event,
    })
    .chain(std::iter::once(TimedEvent {
        at: end,
        event: Event::Marker(String::new()),
    }))
}

/// The frames of the stretch of the animation from `from` to `to` seconds.
fn frames<'r>(
    tape: &Tape,
    run: &'r TapeRun,
    from: f64,
    to: Option<f64>,
) -> Frames<impl Iterator<Item = Result<TimedEvent, Infallible>> + 'r> {
    let origin = run.clock.origin().as_secs_f64();
    let timing = Timing {
        fps: tape.settings.framerate,
        speed: tape.settings.playback_speed,
        idle_time_limit: None,
        from: origin + from,
        to: to.map(|t| origin + t),
        sleep: 0.0,
        looped: true,
        show_keys: false,
    };
    Frames::new(run.timeline.start(), shown_events(run).map(Ok), timing)
}

/// The animation in `format`, starting `LoopOffset` percent in (VHS moves that many frames
/// from the start to the end).
fn animation(
    tape: &Tape,
    run: &TapeRun,
    format: AnimationFormat,
    appearance: &Appearance,
) -> Result<Vec<u8>, String> {
    let length = run.clock.length().as_secs_f64();
    let fps = f64::from(tape.settings.framerate);
    let percent = tape.settings.loop_offset % 100.0;
    // Whole frames, as VHS moves whole frames.
    let offset = (percent / 100.0 * length * fps).ceil() / fps;
    let result = if offset > 0.0 && offset < length {
        animate_parts(
            [
                &mut frames(tape, run, offset, None),
                &mut frames(tape, run, 0.0, Some(offset)),
            ],
            format,
            appearance,
        )
    } else {
        animate_parts([&mut frames(tape, run, 0.0, None)], format, appearance)
    };
    result.map_err(|e| e.to_string())
}

/// The recording as the animation shows it, from its origin: what happened before is
/// replayed at time 0 (so the first screen is the one shown), what came after on the tape's
/// clock.
fn shown_timeline(run: &TapeRun) -> Timeline {
    let origin = run.clock.origin();
    let (width, height) = run.timeline.start().size();
    let limit = usize::MAX / 2;
    let mut timeline = match run.timeline.start() {
        Start::Blank { .. } => Timeline::new(width, height, limit),
        Start::Keyframe(frame) => {
            let mut frame = frame.clone();
            frame.at = Duration::ZERO;
            Timeline::starting_from(frame, limit)
        }
    };
    for event in shown_events(run) {
        if matches!(
            event.event,
            Event::Marker(_) | Event::Input(_) | Event::View(_)
        ) {
            continue;
        }
        timeline.push(event.at.saturating_sub(origin), event.event);
    }
    timeline
}
