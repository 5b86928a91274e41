//! The report a failed scenario leaves (SPEC §10), for a person or a model to read:
//!
//! - `failure.md`: the failed step, what was expected and the screen as it was, the cell
//!   differences of a snapshot, every step's status;
//! - `trace.html`: one page, no network, no file beside it needed: the step timeline, a
//!   filmstrip of the screen after each step, the run's recording playing (an animated SVG),
//!   and a cell inspector (click a cell of a screen: its character, style and link);
//! - `recording.cast`: the run as asciicast v2;
//! - `screens/step-NN.svg`: each screen of the filmstrip.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::summary::{Artifact, ArtifactKind, StepStatus, Summary};
use crate::recording::Timeline;
use crate::recording::asciicast::{self, CastInfo};
use crate::recording::frames::Timing;
use crate::render::animation::{AnimationFormat, animate};
use crate::render::layout::Layout;
use crate::render::svg::xml_text;
use crate::render::{Appearance, Format, encode, encode_highlighted};
use crate::session::artifacts::write_file;
use crate::term::Snapshot;

/// What a run saw, beyond its summary: the material of a report.
#[derive(Default)]
pub struct Trace {
    /// The screen after each step (by the step's index), where there was a program.
    pub screens: Vec<Option<Snapshot>>,
    /// The screen a failed `snapshot` expected (its golden).
    pub expected: Option<Snapshot>,
    /// The run's recording.
    pub recording: Option<Timeline>,
}

/// Writes the report of a failed run into `dir` (created if missing) and returns the files
/// written. `appearance` draws the screens.
pub fn write(
    dir: &Path,
    summary: &Summary,
    trace: &Trace,
    appearance: &Appearance,
) -> Result<Vec<Artifact>, String> {
    std::fs::create_dir_all(dir.join("screens"))
        .map_err(|e| format!("cannot create the report directory {}: {e}", dir.display()))?;
    let mut artifacts = Vec::new();
    let mut file = |name: &str, bytes: &[u8], format: &str, kind: ArtifactKind| {
        let path = dir.join(name);
        write_file(&path, bytes)?;
        artifacts.push(Artifact {
            path: path.display().to_string(),
            format: format.to_owned(),
            kind,
        });
        Ok::<PathBuf, String>(path)
    };

    let mut frames = Vec::new();
    for (index, screen) in trace.screens.iter().enumerate() {
        let Some(screen) = screen else {
            frames.push(None);
            continue;
        };
        let svg = encode(screen, Format::Svg, appearance).map_err(|e| e.to_string())?;
        file(&screen_name(index), &svg, "svg", ArtifactKind::Report)?;
        let layout = Layout::new(screen, appearance).map_err(|e| e.to_string())?;
        frames.push(Some((svg, layout_geometry(&layout))));
    }
    let mut animation = None;
    if let Some(timeline) = &trace.recording {
        let mut cast = Vec::new();
        asciicast::write_v2(timeline, &CastInfo::default(), &mut cast)
            .map_err(|e| format!("cannot write the recording: {e}"))?;
        file(RECORDING_CAST, &cast, "cast", ArtifactKind::Recording)?;
        // A recording that cannot be animated (too large, say) leaves the page without it.
        animation = animate(
            &mut timeline.frames(Timing::default()),
            AnimationFormat::Svg,
            appearance,
        )
        .ok();
    }
    file(
        FAILURE_MD,
        failure_markdown(summary, trace).as_bytes(),
        "md",
        ArtifactKind::Report,
    )?;
    let comparison = comparison(summary, trace, appearance)?;
    let html = trace_html(
        summary,
        trace,
        &frames,
        comparison.as_ref(),
        animation.as_deref(),
    );
    file(TRACE_HTML, html.as_bytes(), "html", ArtifactKind::Report)?;
    Ok(artifacts)
}

/// Removes the report an earlier run wrote into `dir`: the files [`write()`] writes, then the
/// directories if nothing else is in them (a directory the user keeps more in stays).
pub fn remove(dir: &Path) {
    let screens = dir.join("screens");
    if let Ok(entries) = std::fs::read_dir(&screens) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("step-") && name.ends_with(".svg") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    for name in REPORT_FILES {
        let _ = std::fs::remove_file(dir.join(name));
    }
    // Only empty directories go; the rest stays, as it was.
    let _ = std::fs::remove_dir(&screens);
    let _ = std::fs::remove_dir(dir);
}

const FAILURE_MD: &str = "failure.md";
const TRACE_HTML: &str = "trace.html";
const RECORDING_CAST: &str = "recording.cast";
/// The files of a report beside its `screens/`.
const REPORT_FILES: [&str; 3] = [FAILURE_MD, TRACE_HTML, RECORDING_CAST];

