//! Writing a [`Layout`] as SVG.
//!
//! Determinism: every number goes through one formatter (two decimals), classes and links
//! are numbered in order of first use, and the `svg` crate sorts attributes — the same
//! snapshot and options always give the same bytes.

use std::fmt::Write;

use svg::Document;
use svg::Node;
use svg::node::Text as TextNode;
use svg::node::element::{
    Anchor, Circle, ClipPath, Definitions, Element, Filter, Group, Image, LinearGradient, Path,
    Rectangle, Stop, Style, TSpan, Text,
};

use crate::term::{Rgb, Snapshot};

use super::font::PRIMARY_FAMILY;
use super::layout::{Frame, Layout, Rect, RunX, f};
use super::{Appearance, Backdrop, RenderError, WindowStyle};

/// `#rrggbb`.
pub fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

fn rect(r: Rect) -> Rectangle {
    Rectangle::new()
        .set("x", f(r.x))
        .set("y", f(r.y))
        .set("width", f(r.w))
        .set("height", f(r.h))
}

/// The CSS font-family list: the user's choice first, the bundled family always last but one,
/// so browsers without either still get a monospace font.
fn font_stack(a: &Appearance, embedded: &str) -> String {
    let mut families = Vec::new();
    if !embedded.is_empty() {
        families.push(embedded.to_owned());
    }
    if let Some(user) = &a.font_family {
        families.push(user.clone());
    }
    families.push(format!("'{PRIMARY_FAMILY}'"));
    families.push("monospace".into());
    families.join(",")
}

fn css(layout: &Layout, a: &Appearance, font_faces: &str, embedded_families: &str) -> String {
    let mut css = String::new();
    css.push_str(font_faces);
    let _ = write!(
        css,
        "text{{font-family:{};font-size:{}px;font-variant-ligatures:none;font-feature-settings:\"liga\" 0,\"calt\" 0}}",
        font_stack(a, embedded_families),
        f(a.font_size)
    );
    css.push_str(".m{text-anchor:middle}");
    for (i, class) in layout.classes.iter().enumerate() {
        let _ = write!(css, ".c{i}{{fill:{}", hex(class.fill));
        if class.bold {
            css.push_str(";font-weight:bold");
        }
        if class.italic {
            css.push_str(";font-style:italic");
        }
        css.push('}');
    }
    if let Some(frame) = &layout.frame {
        let _ = write!(
            css,
            ".t{{fill:{};font-size:{}px}}",
            hex(frame.ink),
            f((a.font_size * 0.93).round())
        );
    }
    css
}

fn backdrop(layout: &Layout, defs: &mut Definitions) -> Option<Element> {
    let canvas = Rect {
        x: 0.0,
        y: 0.0,
        w: layout.view.x + layout.view.w,
        h: layout.view.y + layout.view.h,
    };
    match &layout.backdrop {
        Backdrop::None => None,
        Backdrop::Solid(c) => Some(rect(canvas).set("fill", hex(*c)).into()),
        Backdrop::Gradient(a, b) => {
            defs.append(
                LinearGradient::new()
                    .set("id", "backdrop")
                    .set("x1", 0)
                    .set("y1", 0)
                    .set("x2", 1)
                    .set("y2", 1)
                    .add(Stop::new().set("offset", 0).set("stop-color", hex(*a)))
                    .add(Stop::new().set("offset", 1).set("stop-color", hex(*b))),
            );
            Some(rect(canvas).set("fill", "url(#backdrop)").into())
        }
        Backdrop::Image { mime, data } => {
            use base64::Engine;
            let uri = format!(
                "data:{mime};base64,{}",
                base64::engine::general_purpose::STANDARD.encode(data)
            );
            Some(
                Image::new()
                    .set("x", 0)
                    .set("y", 0)
                    .set("width", f(canvas.w))
                    .set("height", f(canvas.h))
                    .set("preserveAspectRatio", "xMidYMid slice")
                    .set("href", uri)
                    .into(),
            )
        }
    }
}

