//! Command-line definitions and the thin functions that call the library.

mod appearance;
mod attach;
mod capture;
mod config;
mod diff;
mod examples;
mod manual;
mod output;
mod record;
mod render;
mod scenario;
mod serve;
mod session;
mod tape;
mod test;
mod themes;
mod timing;
mod web;

use std::ffi::OsString;

use clap::{Args, FromArgMatches, Parser, Subcommand};

/// A terminal size argument: a whole number of columns or rows a session may have.
fn dimension(s: &str) -> Result<u16, String> {
    use shotty::session::instance::MAX_SIZE;
    match s.parse::<u16>() {
        Ok(n) if (1..=MAX_SIZE).contains(&n) => Ok(n),
        _ => Err(format!("{s:?} is not a size between 1 and {MAX_SIZE}")),
    }
}

/// An `--env KEY=VALUE` argument.
fn env_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(format!("{s:?} is not KEY=VALUE")),
    }
}

/// Terminal screenshots and terminal automation.
///
/// `shotty [OPTIONS] -- CMD` captures a command (the same as `shotty capture`);
/// `CMD | shotty [OPTIONS]` renders piped output.
#[derive(Debug, Parser)]
#[command(
    name = "shotty",
    version,
    about,
    propagate_version = true,
    args_conflicts_with_subcommands = true,
    // The flattened capture arguments turn clap's help flag off (`-h` is `--height`) and
    // let a repeated argument replace the earlier one, here as in `shotty capture`.
    after_help = "Defaults for the appearance and capture options come from ./shotty.toml, \
                  else $XDG_CONFIG_HOME/shotty/config.toml, or from -C/--config PATH; flags \
                  given here win (see README, \"Config file\")."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    capture: Box<capture::CaptureArgs>,
}

/// `-h`/`--help`, which every command takes but `capture` (and plain `shotty`): clap's own
/// help flag is off for the whole tree, because the flattened capture arguments make `-h`
/// `--height` at the top level.
#[derive(Debug, Args)]
pub(super) struct HelpFlag {
    /// Print help.
    #[arg(short = 'h', long, action = clap::ArgAction::Help)]
    help: Option<bool>,
}

