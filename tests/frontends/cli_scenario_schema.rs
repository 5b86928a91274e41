//! `shotty scenario schema`: the JSON Schema of scenario files, checked by an independent
//! validator, Python's `jsonschema` (draft 2020-12). Every scenario of `cli_scenario.rs` (here
//! as JSON) validates and so do the other spellings the reader takes, the project's own suite
//! (`tests/scenarios`) and what `session export` writes; files with an unknown key, an unknown
//! step type or a wrong value are refused, each where it is wrong, and the reader refuses them
//! too; a schema broken on purpose fails the valid files, so they test something. The schema
//! in `docs/` is the one the command prints.
//!
//! Needs Python's `jsonschema` (`tests/install-deps` installs it; without, these tests are
//! skipped outside CI).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::needs;

/// Validates each document of `{"schema", "documents"}` on stdin; prints for each `null` or
/// the most relevant error (its JSON path and message).
const VALIDATE: &str = r#"
import json, sys
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

job = json.load(sys.stdin)
Draft202012Validator.check_schema(job["schema"])
validator = Draft202012Validator(job["schema"])
results = []
for document in job["documents"]:
    error = best_match(validator.iter_errors(document))
    results.append(None if error is None else {"path": error.json_path, "message": error.message})
print(json.dumps(results))
"#;

/// What `shotty scenario schema` prints.
fn printed_schema() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .args(["scenario", "schema"])
        .stdin(Stdio::null())
        .output()
        .expect("shotty runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn schema() -> Value {
    serde_json::from_str(&printed_schema()).expect("the schema is JSON")
}