fn frame(frame: &Frame, layout: &Layout, defs: &mut Definitions) -> Group {
    let r = frame.rect;
    let mut g = Group::new();
    if frame.shadow {
        defs.append(
            Filter::new()
                .set("id", "shadow")
                .set("x", "-20%")
                .set("y", "-20%")
                .set("width", "140%")
                .set("height", "140%")
                .add({
                    let mut shadow = Element::new("feDropShadow");
                    shadow.assign("dx", 0);
                    shadow.assign("dy", 8);
                    shadow.assign("stdDeviation", 10);
                    shadow.assign("flood-color", "#000");
                    shadow.assign("flood-opacity", 0.45);
                    shadow
                }),
        );
        g.append(
            rect(r)
                .set("rx", f(frame.radius))
                .set("fill", hex(frame.bar_fill))
                .set("filter", "url(#shadow)"),
        );
    }
    defs.append(
        ClipPath::new()
            .set("id", "window")
            .add(rect(r).set("rx", f(frame.radius))),
    );
    let mut body = Group::new().set("clip-path", "url(#window)");
    let bar = Rect {
        h: frame.bar_height,
        ..r
    };
    let mut bar_rect = rect(bar).set("fill", hex(frame.bar_fill));
    if layout.opacity < 1.0 {
        bar_rect = bar_rect.set("fill-opacity", f(layout.opacity));
    }
    body.append(bar_rect);
    if let Some(fill) = layout.screen_fill {
        let mut screen = rect(layout.screen).set("fill", hex(fill));
        if layout.opacity < 1.0 {
            screen = screen.set("fill-opacity", f(layout.opacity));
        }
        body.append(screen);
    }
    g.append(body);
    let cy = r.y + frame.bar_height / 2.0;
    match frame.style {
        WindowStyle::Macos | WindowStyle::MacosPc => {
            for (i, color) in ["#ff5f57", "#febc2e", "#28c840"].iter().enumerate() {
                g.append(
                    Circle::new()
                        .set("cx", f(r.x + 18.0 + 20.0 * i as f64))
                        .set("cy", f(cy))
                        .set("r", 6)
                        .set("fill", *color),
                );
            }
        }
        _ => {
            // Minimise, maximise and close, right-aligned like Windows caption buttons.
            let right = r.x + r.w;
            let s = 5.0;
            let mut d = String::new();
            let _ = write!(d, "M{} {}h{}", f(right - 115.0 - s), f(cy), f(2.0 * s));
            let _ = write!(
                d,
                "M{} {}h{}v{}h{}z",
                f(right - 69.0 - s),
                f(cy - s),
                f(2.0 * s),
                f(2.0 * s),
                f(-2.0 * s)
            );
            let _ = write!(
                d,
                "M{} {}l{} {}m0 {}l{} {}",
                f(right - 23.0 - s),
                f(cy - s),
                f(2.0 * s),
                f(2.0 * s),
                f(-2.0 * s),
                f(-2.0 * s),
                f(2.0 * s)
            );
            g.append(
                Path::new()
                    .set("d", d)
                    .set("fill", "none")
                    .set("stroke", hex(frame.ink))
                    .set("stroke-width", 1),
            );
        }
    }
    if let Some((title, x, y)) = &frame.title {
        let mac = matches!(frame.style, WindowStyle::Macos | WindowStyle::MacosPc);
        let reserved = if mac { 80.0 } else { 140.0 };
        let max_chars = ((r.w - 2.0 * reserved) / 7.5).max(0.0) as usize;
        let shown: String = if title.chars().count() > max_chars {
            let mut t: String = title.chars().take(max_chars.saturating_sub(1)).collect();
            t.push('…');
            t
        } else {
            title.clone()
        };
        let mut text = Text::new("")
            .set("class", if mac { "t m" } else { "t" })
            .set("y", f(*y));
        text.append(
            TSpan::new(shown)
                .set("x", f(*x))
                .set("xml:space", "preserve"),
        );
        g.append(text);
    }
    g
}

