//! A session's journal as a scenario file (`shotty session export ID -o run.yaml`): the
//! program it started, in the directory and at the size it started with, and the steps that
//! drove it and succeeded, so `shotty scenario run` replays the session.
//!
//! The file is YAML whose values are written as JSON (YAML's flow style): exact for any
//! string, and still a file a person can read and edit.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::session::State;
use crate::session::protocol::JournalReply;

/// The wait written after a send that the session did not follow with a wait of its own:
/// an agent read the screen before its next step, a replay gives the program the same
/// chance to react.
const SETTLE: &str = "{\"type\": \"wait\", \"args\": {\"idle\": \"200ms\", \"timeout\": \"10s\"}}";

/// The wait written at the end when the program ended by itself and the session did not wait
/// for that (or its wait matched after the journal was kept).
const EXITED: &str = "{\"type\": \"wait\", \"args\": {\"exit\": true}}";
/// The step written at the end when the session was stopped, or still ran: a replay ends the
/// program the same way rather than failing on the wait for it to exit.
const STOP: &str = "{\"type\": \"stop\"}";

/// `value` as one line of JSON, which YAML reads as the same value.
fn flow(value: &Value) -> String {
    // Serialising a `Value` cannot fail: its map keys are strings.
    serde_json::to_string(value).unwrap_or_default()
}

