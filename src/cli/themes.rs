//! `shotty themes`: the built-in themes.

use clap::Args;

use shotty::render::Theme;
use shotty::render::theme::BUILTIN_THEMES;

/// Arguments of `shotty themes`.
#[derive(Debug, Args)]
pub struct ThemesArgs {
    #[command(flatten)]
    help: super::HelpFlag,
    /// Print a JSON array of objects (`id`, `name`, `background`, `foreground`, `dark`).
    #[arg(long)]
    json: bool,
}

fn hex(c: shotty::term::Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

pub fn run(args: ThemesArgs) -> Result<i32, String> {
    let mut entries = Vec::new();
    for (id, json) in BUILTIN_THEMES {
        let theme = Theme::from_json(json).map_err(|e| format!("built-in theme {id}: {e}"))?;
        let (r, g, b) = theme.background;
        let luminance = 0.2126 * r as f64 + 0.7152 * g as f64 + 0.0722 * b as f64;
        entries.push((id, theme, luminance < 128.0));
    }
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
