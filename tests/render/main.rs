//! Screenshots: the renderer and the one-shot commands through the real binary (`shotty
//! render`, `shotty capture`), XML validity of every SVG, the golden images, the SVGs in a real
//! browser, GIF and APNG animations read back by Pillow, and the size of the default SVG.
//!
//! Run one part with a filter, e.g. `cargo test --test render golden::`.

#[path = "../support/mod.rs"]
mod support;

mod adaptive;
mod animation;
mod browser;
mod cli_capture;
mod cli_render;
mod golden;
mod mask;
mod size;
mod xml;
