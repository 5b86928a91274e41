//! `shotty scenario run FILE`: a console2svg ScenarioDocument run as a test (SPEC §10). The
//! library reads, checks and runs it; this file parses the command line and turns a
//! scenario's appearance options into the same [`AppearanceArgs`] the other commands parse.
//! `shotty scenario schema` prints the format's JSON Schema.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use shotty::duration::parse_duration;
use shotty::pty::ColorEnvFlags;
use shotty::render::Appearance;
use shotty::scenario::document::{self, AppearanceOptions};
use shotty::scenario::report;
use shotty::scenario::runner::{self, RunOptions};
use shotty::scenario::summary::Summary;

use super::appearance::AppearanceArgs;

/// Arguments of `shotty scenario`.
#[derive(Debug, Args)]
pub struct ScenarioArgs {
    #[command(subcommand)]
    command: ScenarioCommand,
    #[command(flatten)]
    help: super::HelpFlag,
}

#[derive(Debug, Subcommand)]
enum ScenarioCommand {
    /// Run a scenario file (YAML or JSON) and print its JSON summary; exit 0 when every step
    /// passed, 1 when one failed, 2 when the file cannot run.
    Run(RunArgs),
    /// Print the JSON Schema (draft 2020-12) of scenario files, for editors and validators:
    /// `shotty scenario schema > scenario.schema.json`.
    Schema(super::HelpFlag),
}

/// Arguments of `shotty scenario run`.
#[derive(Debug, Args)]
#[command(after_long_help = super::examples::SCENARIO_RUN)]
pub struct RunArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// The scenario file (console2svg ScenarioDocument v1, .yaml, .yml or .json).
    file: PathBuf,
    /// Terminal columns, overriding the file's.
    #[arg(long, value_parser = super::dimension)]
    width: Option<u16>,
    /// Terminal rows, overriding the file's.
    #[arg(long, value_parser = super::dimension)]
    height: Option<u16>,
    /// Do not set the colour environment (TERM stays, COLORTERM/FORCE_COLOR are not set).
    #[arg(long)]
    no_colorenv: bool,
    /// Do not remove CI/TF_BUILD from the environment.
    #[arg(long)]
    no_delete_envs: bool,
    #[command(flatten)]
    run: RunFlags,
    /// Where a failed run writes its report (failure.md, trace.html, recording.cast, the
    /// screens); default shotty-report/NAME/.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
}

/// What `shotty scenario run` and `shotty test` share.
#[derive(Debug, Args)]
pub struct RunFlags {
    /// Rewrite golden files that differ (and write missing ones even when CI is set).
    #[arg(long)]
    update: bool,
    /// How long the program may take to exit after the last execute step; one still running
    /// then is stopped and the run fails (default 10s; overrides the file's
    /// options.exitTimeout).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    exit_timeout: Option<Duration>,
}

/// Runs `shotty scenario …`.
pub fn run(args: ScenarioArgs) -> Result<i32, String> {
    match args.command {
        ScenarioCommand::Run(args) => Ok(run_file(&args)),
        ScenarioCommand::Schema(_) => {
            let json =
                document::schema::json().map_err(|e| format!("cannot write the schema: {e}"))?;
            super::output::write_output(None, json.as_bytes())?;
            Ok(0)
        }
    }
}

/// An appearance built from a scenario's option layers exactly as the command line builds
/// one: each `name: value` becomes `--name value`, later layers winning.
pub fn resolve_appearance(layers: &[AppearanceOptions]) -> Result<Appearance, String> {
    #[derive(Parser)]
    #[command(
        no_binary_name = true,
        args_override_self = true,
        disable_help_flag = true
    )]
    struct Only {
        #[command(flatten)]
        appearance: AppearanceArgs,
    }
    let mut argv: Vec<String> = Vec::new();
    for layer in layers {
        for (name, value) in layer {
            option_args(name, value, &mut argv)?;
        }
    }
    let parsed = Only::try_parse_from(&argv).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or("").trim();
        first.strip_prefix("error: ").unwrap_or(first).to_owned()
    })?;
    parsed.appearance.to_appearance(None)
}

