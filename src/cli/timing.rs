//! The timing options of animated outputs (SPEC §9), one definition for every command that
//! writes an animation (`record`, and `capture --video` and `render --video`).

use clap::Args;

use shotty::recording::frames::Timing;

/// How a recording is played into an animation.
#[derive(Debug, Clone, Args)]
pub struct TimingArgs {
    /// Frames a second of an animation (1–120); changes inside one frame collapse to the
    /// newest screen.
    #[arg(long, value_name = "N", default_value_t = 30)]
    fps: u32,
    /// Playback speed of an animation (2 plays twice as fast).
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    speed: f64,
    /// Pauses longer than this many seconds are cut to it in an animation.
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    idle_time_limit: f64,
    /// Start an animation this many seconds into the recording.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    from: f64,
    /// End an animation this many seconds into the recording.
    #[arg(long, value_name = "SECONDS")]
    to: Option<f64>,
    /// Seconds an animation holds its last frame before it loops (or ends).
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    sleep: f64,
    /// Play an animation once instead of looping.
    #[arg(long)]
    no_loop: bool,
}

impl TimingArgs {
    /// The timing these options describe, checked (the message names the option at fault).
    pub fn to_timing(&self) -> Result<Timing, String> {
        let timing = Timing {
            fps: self.fps,
            speed: self.speed,
            idle_time_limit: Some(self.idle_time_limit),
            from: self.from,
            to: self.to,
            sleep: self.sleep,
            looped: !self.no_loop,
        };
        timing.validate().map_err(|e| option_named(&e))?;
        Ok(timing)
    }
}

/// `Timing::validate`'s message with the option's own spelling (`fps must be …` → `--fps
/// must be …`).
fn option_named(message: &str) -> String {
    const NAMES: [(&str, &str); 6] = [
        ("fps", "--fps"),
        ("speed", "--speed"),
        ("idle time limit", "--idle-time-limit"),
        ("from", "--from"),
        ("sleep", "--sleep"),
        ("to", "--to"),
    ];
    let renamed = NAMES.iter().find_map(|(name, flag)| {
        message
            .strip_prefix(name)
            .filter(|rest| rest.starts_with(' '))
            .map(|rest| format!("{flag}{rest}"))
    });
    let renamed = renamed.unwrap_or_else(|| message.to_owned());
    // "to must be later than from"
    renamed.replace("than from", "than --from")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use shotty::recording::frames::MAX_FPS;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        timing: TimingArgs,
    }

    fn timing(args: &[&str]) -> Result<Timing, String> {
        let cli = Cli::try_parse_from(std::iter::once("t").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.timing.to_timing()
    }

    #[test]
    fn defaults_are_the_specs() {
        assert_eq!(timing(&[]), Ok(Timing::default()));
    }

    #[test]
    fn every_option_reaches_the_timing() {
        let t = timing(&[
            "--fps",
            "10",
            "--speed",
            "2",
            "--idle-time-limit",
            "0.5",
            "--from",
            "1",
            "--to",
            "4",
            "--sleep",
            "0",
            "--no-loop",
        ]);
        assert_eq!(
            t,
            Ok(Timing {
                fps: 10,
                speed: 2.0,
                idle_time_limit: Some(0.5),
                from: 1.0,
                to: Some(4.0),
                sleep: 0.0,
                looped: false,
            })
        );
    }

    #[test]
    fn bad_values_name_their_option() {
        assert_eq!(
            timing(&["--fps", "0"]),
            Err(format!("--fps must be 1–{MAX_FPS}"))
        );
        assert_eq!(
            timing(&["--speed", "0"]),
            Err("--speed must be a positive number".into())
        );
        assert_eq!(
            timing(&["--from", "3", "--to", "2"]),
            Err("--to must be later than --from".into())
        );
        assert_eq!(
            timing(&["--idle-time-limit=-1"]),
            Err("--idle-time-limit must be a non-negative number of seconds".into())
        );
    }
}
