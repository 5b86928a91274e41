//! `shotty scenario run` through the real binary, driving real programs (vim, python3, sh):
//! the phases, every step type, goldens (new, passing, differing, `--update`, CI), the JSON
//! summary and exit codes, failure reports, and files that are refused before anything runs.
//! less, htop and bash run in the project's own suite, `tests/scenarios` (`cli_test.rs`).
//!
//! Each scenario here is in `cli_scenario_schema.rs` too, as JSON, which the JSON Schema must
//! take: a new one belongs there as well.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::needs;

/// Runs `shotty scenario run` on `yaml` (written to `dir/name`), with `CI` unset unless `ci`.
fn run_scenario(dir: &Path, name: &str, yaml: &str, extra: &[&str], ci: bool) -> (Output, Value) {
    std::fs::write(dir.join(name), yaml).expect("scenario written");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shotty"));
    cmd.arg("scenario")
        .arg("run")
        .arg(name)
        .args(extra)
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .env_remove("CI")
        .stdin(Stdio::null());
    if ci {
        cmd.env("CI", "true");
    }
    let out = cmd.output().expect("shotty runs");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the summary is JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, summary)
}

/// The status of every step, as "type:status".
fn statuses(summary: &Value) -> Vec<String> {
    summary["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| {
            format!(
                "{}:{}",
                s["type"].as_str().unwrap_or("?"),
                s["status"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

fn failed_message(summary: &Value) -> String {
    summary["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["status"] == "failed")
        .and_then(|s| s["message"].as_str())
        .unwrap_or("")
        .to_owned()
}

const VIM: &str = r#"
$version: 1
options:
  terminal: {width: 60, height: 12}
  appearance: {theme: [nord], window: macos}
scenario:
  working-dir: {path: work}
  prepare: [{type: command, command: "printf 'first line\n' > demo.txt"}]
  launch:
    executable: vim
    args: [-u, NONE, -i, NONE, -N, -n, demo.txt]
    env: {LANG: C.UTF-8}
  execute:
    - {type: wait, args: {text: "first line", stable-for: 100ms, timeout: 10s}}
    - {type: send, inputs: [{keys: G}, {text: "ohello from shotty"}, {keys: Escape}]}
    - {type: wait, args: {text: "-- INSERT --", until: absent, timeout: 10s}}
    - {type: assert, args: {regex: "hello from (shotty|SHOTTY)", row: 1, col: 0}}
    - {type: assert, args: {cursor: {row: 1, col: 16}}}
    - {type: mark, args: {label: edited}}
    - {type: capture, args: {output: out/edited.png}, options: {appearance: {theme: [dracula]}}}
    - {type: snapshot, args: {golden: golden/vim.svg}}
    - {type: send, inputs: [{text: ":wq"}, {keys: Enter}]}
    - {type: wait, args: {exit: true, timeout: 10s}}
  verify:
    - {type: command, command: "grep -qix 'hello from shotty' demo.txt"}
  teardown:
    - {type: command, command: "rm demo.txt && touch torn-down"}
"#;

#[test]
fn vim_edits_saves_and_the_file_is_checked() {
    if needs::program("vim").is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (out, summary) = run_scenario(dir.path(), "vim.scenario.yaml", VIM, &[], false);
    assert_eq!(out.status.code(), Some(0), "{summary:#}");
    assert_eq!(summary["status"], "ok");
    assert_eq!(summary["exitCode"], 0, "vim exited by itself with :wq");
    assert_eq!(
        statuses(&summary),
        [
            "command:passed",
            "launch:passed",
            "wait:passed",
            "send:passed",
            "wait:passed",
            "assert:passed",
            "assert:passed",
            "mark:passed",
            "capture:passed",
            "snapshot:new",
            "send:passed",
            "wait:passed",
            "exit:passed",
            "command:passed",
            "command:passed",
        ]
    );
    // Lines are the file's: the first step of execute is on line 14.
    assert_eq!(summary["steps"][2]["line"], 14);
    let work = dir.path().join("work");
    assert!(
        work.join("torn-down").exists(),
        "teardown ran in the working directory"
    );
    assert!(!work.join("demo.txt").exists());
    let png = std::fs::read(dir.path().join("out/edited.png")).expect("the capture");
    assert!(png.starts_with(b"\x89PNG"));
    let golden = std::fs::read(dir.path().join("golden/vim.svg")).expect("golden");
    let golden = shotty::diff::load_snapshot(&golden).expect("an SVG with its snapshot");
    assert!(
        golden.text().contains("hello from shotty"),
        "{}",
        golden.text()
    );

    // The second run compares against the golden it wrote, and passes.
    let (out, summary) = run_scenario(dir.path(), "vim.scenario.yaml", VIM, &[], false);
    assert_eq!(out.status.code(), Some(0), "{summary:#}");
    assert_eq!(statuses(&summary)[9], "snapshot:passed");
}

#[test]
fn a_changed_screen_fails_its_snapshot_with_the_actual_screen_and_a_diff() {
    if needs::program("vim").is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (out, _) = run_scenario(dir.path(), "vim.scenario.yaml", VIM, &[], false);
    assert_eq!(out.status.code(), Some(0));
    let changed = VIM.replace(
        "{text: \"ohello from shotty\"}",
        "{text: \"ohello from SHOTTY\"}",
    );
    assert_ne!(changed, VIM);
    let (out, summary) = run_scenario(dir.path(), "vim.scenario.yaml", &changed, &[], false);
    assert_eq!(out.status.code(), Some(1), "{summary:#}");
    assert_eq!(summary["status"], "failed");
    let s = statuses(&summary);
    assert_eq!(s[9], "snapshot:failed");
    // After a failure the remaining execute and verify steps are skipped; teardown runs.
    assert_eq!(
        &s[10..],
        [
            "send:skipped",
            "wait:skipped",
            "exit:skipped",
            "command:skipped",
            "command:passed"
        ]
    );
    let message = failed_message(&summary);
    assert!(message.contains("differs from golden/vim.svg"), "{message}");
    assert!(message.contains("hello from SHOTTY"), "{message}");
    for (file, kind) in [
        ("golden/vim.actual.svg", "capture"),
        ("golden/vim.diff.svg", "diff"),
    ] {
        assert!(dir.path().join(file).exists(), "{file}");
        assert!(
            summary["artifacts"]
                .as_array()
                .expect("artifacts")
                .iter()
                .any(|a| a["path"] == file && a["kind"] == kind),
            "{summary:#}"
        );
    }
    // The report: the failed step, the golden's screen and the screen it got.
    let md = std::fs::read_to_string(dir.path().join("shotty-report/vim/failure.md"))
        .expect("failure.md in the default report directory");
    assert!(
        md.contains("Step 9 (`snapshot`, execute phase, line 21)"),
        "{md}"
    );
    let expected = md
        .find("## Expected screen (the golden)")
        .expect("the golden's screen");
    let actual = md.find("## Screen when it failed").expect("the screen");
    assert!(md[expected..actual].contains("hello from shotty"), "{md}");
    assert!(md[actual..].contains("hello from SHOTTY"), "{md}");
    assert!(dir.path().join("shotty-report/vim/trace.html").is_file());
    let cast = std::fs::read_to_string(dir.path().join("shotty-report/vim/recording.cast"))
        .expect("the recording");
    assert!(
        cast.contains("\"m\", \"edited\""),
        "the mark step's marker: {cast}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("vim.scenario.yaml:21: step 9 (snapshot) failed"),
        "{stderr}"
    );

    // --update rewrites the golden, and the next run passes.
    let (out, summary) = run_scenario(
        dir.path(),
        "vim.scenario.yaml",
        &changed,
        &["--update"],
        false,
    );
    assert_eq!(out.status.code(), Some(0), "{summary:#}");
    assert_eq!(statuses(&summary)[9], "snapshot:updated");
    let (out, _) = run_scenario(dir.path(), "vim.scenario.yaml", &changed, &[], false);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn with_ci_set_a_missing_golden_fails_instead_of_being_written() {
    if needs::program("vim").is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (out, summary) = run_scenario(dir.path(), "vim.scenario.yaml", VIM, &[], true);
    assert_eq!(out.status.code(), Some(1), "{summary:#}");
    assert_eq!(statuses(&summary)[9], "snapshot:failed");
    assert!(failed_message(&summary).contains("CI is set"));
    assert!(!dir.path().join("golden/vim.svg").exists());
    assert!(dir.path().join("golden/vim.actual.svg").exists());
}

/// The REPL takes a pasted function; the exit code it is then given fails the run, as
/// console2svg fails a run whose program exits with one.
#[test]
fn python_takes_a_pasted_function_and_its_exit_code_counts() {
    if needs::program("python3").is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = r#"
$version: 1
scenario:
  launch: {executable: python3, args: [-q], env: {PYTHON_BASIC_REPL: "1"}}
  execute:
    - {type: wait, args: {regex: "^>>>$", timeout: 10s}}
    - {type: send, inputs: [{paste: "def square(n):\n    return n * n\n"}, {keys: Enter}]}
    - {type: wait, args: {regex: "^>>>$"}}
    - {type: send, inputs: [{text: "square(12)"}, {keys: Enter}]}
    - {type: wait, args: {text: "144"}}
    - {type: send, inputs: [{text: "raise SystemExit(3)"}, {keys: Enter}]}
    - {type: wait, args: {exit: true}}
"#;
    let (out, summary) = run_scenario(dir.path(), "py.scenario.yaml", yaml, &[], false);
    assert_eq!(out.status.code(), Some(1), "{summary:#}");
    assert_eq!(summary["exitCode"], 3, "the program's own exit code");
    assert_eq!(
        statuses(&summary).last().map(String::as_str),
        Some("exit:failed")
    );
    assert!(
        failed_message(&summary).contains("exited with code 3"),
        "{summary:#}"
    );
}

#[test]
fn a_wait_that_times_out_fails_the_run_and_teardown_still_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = r#"
$version: 1
scenario:
  working-dir: {path: .}
  launch: {executable: sh, args: [-c, "echo ready; sleep 30"]}
  execute:
    - {type: wait, args: {text: ready}}
    - {type: wait, args: {text: never, timeout: 300ms}}
    - {type: command, command: "touch after-the-failure"}
  verify: [{type: command, command: "touch verified"}]
  teardown: [{type: command, command: "touch torn-down"}]
"#;
    let (out, summary) = run_scenario(dir.path(), "t.scenario.yaml", yaml, &[], false);
    assert_eq!(out.status.code(), Some(1), "{summary:#}");
    assert_eq!(
        statuses(&summary),
        [
            "launch:passed",
            "wait:passed",
            "wait:failed",
            "command:skipped",
            "exit:skipped",
            "command:skipped",
            "command:passed"
        ]
    );
    let message = failed_message(&summary);
    assert!(
        message.contains("timed out") && message.contains("\"never\""),
        "{message}"
    );
    assert!(dir.path().join("torn-down").exists());
    assert!(!dir.path().join("after-the-failure").exists());
    assert!(!dir.path().join("verified").exists());
    // The program was stopped, not waited for: the run took well under its 30 s sleep.
    assert!(summary["durationMs"].as_u64().expect("duration") < 20_000);
    assert_eq!(summary["exitCode"], Value::Null, "stopped, not exited");
}

#[test]
fn a_failing_command_and_a_failing_verify_say_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = r#"
$version: 1
scenario:
  launch: {executable: sh, args: [-c, "echo hi"]}
  execute:
    - {type: wait, args: {exit: true}}
    - {type: command, command: "echo oops >&2; exit 7"}
"#;
    let (out, summary) = run_scenario(dir.path(), "c.scenario.yaml", yaml, &[], false);
    assert_eq!(out.status.code(), Some(1), "{summary:#}");
    let message = failed_message(&summary);
    assert!(
        message.contains("exit code 7") && message.contains("oops"),
        "{message}"
    );

    let yaml = r#"
$version: 1
scenario:
  launch: {executable: sh, args: [-c, "echo hi"]}
  verify: [{type: command, command: "test -f never-made"}, {type: assert, args: {text: hi}}]
"#;
    let (out, summary) = run_scenario(dir.path(), "v.scenario.yaml", yaml, &[], false);
    assert_eq!(out.status.code(), Some(1), "{summary:#}");
    assert_eq!(
        statuses(&summary),
        [
            "launch:passed",
            "exit:passed",
            "command:failed",
            "assert:skipped"
        ]
    );
    assert!(failed_message(&summary).contains("exit code 1"));
    // Each failure left its report, naming the step that failed.
    for (name, step) in [
        ("c", "Step 2 (`command`, execute phase, line 7)"),
        ("v", "Step 2 (`command`, verify phase, line 5)"),
    ] {
        let md =
            std::fs::read_to_string(dir.path().join(format!("shotty-report/{name}/failure.md")))
                .expect("failure.md");
        assert!(md.contains(step), "{md}");
        assert!(md.contains("exit code"), "{md}");
    }
}

/// Runs a scenario of a launch, a wait and four asserts of which only the last is to fail;
/// returns that failure's message.
fn three_asserts_pass_then_one_fails(dir: &Path, yaml: &str) -> String {
    let (out, summary) = run_scenario(dir, "a.scenario.yaml", yaml, &[], false);
    assert_eq!(out.status.code(), Some(1), "{summary:#}");
    assert_eq!(
        statuses(&summary),
        [
            "launch:passed",
            "wait:passed",
            "assert:passed",
            "assert:passed",
            "assert:passed",
            "assert:failed",
            "exit:skipped"
        ]
    );
    failed_message(&summary)
}

#[test]
fn an_assert_explains_what_is_on_the_screen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = r##"
$version: 1
scenario:
  launch: {executable: sh, args: [-c, "printf 'plain \\033[1;31mred\\033[0m \\033[94;48;2;1;2;3mblue\\033[0m\\n'; sleep 5"]}
  execute:
    - {type: wait, args: {text: blue}}
    - {type: assert, args: {text: red, style: {fg: 1, bold: true}}}
    - {type: assert, args: {text: red, style: {fg: red, bg: default}}}
    - {type: assert, args: {text: blue, style: {fg: bright-blue, bg: "#010203"}}}
    - {type: assert, args: {text: plain, style: {fg: red}, timeout: 200ms}}
"##;
    let message = three_asserts_pass_then_one_fails(dir.path(), yaml);
    assert!(
        message.contains("row 0, column 0") && message.contains("fg is default, not red"),
        "{message}"
    );
}

#[test]
fn an_assert_can_check_the_nth_or_last_occurrence() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The first "hi" is the echoed command line, as a shell shows it; the answer comes last.
    let yaml = r#"
$version: 1
scenario:
  launch: {executable: sh, args: [-c, "printf '$ echo hi\\nhi\\n\\033[32mhi\\033[0m\\n'; sleep 5"]}
  execute:
    - {type: wait, args: {regex: "^hi"}}
    - {type: assert, args: {text: hi, last: true, style: {fg: green}}}
    - {type: assert, args: {text: hi, nth: 2, style: {fg: default}}}
    - {type: assert, args: {text: hi, row: 0, col: 7}}
    - {type: assert, args: {text: hi, nth: 4, timeout: 200ms}}
"#;
    let message = three_asserts_pass_then_one_fails(dir.path(), yaml);
    assert!(
        message.contains("occurrence 4 of text \"hi\" (there are 3)"),
        "{message}"
    );
}

#[test]
fn a_bad_file_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        (
            "type: wiat",
            "unknown variant `wiat`, expected one of wait",
            6,
        ),
        ("type: wait, args: {txet: x}", "unknown field `txet`", 6),
        (
            "type: wait, args: {text: x, stableFor: 2q}",
            "unknown unit \"q\"",
            6,
        ),
        ("type: send, inputs: [{keys: Ctrl+Nope}]", "Ctrl+Nope", 6),
        ("type: wait, args: {regex: \"((\"}", "bad regex", 6),
        (
            "type: assert, args: {text: x, style: {fg: orange}}",
            "a name (black, red,",
            6,
        ),
        (
            "type: assert, args: {text: x, nth: 2, last: true}",
            "`nth` or `last`, not both",
            6,
        ),
        (
            "type: assert, args: {cursor: {row: 0, col: 0}, last: true}",
            "go with `text`",
            6,
        ),
        (
            "type: resize, args: {width: 0, height: 10}",
            "outside 1–500",
            6,
        ),
        (
            "type: wait, args: {text: x}, inputs: [{text: a}]",
            "takes `args`, not `inputs`",
            6,
        ),
        (
            "type: capture, args: {output: x.bmp}",
            "cannot tell the format",
            6,
        ),
        (
            "type: capture, args: {output: x.svg}, options: {appearance: {theme: nope}}",
            "unknown theme \"nope\"",
            6,
        ),
        (
            "type: snapshot, args: {golden: g.svg, text: x}",
            "args are `golden`, `timeout`, not `text`",
            6,
        ),
        (
            "type: wait, args: {command: {exitCode: yes}}",
            "whole number",
            6,
        ),
        (
            "type: wait, args: {command: true, text: x}",
            "takes only `timeout`",
            6,
        ),
    ];
    for (step, expected, line) in cases {
        let yaml = format!(
            "$version: 1\nscenario:\n  prepare: [{{type: command, command: \"touch ran\"}}]\n  launch: {{executable: sh, args: [-c, \"true\"]}}\n  execute:\n    - {{{step}}}\n"
        );
        let (out, summary) = run_scenario(dir.path(), "bad.scenario.yaml", &yaml, &[], false);
        assert_eq!(out.status.code(), Some(2), "{step}: {summary:#}");
        assert_eq!(summary["status"], "error");
        let error = summary["error"].as_str().expect("error");
        assert!(
            error.starts_with(&format!("bad.scenario.yaml:{line}: ")),
            "{step}: {error}"
        );
        assert!(error.contains(expected), "{step}: {error}");
        assert!(!dir.path().join("ran").exists(), "{step}: prepare ran");
    }
    for (yaml, expected) in [
        (
            "$version: 2\nscenario: {launch: {executable: sh}}\n",
            "bad.scenario.yaml:1: $version is 2",
        ),
        (
            "$version: 1\nscenario:\n  launch: {executable: sh}\n  lunch: 1\n",
            "bad.scenario.yaml:4: unknown field `lunch`",
        ),
        (
            "$version: 1\nscenario:\n  prepare: [{type: send, inputs: [{text: a}]}]\n  launch: {executable: sh}\n",
            "cannot be in prepare",
        ),
        (
            "$version: 1\nscenario:\n  launch: {executable: python3, shellIntegration: true}\n",
            "bad.scenario.yaml:3: `shellIntegration` works with bash, zsh and fish",
        ),
        ("[1, 2", "bad.scenario.yaml"),
        ("", "bad.scenario.yaml"),
    ] {
        let (out, summary) = run_scenario(dir.path(), "bad.scenario.yaml", yaml, &[], false);
        assert_eq!(out.status.code(), Some(2), "{yaml}: {summary:#}");
        let error = summary["error"].as_str().expect("error");
        assert!(error.contains(expected), "{yaml}: {error}");
    }
}