/// `name: value` as command-line words: `--name=value`, `--name` for `true`, a list as
/// `--name v1 v2`.
fn option_args(
    name: &str,
    value: &serde_json::Value,
    argv: &mut Vec<String>,
) -> Result<(), String> {
    use serde_json::Value;
    let flag = format!("--{}", document::kebab_case(name));
    let scalar = |v: &Value| match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(format!("`{name}` takes text or numbers, not {v}")),
    };
    match value {
        Value::Bool(true) => argv.push(flag),
        Value::Bool(false) => {}
        Value::Array(items) if !items.is_empty() => {
            argv.push(flag);
            for item in items {
                argv.push(scalar(item)?);
            }
        }
        Value::Array(_) | Value::Null | Value::Object(_) => {
            return Err(format!(
                "`{name}` takes a value, true, or a list of values, not {value}"
            ));
        }
        v => argv.push(format!("{flag}={}", scalar(v)?)),
    }
    Ok(())
}

fn run_file(args: &RunArgs) -> i32 {
    let started = std::time::Instant::now();
    let checked = document::load(&args.file).and_then(|loaded| {
        runner::check_appearances(&loaded, &resolve_appearance).map(|()| loaded)
    });
    let loaded = match checked {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("shotty: error: {e}");
            let summary = Summary::error(
                document::scenario_name(&args.file),
                args.file.display().to_string(),
                started,
                e.to_string(),
            );
            print(&summary);
            return summary.exit_code();
        }
    };
    let options = RunOptions {
        report: Some(
            args.report
                .clone()
                .unwrap_or_else(|| report::default_dir(&loaded.name)),
        ),
        ..run_options(
            args.width,
            args.height,
            args.no_colorenv,
            args.no_delete_envs,
            &args.run,
        )
    };
    let summary = runner::run(&loaded, &options, &resolve_appearance);
    if let Some(step) = summary.failed_step() {
        eprintln!(
            "shotty: {}:{}: step {} ({}) failed: {}",
            args.file.display(),
            step.line,
            step.index,
            step.kind,
            step.message.as_deref().unwrap_or("")
        );
    }
    print(&summary);
    summary.exit_code()
}

/// The run options of the command line (the report directory aside); a missing golden fails
/// when `CI` is set.
pub fn run_options(
    width: Option<u16>,
    height: Option<u16>,
    no_colorenv: bool,
    no_delete_envs: bool,
    flags: &RunFlags,
) -> RunOptions {
    RunOptions {
        width,
        height,
        color_env: ColorEnvFlags {
            no_colorenv,
            no_delete_envs,
        },
        update: flags.update,
        exit_timeout: flags.exit_timeout,
        ci: shotty::session::golden::env_flag("CI"),
        report: None,
    }
}

fn print(summary: &Summary) {
    match serde_json::to_string_pretty(summary) {
        Ok(json) => println!("{json}"),
        Err(e) => eprintln!("shotty: error: cannot write the summary: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_become_the_command_lines_words() {
        let mut argv = Vec::new();
        option_args("theme", &serde_json::json!(["nord"]), &mut argv).unwrap();
        option_args("window", &serde_json::json!("macos"), &mut argv).unwrap();
        option_args("lineHeight", &serde_json::json!(1.5), &mut argv).unwrap();
        option_args("embed-font", &serde_json::json!(true), &mut argv).unwrap();
        option_args("noCursor", &serde_json::json!(false), &mut argv).unwrap();
        assert_eq!(
            argv,
            [
                "--theme",
                "nord",
                "--window=macos",
                "--line-height=1.5",
                "--embed-font"
            ]
        );
        assert!(option_args("theme", &serde_json::json!({"a": 1}), &mut argv).is_err());
        assert!(option_args("theme", &serde_json::json!([]), &mut argv).is_err());
    }

    #[test]
    fn appearance_layers_resolve_with_the_last_winning() {
        let layer = |json: serde_json::Value| -> AppearanceOptions {
            serde_json::from_value(json).unwrap()
        };
        let a = resolve_appearance(&[
            layer(serde_json::json!({"theme": ["nord"], "fontsize": 20})),
            layer(serde_json::json!({"fontsize": 16, "window": "macos"})),
        ])
        .unwrap();
        assert_eq!(a.font_size, 16.0);
        assert_eq!(a.window, shotty::render::WindowStyle::Macos);
        let e = resolve_appearance(&[layer(serde_json::json!({"colour": "red"}))]).unwrap_err();
        assert!(e.contains("--colour"), "{e}");
        let e = resolve_appearance(&[layer(serde_json::json!({"theme": "no-such-theme"}))])
            .unwrap_err();
        assert!(e.contains("no-such-theme"), "{e}");
    }
}
