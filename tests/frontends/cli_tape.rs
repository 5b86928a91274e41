//! `shotty tape` through the real binary with real shells: VHS's own text goldens reproduced
//! byte for byte, every output kind from one run (read back by Pillow and asciinema), the
//! tape's clock (hidden steps, scripted length), waits, keys, the clipboard, `Env`, `Source`,
//! themes and window bars in the pixels, and tapes refused before anything runs with their
//! `FILE:LINE`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::{asciinema, needs};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/vhs");

/// Writes `tape` to `dir/name` and runs `shotty tape` on it in `dir` (its own HOME).
fn run_tape(dir: &Path, name: &str, tape: &str) -> Output {
    std::fs::write(dir.join(name), tape).expect("tape written");
    Command::new(env!("CARGO_BIN_EXE_shotty"))
        .arg("tape")
        .arg(name)
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .expect("shotty runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_ran(out: &Output) {
    assert!(
        out.status.success(),
        "the tape failed ({:?}): {}",
        out.status.code(),
        stderr(out)
    );
}

/// The screens of a text output (VHS's format: rows, then a rule of 80 `─`).
fn screens(text: &str) -> Vec<Vec<String>> {
    let rule = "─".repeat(80);
    let mut screens = vec![Vec::new()];
    for line in text.lines() {
        if line == rule {
            screens.push(Vec::new());
        } else if let Some(screen) = screens.last_mut() {
            screen.push(line.to_owned());
        }
    }
    screens.pop();
    screens
}

#[test]
fn vhs_shell_goldens_are_reproduced_byte_for_byte() {
    for shell in ["bash", "zsh", "fish"] {
        if needs::program(shell).is_none() {
            continue;
        }
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        std::fs::create_dir(dir.join("shell")).expect("dir");
        let tape = format!("{FIXTURES}/shell/{shell}.tape");
        std::fs::copy(&tape, dir.join(format!("shell/{shell}.tape"))).expect("copy");
        // VHS's padding when it wrote these goldens (see tests/fixtures/vhs/README.md).
        let wrapper = format!("Output out.ascii\nSet Padding 72\nSource shell/{shell}.tape\n");
        let out = run_tape(dir, "wrapper.tape", &wrapper);
        assert_ran(&out);
        let ours = std::fs::read_to_string(dir.join("out.ascii")).expect("the text output");
        let vhs =
            std::fs::read_to_string(format!("{FIXTURES}/shell/{shell}.ascii")).expect("golden");
        assert_eq!(
            ours, vhs,
            "{shell}: shotty's text output differs from VHS's"
        );
    }
}

/// Reads a GIF or APNG with Pillow: its size and frame durations (ms).
fn pillow(python: &Path, file: &Path) -> ((u64, u64), Vec<f64>) {
    let script = "import json,sys\nfrom PIL import Image\nim=Image.open(sys.argv[1])\nd=[]\n\
                  for i in range(im.n_frames):\n    im.seek(i)\n    d.append(im.info.get('duration'))\n\
                  print(json.dumps({'size': list(im.size), 'durations': d}))\n";
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(file)
        .output()
        .expect("python runs");
    assert!(out.status.success(), "Pillow: {}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let size = (
        json["size"][0].as_u64().expect("width"),
        json["size"][1].as_u64().expect("height"),
    );
    let durations = json["durations"]
        .as_array()
        .expect("durations")
        .iter()
        .map(|d| d.as_f64().expect("a duration"))
        .collect();
    (size, durations)
}

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).expect("a PNG");
    assert!(bytes.starts_with(b"\x89PNG"), "{} is a PNG", path.display());
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    (word(16), word(20))
}

