//! A session's journal as a VHS tape (`shotty session export ID -o run.tape`): a shell
//! started as VHS starts it, the session's program typed into it (in its directory, with its
//! environment) unless the session was that shell, and the steps that drove it — text typed,
//! keys pressed, pastes, pauses, waits — as tape commands. What a tape cannot say (mouse,
//! resizes, keys VHS has no name for) is left as a comment where it happened.

use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use super::settings::{SHELLS, Settings};
use crate::session::protocol::JournalReply;
use crate::session::send::SendStep;
use crate::term::keys::{Key, parse_key};

/// The tape of a session's journal; its outputs are named after `out` (the tape's path).
pub fn tape(reply: &JournalReply, out: &Path) -> String {
    let stem = out.file_stem().map_or_else(
        || "session".into(),
        |s| super::output_stem(&s.to_string_lossy()),
    );
    let mut tape = String::new();
    let _ = writeln!(
        tape,
        "# Exported by shotty from session {}: the steps that drove it and succeeded.\n\
         # Run it with: shotty tape {}",
        reply.session_id.replace(['\n', '\r'], " "),
        out.display()
    );
    if reply.journal.dropped > 0 {
        let _ = writeln!(
            tape,
            "# The journal was full: the last {} steps are not here.",
            reply.journal.dropped
        );
    }
    let _ = writeln!(tape, "Output \"{stem}.gif\"\nOutput \"{stem}.ascii\"\n");
    let program = reply.command.first().map(String::as_str).unwrap_or("bash");
    let name = Path::new(program)
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let is_shell = reply.command.len() == 1 && SHELLS.iter().any(|s| s.name == name);
    let shell = if is_shell { name.as_str() } else { "bash" };
    let (width, height) = Settings::default().size_for(reply.width, reply.height);
    let _ = writeln!(
        tape,
        "Set Shell {shell}\nSet Width {width}\nSet Height {height}\n"
    );
    for (k, v) in &reply.env {
        match quoted(v) {
            Some(value) => {
                let _ = writeln!(tape, "Env {k} {value}");
            }
            None => {
                let _ = writeln!(tape, "# Env {k}: its value has every quote a tape has");
            }
        }
    }
    // The session's directory, and its program if it was not the shell, set up unseen.
    let mut setup = format!("cd {}", shell_quote(&reply.cwd));
    if !is_shell {
        let words: Vec<String> = reply.command.iter().map(|w| shell_quote(w)).collect();
        let _ = write!(setup, " && clear && exec {}", words.join(" "));
    } else {
        setup.push_str(" && clear");
    }
    tape.push_str("Hide\n");
    type_commands(&mut tape, &setup);
    tape.push_str("Enter\nSleep 500ms\nShow\n\n");
    for step in &reply.journal.steps {
        write_step(&mut tape, step);
    }
    tape
}

/// One journal step as tape commands.
fn write_step(tape: &mut String, step: &Value) {
    match step["type"].as_str() {
        Some("send") => {
            let inputs: Vec<SendStep> =
                serde_json::from_value(step["inputs"].clone()).unwrap_or_default();
            for input in &inputs {
                write_input(tape, input);
            }
        }
        Some("wait") => write_wait(tape, &step["args"]),
        Some("resize") => {
            let _ = writeln!(
                tape,
                "# The session was resized to {}×{} here (a tape cannot resize).",
                step["args"]["width"], step["args"]["height"]
            );
        }
        Some("mark") => {
            let label = step["args"]["label"].as_str().unwrap_or_default();
            let _ = writeln!(tape, "# mark: {}", one_line(label));
        }
        _ => {
            let _ = writeln!(
                tape,
                "# not expressible in a tape: {}",
                one_line(&step.to_string())
            );
        }
    }
}

