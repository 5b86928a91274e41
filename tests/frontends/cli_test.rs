//! `shotty test` through the real binary: the project's own scenarios (tests/scenarios, real
//! vim, less, python3, bash and htop) pass against their committed goldens; ten scenarios run
//! in parallel, each isolated, one line each and the totals; the JUnit XML is read by an
//! independent parser (Python's junitparser).

use std::path::Path;
use std::process::{Command, Output};
use std::time::Instant;

use serde_json::Value;

use crate::needs;

fn shotty_test(dir: &Path, args: &[&str], ci: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shotty"));
    cmd.arg("test")
        .args(args)
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .env_remove("CI");
    if ci {
        cmd.env("CI", "true");
    }
    cmd.output().expect("shotty runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The JUnit file as junitparser reads it: per suite its counts, per case its name and
/// result kinds.
fn junit(path: &Path) -> Option<Value> {
    let python = needs::python("junitparser")?;
    let script = r#"
import json, sys
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
suites = []
for suite in xml:
    cases = [{"name": c.name, "classname": c.classname, "time": c.time,
              "results": [type(r).__name__ for r in c.result]} for c in suite]
    suites.append({"name": suite.name, "tests": suite.tests, "failures": suite.failures,
                   "errors": suite.errors, "cases": cases})
print(json.dumps({"tests": xml.tests, "failures": xml.failures, "errors": xml.errors,
                  "suites": suites}))
"#;
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(path)
        .output()
        .expect("Python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("JSON"))
}

#[test]
fn the_projects_own_scenarios_pass_against_their_goldens() {
    if ["vim", "less", "htop", "python3"]
        .iter()
        .any(|program| needs::program(program).is_none())
    {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report");
    let xml = dir.path().join("junit.xml");
    let started = Instant::now();
    // CI set: a golden that is missing fails rather than being written.
    let out = shotty_test(
        root,
        &[
            "tests/scenarios",
            "-j",
            "3",
            "--junit",
            xml.to_str().expect("UTF-8"),
            "--report",
            report.to_str().expect("UTF-8"),
        ],
        true,
    );
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ok = text.lines().filter(|l| l.starts_with("ok ")).count();
    let scenarios = std::fs::read_dir(root.join("tests/scenarios"))
        .expect("tests/scenarios")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".scenario.yaml"))
        })
        .count();
    assert!(scenarios >= 5, "{scenarios}");
    assert_eq!(ok, scenarios, "{text}");
    assert!(
        text.contains(&format!("\n{scenarios} passed, 0 failed, 0 could not run")),
        "{text}"
    );
    assert!(!report.exists(), "no report when everything passed");
    eprintln!(
        "{scenarios} scenarios in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if let Some(j) = junit(&xml) {
        assert_eq!(
            (
                j["tests"].as_u64(),
                j["failures"].as_u64(),
                j["errors"].as_u64()
            ),
            (Some(scenarios as u64), Some(0), Some(0)),
            "{j:#}"
        );
    }
}

/// A scenario that prints `word`, waits for it and pins it in a new golden; `fail` makes it
/// wait for a word that never comes.
fn scenario(word: &str, fail: bool) -> String {
    let wanted = if fail { "never-there" } else { word };
    format!(
        "$version: 1\noptions: {{terminal: {{width: 30, height: 3}}}}\nscenario:\n  launch: {{executable: sh, args: [-c, \"sleep 0.5; echo {word}; sleep 1; pwd > where\"]}}\n  execute:\n    - {{type: wait, args: {{text: {wanted}, timeout: 3s}}}}\n    - {{type: snapshot, args: {{golden: golden/{word}.json}}}}\n    - {{type: wait, args: {{exit: true, timeout: 5s}}}}\n  verify: [{{type: command, command: \"test -s where\"}}]\n"
    )
}

