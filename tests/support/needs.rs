//! What a test needs beyond the Rust toolchain: a program, a file or a Python module, each a
//! line of `tests/dependencies.txt` (the one list; `tests/install-deps` installs it).
//!
//! Found, the lookup returns it. Missing, the test says so in one line on the terminal (what is
//! missing, what installs it) and returns early, so it passes without running; at the end of
//! each test binary a summary lists every test of this `cargo test` run that did not run. With
//! `CI` set, a missing dependency fails the test instead: CI installs everything.
//!
//! ```ignore
//! let Some(python) = needs::python("rich.progress") else { return };
//! ```

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, Once, OnceLock};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `program` on PATH.
pub fn program(name: &str) -> Option<PathBuf> {
    let dependency = listed("program", name);
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| is_executable(p))
    });
    found.or_else(|| missing(dependency))
}

/// Whether the file `path` exists.
pub fn file(path: &str) -> bool {
    let dependency = listed("file", path);
    Path::new(path).exists() || missing::<()>(dependency).is_some()
}

/// A Python interpreter that imports `module`: `tests/.venv`'s (where `tests/install-deps` puts
/// the packages) if it has it, else the system's `python3`.
pub fn python(module: &str) -> Option<PathBuf> {
    let dependency = listed("python", module);
    static FOUND: OnceLock<Mutex<HashMap<String, Option<PathBuf>>>> = OnceLock::new();
    let found = FOUND
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(module.to_owned())
        .or_insert_with(|| {
            let venv = Path::new(ROOT).join("tests/.venv/bin/python3");
            [venv, PathBuf::from("python3")]
                .into_iter()
                .find(|python| imports(python, module))
        })
        .clone();
    found.or_else(|| missing(dependency))
}

/// The system's `python3`, for scripts that need only the standard library.
pub fn python3() -> Option<PathBuf> {
    program("python3")
}

fn imports(python: &Path, module: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|out| out.status.success())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A line of `tests/dependencies.txt`.
#[derive(Clone, Copy, Debug)]
struct Dependency {
    kind: &'static str,
    what: &'static str,
    /// `apt:PACKAGE` or `pip:REQUIREMENT`.
    from: &'static str,
}

impl Dependency {
    fn install(&self) -> String {
        match self.from.split_once(':') {
            Some(("apt", package)) => format!("apt-get install {package}"),
            Some(("pip", requirement)) => {
                format!("tests/.venv/bin/pip install '{requirement}'")
            }
            _ => self.from.to_owned(),
        }
    }
}

/// The line naming `what`; a test asking for something the list lacks is a bug in the test.
fn listed(kind: &str, what: &str) -> Dependency {
    static LIST: &str = include_str!("../dependencies.txt");
    LIST.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            Some(Dependency {
                kind: fields.next()?,
                what: fields.next()?,
                from: fields.next()?,
            })
        })
        .find(|d| d.kind == kind && d.what == what)
        .unwrap_or_else(|| panic!("tests/dependencies.txt has no line `{kind} {what} ...`"))
}

/// Whether the tests run in CI, where everything is installed and nothing may be skipped.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Reports `dependency` missing: a failure in CI, else a skip, said at once and in the summary.
fn missing<T>(dependency: Dependency) -> Option<T> {
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let line = format!(
        "{test}: needs {} {}, which is missing (install: {}; everything: tests/install-deps)",
        dependency.kind,
        dependency.what,
        dependency.install()
    );
    if in_ci() {
        panic!("{line}; CI runs every test");
    }
    // Straight to the terminal: the harness holds back what a passing test prints.
    let _ = writeln!(std::io::stderr().lock(), "skipped: {line}");
    record_skip(&line);
    None
}

/// The file that collects this `cargo test` run's skips: every test binary of the run is a
/// child of the same cargo process, named here by its pid and start time.
fn run_file() -> PathBuf {
    let parent = std::os::unix::process::parent_id();
    let started = std::fs::read_to_string(format!("/proc/{parent}/stat"))
        .ok()
        .and_then(|stat| {
            // Field 22, counted after the command name's closing parenthesis.
            let after = stat.rsplit_once(')')?.1;
            after.split_whitespace().nth(19).map(str::to_owned)
        })
        .unwrap_or_default();
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("skipped")
        .join(format!("{parent}-{started}"))
}

fn record_skip(line: &str) {
    static SUMMARY_AT_EXIT: Once = Once::new();
    let path = run_file();
    let written = path.parent().is_some_and(|dir| {
        std::fs::create_dir_all(dir).is_ok()
            && std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .and_then(|mut f| writeln!(f, "{line}"))
                .is_ok()
    });
    if written {
        SUMMARY_AT_EXIT.call_once(|| {
            // SAFETY: registers a plain function without arguments, as atexit expects.
            unsafe { libc::atexit(print_summary) };
        });
    }
}

/// Prints every skip of the run so far when a test binary that skipped something exits: the
/// last such binary prints the whole run's list.
extern "C" fn print_summary() {
    let Ok(text) = std::fs::read_to_string(run_file()) else {
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "\n{} test(s) of this run so far did not run, for something missing \
         (tests/install-deps installs it all):",
        lines.len()
    );
    for line in lines {
        let _ = writeln!(err, "  {line}");
    }
}