#[test]
fn json_and_kebab_or_camel_keys_read_the_same() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = r#"{
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
}"#;
    let (out, summary) = run_scenario(
        dir.path(),
        "s.scenario.json",
        json,
        &["--width", "40"],
        false,
    );
    assert_eq!(out.status.code(), Some(0), "{summary:#}");
    let yaml = "$version: 1\noptions: {exit-timeout: 5s}\nscenario:\n  working-dir: {temporary: true}\n  launch: {executable: sh, args: [-c, 'echo two; read x']}\n  execute:\n    - {type: wait, args: {text: two, stable-for: 100ms}}\n    - {type: send, inputs: [{raw-hex: '0d'}]}\n";
    let (out, summary) = run_scenario(dir.path(), "s.scenario.yaml", yaml, &[], false);
    assert_eq!(out.status.code(), Some(0), "{summary:#}");
}

/// SPEC §10's example, as console2svg documents the format, run unchanged but for its
/// working directory.
#[test]
fn the_specifications_example_runs() {
    if needs::program("vim").is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path().join("x");
    let yaml = format!(
        r#"$version: 1
options:
  terminal: {{width: 100, height: 24}}
  appearance: {{theme: [nord], window: macos}}     # the CLI's appearance option names
scenario:
  working-dir: {{path: {}}}                    # or {{temporary: true}}, the default
  prepare:  [{{type: command, command: "echo setup"}}]   # sh -c in the working dir, before launch
  launch:   {{executable: vim, args: [demo.txt], options: {{terminal: {{width: 100, height: 24}}}}}}
  execute:
    - {{type: wait, args: {{text: "~", until: present, stableFor: 1s, timeout: 10s}}}}  # or regex
    - {{type: send, inputs: [{{text: "ihello"}}, {{keys: Escape}}, {{paste: "…"}}, {{rawHex: "1B5B41"}}]}}
    - {{type: resize, args: {{width: 120, height: 30}}}}
    - {{type: capture, args: {{output: shot.svg}}, options: {{appearance: {{theme: [dracula]}}}}}}
    - {{type: command, command: "test -f demo.txt"}}  # a failing command fails the run
  verify:   [{{type: command, command: "grep hello demo.txt"}}]   # after the program ended
  teardown: [{{type: command, command: "rm -f demo.txt"}}]        # always runs
"#,
        work.display()
    );
    let (out, summary) = run_scenario(dir.path(), "spec.scenario.yaml", &yaml, &[], false);
    // vim has not written demo.txt (nothing saved it), so the execute command fails: the
    // example shows a failing command; everything before it passed.
    assert_eq!(out.status.code(), Some(1), "{summary:#}");
    assert_eq!(
        statuses(&summary),
        [
            "command:passed",
            "launch:passed",
            "wait:passed",
            "send:passed",
            "resize:passed",
            "capture:passed",
            "command:failed",
            "exit:skipped",
            "command:skipped",
            "command:passed",
        ]
    );
    let svg = std::fs::read_to_string(dir.path().join("shot.svg")).expect("capture");
    assert!(svg.contains("hello"));
}