/// Where a failed scenario's report goes when the caller names no directory:
/// `shotty-report/<name>/`, the name made safe as one path component.
pub fn default_dir(name: &str) -> PathBuf {
    Path::new(DEFAULT_ROOT).join(dir_name(name))
}

/// Where reports go when the caller names no directory.
pub const DEFAULT_ROOT: &str = "shotty-report";

/// `name` made safe as one path component (anything but letters, digits, `-`, `_` and `.`
/// becomes `_`; nothing but dots becomes `scenario`).
pub fn dir_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.trim_matches('.').is_empty() {
        "scenario".to_owned()
    } else {
        safe
    }
}

fn screen_name(index: usize) -> String {
    format!("screens/step-{index:02}.svg")
}

/// Where a screen's cells are in its SVG, for the cell inspector: the SVG's size and the
/// grid's origin and cell size, in the SVG's pixels.
fn layout_geometry(layout: &Layout) -> serde_json::Value {
    json!({
        "left": layout.screen.x,
        "top": layout.screen.y,
        "cellWidth": layout.metrics.width,
        "cellHeight": layout.metrics.height,
    })
}

fn status_word(status: StepStatus) -> &'static str {
    match status {
        StepStatus::Passed => "passed",
        StepStatus::Failed => "FAILED",
        StepStatus::Skipped => "skipped",
        StepStatus::New => "new",
        StepStatus::Updated => "updated",
    }
}

/// A Markdown code block that no line of `text` can close early.
fn fenced(out: &mut String, text: &str) {
    let longest = text
        .lines()
        .map(|l| l.chars().take_while(|&c| c == '`').count())
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{fence}text\n{text}\n{fence}");
}

/// `failure.md`: the failure first, then the context.
pub fn failure_markdown(summary: &Summary, trace: &Trace) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Scenario `{}` failed\n", summary.name);
    let _ = writeln!(
        md,
        "File: `{}` · took {:.1} s · session `{}`\n",
        summary.file,
        summary.duration_ms as f64 / 1000.0,
        summary.session_id.as_deref().unwrap_or("-")
    );
    if let Some(step) = summary.failed_step() {
        let _ = writeln!(
            md,
            "## Failed step\n\nStep {} (`{}`, {} phase, line {}) after {} ms:\n",
            step.index, step.kind, step.phase, step.line, step.duration_ms
        );
        fenced(&mut md, step.message.as_deref().unwrap_or("(no message)"));
        if let Some(expected) = &trace.expected {
            md.push_str("\n## Expected screen (the golden)\n\n");
            fenced(&mut md, &expected.text());
        }
        let actual = trace.screens.get(step.index).and_then(Option::as_ref);
        if let Some(actual) = actual {
            let _ = writeln!(
                md,
                "\n## Screen when it failed ({}×{}, cursor at row {}, column {})\n",
                actual.width, actual.height, actual.cursor.row, actual.cursor.col
            );
            fenced(&mut md, &actual.text());
            let _ = writeln!(md, "\nIts picture: `{}`.", screen_name(step.index));
        }
    } else if let Some(error) = &summary.error {
        md.push_str("## Error\n\n");
        fenced(&mut md, error);
    }
    md.push_str("\n## Steps\n\n| # | phase | type | line | status | ms | message |\n|---|---|---|---|---|---:|---|\n");
    for step in &summary.steps {
        let message = step
            .message
            .as_deref()
            .and_then(|m| m.lines().next())
            .unwrap_or("")
            .replace('|', "\\|");
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            step.index,
            step.phase,
            step.kind,
            step.line,
            status_word(step.status),
            step.duration_ms,
            message
        );
    }
    md.push_str("\n## Files\n\n- `trace.html`: the steps, the screen after each, the recording, a cell inspector\n");
    if trace.recording.is_some() {
        md.push_str(
            "- `recording.cast`: the run (asciicast v2; `asciinema play recording.cast`)\n",
        );
    }
    for artifact in &summary.artifacts {
        let _ = writeln!(md, "- `{}` ({:?})", artifact.path, artifact.kind);
    }
    md
}

/// A failed snapshot's golden and the failed screen with the differing cells marked, as SVG.
struct Comparison {
    expected: Vec<u8>,
    marked: Vec<u8>,
}