#[test]
fn every_output_kind_is_written_from_one_run_and_lasts_the_scripted_time() {
    let Some(python) = needs::python("PIL") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let tape = "\
Output out.gif
Output out.apng
Output out.svg
Output out.png
Output out.cast
Output out.txt
Output frames/
Set Width 800
Set Height 400
Set Framerate 25

Type \"echo hi there\"
Enter
Sleep 1s
";
    let out = run_tape(dir, "all.tape", tape);
    assert_ran(&out);
    // 13 characters and Enter at 50 ms each, and the second: 1.7 s, on a 40 ms frame grid.
    let scripted = 1700.0;
    for name in ["out.gif", "out.apng"] {
        let (size, durations) = pillow(&python, &dir.join(name));
        assert_eq!(size, (800, 400), "{name}");
        let total: f64 = durations.iter().sum();
        assert!(
            (total - scripted).abs() <= 40.0,
            "{name} lasts {total} ms, the tape scripts {scripted} ms: {durations:?}"
        );
        assert!(
            durations.len() >= 10,
            "{name}: the typing is animated: {durations:?}"
        );
    }
    assert_eq!(png_size(&dir.join("out.png")), (800, 400));
    let svg = std::fs::read_to_string(dir.join("out.svg")).expect("svg");
    assert!(
        svg.contains("@keyframes") && svg.contains("hi there"),
        "an animated SVG"
    );
    let text = std::fs::read_to_string(dir.join("out.txt")).expect("txt");
    let screens = screens(&text);
    assert_eq!(
        screens.len(),
        3,
        "a screen after each of the 3 commands:\n{text}"
    );
    assert_eq!(screens[2][1], "hi there", "{text}");
    let frames: Vec<PathBuf> = std::fs::read_dir(dir.join("frames"))
        .expect("the frames directory")
        .map(|e| e.expect("entry").path())
        .collect();
    assert!(frames.len() >= 10, "one PNG per frame: {frames:?}");
    assert!(frames.iter().all(|f| png_size(f) == (800, 400)));
    if let Some(played) = asciinema::asciinema_cat(&dir.join("out.cast")) {
        let played = String::from_utf8_lossy(&played);
        assert!(
            played.contains("hi there"),
            "asciinema plays the cast: {played:?}"
        );
    }
}

#[test]
fn hidden_steps_run_but_are_neither_shown_nor_timed() {
    let Some(python) = needs::python("PIL") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let tape = "\
Output out.txt
Output out.gif
Output out.cast
Set Framerate 25
Hide
Type \"export SECRET=swordfish\"
Enter
Sleep 500ms
Type \"clear\"
Enter
Show
Type \"echo $SECRET\"
Enter
Sleep 200ms
";
    let out = run_tape(dir, "hide.tape", tape);
    assert_ran(&out);
    let text = std::fs::read_to_string(dir.join("out.txt")).expect("txt");
    assert!(
        !text.contains("export"),
        "nothing hidden is in the text:\n{text}"
    );
    let screens = screens(&text);
    assert_eq!(screens.len(), 4, "Show and the 3 shown commands:\n{text}");
    assert_eq!(screens[3][1], "swordfish", "the hidden steps ran:\n{text}");
    let cast = std::fs::read_to_string(dir.join("out.cast")).expect("cast");
    assert!(
        !cast.contains("export"),
        "nothing hidden is in the cast: {cast}"
    );
    // 12 characters and Enter at 50 ms, and 200 ms: the hidden 1.1 s takes no time.
    let (_, durations) = pillow(&python, &dir.join("out.gif"));
    let total: f64 = durations.iter().sum();
    assert!(
        (total - 850.0).abs() <= 40.0,
        "the GIF lasts {total} ms: {durations:?}"
    );
}

#[test]
fn waits_match_the_line_or_the_screen_and_a_timeout_shows_the_screen() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let tape = "\
Output out.txt
Type \"sleep 1; echo ready\"
Enter
Wait
Type \"printf 'one\\ntwo\\n'\"
Enter
Wait+Screen@5s /two\\n>/
";
    let out = run_tape(dir, "wait.tape", tape);
    assert_ran(&out);
    let text = std::fs::read_to_string(dir.join("out.txt")).expect("txt");
    let screens = screens(&text);
    assert_eq!(
        screens[2][1], "ready",
        "Wait waited for the prompt:\n{text}"
    );
    assert_eq!(screens[5][4], "two", "{text}");

    let tape = "\
Output late.txt
Output late.gif
Type \"echo waiting\"
Enter
Wait@300ms /never/
Type \"echo after\"
";
    let out = run_tape(dir, "timeout.tape", tape);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("timeout.tape:5:"), "the Wait's place: {err}");
    assert!(
        err.contains("/never/") && err.contains("> echo waiting"),
        "the screen: {err}"
    );
    assert!(!dir.join("late.txt").exists() && !dir.join("late.gif").exists());
}

