//! `shotty::testing` as a test uses it: real programs (vim, bash) pinned against the goldens in
//! `golden/testing/`, a differing and a missing golden (in temporary directories), and no
//! process left behind by a dropped or panicking test.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use shotty::testing::Tui;

use crate::procs;

/// The message of a caught panic.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => payload
            .downcast::<&str>()
            .map(|s| (*s).to_owned())
            .unwrap_or_else(|_| "(not a string)".to_owned()),
    }
}

/// With `UPDATE_GOLDEN` set every golden is rewritten and every assert passes, so the tests of
/// failing asserts have nothing to check.
fn updating() -> bool {
    if shotty::golden::update_requested() {
        eprintln!("UPDATE_GOLDEN is set: failing asserts are not checked");
        return true;
    }
    false
}

fn bash() -> Tui {
    Tui::new(["bash", "--norc", "--noprofile"])
        .env("PS1", "$ ")
        .env("HISTFILE", "/dev/null")
        .size(50, 5)
        .start()
}

#[test]
fn vim_inserts_text() {
    if crate::needs::program("vim").is_none() {
        return;
    }
    let mut vim = Tui::new(["vim", "-u", "NONE", "-i", "NONE", "-N", "-n"])
        .size(60, 10)
        .start();
    vim.wait_for_text("~");
    vim.keys("i").text("hello").keys("Escape");
    vim.wait_until_gone("-- INSERT --");
    vim.assert_screen("golden/testing/vim-hello.svg");
    vim.text(":q!").keys("Enter");
    assert_eq!(vim.wait_for_exit(), Some(0));
}

#[test]
fn bash_runs_commands_resizes_and_exits_with_a_status() {
    let mut sh = bash();
    sh.wait_for_text("$ ");
    sh.text(r"printf '\e[1;32mok\e[0m %s\n' $((6 * 7))")
        .keys("Enter");
    sh.wait_for_regex(r"^ok 42\n\$");
    // The JSON golden pins the cells' styles too: "ok" bold and green.
    sh.assert_screen("golden/testing/bash-printf.json");
    let screen = sh.screen();
    let ok = &screen.rows[1].cells[0];
    let style = &screen.styles[ok.s as usize];
    assert!(style.bold, "{style:?}");
    sh.resize(40, 6).text("stty size").keys("Enter");
    sh.wait_for_text("6 40");
    assert!(sh.screen_text().contains("$ stty size\n6 40\n$"));
    sh.text("exit 3").keys("Enter");
    assert_eq!(sh.wait_for_exit(), Some(3));
}

#[test]
fn a_differing_screen_fails_with_the_cell_report_and_the_pictures() {
    if updating() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let golden = dir.path().join("greeting.svg");
    // The golden: the same program, as it would have looked saying something else.
    let mut expected = shotty::Terminal::new(30, 3);
    expected.advance(b"hello there\r\n");
    let svg = shotty::to_svg(&expected.snapshot(), &shotty::Appearance::default()).expect("an SVG");
    std::fs::write(&golden, &svg).expect("golden written");

    let mut greeter = Tui::new(["sh", "-c", "echo hello world; exec cat"])
        .size(30, 3)
        .timeout(Duration::from_millis(500))
        .start();
    greeter.wait_for_text("hello world");
    let failed = catch_unwind(AssertUnwindSafe(|| {
        greeter.assert_screen(&golden);
    }));
    let message = panic_message(failed.expect_err("a differing screen fails"));
    for part in [
        "`sh -c echo hello world; exec cat`: the screen differs from",
        "greeting.svg in 5 cell(s):",
        "5 cell(s) differ in 1 row(s):",
        "row 0:\n  - hello there\n  + hello world\n",
        r#"col 6: expected "t", actual "w""#,
        "greeting.actual.svg, the differing cells marked in",
        "greeting.diff.svg",
        "UPDATE_GOLDEN=1",
    ] {
        assert!(message.contains(part), "{part:?} is not in:\n{message}");
    }
    // The screen as it was, and the same screen with the five cells marked.
    let actual = std::fs::read(dir.path().join("greeting.actual.svg")).expect("actual.svg");
    let actual = shotty::diff::load_snapshot(&actual).expect("a snapshot in actual.svg");
    assert!(
        actual.text().starts_with("hello world\n"),
        "{}",
        actual.text()
    );
    let marked = std::fs::read_to_string(dir.path().join("greeting.diff.svg")).expect("diff.svg");
    let marks = marked
        .split("<g fill=\"#ff2d55\"")
        .nth(1)
        .expect("the marks");
    let marks = &marks[..marks.find("</g>").expect("the marks' end")];
    assert_eq!(marks.matches("<rect").count(), 5, "{marks}");
    // A failed assert leaves the golden as it was.
    assert_eq!(std::fs::read_to_string(&golden).expect("golden"), svg);
}

#[test]
fn a_missing_golden_is_written_and_fails_until_it_is_there() {
    if updating() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let golden = dir.path().join("nested/prompt.json");
    let mut sh = bash();
    sh.wait_for_text("$ ");
    let failed = catch_unwind(AssertUnwindSafe(|| {
        sh.assert_screen(&golden);
    }));
    let message = panic_message(failed.expect_err("a missing golden fails"));
    assert!(
        message.contains("there was no golden") && message.contains("Review it"),
        "{message}"
    );
    let written = std::fs::read(&golden).expect("the golden was written");
    let written = shotty::diff::load_snapshot(&written).expect("a JSON snapshot");
    assert_eq!(written.text().lines().next(), Some("$"));
    // Now it is there, the same screen passes.
    sh.assert_screen(&golden);
}

#[test]
fn no_process_outlives_a_dropped_or_panicking_tui() {
    let start = || {
        let mut tui = Tui::new(["sh", "-c", "sleep 1000 & sleep 1001 & echo started; wait"])
            .size(20, 3)
            .timeout(Duration::from_millis(300))
            .start();
        tui.wait_for_text("started");
        let leader = tui.session().pid();
        let tree: Vec<procs::Seen> = procs::all()
            .into_iter()
            .filter(|p| p.session == leader && p.is_live())
            .map(|p| procs::Seen::now(p.pid))
            .collect();
        // sh and its two sleeps.
        assert_eq!(tree.len(), 3, "{tree:?}");
        (tui, tree)
    };
    let (tui, tree) = start();
    drop(tui);
    procs::assert_all_gone(&tree);

    let mut seen = Vec::new();
    let failed = catch_unwind(AssertUnwindSafe(|| {
        let (mut tui, tree) = start();
        seen = tree;
        tui.wait_for_text("never");
    }));
    assert!(failed.is_err(), "the wait fails");
    procs::assert_all_gone(&seen);
}