/// `launch: {shellIntegration: true}` and `wait: {command: …}`: each command's exit code is
/// checked once the shell says it finished; a wrong one fails the step with the output.
#[test]
fn shell_commands_are_waited_for_with_their_exit_codes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = r#"$version: 1
scenario:
  launch: {executable: bash, shellIntegration: true, env: {PS1: "$ "}}
  execute:
    - {type: send, inputs: [{text: "sleep 1; ls no-such-file"}, {keys: Enter}]}
    - {type: wait, args: {command: {exitCode: 2}, timeout: 10s}}
    - {type: send, inputs: [{text: "echo fine"}, {keys: Enter}]}
    - {type: wait, args: {command: true}}
    - {type: send, inputs: [{text: "echo about to fail; false"}, {keys: Enter}]}
    - {type: wait, args: {command: {exitCode: 0}}}
"#;
    let (out, summary) = run_scenario(dir.path(), "shell.scenario.yaml", yaml, &[], false);
    assert_eq!(out.status.code(), Some(1), "{summary:#}");
    assert_eq!(
        statuses(&summary),
        [
            "launch:passed",
            "send:passed",
            "wait:passed",
            "send:passed",
            "wait:passed",
            "send:passed",
            "wait:failed",
            "exit:skipped"
        ],
        "{summary:#}"
    );
    let message = failed_message(&summary);
    assert!(
        message.contains("exited with 1, not 0") && message.contains("about to fail"),
        "{message}"
    );
}