fn write_input(tape: &mut String, input: &SendStep) {
    match input {
        SendStep::Text(text) => write_text(tape, text),
        SendStep::Keys(name) => match tape_key(name) {
            Some(command) => {
                let _ = writeln!(tape, "{command}");
            }
            None => {
                let _ = writeln!(tape, "# key {} (no tape command sends it)", one_line(name));
            }
        },
        SendStep::Paste(text) => match quoted(text) {
            Some(text) => {
                let _ = writeln!(tape, "Copy {text}\nPaste");
            }
            None => write_text(tape, text),
        },
        SendStep::Delay(ms) => {
            let _ = writeln!(tape, "Sleep {ms}ms");
        }
        SendStep::RawHex(hex) => {
            let _ = writeln!(
                tape,
                "# raw bytes {} (a tape types text and keys)",
                one_line(hex)
            );
        }
        SendStep::KeyRelease(name) | SendStep::KeyRepeat(name) => {
            let _ = writeln!(tape, "# key event {} (a tape presses keys)", one_line(name));
        }
        SendStep::Mouse(_) => {
            let _ = writeln!(tape, "# a mouse step (a tape has no mouse)");
        }
    }
}

/// Text as `Type` commands: each line's text typed, `Enter` for a carriage return or line
/// feed, `Tab` for a tab, other control characters as their Ctrl key.
fn write_text(tape: &mut String, text: &str) {
    let mut run = String::new();
    let flush = |tape: &mut String, run: &mut String| {
        type_commands(tape, run);
        run.clear();
    };
    for c in text.chars() {
        let key = match c {
            '\r' | '\n' => Some("Enter".to_owned()),
            '\t' => Some("Tab".to_owned()),
            '\u{1b}' => Some("Escape".to_owned()),
            '\u{7f}' => Some("Backspace".to_owned()),
            // The character Ctrl makes the control code of: `@`, a letter, `\ ] ^ _`.
            c if (c as u32) < 0x20 => {
                let key = char::from_u32(c as u32 + 0x40).unwrap_or('@');
                Some(format!("Ctrl+{}", key.to_ascii_lowercase()))
            }
            _ => None,
        };
        match key {
            Some(key) => {
                flush(tape, &mut run);
                let _ = writeln!(tape, "{key}");
            }
            None => run.push(c),
        }
    }
    flush(tape, &mut run);
}

/// A key name as the tape command that presses it, if a tape can.
fn tape_key(name: &str) -> Option<String> {
    let combo = parse_key(name).ok()?;
    let mods = combo.modifiers();
    let key = match combo.key() {
        Key::F(_) | Key::Keypad(_) => return None,
        Key::Char(c) if !mods.ctrl && !mods.alt && !mods.shift => {
            return quoted(&c.to_string()).map(|q| format!("Type {q}"));
        }
        key => key.name(),
    };
    if mods.meta {
        return None;
    }
    let mut parts = Vec::new();
    if mods.ctrl {
        parts.push("Ctrl");
    }
    if mods.alt {
        parts.push("Alt");
    }
    if mods.shift {
        parts.push("Shift");
    }
    if parts.is_empty() {
        return Some(key);
    }
    // VHS takes Alt and Shift alone only before one key; Ctrl leads a chord of them.
    if !mods.ctrl && parts.len() > 1 {
        return None;
    }
    Some(format!("{}+{key}", parts.join("+")))
}

/// A wait step as `Wait+Screen` (text or pattern), or `Sleep` for an idle wait.
fn write_wait(tape: &mut String, args: &Value) {
    let timeout = args["timeout"]
        .as_str()
        .map(|t| format!("@{t}"))
        .unwrap_or_default();
    let pattern = match (args["text"].as_str(), args["regex"].as_str()) {
        (Some(text), _) => Some(regex::escape(text)),
        // A session's pattern anchors `^` and `$` at each line; a tape's, at the screen's
        // ends unless it says otherwise.
        (None, Some(regex)) => Some(format!("(?m){regex}")),
        _ => None,
    };
    // A tape waits only for a pattern to appear.
    let appear = args.get("until").is_none_or(|until| until == "present");
    if let Some(pattern) = pattern.filter(|_| appear) {
        let delimited = pattern.replace('/', "\\/");
        if !delimited.contains(['\n', '\r']) {
            let _ = writeln!(tape, "Wait+Screen{timeout} /{delimited}/");
            return;
        }
    }
    if let Some(idle) = args["idle"].as_str() {
        let _ = writeln!(tape, "Sleep {idle}");
        return;
    }
    let _ = writeln!(
        tape,
        "# wait {} (a tape waits for a pattern)",
        one_line(&args.to_string())
    );
}