#[test]
fn ten_scenarios_run_in_parallel_each_on_its_own() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = dir.path().join("suite");
    std::fs::create_dir_all(suite.join("nested/deeper")).expect("dirs");
    std::fs::create_dir_all(suite.join("target")).expect("dirs");
    let mut expected_ok = Vec::new();
    for i in 0..7 {
        let word = format!("word{i}");
        let sub = if i % 2 == 0 { "" } else { "nested/deeper/" };
        std::fs::write(
            suite.join(format!("{sub}s{i}.scenario.yaml")),
            scenario(&word, false),
        )
        .expect("scenario");
        expected_ok.push(format!("s{i}.scenario.yaml"));
    }
    for i in 7..9 {
        std::fs::write(
            suite.join(format!("f{i}.scenario.yml")),
            scenario(&format!("word{i}"), true),
        )
        .expect("scenario");
    }
    std::fs::write(
        suite.join("bad.scenario.json"),
        "{\"$version\": 1, \"scenario\": {\"lunch\": 1}}",
    )
    .expect("scenario");
    // Not scenarios: another name, and a file inside target/.
    std::fs::write(suite.join("notes.yaml"), "not: a scenario").expect("file");
    std::fs::write(suite.join("target/t.scenario.yaml"), "broken: [").expect("file");

    let xml = dir.path().join("junit.xml");
    let started = Instant::now();
    let out = shotty_test(
        dir.path(),
        &["suite", "-j", "10", "--junit", "junit.xml"],
        false,
    );
    let elapsed = started.elapsed();
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a file that cannot run: exit 2\n{text}"
    );
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("ok ") || l.starts_with("FAILED ") || l.starts_with("ERROR "))
        .collect();
    assert_eq!(lines.len(), 10, "one line per scenario:\n{text}");
    for name in &expected_ok {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("ok ") && l.contains(name.as_str())),
            "{name}:\n{text}"
        );
    }
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("FAILED ")).count(),
        2,
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("ERROR ") && l.contains("unknown field `lunch`")),
        "{text}"
    );
    assert!(
        text.contains("\n7 passed, 2 failed, 1 could not run"),
        "{text}"
    );
    // Each passing run takes 1.5 s and each failing one 3 s: one at a time that is well over
    // 15 s; ten at a time, a few seconds.
    assert!(elapsed.as_secs_f64() < 12.0, "{elapsed:?}\n{text}");
    // Each ran in its own temporary working directory: none wrote into the suite.
    assert!(!suite.join("where").exists());
    for i in 0..7 {
        let sub = if i % 2 == 0 { "" } else { "nested/deeper/" };
        assert!(
            suite.join(format!("{sub}golden/word{i}.json")).is_file(),
            "word{i}'s golden"
        );
    }
    // The failed ones left reports, each in a directory of its own, on a line of its own
    // under the FAILED line.
    for i in 7..9 {
        let report = dir.path().join(format!("shotty-report/suite_f{i}"));
        assert!(report.join("failure.md").is_file(), "{}", report.display());
        // As given (the default `--report` is relative to where `shotty test` runs).
        let page = format!("report: shotty-report/suite_f{i}/trace.html");
        assert!(
            text.lines().any(|l| l.trim_start() == page),
            "{page}:\n{text}"
        );
    }
    if let Some(j) = junit(&xml) {
        assert_eq!(
            (
                j["tests"].as_u64(),
                j["failures"].as_u64(),
                j["errors"].as_u64()
            ),
            (Some(10), Some(2), Some(1)),
            "{j:#}"
        );
        let cases = j["suites"][0]["cases"].as_array().expect("cases");
        assert_eq!(cases.len(), 10);
        let failed: Vec<&Value> = cases
            .iter()
            .filter(|c| c["results"] == serde_json::json!(["Failure"]))
            .collect();
        assert_eq!(failed.len(), 2, "{j:#}");
        assert!(
            cases
                .iter()
                .any(|c| c["name"] == "bad" && c["results"] == serde_json::json!(["Error"])),
            "{j:#}"
        );
        assert!(
            cases
                .iter()
                .any(|c| c["classname"] == "suite.nested.deeper"),
            "{j:#}"
        );
    }

    // A second run finds the goldens and passes them; --update rewrites them.
    std::fs::remove_file(suite.join("bad.scenario.json")).expect("removed");
    for i in 7..9 {
        std::fs::remove_file(suite.join(format!("f{i}.scenario.yml"))).expect("removed");
    }
    let out = shotty_test(dir.path(), &["suite", "-j", "7"], true);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        !stdout(&out).contains("golden(s) written"),
        "{}",
        stdout(&out)
    );
    let out = shotty_test(dir.path(), &["suite", "--update"], true);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        stdout(&out).matches("1 golden(s) written").count(),
        7,
        "{}",
        stdout(&out)
    );
}