/// console2svg runs verify "after application exits": a scenario whose last step is the `:wq`
/// that ends vim gets the file vim wrote, with no wait for the exit written (shotty used to
/// stop vim at once, which lost the write: "Caught deadly signal TERM").
#[test]
fn the_program_ends_by_itself_before_verify_runs() {
    if needs::program("vim").is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = r#"
$version: 1
scenario:
  working-dir: {path: .}
  prepare: [{type: command, command: "printf 'first\n' > notes.txt"}]
  launch: {executable: vim, args: [-u, NONE, -i, NONE, -N, -n, notes.txt]}
  execute:
    - {type: wait, args: {text: "notes.txt", timeout: 10s}}
    - {type: send, inputs: [{keys: G}, {text: "osecond"}, {keys: Escape}, {text: ":wq"}, {keys: Enter}]}
  verify: [{type: command, command: "grep -x second notes.txt"}]
"#;
    let (out, summary) = run_scenario(dir.path(), "wq.scenario.yaml", yaml, &[], false);
    assert_eq!(out.status.code(), Some(0), "{summary:#}");
    assert_eq!(
        statuses(&summary),
        [
            "command:passed",
            "launch:passed",
            "wait:passed",
            "send:passed",
            "exit:passed",
            "command:passed"
        ]
    );
    assert_eq!(summary["exitCode"], 0);
    let notes = std::fs::read_to_string(dir.path().join("notes.txt")).expect("notes");
    assert_eq!(notes, "first\nsecond\n");
}

