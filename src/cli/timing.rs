//! The options every animated output shares (SPEC §9): timing, and which outputs animate.

use std::path::Path;

use clap::Args;

use shotty::recording::frames::Timing;
use shotty::render::Format;
use shotty::render::animation::AnimationFormat;

/// Timing of animated outputs, flattened into `record`, `capture` and `render`.
#[derive(Debug, Args)]
#[command(next_help_heading = "Animation")]
pub struct TimingArgs {
    /// Frames a second; changes within one frame show as its last screen.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=i64::from(shotty::recording::frames::MAX_FPS)))]
    fps: u32,
    /// Playback speed (2 plays twice as fast).
    #[arg(long, default_value_t = 1.0, value_parser = positive)]
    speed: f64,
    /// Pauses longer than this many seconds are cut to it (0 or more).
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0, value_parser = seconds)]
    idle_time_limit: f64,
    /// Start the animation this many seconds into the recording.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    from: Option<f64>,
    /// End the animation this many seconds into the recording.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    to: Option<f64>,
    /// Hold the last frame this many seconds before the animation loops.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0, value_parser = seconds)]
    sleep: f64,
    /// Play once and stay on the last frame.
    #[arg(long)]
    no_loop: bool,
    /// Caption the keys being typed (`:wq⏎`, `Ctrl+C`) in the corner while they happen.
    #[arg(long)]
    show_keys: bool,
}

/// Parses a non-negative number of seconds.
pub fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!("{s:?} is not a non-negative number of seconds")),
    }
}

fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("{s:?} is not a positive number")),
    }
}

impl TimingArgs {
    /// The timing these options give.
    pub fn to_timing(&self) -> Result<Timing, String> {
        let timing = Timing {
            fps: self.fps,
            speed: self.speed,
            idle_time_limit: Some(self.idle_time_limit),
            from: self.from.unwrap_or(0.0),
            to: self.to,
            sleep: self.sleep,
            looped: !self.no_loop,
            show_keys: self.show_keys,
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

/// The `--format` names of a recording's output.
pub const RECORDING_FORMATS: [&str; 5] = ["cast", "svg", "gif", "apng", "mp4"];

/// What a recording is written as: `None` for asciicast, else an animation; `--format` (one
/// of [`RECORDING_FORMATS`]) if given, else the extension of `out` (`-`: asciicast).
pub fn recording_format(
    format: Option<&str>,
    out: &Path,
) -> Result<Option<AnimationFormat>, String> {
    match format {
        Some(name) => Ok(AnimationFormat::ALL
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)),
        None if out.as_os_str() == "-" => Ok(None),
        None => shotty::session::artifacts::export_format(out),
    }
}

/// Refuses `--mask` for an asciicast (`format` `None`): a cast holds the program's raw
/// output, which masking cannot rewrite, and the secret must be written nowhere.
pub fn check_mask(
    format: Option<AnimationFormat>,
    appearance: &shotty::render::Appearance,
) -> Result<(), String> {
    if format.is_none() && !appearance.mask.is_empty() {
        return Err(
            "--mask and --mask-auto cannot mask an asciicast (.cast holds the raw output); \
             write an animation (.svg, .gif, .apng) or a screenshot instead"
                .into(),
        );
    }
    Ok(())
}

/// What a rendering command writes: a still or an animation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// One screen.
    Still(Format),
    /// The run, animated.
    Animated(AnimationFormat),
}

/// Parses `--format` of a command that can animate: a still format or `gif`/`apng`/`mp4`.
pub fn output_kind_arg(s: &str) -> Result<OutputKind, String> {
    let still = Format::ALL.iter().find(|(n, _)| n.eq_ignore_ascii_case(s));
    let animated = AnimationFormat::ALL
        .iter()
        .find(|(n, f)| *f != AnimationFormat::Svg && n.eq_ignore_ascii_case(s));
    match (still, animated) {
        (Some((_, f)), _) => Ok(OutputKind::Still(*f)),
        (None, Some((_, f))) => Ok(OutputKind::Animated(*f)),
        (None, None) => Err(format!(
            "{s:?} is not one of svg, png, txt, json, gif, apng, mp4"
        )),
    }
}

/// The output: `--format` if given, else the file's extension, else `default`; `.gif` and
/// `.apng` (and `--format gif|apng`) animate, and so does `.svg` with `--video`.
pub fn resolve_output(
    explicit: Option<OutputKind>,
    out: Option<&Path>,
    video: bool,
    default: Format,
) -> Result<OutputKind, String> {
    let out = out.filter(|p| p.as_os_str() != "-");
    let kind = match explicit {
        Some(kind) => kind,
        None => match out {
            Some(p) => match AnimationFormat::from_path(p) {
                Some(AnimationFormat::Svg) | None => {
                    OutputKind::Still(Format::from_path(p).ok_or_else(|| {
                        format!(
                            "cannot tell the format of {} from its extension; use .svg, .png, .gif, .apng, .mp4, .txt, .json or --format",
                            p.display()
                        )
                    })?)
                }
                Some(animated) => OutputKind::Animated(animated),
            },
            None => OutputKind::Still(default),
        },
    };
    match kind {
        OutputKind::Still(Format::Svg) if video => Ok(OutputKind::Animated(AnimationFormat::Svg)),
        OutputKind::Still(Format::Png) if video => Err(
            "--video writes .svg, .gif, .apng or .mp4 (an animated PNG named .png needs --format \
             apng)"
                .into(),
        ),
        OutputKind::Still(f) if video => Err(format!(
            "--video writes svg, gif, apng or mp4, not {}",
            f.name()
        )),
        kind => Ok(kind),
    }
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
    fn a_recording_is_written_as_its_extension_or_format_says() {
        use std::path::Path;
        let kind = |format: Option<&str>, name: &str| recording_format(format, Path::new(name));
        assert_eq!(kind(None, "a.cast"), Ok(None));
        assert_eq!(kind(None, "a.CAST"), Ok(None));
        assert_eq!(kind(None, "-"), Ok(None));
        assert_eq!(kind(None, "a.GIF"), Ok(Some(AnimationFormat::Gif)));
        assert_eq!(kind(None, "a.svg"), Ok(Some(AnimationFormat::Svg)));
        assert!(kind(None, "a.png").is_err());
        assert_eq!(kind(Some("apng"), "a.png"), Ok(Some(AnimationFormat::Apng)));
        assert_eq!(kind(Some("cast"), "a.gif"), Ok(None));
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
            "--show-keys",
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
                show_keys: true,
            })
        );
    }

    #[test]
    fn bad_values_name_their_option() {
        let fps = timing(&["--fps", "0"]).unwrap_err();
        assert!(fps.contains("0 is not in 1..=120"), "{fps}");
        assert_eq!(MAX_FPS, 120);
        let speed = timing(&["--speed", "0"]).unwrap_err();
        assert!(speed.contains("\"0\" is not a positive number"), "{speed}");
        assert_eq!(
            timing(&["--from", "3", "--to", "2"]),
            Err("--to must be later than --from".into())
        );
        let limit = timing(&["--idle-time-limit=-1"]).unwrap_err();
        assert!(
            limit.contains("not a non-negative number of seconds"),
            "{limit}"
        );
    }
}