/// The scenario file of a session's journal.
pub fn document(reply: &JournalReply) -> String {
    let mut yaml = String::new();
    let _ = writeln!(
        yaml,
        "# Exported by shotty from session {}: the steps that drove it and succeeded.\n\
         # Replay it with: shotty scenario run THIS_FILE",
        reply.session_id.replace(['\n', '\r'], " ")
    );
    if reply.journal.dropped > 0 {
        let _ = writeln!(
            yaml,
            "# The journal was full: the last {} steps are not here.",
            reply.journal.dropped
        );
    }
    yaml.push_str("$version: 1\noptions:\n");
    let _ = writeln!(
        yaml,
        "  terminal: {}",
        flow(&json!({"width": reply.width, "height": reply.height}))
    );
    yaml.push_str("scenario:\n");
    let _ = writeln!(yaml, "  working-dir: {}", flow(&json!({"path": reply.cwd})));
    let (executable, args) = reply
        .command
        .split_first()
        .map_or(("", &[][..]), |(e, a)| (e.as_str(), a));
    let mut launch = json!({"executable": executable, "args": args});
    if !reply.env.is_empty() {
        let env: serde_json::Map<String, Value> = reply
            .env
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect();
        launch["env"] = Value::Object(env);
    }
    let _ = writeln!(yaml, "  launch: {}", flow(&launch));
    yaml.push_str("  execute:\n");
    let steps = &reply.journal.steps;
    // The program ended by itself: the input that ended it is the last step, and no wait for
    // the screen may follow it (the replay waits for the program to exit instead).
    let exited = reply.state == Some(State::Exited);
    for (i, step) in steps.iter().enumerate() {
        let _ = writeln!(yaml, "    - {}", flow(step));
        let is_send = step["type"] == "send";
        let next = steps.get(i + 1);
        let waits_next = next.is_some_and(|s| s["type"] == "wait");
        if is_send && !waits_next && !(exited && next.is_none()) {
            let _ = writeln!(yaml, "    - {SETTLE}  # added: let the program react");
        }
    }
    match reply.state {
        Some(State::Exited) => {
            let waited = steps
                .last()
                .is_some_and(|s| s["type"] == "wait" && s["args"]["exit"] == true);
            if !waited {
                let _ = writeln!(yaml, "    - {EXITED}  # added: the program ended here");
            }
        }
        Some(State::Stopped) => {
            let _ = writeln!(yaml, "    - {STOP}  # the session was stopped here");
        }
        _ => {
            let _ = writeln!(
                yaml,
                "    - {STOP}  # added: the session was still running when exported"
            );
        }
    }
    yaml
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::scenario::document::{Action, Phase, parse};
    use crate::session::journal::Journal;
    use crate::session::send::SendStep;
    use crate::session::wait::{Target, Until, WaitCondition};

    #[test]
    fn a_journal_becomes_a_scenario_that_reads_back_step_for_step() {
        let mut journal = Journal::default();
        let wait = WaitCondition {
            target: Target::Text("~".into()),
            until: Until::Present,
            stable_for: Some(std::time::Duration::from_millis(100)),
            timeout: None,
            fresh: false,
        };
        journal.wait(wait.to_step().unwrap());
        journal.send(&[
            SendStep::Text("ihello \"quoted\"\n: yaml? # not a comment".into()),
            SendStep::Keys("Escape".into()),
            SendStep::RawHex("1b5b41".into()),
            SendStep::Paste("pasted".into()),
        ]);
        journal.resize(90, 20);
        journal.mark("done: ✓");
        journal.send(&[SendStep::Keys("Ctrl+C".into())]);
        let reply = JournalReply {
            session_id: "s_1".into(),
            command: vec!["vim".into(), "-u".into(), "NONE".into()],
            cwd: "/tmp/some dir".into(),
            env: vec![("LANG".into(), "C.UTF-8".into())],
            width: 80,
            height: 24,
            journal,
            state: Some(State::Running),
        };
        let yaml = document(&reply);
        let loaded = parse(&yaml, Path::new("x.yaml"), Path::new("")).expect(&yaml);
        let launch = &loaded.document.scenario.value.launch.value;
        assert_eq!(launch.executable, "vim");
        assert_eq!(launch.args, ["-u", "NONE"]);
        assert_eq!(launch.env.get("LANG").map(String::as_str), Some("C.UTF-8"));
        let execute = &loaded
            .phases
            .iter()
            .find(|(p, _)| *p == Phase::Execute)
            .expect("execute")
            .1;
        let kinds: Vec<&str> = execute.iter().map(|s| s.kind.name()).collect();
        // A settling wait after each send that no wait followed, and a stop for the program
        // still running.
        assert_eq!(
            kinds,
            [
                "wait", "send", "wait", "resize", "mark", "send", "wait", "stop"
            ]
        );
        match &execute[1].action {
            Action::Send(steps) => match &steps[0] {
                SendStep::Text(t) => assert_eq!(t, "ihello \"quoted\"\n: yaml? # not a comment"),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
        match &execute[4].action {
            Action::Mark(label) => assert_eq!(label, "done: ✓"),
            other => panic!("{other:?}"),
        }
    }

    /// How the session ended decides how the replay ends: a program that exited after the
    /// last send gets no wait for the screen after it (it would fail on the ended program) but
    /// a wait for the exit, kept if the session waited for it itself; a stopped one a stop.
    #[test]
    fn the_export_ends_the_way_the_session_ended() {
        let kinds_of = |sends: usize, waited: bool, state: Option<State>| {
            let mut journal = Journal::default();
            for _ in 0..sends {
                journal.send(&[SendStep::Text("exit\r".into())]);
            }
            if waited {
                let exit = WaitCondition {
                    target: Target::Exit,
                    until: Until::Present,
                    stable_for: None,
                    timeout: Some(std::time::Duration::from_secs(5)),
                    fresh: false,
                };
                journal.wait(exit.to_step().expect("a step"));
            }
            let reply = JournalReply {
                session_id: "s_1".into(),
                command: vec!["bash".into()],
                cwd: "/tmp".into(),
                env: Vec::new(),
                width: 80,
                height: 24,
                journal,
                state,
            };
            let yaml = document(&reply);
            let loaded = parse(&yaml, Path::new("x.yaml"), Path::new("")).expect(&yaml);
            let execute = &loaded.phases[1].1;
            let kinds: Vec<String> = execute
                .iter()
                .map(|s| match &s.action {
                    Action::Wait(c) => format!("wait {:?}", c.target)
                        .split(['(', ' '])
                        .take(2)
                        .collect::<Vec<_>>()
                        .join(" "),
                    _ => s.kind.name().to_owned(),
                })
                .collect();
            kinds
        };
        let exited = Some(State::Exited);
        assert_eq!(kinds_of(1, false, exited), ["send", "wait Exit"]);
        assert_eq!(kinds_of(1, true, exited), ["send", "wait Exit"]);
        assert_eq!(kinds_of(0, false, exited), ["wait Exit"]);
        assert_eq!(
            kinds_of(2, false, exited),
            ["send", "wait Idle", "send", "wait Exit"]
        );
        assert_eq!(
            kinds_of(1, false, Some(State::Stopped)),
            ["send", "wait Idle", "stop"]
        );
        assert_eq!(kinds_of(1, false, None), ["send", "wait Idle", "stop"]);
    }
}