/// The exit rule's failures: a non-zero status, a signal, and a program still running when
/// the exit timeout (`--exit-timeout`, else `options.exitTimeout`, else 10 s) runs out, which
/// is then stopped. A `stop` step ends the program as the scenario means to.
#[test]
fn a_program_that_fails_or_keeps_running_fails_the_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = |script: &str, extra: &str| {
        format!(
            "$version: 1\n{extra}scenario:\n  working-dir: {{path: .}}\n  launch: {{executable: sh, args: [-c, \"{script}\"]}}\n  execute:\n    - {{type: wait, args: {{text: ready}}}}\n"
        )
    };
    let exit_failure = |yaml: &str, extra: &[&str]| {
        let (out, summary) = run_scenario(dir.path(), "x.scenario.yaml", yaml, extra, false);
        assert_eq!(out.status.code(), Some(1), "{summary:#}");
        assert_eq!(
            statuses(&summary),
            ["launch:passed", "wait:passed", "exit:failed"],
            "{summary:#}"
        );
        (failed_message(&summary), summary)
    };

    let (message, summary) = exit_failure(&scenario("echo ready; exit 4", ""), &[]);
    assert!(message.contains("exited with code 4"), "{message}");
    assert_eq!(summary["exitCode"], 4);

    let (message, _) = exit_failure(&scenario("echo ready; kill -TERM $$", ""), &[]);
    assert!(message.contains("killed by SIGTERM"), "{message}");

    // Still running: stopped after the file's exit timeout, or the command line's.
    let running = "echo ready; echo $$ > pid; sleep 60";
    for (extra, args, limit) in [
        ("options: {exitTimeout: 400ms}\n", &[][..], "0.4 s"),
        (
            "options: {exitTimeout: 30s}\n",
            &["--exit-timeout", "300ms"][..],
            "0.3 s",
        ),
    ] {
        let started = std::time::Instant::now();
        let (message, summary) = exit_failure(&scenario(running, extra), args);
        assert!(
            message.contains(&format!(
                "still running {limit} after the last execute step"
            )) && message.contains("stopped"),
            "{message}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(8),
            "{summary:#}"
        );
        assert_eq!(summary["exitCode"], Value::Null);
        let pid = std::fs::read_to_string(dir.path().join("pid")).expect("pid");
        assert!(
            !Path::new(&format!("/proc/{}", pid.trim())).exists(),
            "the shell was stopped"
        );
    }

    // Without either, 10 s: a program ending in 2 s is waited for.
    let slow = scenario("echo ready; sleep 2", "");
    let (out, summary) = run_scenario(dir.path(), "x.scenario.yaml", &slow, &[], false);
    assert_eq!(out.status.code(), Some(0), "{summary:#}");

    let stopped = format!("{}    - {{type: stop}}\n", scenario(running, ""));
    let (out, summary) = run_scenario(dir.path(), "x.scenario.yaml", &stopped, &[], false);
    assert_eq!(out.status.code(), Some(0), "{summary:#}");
    assert_eq!(
        statuses(&summary),
        ["launch:passed", "wait:passed", "stop:passed", "exit:passed"]
    );
    assert!(summary["durationMs"].as_u64().expect("duration") < 5_000);
}