/// `--help` alone, for `capture`, where `-h` is `--height` as in console2svg.
#[derive(Debug, Args)]
pub(super) struct LongHelpFlag {
    /// Print help (`-h` is `--height` here, as in console2svg).
    #[arg(long, action = clap::ArgAction::Help)]
    help: Option<bool>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a command in a terminal and screenshot it.
    Capture(Box<capture::CaptureArgs>),
    /// Render raw terminal bytes or an asciicast recording.
    Render(Box<render::RenderArgs>),
    /// Record a program live in this terminal (like `asciinema rec`) into a .cast file or an
    /// animation.
    Record(Box<record::RecordArgs>),
    /// Run scenario files: scripted tests of terminal programs with golden screens
    /// (console2svg ScenarioDocument v1; see `shotty scenario run --help`).
    Scenario(Box<scenario::ScenarioArgs>),
    /// Run VHS tapes unchanged (charmbracelet/vhs `.tape` files): no browser, ttyd or
    /// ffmpeg.
    Tape(Box<tape::TapeArgs>),
    /// Run every scenario file under some paths, in parallel: one line each, the totals,
    /// JUnit XML with --junit.
    Test(Box<test::TestArgs>),
    /// Compare two screenshots (SVG with metadata, or JSON snapshots) cell by cell.
    Diff(Box<diff::DiffArgs>),
    /// Background terminal sessions for agents and scripts (JSON output; see
    /// `shotty session --help`).
    Session {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run a program in a terminal exposed as a JSON-RPC 2.0 endpoint on a Unix socket or
    /// TCP loopback (see docs/serve.md).
    Serve(Box<serve::ServeArgs>),
    /// Serve the session tools over the Model Context Protocol on stdin/stdout (see
    /// docs/mcp.md).
    #[command(after_long_help = examples::MCP)]
    Mcp(HelpFlag),
    /// Serve a live web page of the host's sessions (watch, type, scrub recordings) and the
    /// session tools over MCP Streamable HTTP at /mcp, both behind one token (see
    /// docs/mcp.md).
    #[command(after_long_help = examples::WEB)]
    Web(web::WebArgs),
    /// List the built-in colour themes.
    Themes(themes::ThemesArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(manual::CompletionsArgs),
    /// Print the man page, or write every command's page into a directory.
    Man(manual::ManArgs),
}

/// Parses the command line, runs it and returns the process exit code.
pub fn run() -> i32 {
    // The session family prints JSON for everything, usage errors included, so it parses its
    // own arguments.
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if args.get(1).map(String::as_str) == Some("session") {
        return session::main(args[2..].to_vec());
    }
    // `serve` reports usage errors on one line.
    if args.get(1).map(String::as_str) == Some("serve") {
        return serve::main(&args[2..]);
    }
    let args = match config::apply(std::env::args_os().collect()) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("shotty: error: {e}");
            return 2;
        }
    };
    let command = match parse(args) {
        Ok(command) => command,
        Err(e) => {
            // Help and version go to stdout with exit 0; usage errors to stderr with 2.
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let result = match command {
        Command::Capture(args) => capture::run(*args),
        Command::Render(args) => render::run(*args),
        Command::Record(args) => record::run(*args),
        Command::Themes(args) => themes::run(args),
        Command::Completions(args) => manual::completions(args),
        Command::Man(args) => manual::man(args),
        // Handled before parsing (see above); reached only through odd spellings.
        Command::Session { args } => Ok(session::main(args)),
        Command::Diff(args) => diff::run(*args),
        Command::Scenario(args) => scenario::run(*args),
        Command::Test(args) => test::run(*args),
        Command::Tape(args) => tape::run(*args),
        Command::Mcp(_) => shotty::mcp::serve().map(|()| 0),
        Command::Web(args) => web::run(args),
        // Handled before parsing, like `session`.
        Command::Serve(args) => Ok(serve::run(*args)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("shotty: error: {e}");
            1
        }
    }
}

/// Parses the command line (after the config file's defaults went in); plain `shotty
/// [OPTIONS]` is `shotty capture [OPTIONS]`.
///
/// Clap builds the parser of every subcommand before it parses anything: about 300 KB of
/// argument tables, a sixth of the page faults of a `shotty render` of one screen. So `render`
/// and `capture`, the commands scripts run in loops, are parsed with their own arguments
/// alone first. Whatever that parser does not accept (help, version, mistakes) goes through
/// the whole one, which answers exactly as it always has.
fn parse(args: Vec<OsString>) -> Result<Command, clap::Error> {
    if let Some(command) = parse_alone(&args) {
        return Ok(command);
    }
    let cli = Cli::try_parse_from(args)?;
    Ok(cli.command.unwrap_or(Command::Capture(cli.capture)))
}

/// `render` or `capture` and their arguments, parsed by that subcommand's parser alone; `None`
/// for any other command line and for anything that parser does not accept.
fn parse_alone(args: &[OsString]) -> Option<Command> {
    fn alone<T: Args + FromArgMatches>(args: &[OsString]) -> Option<Box<T>> {
        let mut command = T::augment_args(alone_base());
        // The subcommand's name stands where the program's name would.
        let matches = command.try_get_matches_from_mut(args.get(1..)?).ok()?;
        T::from_arg_matches(&matches).ok().map(Box::new)
    }
    match args.get(1)?.to_str()? {
        "render" => alone(args).map(Command::Render),
        "capture" => alone(args).map(Command::Capture),
        _ => None,
    }
}

/// What a subcommand parsed alone starts from: the whole parser's settings that reach every
/// subcommand, except the version flag (`--version` is for the whole parser to answer).
fn alone_base() -> clap::Command {
    // The flattened capture arguments turn the help flag off for the whole tree.
    clap::Command::new("shotty").disable_help_flag(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn a_subcommand_alone_is_the_subcommand_of_the_whole_parser() {
        let mut whole = Cli::command();
        whole.build();
        for (name, mut alone) in [
            ("render", render::RenderArgs::augment_args(alone_base())),
            ("capture", capture::CaptureArgs::augment_args(alone_base())),
        ] {
            alone.build();
            let within = whole.find_subcommand(name).expect("a subcommand");
            assert_eq!(
                alone.is_args_override_self(),
                within.is_args_override_self()
            );
            assert_eq!(
                alone.is_disable_help_flag_set(),
                within.is_disable_help_flag_set()
            );
            let ids = |c: &clap::Command| -> Vec<String> {
                c.get_arguments().map(|a| a.get_id().to_string()).collect()
            };
            let mut expected = ids(within);
            expected.retain(|id| id != "version");
            assert_eq!(ids(&alone), expected, "{name}");
        }
    }

    #[test]
    fn render_and_capture_parse_alone_as_the_whole_parser_parses_them() {
        let lines: &[&[&str]] = &[
            &["shotty", "render", "in.bin", "-o", "x.svg"],
            &[
                "shotty", "render", "--theme", "dracula", "--theme", "nord", "-",
            ],
            &[
                "shotty", "render", "--width", "100", "--height", "30", "--format", "png",
            ],
            &[
                "shotty", "capture", "-w", "80", "-h", "24", "--", "ls", "-l",
            ],
            &[
                "shotty",
                "capture",
                "--timeout",
                "5s",
                "-o",
                "a.svg",
                "--",
                "printf",
                "hi",
            ],
        ];
        for line in lines {
            let quick = parse_alone(&os(line)).expect("parses alone");
            let whole = Cli::try_parse_from(os(line)).expect("parses").command;
            assert_eq!(
                format!("{quick:?}"),
                format!("{:?}", whole.expect("a subcommand"))
            );
        }
    }

    /// Every example of every command's help (and man page) is a command line the parser
    /// takes: the `shotty …` part of it, before any pipe or redirection after it.
    #[test]
    fn every_example_parses() {
        fn visit(command: &clap::Command, found: &mut Vec<String>) {
            if let Some(text) = command.get_after_long_help() {
                found.extend(
                    text.to_string()
                        .lines()
                        .filter(|l| l.starts_with("  ") && !l.starts_with("      "))
                        .map(str::to_owned),
                );
            }
            for sub in command.get_subcommands() {
                visit(sub, found);
            }
        }
        let tree = manual::command_tree();
        let mut lines = Vec::new();
        visit(&tree, &mut lines);
        assert!(lines.len() >= 30, "{lines:?}");
        for line in lines {
            let from = line.find("shotty ").expect("an example runs shotty");
            let shotty_part = line[from..]
                .split(['|', '>', ')'])
                .next()
                .expect("a command");
            let words = shlex::split(shotty_part).expect("shell words");
            let mut command = manual::command_tree();
            if let Err(e) = command.try_get_matches_from_mut(&words) {
                panic!("{line}: {}", e.render());
            }
        }
    }

    #[test]
    fn help_version_and_mistakes_get_the_whole_parsers_answer() {
        for line in [
            &["shotty", "render", "--help"][..],
            &["shotty", "render", "--version"],
            &["shotty", "render", "--no-such-flag"],
            &["shotty", "capture", "--width", "wide", "--", "true"],
        ] {
            assert!(parse_alone(&os(line)).is_none(), "{line:?}");
            let quick = parse(os(line)).expect_err("not a command to run");
            let whole = Cli::try_parse_from(os(line)).expect_err("not a command to run");
            assert_eq!(quick.kind(), whole.kind());
            assert_eq!(quick.render().to_string(), whole.render().to_string());
        }
    }
}