#[test]
fn keys_chords_the_clipboard_env_and_source_reach_the_shell() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    std::fs::write(
        dir.join("greet.tape"),
        "Output no.txt\nType \"echo $GREETING\"\nEnter\n",
    )
    .expect("sourced tape");
    let tape = "\
Output out.txt
Env GREETING \"hello from Env\"
Source greet.tape
Copy \"pasted words\"
Type \"echo \"
Paste
Enter
Set TypingSpeed 10ms
Type \"echo abcdef\"
Backspace 3
Left 2
Type \"X\"
Enter
Type \"sleep 30\"
Enter
Sleep 300ms
Ctrl+C
Sleep 300ms
Set FontSize 40
Type \"echo end\"
Enter
";
    let out = run_tape(dir, "keys.tape", tape);
    assert_ran(&out);
    assert!(
        stderr(&out).contains("keys.tape:19: a setting after the first command is ignored"),
        "{}",
        stderr(&out)
    );
    assert!(
        !dir.join("no.txt").exists(),
        "a sourced tape's outputs are not written"
    );
    let text = std::fs::read_to_string(dir.join("out.txt")).expect("txt");
    let last = screens(&text).pop().expect("a screen");
    let shown = last.join("\n");
    for expected in [
        "hello from Env",
        "> echo pasted words",
        "aXbc",
        "> sleep 30\n^C",
        "end",
    ] {
        assert!(shown.contains(expected), "{expected:?} in\n{shown}");
    }
}

#[test]
fn themes_bars_margins_and_sizes_are_drawn() {
    let Some(python) = needs::python("PIL") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let tape = "\
Output out.png
Set Width 600
Set Height 300
Set Theme \"Dracula\"
Set WindowBar Colorful
Set Margin 20
Set MarginFill \"#ff0000\"
Type \"echo hi\"
";
    let out = run_tape(dir, "look.tape", tape);
    assert_ran(&out);
    let script = "import sys\nfrom PIL import Image\nim=Image.open(sys.argv[1]).convert('RGB')\n\
                  print(im.size, *(im.getpixel((int(x), int(y))) for x, y in \
                  (a.split(',') for a in sys.argv[2:])))\n";
    // The margin; VHS's first dot (a sixth of the 30 px bar, 15 px in); the terminal's
    // background low right, inside the padding.
    let out = Command::new(&python)
        .args(["-c", script])
        .arg(dir.join("out.png"))
        .args(["3,3", "35,35", "560,260"])
        .output()
        .expect("python runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let pixels = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert_eq!(
        pixels, "(600, 300) (255, 0, 0) (255, 79, 77) (30, 31, 41)",
        "size, margin, red dot, Dracula's background (VHS's #1e1f29)"
    );
}

#[test]
fn tapes_that_cannot_run_are_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    // Not a tape: exit 2, every problem with its line and column.
    let out = run_tape(dir, "bad.tape", "Output a.gif\nTypo \"x\"\nSleep\nType\n");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    for expected in [
        "bad.tape:2:1: not a command: \"Typo\"",
        "bad.tape:3:",
        "bad.tape:4:",
    ] {
        assert!(err.contains(expected), "{expected:?} in {err}");
    }
    // A tape asking for what cannot be done: exit 1, all said at once, nothing run.
    let tape = "\
Output a.gif
Output b.webm
Require no-such-program-shotty-test
Set Theme \"Draculla\"
Set Width 100
Type \"touch ran\"
Enter
";
    let out = run_tape(dir, "cannot.tape", tape);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    for expected in [
        "cannot.tape:2: this build writes no WebM",
        "cannot.tape:3: the tape requires no-such-program-shotty-test",
        "cannot.tape:4: unknown theme \"Draculla\"; did you mean \"Dracula\"",
        "cannot.tape:5: the picture is 100×600 px",
    ] {
        assert!(err.contains(expected), "{expected:?} in {err}");
    }
    assert!(!dir.join("ran").exists() && !dir.join("a.gif").exists());
}

/// Every name under `dir`, hidden ones too, relative and sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("a directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path.clone());
            }
            let name = path.strip_prefix(dir).expect("under dir");
            names.push(name.to_string_lossy().into_owned());
        }
    }
    names.sort();
    names
}