/// The [`Comparison`] of a run whose failed step compared the screen with a golden.
fn comparison(
    summary: &Summary,
    trace: &Trace,
    appearance: &Appearance,
) -> Result<Option<Comparison>, String> {
    let actual = summary
        .failed_step()
        .and_then(|step| trace.screens.get(step.index))
        .and_then(Option::as_ref);
    let (Some(actual), Some(expected)) = (actual, &trace.expected) else {
        return Ok(None);
    };
    let changed = crate::diff::diff(expected, actual).positions();
    let svg = |screen: &Snapshot, marked: &[(usize, usize)]| {
        encode_highlighted(screen, Format::Svg, appearance, marked).map_err(|e| e.to_string())
    };
    Ok(Some(Comparison {
        expected: svg(expected, &[])?,
        marked: svg(actual, &changed)?,
    }))
}

/// `trace.html`: self-contained (styles, script, images and data inline). The failed step
/// comes first, its screen large (beside the golden and the differences when it compared
/// one), then every step and the screen after it.
fn trace_html(
    summary: &Summary,
    trace: &Trace,
    frames: &[Option<(Vec<u8>, serde_json::Value)>],
    comparison: Option<&Comparison>,
    animation: Option<&[u8]>,
) -> String {
    use base64::Engine;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{} — shotty scenario trace</title>\n<style>{STYLE}</style></head>\n<body>\n",
        xml_text(&summary.name)
    );
    let failed = summary.failed_step();
    let _ = write!(
        html,
        "<h1>Scenario <code>{}</code> <span class=\"status {}\">{}</span></h1>\n\
         <p class=\"meta\"><code>{}</code> · {:.1} s · exit code {}</p>\n",
        xml_text(&summary.name),
        if failed.is_some() { "failed" } else { "passed" },
        if failed.is_some() { "failed" } else { "passed" },
        xml_text(&summary.file),
        summary.duration_ms as f64 / 1000.0,
        summary
            .exit_code
            .map_or_else(|| "none (stopped)".to_owned(), |c| c.to_string()),
    );
    if let Some(step) = failed {
        let _ = writeln!(
            html,
            "<section id=\"failure\"><h2>Step {} (<code>{}</code>, line {}) failed</h2>\
             <pre class=\"message\">{}</pre>",
            step.index,
            xml_text(&step.kind),
            step.line,
            xml_text(step.message.as_deref().unwrap_or(""))
        );
        html.push_str("<div class=\"compare\">");
        if let Some((svg, _)) = frames.get(step.index).and_then(Option::as_ref) {
            // Inspectable like the filmstrip's screens (a `frame` with its step).
            let _ = write!(
                html,
                "<figure class=\"frame large\" data-step=\"{}\"><img alt=\"the screen when step {} failed\" \
                 src=\"data:image/svg+xml;base64,{}\"><figcaption>The screen when it failed</figcaption></figure>",
                step.index,
                step.index,
                b64(svg)
            );
        }
        if let Some(c) = comparison {
            for (class, alt, svg) in [
                ("expected", "The golden screen it expected", &c.expected),
                ("marked", "The differing cells, marked", &c.marked),
            ] {
                let _ = write!(
                    html,
                    "<figure class=\"{class}\"><img alt=\"{alt}\" src=\"data:image/svg+xml;base64,{}\">\
                     <figcaption>{alt}</figcaption></figure>",
                    b64(svg)
                );
            }
        }
        html.push_str("</div></section>\n");
    }

    html.push_str("<section><h2>Steps</h2>\n<ol class=\"timeline\" start=\"0\">\n");
    for step in &summary.steps {
        let _ = writeln!(
            html,
            "<li class=\"step {}\" data-step=\"{}\"><a href=\"#frame-{}\"><span class=\"kind\">{}</span> \
             <span class=\"phase\">{}</span> line {} · {} · {} ms</a>{}</li>",
            status_word(step.status).to_ascii_lowercase(),
            step.index,
            step.index,
            xml_text(&step.kind),
            step.phase,
            step.line,
            status_word(step.status),
            step.duration_ms,
            step.message
                .as_deref()
                .map(|m| format!("<pre>{}</pre>", xml_text(m)))
                .unwrap_or_default()
        );
    }
    html.push_str("</ol></section>\n");

    html.push_str("<section><h2>Screens after each step</h2>\n<p class=\"hint\">Click a cell to inspect it.</p>\n<div class=\"filmstrip\">\n");
    let mut geometry = Vec::new();
    for step in &summary.steps {
        let frame = frames.get(step.index).and_then(Option::as_ref);
        let _ = write!(
            html,
            "<figure class=\"frame {}\" id=\"frame-{}\" data-step=\"{}\">",
            status_word(step.status).to_ascii_lowercase(),
            step.index,
            step.index
        );
        match frame {
            Some((svg, geo)) => {
                let _ = write!(
                    html,
                    "<img alt=\"the screen after step {}\" src=\"data:image/svg+xml;base64,{}\">",
                    step.index,
                    b64(svg)
                );
                geometry.push(json!({"step": step.index, "geometry": geo}));
            }
            None => html.push_str("<div class=\"blank\">no screen</div>"),
        }
        let _ = writeln!(
            html,
            "<figcaption>{} · {} · {}</figcaption></figure>",
            step.index,
            xml_text(&step.kind),
            status_word(step.status)
        );
    }
    html.push_str(
        "</div>\n<pre id=\"inspector\" class=\"inspector\">No cell selected.</pre></section>\n",
    );

    if let Some(svg) = animation {
        let _ = write!(
            html,
            "<section><h2>Recording</h2>\n<div class=\"recording\" id=\"recording\">\
             <img alt=\"the run, animated\" src=\"data:image/svg+xml;base64,{}\"></div>\n\
             <p class=\"hint\">The whole run, replayed (pauses longer than 3 s shortened); \
             <code>recording.cast</code> beside this page has it for asciinema.</p></section>\n",
            b64(svg)
        );
    }

    // The inspector's data: each screen's cells with their style table.
    let screens: Vec<serde_json::Value> = trace
        .screens
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_ref().map(|s| json!({"step": i, "snapshot": s})))
        .collect();
    let data = json!({ "screens": screens, "geometry": geometry });
    // `</` would end the script element early; JSON allows `<\/` for it.
    let data = data.to_string().replace("</", "<\\/");
    let _ = write!(
        html,
        "<script type=\"application/json\" id=\"data\">{data}</script>\n<script>{SCRIPT}</script>\n</body></html>\n"
    );
    html
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d2127;background:#fafafa}\
code,pre{font-family:ui-monospace,monospace}h1 .status{font-size:.6em;padding:.1em .5em;border-radius:.3em;vertical-align:middle}\
.status.failed{background:#d33;color:#fff}.status.passed{background:#2a2;color:#fff}.meta,.hint{color:#666}\
pre.message{background:#fff3f3;border-left:4px solid #d33;padding:.6em;overflow:auto;white-space:pre-wrap}\
ol.timeline{padding-left:2em}li.step pre{margin:.2em 0 .6em;white-space:pre-wrap;background:#fff3f3;padding:.4em}\
li.step a{color:inherit;text-decoration:none}li.step.failed{color:#c00;font-weight:bold}li.step.skipped{color:#999}\
.kind{font-family:ui-monospace,monospace;font-weight:bold}.filmstrip{display:flex;gap:12px;overflow-x:auto;padding-bottom:8px}\
figure.frame{margin:0;flex:none;border:2px solid #ccc;border-radius:6px;padding:4px;background:#fff}\
figure.frame.failed{border-color:#d33}figure.frame img{display:block;width:360px;cursor:crosshair}\
figure.frame .blank{width:360px;height:120px;display:flex;align-items:center;justify-content:center;color:#999}\
figcaption{font-size:12px;color:#444;margin-top:4px}.inspector{background:#fff;border:1px solid #ccc;padding:.6em}\
.recording img{max-width:100%}.compare{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}\
.compare figure{margin:0;border:2px solid #ccc;border-radius:6px;padding:4px;background:#fff}\
.compare figure.large{border-color:#d33}.compare img{display:block;width:min(440px,90vw)}\
.compare figure.frame.large img{width:min(640px,90vw)}\
.compare figure.large img{cursor:crosshair}";

/// The cell inspector: a click on a screen's picture finds the cell under it from the
/// picture's grid geometry and shows the cell as the snapshot has it.
const SCRIPT: &str = r#"(function(){
var data=JSON.parse(document.getElementById('data').textContent);
var byStep={};data.screens.forEach(function(s){byStep[s.step]=s.snapshot;});
var geo={};data.geometry.forEach(function(g){geo[g.step]=g.geometry;});
var out=document.getElementById('inspector');
document.querySelectorAll('figure.frame img').forEach(function(img){
 img.addEventListener('click',function(e){
  var step=+img.parentNode.dataset.step,snap=byStep[step],g=geo[step];
  if(!snap||!g)return;
  var scale=img.naturalWidth/img.clientWidth;
  var col=Math.floor((e.offsetX*scale-g.left)/g.cellWidth),row=Math.floor((e.offsetY*scale-g.top)/g.cellHeight);
  var r=snap.rows[row],cell=r&&r.cells[col];
  if(!cell){out.textContent='Step '+step+': no cell there.';return;}
  var style=snap.styles[cell.s||0]||{},link=cell.l!=null?snap.links[cell.l]:null;
  out.textContent='Step '+step+', row '+row+', column '+col+'\n'+
   'character: '+JSON.stringify(cell.t)+(cell.w===2?' (wide)':'')+'\n'+
   'style: '+JSON.stringify(style)+'\n'+'link: '+(link?link.uri:'none');
 });
});
})();"#;