/// The most relevant error for each document, as "PATH: MESSAGE", or `None` when it is valid.
fn validate(python: &Path, schema: &Value, documents: &[Value]) -> Vec<Option<String>> {
    let mut child = Command::new(python)
        .args(["-c", VALIDATE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let job = json!({ "schema": schema, "documents": documents });
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(job.to_string().as_bytes())
        .expect("the job written");
    let out = child.wait_with_output().expect("python3 ends");
    assert!(
        out.status.success(),
        "the validator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).expect("the results");
    assert_eq!(results.len(), documents.len(), "one result per document");
    results
        .iter()
        .map(|r| {
            (!r.is_null()).then(|| {
                format!(
                    "{}: {}",
                    r["path"].as_str().unwrap_or("?"),
                    r["message"].as_str().unwrap_or("?")
                )
            })
        })
        .collect()
}

fn document(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The scenarios of `cli_scenario.rs`, each written as JSON (the YAML as its reader reads it;
/// the SPEC's example with `x` for its working directory), and files using what those leave
/// out: every step type, kebab-case keys, `null` for an absent key, numbers for durations,
/// colours as names and indices.
const VALID: &[(&str, &str)] = &[
    (
        "vim",
        r#"{
  "$version": 1,
  "options": {"terminal": {"width": 60, "height": 12}, "appearance": {"theme": ["nord"], "window": "macos"}},
  "scenario": {
    "working-dir": {"path": "work"},
    "prepare": [
      {"type": "command", "command": "printf 'first line\n' > demo.txt"}
    ],
    "launch": {"executable": "vim", "args": ["-u", "NONE", "-i", "NONE", "-N", "-n", "demo.txt"], "env": {"LANG": "C.UTF-8"}},
    "execute": [
      {"type": "wait", "args": {"text": "first line", "stable-for": "100ms", "timeout": "10s"}},
      {"type": "send", "inputs": [{"keys": "G"}, {"text": "ohello from shotty"}, {"keys": "Escape"}]},
      {"type": "wait", "args": {"text": "-- INSERT --", "until": "absent", "timeout": "10s"}},
      {"type": "assert", "args": {"regex": "hello from (shotty|SHOTTY)", "row": 1, "col": 0}},
      {"type": "assert", "args": {"cursor": {"row": 1, "col": 16}}},
      {"type": "mark", "args": {"label": "edited"}},
      {"type": "capture", "args": {"output": "out/edited.png"}, "options": {"appearance": {"theme": ["dracula"]}}},
      {"type": "snapshot", "args": {"golden": "golden/vim.svg"}},
      {"type": "send", "inputs": [{"text": ":wq"}, {"keys": "Enter"}]},
      {"type": "wait", "args": {"exit": true, "timeout": "10s"}}
    ],
    "verify": [
      {"type": "command", "command": "grep -qix 'hello from shotty' demo.txt"}
    ],
    "teardown": [
      {"type": "command", "command": "rm demo.txt && touch torn-down"}
    ]
  }
}"#,
    ),
    (
        "python",
        r#"{
  "$version": 1,
  "scenario": {
    "launch": {"executable": "python3", "args": ["-q"], "env": {"PYTHON_BASIC_REPL": "1"}},
    "execute": [
      {"type": "wait", "args": {"regex": "^>>>$", "timeout": "10s"}},
      {"type": "send", "inputs": [{"paste": "def square(n):\n    return n * n\n"}, {"keys": "Enter"}]},
      {"type": "wait", "args": {"regex": "^>>>$"}},
      {"type": "send", "inputs": [{"text": "square(12)"}, {"keys": "Enter"}]},
      {"type": "wait", "args": {"text": "144"}},
      {"type": "send", "inputs": [{"text": "raise SystemExit(3)"}, {"keys": "Enter"}]},
      {"type": "wait", "args": {"exit": true}}
    ]
  }
}"#,
    ),
    (
        "a wait that times out",
        r#"{
  "$version": 1,
  "scenario": {
    "working-dir": {"path": "."},
    "launch": {"executable": "sh", "args": ["-c", "echo ready; sleep 30"]},
    "execute": [
      {"type": "wait", "args": {"text": "ready"}},
      {"type": "wait", "args": {"text": "never", "timeout": "300ms"}},
      {"type": "command", "command": "touch after-the-failure"}
    ],
    "verify": [
      {"type": "command", "command": "touch verified"}
    ],
    "teardown": [
      {"type": "command", "command": "touch torn-down"}
    ]
  }
}"#,
    ),
    (
        "a failing command",
        r#"{
  "$version": 1,
  "scenario": {
    "launch": {"executable": "sh", "args": ["-c", "echo hi"]},
    "execute": [
      {"type": "wait", "args": {"exit": true}},
      {"type": "command", "command": "echo oops >&2; exit 7"}
    ]
  }
}"#,
    ),
    (
        "a failing verify",
        r#"{
  "$version": 1,
  "scenario": {
    "launch": {"executable": "sh", "args": ["-c", "echo hi"]},
    "verify": [
      {"type": "command", "command": "test -f never-made"},
      {"type": "assert", "args": {"text": "hi"}}
    ]
  }
}"#,
    ),
    (
        "an assert of a style",
        r#"{
  "$version": 1,
  "scenario": {
    "launch": {"executable": "sh", "args": ["-c", "printf 'plain \\033[1;31mred\\033[0m\\n'; sleep 5"]},
    "execute": [
      {"type": "wait", "args": {"text": "red"}},
      {"type": "assert", "args": {"text": "red", "style": {"fg": 1, "bold": true}}},
      {"type": "assert", "args": {"text": "plain", "style": {"fg": 1}, "timeout": "200ms"}}
    ]
  }
}"#,
    ),
    (
        "camelCase JSON",
        r#"{
  "$version": 1,
  "options": {"terminal": {"width": 30, "height": 5}},
  "scenario": {
    "workingDir": {"temporary": true},
    "launch": {"executable": "sh", "args": ["-c", "echo one; sleep 0.3; echo two; read x"]},
    "execute": [
      {"type": "wait", "args": {"text": "two", "stableFor": "100ms"}},
      {"type": "send", "inputs": [{"rawHex": "0d"}]},
      {"type": "wait", "args": {"exit": true, "timeout": 5}},
      {"type": "sleep", "args": {"duration": 0.05}}
    ]
  }
}"#,
    ),
    (
        "kebab-case YAML",
        r#"{
  "$version": 1,
  "options": {"exit-timeout": "5s"},
  "scenario": {
    "working-dir": {"temporary": true},
    "launch": {"executable": "sh", "args": ["-c", "echo two; read x"]},
    "execute": [
      {"type": "wait", "args": {"text": "two", "stable-for": "100ms"}},
      {"type": "send", "inputs": [{"raw-hex": "0d"}]}
    ]
  }
}"#,
    ),
    (
        "the SPEC's example",
        r#"{
  "$version": 1,
  "options": {"terminal": {"width": 100, "height": 24}, "appearance": {"theme": ["nord"], "window": "macos"}},
  "scenario": {
    "working-dir": {"path": "x"},
    "prepare": [
      {"type": "command", "command": "echo setup"}
    ],
    "launch": {"executable": "vim", "args": ["demo.txt"], "options": {"terminal": {"width": 100, "height": 24}}},
    "execute": [
      {"type": "wait", "args": {"text": "~", "until": "present", "stableFor": "1s", "timeout": "10s"}},
      {"type": "send", "inputs": [{"text": "ihello"}, {"keys": "Escape"}, {"paste": "…"}, {"rawHex": "1B5B41"}]},
      {"type": "resize", "args": {"width": 120, "height": 30}},
      {"type": "capture", "args": {"output": "shot.svg"}, "options": {"appearance": {"theme": ["dracula"]}}},
      {"type": "command", "command": "test -f demo.txt"}
    ],
    "verify": [
      {"type": "command", "command": "grep hello demo.txt"}
    ],
    "teardown": [
      {"type": "command", "command": "rm -f demo.txt"}
    ]
  }
}"#,
    ),
    (
        "every step type and the rest",
        r##"{
  "$version": 1,
  "name": "everything",
  "options": {"exitTimeout": 2.5, "terminal": {"width": 1, "height": 500}, "appearance": {"fontsize": 16, "lineHeight": 1.2, "embed-font": true, "noCursor": false, "theme": ["nord"], "background": ["#000000", "#202020"], "padding": 4}},
  "scenario": {
    "workingDir": {"path": "work", "temporary": false},
    "launch": {"executable": "sh", "args": [], "env": {}, "cwd": "sub", "shell-integration": false, "options": {"terminal": {"width": 80}}},
    "execute": [
      {"type": "wait", "name": "ready", "args": {"regex": "\\$ $", "until": "present", "stable-for": 0.5, "timeout": "1.5m"}},
      {"type": "wait", "args": {"idle": "500ms"}},
      {"type": "send", "inputs": [{"text": "ls"}, {"keys": "Enter"}, {"paste": "a\nb"}, {"raw-hex": "1b5b41"}]},
      {"type": "resize", "args": {"width": 500, "height": 1}},
      {"type": "capture", "args": {"output": "shot.txt"}, "options": {"appearance": {"window": "none"}}},
      {"type": "command", "name": null, "command": "true"},
      {"type": "snapshot", "args": {"golden": "golden/a.json", "timeout": "2s"}, "options": {"appearance": {"theme": ["nord"]}}},
      {"type": "assert", "args": {"row": 0, "col": 0, "style": {"fg": "#00ff00", "bg": "default", "bold": true, "dim": false, "italic": false, "underline": false, "inverse": false, "strike": false, "blink": false, "hidden": false}, "timeout": 1}},
      {"type": "assert", "args": {"text": "a", "style": {"fg": 255, "bg": "#ABCDEF"}}},
      {"type": "assert", "args": {"cursor": {"row": 0, "col": 2}}},
      {"type": "sleep", "args": {"duration": "+.25s"}},
      {"type": "mark"},
      {"type": "mark", "args": null},
      {"type": "mark", "args": {"label": "done"}},
      {"type": "stop"},
      {"type": "wait", "args": {"exit": true}}
    ],
    "verify": [
      {"type": "capture", "args": {"output": "last.svg"}},
      {"type": "snapshot", "args": {"golden": "golden/last.svg"}},
      {"type": "assert", "args": {"text": "a"}},
      {"type": "command", "command": "true"}
    ],
    "teardown": [],
    "prepare": [{"type": "command", "command": "mkdir -p sub"}]
  }
}"##,
    ),
    (
        "the smallest",
        r#"{"$version": 1, "name": null, "scenario": {"launch": {"executable": "true"}, "working-dir": null}}"#,
    ),
];