/// Writes the layout as an SVG document. The structured snapshot goes into `<metadata>`
/// unless the appearance turns it off.
pub fn write(layout: &Layout, snapshot: &Snapshot, a: &Appearance) -> Result<String, RenderError> {
    let v = layout.view;
    let mut doc = Document::new()
        .set("width", f(layout.out_size.0))
        .set("height", f(layout.out_size.1))
        .set(
            "viewBox",
            format!("{} {} {} {}", f(v.x), f(v.y), f(v.w), f(v.h)),
        );
    if a.metadata {
        let json = serde_json::to_string(snapshot)
            .map_err(|e| RenderError::new(format!("cannot encode the snapshot: {e}")))?;
        let mut meta = Element::new("metadata");
        meta.append(TextNode::new(json));
        doc.append(meta);
    }
    let (font_faces, families) = if a.embed_font {
        super::font::embedded_font_faces(layout)?
    } else {
        (String::new(), String::new())
    };
    doc.append(Style::new(css(layout, a, &font_faces, &families)));

    let mut defs = Definitions::new();
    let mut body: Vec<Element> = Vec::new();
    if let Some(b) = backdrop(layout, &mut defs) {
        body.push(b);
    }
    match &layout.frame {
        Some(fr) => body.push(frame(fr, layout, &mut defs).into()),
        None => {
            if let Some(fill) = layout.screen_fill {
                let mut screen = rect(layout.screen).set("fill", hex(fill));
                if layout.opacity < 1.0 {
                    screen = screen.set("fill-opacity", f(layout.opacity));
                }
                body.push(screen.into());
            }
        }
    }

    let mut term = Group::new();
    for (r, color) in &layout.backgrounds {
        term.append(rect(*r).set("fill", hex(*color)));
    }
    if let Some((r, color)) = layout.cursor {
        term.append(rect(r).set("fill", hex(color)));
    }
    for shape in &layout.shapes {
        let mut p = Path::new()
            .set("d", shape.path.clone())
            .set("fill", hex(shape.fill));
        if shape.alpha < 1.0 {
            p = p.set("fill-opacity", f(shape.alpha as f64));
        }
        term.append(p);
    }
    for s in &layout.strokes {
        term.append(
            Path::new()
                .set("d", s.path.clone())
                .set("fill", "none")
                .set("stroke", hex(s.color))
                .set("stroke-width", f(s.width)),
        );
    }
    let mut plain = Text::new("");
    let mut linked: Vec<(usize, Text)> = Vec::new();
    for run in &layout.runs {
        let (x, centred) = match &run.x {
            RunX::Start(x) => (f(*x), false),
            RunX::Centers(xs) => (xs.iter().map(|x| f(*x)).collect::<Vec<_>>().join(" "), true),
        };
        let class = if centred {
            format!("c{} m", run.class)
        } else {
            format!("c{}", run.class)
        };
        let tspan = TSpan::new(run.text.clone())
            .set("x", x)
            .set("y", f(run.y))
            .set("class", class)
            .set("xml:space", "preserve");
        match run.link {
            None => plain.append(tspan),
            Some(l) => {
                let mut t = Text::new("");
                t.append(tspan);
                linked.push((l, t));
            }
        }
    }
    term.append(plain);
    for (l, text) in linked {
        term.append(Anchor::new().set("href", layout.links[l].clone()).add(text));
    }
    if !layout.highlights.is_empty() {
        let mut marks = Group::new()
            .set("fill", "#ff2d55")
            .set("fill-opacity", 0.35)
            .set("stroke", "#ff2d55")
            .set("stroke-width", 1);
        for r in &layout.highlights {
            marks.append(rect(*r));
        }
        term.append(marks);
    }
    body.push(term.into());

    if defs.get_children().is_some_and(|c| !c.is_empty()) {
        doc.append(defs);
    }
    for e in body {
        doc.append(e);
    }
    Ok(doc.to_string())
}
