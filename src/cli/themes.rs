//! `shotty themes`: the built-in themes.

use clap::Args;

use shotty::render::Theme;
use shotty::render::svg::hex;

/// Arguments of `shotty themes`.
#[derive(Debug, Args)]
#[command(after_long_help = super::examples::THEMES)]
pub struct ThemesArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// Print a JSON array of objects (`id`, `name`, `background`, `foreground`, `dark`).
    #[arg(long)]
    json: bool,
}

pub fn run(args: ThemesArgs) -> Result<i32, String> {
    let entries: Vec<(&str, Theme, bool)> = Theme::builtins()
        .map(|(id, theme)| {
            let dark = theme.is_dark();
            (id, theme, dark)
        })
        .collect();
    let out = if args.json {
        let list: Vec<serde_json::Value> = entries
            .iter()
            .map(|(id, t, dark)| {
                serde_json::json!({
                    "id": id,
                    "name": t.name,
                    "background": hex(t.background),
                    "foreground": hex(t.foreground),
                    "dark": dark,
                })
            })
            .collect();
        let mut s = serde_json::to_string_pretty(&list).map_err(|e| e.to_string())?;
        s.push('\n');
        s
    } else {
        let width = entries.iter().map(|(id, _, _)| id.len()).max().unwrap_or(0);
        entries
            .iter()
            .map(|(id, t, dark)| {
                format!(
                    "{id:<width$}  {:<5}  {}\n",
                    if *dark { "dark" } else { "light" },
                    t.name
                )
            })
            .collect()
    };
    super::output::write_output(None, out.as_bytes())?;
    Ok(0)
}
