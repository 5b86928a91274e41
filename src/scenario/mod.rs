//! Scenarios (SPEC §10): console2svg ScenarioDocument v1 files — YAML or JSON — run as
//! scripted tests of terminal programs through the session core.
//!
//! [`document`] reads a file and checks all of it before anything runs (each problem with its
//! file and line); [`runner`] runs the phases in a session of the scenario's own; [`summary`]
//! is the JSON a run reports, [`report`] what a failed run leaves to read;
//! [`suite`] runs many at once (`shotty test`); [`export`] writes a session's journal as a
//! scenario.
//!
//! ```no_run
//! use shotty::scenario::{document, runner};
//!
//! let loaded = document::load("vim.scenario.yaml".as_ref())?;
//! let resolve = |_: &[document::AppearanceOptions]| Ok(shotty::Appearance::default());
//! runner::check_appearances(&loaded, &resolve)?;
//! let summary = runner::run(&loaded, &runner::RunOptions::default(), &resolve);
//! println!("{}", serde_json::to_string_pretty(&summary)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod document;
pub mod export;
pub mod report;
pub mod runner;
pub mod suite;
pub mod summary;