#[test]
fn an_output_that_cannot_be_written_leaves_none_written_and_names_its_line() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    std::fs::create_dir(dir.join("isdir.txt")).expect("a directory in the way");
    std::fs::create_dir(dir.join("isdir.png")).expect("a directory in the way");
    std::fs::write(dir.join("old.txt"), "old").expect("an older output");
    let tape = "Output old.txt\nOutput new/ok.cast\nOutput isdir.txt\nType \"x\"\n";
    let out = run_tape(dir, "output.tape", tape);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let expected = "output.tape:3: cannot write isdir.txt: it is a directory";
    assert!(
        stderr(&out).contains(expected),
        "{expected:?} in {}",
        stderr(&out)
    );
    // A Screenshot's file is reported at its line.
    let tape = "Output old.txt\nType \"x\"\nScreenshot isdir.png\n";
    let out = run_tape(dir, "shot.tape", tape);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let expected = "shot.tape:3: cannot write isdir.png: it is a directory";
    assert!(
        stderr(&out).contains(expected),
        "{expected:?} in {}",
        stderr(&out)
    );
    // Nothing written, replaced or left half-made: no temporary file, no new directory.
    assert_eq!(
        tree(dir),
        [
            "isdir.png",
            "isdir.txt",
            "old.txt",
            "output.tape",
            "shot.tape"
        ]
    );
    assert_eq!(std::fs::read(dir.join("old.txt")).expect("kept"), b"old");
}

#[test]
fn an_inline_themes_unknown_keys_are_ignored_with_a_warning_as_vhs_ignores_them() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let tape = "Output a.txt\nSet Theme {\"foo\": \"#ffffff\", \"red\": \"#ff0000\"}\nType \"x\"\n";
    std::fs::write(dir.join("theme.tape"), tape).expect("tape written");
    let out = shotty(dir, &["tape", "--check", "theme.tape"], false);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = "shotty: warning: theme.tape:2: the theme's key \"foo\" is ignored, as VHS ignores \
         unknown keys";
    assert!(
        stderr(&out).contains(expected),
        "{expected:?} in {}",
        stderr(&out)
    );
}

fn shotty(dir: &Path, args: &[&str], ci: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_shotty"));
    command
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .env_remove("CI")
        .stdin(Stdio::null());
    if ci {
        command.env("CI", "true");
    }
    command.output().expect("shotty runs")
}

#[test]
fn tape_new_writes_a_starting_tape_that_runs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let out = shotty(dir, &["tape", "new", "demo"], false);
    assert!(out.status.success(), "{}", stderr(&out));
    let tape = std::fs::read_to_string(dir.join("demo.tape")).expect("demo.tape");
    assert!(
        tape.contains("Output \"demo.gif\"") && tape.contains("Set Theme"),
        "{tape}"
    );
    let again = shotty(dir, &["tape", "new", "demo.tape"], false);
    assert_eq!(again.status.code(), Some(1), "an existing tape is kept");
    assert_eq!(
        std::fs::read_to_string(dir.join("demo.tape")).expect("kept"),
        tape
    );
    // Its text output only (the picture is the other tests' business).
    let text_only: String = tape
        .lines()
        .filter(|l| !l.starts_with("Output \"demo.gif"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = run_tape(dir, "demo.tape", &text_only);
    assert_ran(&out);
    let text = std::fs::read_to_string(dir.join("demo.ascii")).expect("demo.ascii");
    assert!(text.contains("Hello from demo"), "{text}");
    assert!(!text.contains("mktemp"), "the set-up is hidden: {text}");
    // A name a bare word could not be (it starts with a digit) still makes a tape that reads.
    let out = shotty(dir, &["tape", "new", "2nd take"], false);
    assert!(out.status.success(), "{}", stderr(&out));
    let check = shotty(dir, &["tape", "--check", "2nd take.tape"], false);
    assert!(check.status.success(), "{}", stderr(&check));
}

#[test]
fn shotty_test_runs_tapes_against_their_text_goldens() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    std::fs::write(
        dir.join("hello.tape"),
        "Output hello.ascii\nType \"echo hello\"\nEnter\nSleep 100ms\n",
    )
    .expect("tape");
    // A tape without a text output makes pictures: not a test.
    std::fs::write(dir.join("picture.tape"), "Output picture.gif\nType \"x\"\n").expect("tape");
    let first = shotty(dir, &["test", "."], false);
    let said = String::from_utf8_lossy(&first.stdout).into_owned();
    assert!(first.status.success(), "{said}{}", stderr(&first));
    assert!(
        said.contains("running 1 scenario(s)") && said.contains("1 golden(s) written"),
        "{said}"
    );
    assert!(!dir.join("picture.gif").exists());
    let golden = std::fs::read_to_string(dir.join("hello.ascii")).expect("the golden written");
    assert!(golden.contains("> echo hello\nhello\n"), "{golden}");
    let again = shotty(dir, &["test", "."], true);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );

    std::fs::write(
        dir.join("hello.ascii"),
        golden.replace("\nhello\n", "\nhellO\n"),
    )
    .expect("edit");
    let failed = shotty(dir, &["test", "."], true);
    let said = String::from_utf8_lossy(&failed.stdout).into_owned();
    assert_eq!(failed.status.code(), Some(1), "{said}");
    for expected in [
        "FAILED  ./hello.tape",
        "screen 2 (after ./hello.tape:3), row 1, from column 4:",
        "golden: \"hellO\"",
        "run:    \"hello\"",
    ] {
        assert!(said.contains(expected), "{expected:?} in\n{said}");
    }
    let updated = shotty(dir, &["test", "--update", "."], true);
    assert!(updated.status.success());
    assert_eq!(
        std::fs::read_to_string(dir.join("hello.ascii")).expect("golden"),
        golden
    );

    std::fs::remove_file(dir.join("hello.ascii")).expect("remove");
    let missing = shotty(dir, &["test", "."], true);
    assert_eq!(missing.status.code(), Some(1), "CI: a missing golden fails");
    assert!(!dir.join("hello.ascii").exists());
}