/// `text` as a tape string, in the first of `"`, `'`, `` ` `` it does not contain; `None`
/// when it has all three (a tape string cannot hold that).
fn quoted(text: &str) -> Option<String> {
    ['"', '\'', '`']
        .into_iter()
        .find(|q| !text.contains(*q))
        .map(|q| format!("{q}{text}{q}"))
}

/// `Type` commands for `text` (one line of it): as few as its quotes allow.
fn type_commands(tape: &mut String, text: &str) {
    let mut piece = String::new();
    for c in text.chars() {
        piece.push(c);
        if quoted(&piece).is_none() {
            piece.pop();
            let _ = writeln!(tape, "Type {}", quoted(&piece).unwrap_or_default());
            piece.clear();
            piece.push(c);
        }
    }
    if !piece.is_empty() {
        let _ = writeln!(tape, "Type {}", quoted(&piece).unwrap_or_default());
    }
}

/// A shell word for `text` (single-quoted unless it is plain).
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// `text` on one line, for a comment.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::journal::Journal;
    use crate::session::wait::{Target, Until, WaitCondition};

    fn reply(command: &[&str], journal: Journal) -> JournalReply {
        JournalReply {
            session_id: "s_1".into(),
            command: command.iter().map(|s| (*s).to_owned()).collect(),
            cwd: "/tmp/a dir".into(),
            env: vec![("LANG".into(), "C.UTF-8".into())],
            width: 80,
            height: 24,
            journal,
            state: None,
        }
    }

    #[test]
    fn a_journal_becomes_tape_commands_that_parse() {
        let mut journal = Journal::default();
        journal.send(&[
            SendStep::Text("say \"it's `x`\"\r\tend\u{3}\u{1c}".into()),
            SendStep::Keys("Ctrl+C".into()),
            SendStep::Keys("F1".into()),
            SendStep::Keys("Shift+Tab".into()),
            SendStep::Keys("Alt+x".into()),
            SendStep::Paste("pasted".into()),
            SendStep::Delay(250),
        ]);
        let wait = WaitCondition {
            target: Target::Text("a/b".into()),
            until: Until::Present,
            stable_for: None,
            timeout: Some(std::time::Duration::from_secs(5)),
            fresh: false,
        };
        journal.wait(wait.to_step().expect("a step"));
        let regex = WaitCondition {
            target: WaitCondition::regex("^done$").expect("a pattern"),
            ..wait
        };
        journal.wait(regex.to_step().expect("a step"));
        journal.resize(100, 30);
        journal.mark("here");
        let tape = tape(
            &reply(&["vim", "notes.txt"], journal),
            Path::new("out/run.tape"),
        );
        let body: Vec<&str> = tape.lines().skip_while(|l| *l != "Show").skip(2).collect();
        assert_eq!(
            body,
            [
                "Type `say \"it's `",
                "Type '`x`\"'",
                "Enter",
                "Tab",
                "Type \"end\"",
                "Ctrl+c",
                "Ctrl+\\",
                // The key encoder's name of Ctrl+C.
                "Ctrl+c",
                "# key F1 (no tape command sends it)",
                "Shift+Tab",
                "Alt+x",
                "Copy \"pasted\"",
                "Paste",
                "Sleep 250ms",
                "Wait+Screen@5000ms /a\\/b/",
                "Wait+Screen@5000ms /(?m)^done$/",
                "# The session was resized to 100×30 here (a tape cannot resize).",
                "# mark: here",
            ],
            "{tape}"
        );
        assert!(
            tape.contains("Type \"cd '/tmp/a dir' && clear && exec vim notes.txt\""),
            "{tape}"
        );
        assert!(tape.contains("Output \"run.gif\"") && tape.contains("Env LANG \"C.UTF-8\""));
        let parsed = super::super::parser::parse_str(Path::new("run.tape"), &tape);
        assert!(parsed.is_ok(), "{parsed:?}\n{tape}");
    }

    #[test]
    fn a_vhs_shell_is_the_tapes_shell() {
        let tape = tape(&reply(&["zsh"], Journal::default()), Path::new("z.tape"));
        assert!(
            tape.contains("Set Shell zsh") && !tape.contains("exec"),
            "{tape}"
        );
    }
}