/// A snapshot that differs leaves `.actual.svg`, `.diff.svg` and a report whose page shows the
/// failed screen large beside the golden and the marked differences; once the scenario passes
/// again, all three are gone (a golden that is right again leaves nothing stale behind).
#[test]
fn a_passing_run_removes_what_its_failure_left() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |word: &str| {
        std::fs::write(
            dir.path().join("pin.scenario.yaml"),
            format!(
                "$version: 1\noptions: {{terminal: {{width: 20, height: 2}}}}\nscenario:\n  launch: {{executable: sh, args: [-c, \"echo {word}; read x\"]}}\n  execute:\n    - {{type: wait, args: {{text: {word}, timeout: 5s}}}}\n    - {{type: snapshot, args: {{golden: pin.svg, timeout: 200ms}}}}\n    - {{type: send, inputs: [{{keys: Enter}}]}}\n"
            ),
        )
        .expect("scenario");
    };
    write("alpha");
    let out = shotty_test(dir.path(), &["pin.scenario.yaml"], false);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(dir.path().join("pin.svg").is_file());

    write("bravo");
    let out = shotty_test(dir.path(), &["pin.scenario.yaml"], false);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = dir.path().join("shotty-report/pin");
    let left = [
        dir.path().join("pin.actual.svg"),
        dir.path().join("pin.diff.svg"),
        report.join("trace.html"),
    ];
    for file in &left {
        assert!(file.is_file(), "{} after the failure", file.display());
    }
    let page = std::fs::read_to_string(report.join("trace.html")).expect("trace.html");
    let failure = page
        .split("<section id=\"failure\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .expect("the failure section");
    for alt in [
        "the screen when step",
        "The golden screen it expected",
        "The differing cells, marked",
    ] {
        assert!(failure.contains(alt), "{alt}: {failure}");
    }
    // The failure comes before the timeline and the filmstrip.
    assert!(page.find("id=\"failure\"") < page.find("class=\"filmstrip\""));

    write("alpha");
    let out = shotty_test(dir.path(), &["pin.scenario.yaml"], false);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    for file in &left {
        assert!(!file.exists(), "{} after passing again", file.display());
    }
    assert!(!report.exists(), "the report directory is gone");
}

/// The report's screen after a `send` step is the screen once the program reacted to it, as
/// `session read` would show it, not the one before.
#[test]
fn the_screen_after_a_send_shows_the_programs_reaction() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("react.scenario.yaml"),
        "$version: 1\noptions: {terminal: {width: 30, height: 4}}\nscenario:\n  launch: {executable: sh, args: [-c, \"echo ready; read x; echo got-$x; sleep 5\"]}\n  execute:\n    - {type: wait, args: {text: ready, timeout: 5s}}\n    - {type: send, inputs: [{text: hi}, {keys: Enter}]}\n    - {type: wait, args: {text: never-there, timeout: 300ms}}\n",
    )
    .expect("scenario");
    for round in 0..5 {
        let out = shotty_test(dir.path(), &["react.scenario.yaml"], false);
        assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
        let screen =
            std::fs::read_to_string(dir.path().join("shotty-report/react/screens/step-02.svg"))
                .expect("the screen after the send");
        assert!(screen.contains("got-hi"), "round {round}: {screen}");
    }
}

#[test]
fn no_scenario_found_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = shotty_test(dir.path(), &[], false);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no scenario files"));
    let out = shotty_test(dir.path(), &["missing-dir"], false);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read missing-dir"));
}