#[test]
fn playback_speed_and_loop_offset_shape_the_animation() {
    let Some(python) = needs::python("PIL") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let body = "Set Width 400\nSet Height 200\nSet Framerate 25\nType \"abcdefghij\"\nSleep 1s\n";
    let run = |name: &str, settings: &str| {
        let out = run_tape(
            dir,
            &format!("{name}.tape"),
            &format!("Output {name}.gif\n{settings}{body}"),
        );
        assert_ran(&out);
        let script = "import hashlib,sys\nfrom PIL import Image\nim=Image.open(sys.argv[1])\n\
                      d=[]\nfor i in range(im.n_frames):\n    im.seek(i)\n    d.append(im.info['duration'])\n\
                      im.seek(0)\nprint(sum(d), hashlib.sha256(im.convert('RGB').tobytes()).hexdigest())\n";
        let out = Command::new(&python)
            .args(["-c", script])
            .arg(dir.join(format!("{name}.gif")))
            .output()
            .expect("python");
        assert!(out.status.success(), "{}", stderr(&out));
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        let (total, first) = said.trim().split_once(' ').expect("two figures");
        (total.parse::<f64>().expect("ms"), first.to_owned())
    };
    // Ten characters at 50 ms, and the second: 1.5 s.
    let (plain, plain_first) = run("plain", "");
    assert!((plain - 1500.0).abs() <= 40.0, "{plain}");
    let (fast, _) = run("fast", "Set PlaybackSpeed 2\n");
    assert!((fast - 750.0).abs() <= 40.0, "twice as fast: {fast}");
    let (offset, offset_first) = run("offset", "Set LoopOffset 50%\n");
    assert!(
        (offset - plain).abs() <= 40.0,
        "the same length: {offset} {plain}"
    );
    assert_ne!(
        offset_first, plain_first,
        "the loop starts half way through"
    );
}

#[test]
fn scrolling_moves_the_view_through_the_scrollback_and_back() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let base = "Set Width 600\nSet Height 300\nType \"seq 1 40\"\nEnter\nSleep 300ms\n";
    let picture = |name: &str, steps: &str| {
        let out = run_tape(
            dir,
            &format!("{name}.tape"),
            &format!("Output {name}.png\n{base}{steps}"),
        );
        assert_ran(&out);
        std::fs::read(dir.join(format!("{name}.png"))).expect("the last frame")
    };
    let screen = picture("screen", "Sleep 100ms\n");
    let up = picture("up", "ScrollUp 10\nSleep 100ms\nScreenshot up-shot.png\n");
    let back = picture("back", "ScrollUp 10\nScrollDown@10ms 10\nSleep 100ms\n");
    let typed = picture("typed", "ScrollUp 10\nType \" \"\nBackspace\nSleep 100ms\n");
    assert_ne!(up, screen, "ScrollUp shows older lines");
    assert_eq!(
        std::fs::read(dir.join("up-shot.png")).expect("the screenshot"),
        up,
        "a Screenshot shows what is shown, scrolled back"
    );
    assert_eq!(back, screen, "ScrollDown returns to the screen");
    assert_eq!(
        typed, screen,
        "typing returns to the screen, as in a browser terminal"
    );
}

