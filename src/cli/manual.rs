//! `shotty completions SHELL` and `shotty man`: shell completion scripts and man pages made
//! from the command-line definitions themselves, so they never drift from the parser.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

/// Arguments of `shotty completions`.
#[derive(Debug, Args)]
#[command(after_long_help = super::examples::COMPLETIONS)]
pub struct CompletionsArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// Arguments of `shotty man`.
#[derive(Debug, Args)]
#[command(after_long_help = super::examples::MAN)]
pub struct ManArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// Write `shotty.1` and a page per command (`shotty-render.1`, `shotty-session-start.1`
    /// …) into this directory instead of printing `shotty(1)` on stdout.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// The whole command tree: the top-level parser with the session family's own parser (which
/// `shotty session` runs separately, for its JSON errors) in place of its pass-through.
pub(super) fn command_tree() -> clap::Command {
    let session = super::session::command();
    super::Cli::command().mut_subcommand("session", move |_| session)
}

/// Prints the completion script for `args.shell`.
pub fn completions(args: CompletionsArgs) -> Result<i32, String> {
    let mut command = command_tree();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "shotty", &mut out);
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| format!("cannot write the completions: {e}"))?;
    Ok(0)
}

/// Prints `shotty(1)`, or writes every page into `args.dir`.
pub fn man(args: ManArgs) -> Result<i32, String> {
    let mut command = command_tree().disable_help_subcommand(true);
    command.build();
    match args.dir {
        None => {
            let mut out = Vec::new();
            page(command, &mut out).map_err(|e| format!("cannot render the man page: {e}"))?;
            std::io::stdout()
                .write_all(&out)
                .map_err(|e| format!("cannot write the man page: {e}"))?;
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            write_pages(command, &dir)
                .map_err(|e| format!("cannot write the man pages to {}: {e}", dir.display()))?;
        }
    }
    Ok(0)
}

/// A page for `command` and each of its subcommands, named as `man` looks them up
/// (`shotty-session-start.1`).
fn write_pages(command: clap::Command, dir: &std::path::Path) -> std::io::Result<()> {
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub.clone(), dir)?;
    }
    let name = clap_mangen::Man::new(command.clone()).get_filename();
    let mut out = Vec::new();
    page(command, &mut out)?;
    std::fs::write(dir.join(name), out)
}

/// One man page: clap_mangen's sections, with the command's examples (its long help's
/// epilogue, [`super::examples`]) as an `EXAMPLES` section kept as written.
fn page(command: clap::Command, out: &mut dyn Write) -> std::io::Result<()> {
    let examples = command.get_after_long_help().map(|e| e.to_string());
    let has_epilogue = command.get_after_help().is_some();
    let has_version = command.get_version().is_some() || command.get_long_version().is_some();
    let has_options = command.get_arguments().any(|a| !a.is_hide_set());
    let has_subcommands = command.get_subcommands().any(|s| !s.is_hide_set());
    let man = clap_mangen::Man::new(command);
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if has_options {
        man.render_options_section(out)?;
    }
    if has_subcommands {
        man.render_subcommands_section(out)?;
    }
    match examples {
        Some(text) => {
            writeln!(out, ".SH EXAMPLES\n.nf")?;
            for line in text.lines().skip_while(|l| l.ends_with(':')) {
                writeln!(out, "{}", roff_line(line))?;
            }
            writeln!(out, ".fi")?;
        }
        None if has_epilogue => man.render_extra_section(out)?,
        None => {}
    }
    if has_version {
        man.render_version_section(out)?;
    }
    Ok(())
}

/// `line` as literal roff text: backslashes escaped, and a leading `.` or `'` (a request)
/// made text.
fn roff_line(line: &str) -> String {
    let escaped = line.replace('\\', "\\e");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