/// A `snapshot` or `assert` whose screen cannot change any more fails at once instead of
/// after its 5 s: the program has ended, or it waits for input with no timer running. A
/// program with a timer (a `sleep`, a `select` with a timeout) is given the time.
#[test]
fn a_check_that_cannot_pass_fails_at_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = |script: &str, check: &str| {
        let yaml = format!(
            "$version: 1\noptions: {{terminal: {{width: 30, height: 4}}}}\nscenario:\n  launch: {{executable: sh, args: [-c, \"{script}\"]}}\n  execute:\n    - {{type: wait, args: {{text: ready}}}}\n    - {check}\n    - {{type: send, inputs: [{{keys: Enter}}]}}\n"
        );
        let (_, summary) = run_scenario(dir.path(), "c.scenario.yaml", &yaml, &[], false);
        let step = summary["steps"][2].clone();
        (
            step["status"].as_str().unwrap_or("").to_owned(),
            step["durationMs"].as_u64().expect("duration"),
            summary,
        )
    };
    let golden = "{type: snapshot, args: {golden: g.json}}";
    let (status, _, summary) = run("echo ready; echo alpha; read x", golden);
    assert_eq!(status, "new", "{summary:#}");

    for (script, check) in [
        // The shell reads its input: nothing else will come.
        ("echo ready; echo bravo; read x", golden),
        ("echo ready; read x", "{type: assert, args: {text: never}}"),
        // Ended.
        ("echo ready", "{type: assert, args: {text: never}}"),
    ] {
        let (status, ms, summary) = run(script, check);
        assert_eq!(status, "failed", "{script}: {summary:#}");
        assert!(
            ms < 2_000,
            "{script}: failed after {ms} ms, not at once: {summary:#}"
        );
    }

    // A timer runs: the screen is given the time to come right.
    for script in [
        "echo ready; sleep 1.5; echo alpha; read x",
        "echo ready; python3 -c 'import select, sys; select.select([sys.stdin], [], [], 1.5)'; echo alpha; read x",
    ] {
        let check = "{type: assert, args: {text: alpha}}";
        let (status, ms, summary) = run(script, check);
        assert_eq!(status, "passed", "{script}: {summary:#}");
        assert!(ms >= 1_000, "{script}: {ms} ms");
    }
}