/// Runs a tape writing `name` and its last frame as a PNG, and decodes the video with FFmpeg
/// (through PyAV): codec, size, frames decoded, length in ms, and the last frame's PSNR (dB)
/// against the still.
fn decoded_video(name: &str) -> Option<(String, u32, u32, u32, u64, u32)> {
    let python = needs::python("av")?;
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let tape = format!(
        "Output {name}\nOutput last.png\nSet Width 640\nSet Height 360\n\
         Type \"ls -la /usr\"\nEnter\nSleep 1s\n"
    );
    let out = run_tape(dir, "video.tape", &tape);
    assert_ran(&out);
    let script = "import av, math, sys\nfrom PIL import Image\nc = av.open(sys.argv[1])\n\
                  s = c.streams.video[0]\nn = 0\nfor f in c.decode(video=0):\n    n += 1\n    last = f\n\
                  a = last.to_image().convert('RGB').tobytes()\n\
                  b = Image.open(sys.argv[2]).convert('RGB').tobytes()\n\
                  mse = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)\n\
                  print(s.codec_context.name, s.width, s.height, n, round(c.duration / 1000), \
                  round(10 * math.log10(255 ** 2 / mse)) if mse else 99)\n";
    let out = Command::new(&python)
        .args(["-c", script])
        .arg(dir.join(name))
        .arg(dir.join("last.png"))
        .output()
        .expect("python runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let f: Vec<&str> = said.split(' ').collect();
    let n = |i: usize| f[i].parse::<u64>().unwrap_or_else(|_| panic!("{said}"));
    Some((
        f[0].to_owned(),
        n(1) as u32,
        n(2) as u32,
        n(3) as u32,
        n(4),
        n(5) as u32,
    ))
}

#[test]
fn mp4_is_h264_of_the_stills_at_the_tapes_length() {
    let Some((codec, width, height, frames, ms, psnr)) = decoded_video("v.mp4") else {
        return;
    };
    // 11 characters and Enter at 50 ms, and the second: 1.6 s, 80 frames at 50 fps.
    assert_eq!(
        (codec.as_str(), width, height, frames, ms),
        ("h264", 640, 360, 80, 1600)
    );
    assert!(psnr >= 40, "the last frame is the still's: {psnr} dB");
}

/// WebM needs the `webm` feature: `.ci/run` runs this test with it.
#[test]
#[cfg(feature = "webm")]
fn webm_is_av1_of_each_screen_at_the_tapes_length() {
    let Some((codec, width, height, frames, ms, psnr)) = decoded_video("w.webm") else {
        return;
    };
    assert!(codec.contains("av1") || codec.contains("dav1d"), "{codec}");
    assert_eq!((width, height, ms), (640, 360, 1600));
    // Each screen once: the typing's and the output's, not 80.
    assert!((2..80).contains(&frames), "{frames} frames");
    assert!(psnr >= 38, "the last frame is the still's: {psnr} dB");
}

/// Input after the shell has ended (an `exit` typed) goes nowhere and the tape goes on to its
/// outputs, as VHS goes on; a warning names the first such step's line.
#[test]
fn input_after_the_shell_ended_goes_nowhere_and_the_tape_goes_on() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let out = run_tape(
        dir,
        "exit.tape",
        "Output exit.txt\nType \"exit\"\nEnter\nSleep 500ms\nType \"echo after\"\nEnter\n",
    );
    assert_ran(&out);
    let err = stderr(&out);
    assert!(
        err.contains("exit.tape:5: the shell has ended: this input and what follows go nowhere"),
        "{err}"
    );
    assert!(dir.join("exit.txt").exists(), "{err}");
}
