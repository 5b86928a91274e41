use serde_json::{Value, json};

use super::params::parse_actions;
use super::results::{Outcome, response_line, screen_text};
use super::*;

#[test]
fn commands_split_like_a_shell_without_one() {
    assert_eq!(split_command("bash -l").unwrap(), ["bash", "-l"]);
    assert_eq!(split_command("python3 -q").unwrap(), ["python3", "-q"]);
    assert_eq!(
        split_command(r#"sh -c 'echo "a b"; exit 3'"#).unwrap(),
        ["sh", "-c", r#"echo "a b"; exit 3"#]
    );
    assert_eq!(
        split_command(r#"printf "%s\n" it\'s $HOME"#).unwrap(),
        ["printf", "%s\\n", "it's", "$HOME"]
    );
    assert!(split_command("   ").is_err());
    assert!(split_command("echo 'open").is_err());
}

#[test]
fn screen_text_ends_at_the_last_written_row() {
    assert_eq!(screen_text("root@host:~$\n\n\n"), "root@host:~$\n");
    assert_eq!(screen_text("\na\n\nb\n\n"), "\na\n\nb\n");
    assert_eq!(screen_text("a"), "a\n");
    assert_eq!(screen_text("\n\n"), "");
    assert_eq!(screen_text(""), "");
}

#[test]
fn actions() {
    let actions = |v: Value| parse_actions(v.as_object().unwrap().clone());
    assert_eq!(actions(json!({"action": {"text": "ls"}})).unwrap().len(), 1);
    assert_eq!(
        actions(json!({"action": [{"text": "ls"}, {"key": "Enter"}]}))
            .unwrap()
            .len(),
        2
    );
    for bad in [
        json!({}),
        json!({"action": {}}),
        json!({"action": []}),
        json!({"action": "ls"}),
        json!({"action": ["ls"]}),
        json!({"action": {"text": "x", "key": "Enter"}}),
        json!({"action": {"text": 1}}),
        json!({"action": {"key": "Nope"}}),
        json!({"action": {"paste": "x"}}),
        json!({"action": {"text": "x"}, "extra": 1}),
    ] {
        let e = actions(bad.clone()).err().unwrap();
        assert_eq!(e.code, code::INVALID_PARAMS, "{bad}");
    }
    let e = actions(json!({"action": {"key": "Nope"}})).err().unwrap();
    assert!(e.message.contains("Nope"), "{}", e.message);
}

#[test]
fn responses_keep_the_documented_field_order() {
    let line = response_line(
        &json!(1),
        Ok(Outcome::Status(StatusResult {
            running: true,
            exit_code: None,
            pid: 1234,
        })),
    );
    assert_eq!(
        String::from_utf8(line).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"result\":{\"running\":true,\"exitCode\":null,\"pid\":1234},\"id\":1}\n"
    );
    let line = response_line(
        &json!(13),
        Err(RpcError::new(
            code::METHOD_NOT_FOUND,
            "Method not found: pty/unknown",
        )),
    );
    assert_eq!(
        String::from_utf8(line).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32601,\"message\":\"Method not found: pty/unknown\"},\"id\":13}\n"
    );
}