/// The document of `cli_scenario.rs`'s refused files: `step` the one step of execute.
fn with_step(step: &str) -> String {
    format!(
        r#"{{"$version": 1, "scenario": {{"launch": {{"executable": "sh", "args": ["-c", "true"]}}, "execute": [{step}]}}}}"#
    )
}

fn with_scenario(keys: &str) -> String {
    format!(r#"{{"$version": 1, "scenario": {{"launch": {{"executable": "sh"}}, {keys}}}}}"#)
}

/// Files the schema refuses, with where and why: the JSON path of the validator's most relevant
/// error and part of its message.
fn invalid() -> Vec<(String, (&'static str, &'static str))> {
    vec![
        // Unknown keys.
        (
            r#"{"$version": 1, "nmae": "x", "scenario": {"launch": {"executable": "sh"}}}"#.into(),
            ("$", "Additional properties are not allowed ('nmae' was unexpected)"),
        ),
        (
            with_scenario(r#""lunch": 1"#),
            ("$.scenario", "'lunch' does not match any of the regexes"),
        ),
        (
            with_step(r#"{"type": "wait", "args": {"txet": "x"}}"#),
            ("$.scenario.execute[0].args", "'txet' does not match any of the regexes"),
        ),
        (
            with_step(r#"{"type": "wait", "args": {"text": "x"}, "inputs": [{"text": "a"}]}"#),
            ("$.scenario.execute[0]", "Additional properties are not allowed ('inputs' was unexpected)"),
        ),
        (
            with_step(r#"{"type": "snapshot", "args": {"golden": "g.svg", "text": "x"}}"#),
            ("$.scenario.execute[0].args", "Additional properties are not allowed ('text' was unexpected)"),
        ),
        (
            with_step(r#"{"type": "send", "inputs": [{"typed": "a"}]}"#),
            ("$.scenario.execute[0].inputs[0]", "{'typed': 'a'} is not valid"),
        ),
        (
            r#"{"$version": 1, "options": {"terminal": {"cols": 80}}, "scenario": {"launch": {"executable": "sh"}}}"#.into(),
            ("$.options.terminal", "Additional properties are not allowed ('cols' was unexpected)"),
        ),
        (
            with_scenario(r#""workingDir": {"path": "a"}, "working-dir": {"path": "b"}"#),
            ("$.scenario", "should not be valid under {'required': ['workingDir', 'working-dir']}"),
        ),
        // Unknown step types, and a step type its phase does not take.
        (
            with_step(r#"{"type": "wiat"}"#),
            ("$.scenario.execute[0].type", "'wiat' is not one of ['wait', 'send'"),
        ),
        (
            with_scenario(r#""prepare": [{"type": "send", "inputs": [{"text": "a"}]}]"#),
            ("$.scenario.prepare[0]", "('inputs' was unexpected)"),
        ),
        (
            with_step(r#"{"type": "stop", "args": {}}"#),
            ("$.scenario.execute[0]", "Additional properties are not allowed ('args' was unexpected)"),
        ),
        (
            with_scenario(r#""verify": [{"type": "stop"}]"#),
            ("$.scenario.verify[0].type", "'stop' is not one of ['capture', 'command', 'snapshot', 'assert']"),
        ),
        (
            r#"{"$version": 1, "options": {"exitTimeout": "soon"}, "scenario": {"launch": {"executable": "sh"}}}"#.into(),
            ("$.options.exitTimeout", "'soon' does not match"),
        ),
        (
            with_scenario(r#""verify": [{"type": "wait", "args": {"exit": true}}]"#),
            ("$.scenario.verify[0].type", "'wait' is not one of ['capture', 'command', 'snapshot', 'assert']"),
        ),
        // Wrong values.
        (
            r#"{"$version": 2, "scenario": {"launch": {"executable": "sh"}}}"#.into(),
            ("$['$version']", "1 was expected"),
        ),
        (
            with_step(r#"{"type": "resize", "args": {"width": "wide", "height": 10}}"#),
            ("$.scenario.execute[0].args.width", "'wide' is not of type 'integer'"),
        ),
        (
            with_step(r#"{"type": "resize", "args": {"width": 0, "height": 10}}"#),
            ("$.scenario.execute[0].args.width", "0 is less than the minimum of 1"),
        ),
        (
            r#"{"$version": 1, "options": {"terminal": {"width": 501}}, "scenario": {"launch": {"executable": "sh"}}}"#.into(),
            ("$.options.terminal.width", "501 is greater than the maximum of 500"),
        ),
        (
            with_step(r#"{"type": "send", "inputs": {"text": "a"}}"#),
            ("$.scenario.execute[0].inputs", "{'text': 'a'} is not of type 'array'"),
        ),
        (
            with_step(r#"{"type": "send", "inputs": []}"#),
            ("$.scenario.execute[0].inputs", "[] should be non-empty"),
        ),
        (
            with_step(r#"{"type": "command", "command": "  "}"#),
            ("$.scenario.execute[0].command", "'  ' does not match"),
        ),
        (
            with_step(r#"{"type": "wait", "args": {"text": "x", "until": "sometimes"}}"#),
            ("$.scenario.execute[0].args.until", "'sometimes' is not valid"),
        ),
        (
            with_step(r#"{"type": "wait", "args": {"text": "x", "stableFor": "2q"}}"#),
            ("$.scenario.execute[0].args.stableFor", "'2q' does not match"),
        ),
        (
            with_step(r#"{"type": "sleep", "args": {"duration": -1}}"#),
            ("$.scenario.execute[0].args.duration", "-1 is less than the minimum of 0"),
        ),
        (
            with_step(r#"{"type": "wait", "args": {"exit": "maybe"}}"#),
            ("$.scenario.execute[0].args.exit", "'maybe' is not of type 'boolean', 'null'"),
        ),
        (
            with_step(r#"{"type": "assert", "args": {"text": "x", "style": {"fg": "orange"}}}"#),
            ("$.scenario.execute[0].args.style.fg", "'orange' does not match"),
        ),
        (
            with_step(r#"{"type": "assert", "args": {"text": "x", "style": {"fg": 256}}}"#),
            ("$.scenario.execute[0].args.style.fg", "256 is greater than the maximum of 255"),
        ),
        (
            r#"{"$version": 1, "scenario": {"launch": {"executable": ["sh"]}}}"#.into(),
            ("$.scenario.launch.executable", "['sh'] is not of type 'string'"),
        ),
        (
            // The reader checks appearance options where a capture or snapshot uses them.
            r#"{"$version": 1, "options": {"appearance": {"theme": {"name": "nord"}}}, "scenario": {"launch": {"executable": "sh"}, "execute": [{"type": "capture", "args": {"output": "a.svg"}}]}}"#.into(),
            ("$.options.appearance.theme", "{'name': 'nord'} is not valid"),
        ),
        (
            r#"{"$version": 1, "scenario": {"launch": {"executable": "sh"}, "prepare": null}}"#.into(),
            ("$.scenario.prepare", "None is not of type 'array'"),
        ),
        // Missing keys.
        (
            r#"{"$version": 1, "scenario": {}}"#.into(),
            ("$.scenario", "'launch' is a required property"),
        ),
        (
            r#"{"$version": 1, "scenario": {"launch": {"args": ["x"]}}}"#.into(),
            ("$.scenario.launch", "'executable' is a required property"),
        ),
        (
            with_step(r#"{"type": "resize", "args": {"width": 80}}"#),
            ("$.scenario.execute[0].args", "'height' is a required property"),
        ),
        (
            with_step(r#"{"type": "capture"}"#),
            ("$.scenario.execute[0]", "'args' is a required property"),
        ),
    ]
}

/// A YAML scenario as JSON. The YAML is parsed by serde-saphyr, the YAML parser shotty's reader
/// is built on, into plain JSON values: what is checked is the schema against the document, by
/// a validator that is not shotty's.
fn yaml_to_json(yaml: &str) -> Value {
    serde_saphyr::from_str(yaml).unwrap_or_else(|e| panic!("{e}: {yaml}"))
}

/// Runs `shotty scenario run` on `text` in `dir`: (exit code, the summary's error).
fn run(dir: &Path, text: &str) -> (Option<i32>, String) {
    std::fs::write(dir.join("t.scenario.json"), text).expect("scenario written");
    let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .args(["scenario", "run", "t.scenario.json"])
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .env_remove("CI")
        .stdin(Stdio::null())
        .output()
        .expect("shotty runs");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let error = summary["error"].as_str().unwrap_or("").to_owned();
    (out.status.code(), error)
}

#[test]
fn the_committed_schema_is_what_the_command_prints() {
    let printed = printed_schema();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scenario.schema.json");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == printed,
        "docs/scenario.schema.json is not what `shotty scenario schema` prints; regenerate it with \
         `cargo run -- scenario schema > docs/scenario.schema.json`"
    );
}

#[test]
fn the_schema_names_itself_and_its_draft() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        schema["title"],
        "shotty scenario (console2svg ScenarioDocument v1)"
    );
    assert!(schema["$id"].is_string());
}

#[test]
fn every_scenario_of_the_tests_validates_and_the_reader_reads_it() {
    let Some(python) = needs::python("jsonschema") else {
        return;
    };
    let documents: Vec<Value> = VALID.iter().map(|(_, text)| document(text)).collect();
    let results = validate(&python, &schema(), &documents);
    for ((name, text), result) in VALID.iter().zip(&results) {
        assert_eq!(result, &None, "{name}");
        let read = shotty::scenario::document::parse(text, Path::new("t.json"), Path::new(""));
        assert!(read.is_ok(), "{name}: {:?}", read.err());
    }
}

#[test]
fn the_projects_own_suite_validates() {
    let Some(python) = needs::python("jsonschema") else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/scenarios")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_some_and(|n| {
                [".scenario.yaml", ".scenario.yml", ".scenario.json"]
                    .iter()
                    .any(|ext| n.ends_with(ext))
            })
        })
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    let documents: Vec<Value> = files
        .iter()
        .map(|path| yaml_to_json(&std::fs::read_to_string(path).expect("a scenario file")))
        .collect();
    for (path, result) in files.iter().zip(validate(&python, &schema(), &documents)) {
        assert_eq!(result, None, "{}", path.display());
    }
}

/// `session export` writes a session's journal as a scenario: every kind of step it keeps.
#[test]
fn an_exported_session_validates() {
    use shotty::session::journal::Journal;
    use shotty::session::protocol::JournalReply;
    use shotty::session::send::SendStep;
    use shotty::session::wait::{Target, Until, WaitCondition};

    let Some(python) = needs::python("jsonschema") else {
        return;
    };
    let mut journal = Journal::default();
    let wait = |target, until, stable_ms: Option<u64>, timeout_ms: Option<u64>| WaitCondition {
        target,
        until,
        stable_for: stable_ms.map(std::time::Duration::from_millis),
        timeout: timeout_ms.map(std::time::Duration::from_millis),
        fresh: false,
    };
    journal.wait(
        wait(Target::Text("~".into()), Until::Present, Some(100), None)
            .to_step()
            .unwrap(),
    );
    journal.send(&[
        SendStep::Text("ihello \"quoted\"\n: yaml? # not a comment".into()),
        SendStep::Keys("Escape".into()),
        SendStep::RawHex("1b5b41".into()),
        SendStep::Paste("pasted".into()),
    ]);
    journal.wait(
        wait(
            Target::Text("INSERT".into()),
            Until::Absent,
            None,
            Some(5000),
        )
        .to_step()
        .unwrap(),
    );
    journal.resize(90, 20);
    // A send no wait follows: the export adds a settling one.
    journal.send(&[SendStep::Keys("Ctrl+L".into())]);
    journal.mark("done: ✓");
    journal.wait(
        wait(
            Target::Idle(std::time::Duration::from_millis(300)),
            Until::Present,
            None,
            None,
        )
        .to_step()
        .unwrap(),
    );
    let prompt = WaitCondition::regex("^>>>$").expect("a pattern");
    journal.wait(wait(prompt, Until::Present, None, None).to_step().unwrap());
    journal.wait(
        wait(Target::Exit, Until::Present, None, Some(10_000))
            .to_step()
            .unwrap(),
    );
    let reply = JournalReply {
        session_id: "s_1".into(),
        command: vec!["vim".into(), "-u".into(), "NONE".into()],
        cwd: "/tmp/some dir".into(),
        env: vec![("LANG".into(), "C.UTF-8".into())],
        width: 80,
        height: 24,
        journal,
        state: Some(shotty::session::State::Exited),
    };
    let yaml = shotty::scenario::export::document(&reply);
    let document = yaml_to_json(&yaml);
    assert_eq!(
        document["scenario"]["execute"].as_array().map(Vec::len),
        Some(10),
        "{yaml}"
    );
    assert_eq!(validate(&python, &schema(), &[document]), [None], "{yaml}");
}

#[test]
fn unknown_keys_step_types_and_wrong_values_are_refused_by_both() {
    let Some(python) = needs::python("jsonschema") else {
        return;
    };
    let cases = invalid();
    let documents: Vec<Value> = cases.iter().map(|(text, _)| document(text)).collect();
    let results = validate(&python, &schema(), &documents);
    let dir = tempfile::tempdir().expect("temp dir");
    for ((text, expected), result) in cases.iter().zip(&results) {
        let error = result
            .as_deref()
            .unwrap_or_else(|| panic!("the schema takes {text}"));
        let (path, why) = expected;
        assert!(
            error.starts_with(&format!("{path}: ")) && error.contains(why),
            "{text}\n{error}"
        );
        let (code, refusal) = run(dir.path(), text);
        assert_eq!(code, Some(2), "shotty runs {text}");
        assert!(refusal.starts_with("t.scenario.json"), "{text}: {refusal}");
    }
}

/// What JSON Schema cannot say, or the schema leaves to the reader: each file validates and
/// `shotty scenario run` still refuses it before anything runs.
#[test]
fn what_only_the_reader_refuses() {
    let Some(python) = needs::python("jsonschema") else {
        return;
    };
    let cases = [
        (
            with_step(r#"{"type": "wait", "args": {"regex": "(("}}"#),
            "bad regex",
        ),
        (
            with_step(r#"{"type": "send", "inputs": [{"keys": "Ctrl+Nope"}]}"#),
            "Ctrl+Nope",
        ),
        (
            with_step(r#"{"type": "capture", "args": {"output": "x.bmp"}}"#),
            "cannot tell the format",
        ),
        (
            with_step(
                r#"{"type": "capture", "args": {"output": "x.svg"}, "options": {"appearance": {"theme": "nope"}}}"#,
            ),
            "unknown theme \"nope\"",
        ),
        (
            with_step(r#"{"type": "wait", "args": {"text": "x", "exit": true}}"#),
            "waits for one of",
        ),
        (
            with_step(r#"{"type": "assert", "args": {"text": "x", "regex": "x"}}"#),
            "not both",
        ),
        (
            with_step(r#"{"type": "wait", "args": {"text": "x", "stableFor": "200h"}}"#),
            "longer than a week",
        ),
        (
            with_scenario(r#""workingDir": {"path": "a", "temporary": true}"#),
            "not both",
        ),
        (
            with_step(r#"{"type": "wait", "args": {"exit": false}}"#),
            "waits for nothing",
        ),
        (
            r#"{"$version": 1, "scenario": {"launch": {"executable": "sh", "shellIntegration": true}}}"#
                .into(),
            "works with bash, zsh and fish",
        ),
    ];
    let documents: Vec<Value> = cases.iter().map(|(text, _)| document(text)).collect();
    let results = validate(&python, &schema(), &documents);
    let dir = tempfile::tempdir().expect("temp dir");
    for ((text, expected), result) in cases.iter().zip(&results) {
        assert_eq!(result, &None, "{text}");
        let (code, refusal) = run(dir.path(), text);
        assert_eq!(code, Some(2), "{text}");
        assert!(refusal.contains(expected), "{text}: {refusal}");
    }
}

/// The valid files test the schema: broken on purpose in one place, it fails one of them.
#[test]
fn a_schema_broken_on_purpose_fails_the_valid_files() {
    let Some(python) = needs::python("jsonschema") else {
        return;
    };
    let documents: Vec<Value> = VALID.iter().map(|(_, text)| document(text)).collect();
    type Break = fn(&mut Value);
    let breaks: [(&str, Break); 6] = [
        ("$version 2", |s| {
            s["properties"]["$version"]["const"] = json!(2)
        }),
        ("no kebab-case working-dir", |s| {
            s["$defs"]["Scenario"]["patternProperties"] = json!({})
        }),
        ("no stableFor in a wait", |s| {
            if let Some(p) =
                s["$defs"]["WaitStep"]["properties"]["args"]["properties"].as_object_mut()
            {
                p.remove("stableFor");
            }
        }),
        ("durations in ms only", |s| {
            s["$defs"]["DurationValue"]["anyOf"][1]["pattern"] = json!("^[0-9]+ms$")
        }),
        ("a mark needs args", |s| {
            s["$defs"]["MarkStep"]["required"] = json!(["type", "args"])
        }),
        ("sizes up to 499", |s| {
            s["$defs"]["ResizeStep"]["properties"]["args"]["properties"]["width"]["maximum"] =
                json!(499)
        }),
    ];
    let schema = schema();
    for (what, break_it) in breaks {
        let mut broken = schema.clone();
        break_it(&mut broken);
        assert_ne!(broken, schema, "{what}: nothing changed");
        let results = validate(&python, &broken, &documents);
        let failed: Vec<&str> = VALID
            .iter()
            .zip(&results)
            .filter(|(_, r)| r.is_some())
            .map(|((name, _), _)| *name)
            .collect();
        assert!(!failed.is_empty(), "{what}: every file still validates");
        eprintln!("{what}: fails {failed:?}");
    }
}
