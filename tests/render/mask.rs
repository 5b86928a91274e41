//! Secret masking (`--mask`, `--mask-auto`) through the real binary: after masking, the
//! secret is in none of the files written — SVG (text and metadata), JSON, text, the PNG's
//! snapshot, an animation — and the columns are where they were.

use std::process::{Command, Output, Stdio};

const TOKEN: &str = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
const PASSWORD: &str = "correct-horse-battery";

/// A screen with secrets in text, a link target, the title and a line the width wraps.
fn screen() -> Vec<u8> {
    format!(
        "\x1b]2;deploy {TOKEN}\x07export GITHUB_TOKEN={TOKEN} END\r\n\
         aws \x1b[1;31m{AWS}\x1b[m key\r\n\
         \x1b]8;;https://example.com/?key={AWS}\x07a link\x1b]8;;\x07\r\n\
         mysql --password={PASSWORD} db\r\n"
    )
    .into_bytes()
}

/// `shotty ARGS` with `stdin`, which must succeed.
fn shotty(args: &[&str], stdin: &[u8]) -> Output {
    let out = crate::cli_render::shotty(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn render(dir: &std::path::Path, name: &str, extra: &[&str]) -> Vec<u8> {
    let path = dir.join(name);
    let mut args = vec!["render", "-", "--width", "60", "--height", "8", "-o"];
    let path_text = path.to_str().unwrap().to_owned();
    args.push(&path_text);
    args.extend_from_slice(extra);
    shotty(&args, &screen());
    std::fs::read(&path).expect("output written")
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn masked_outputs_hold_no_secret_and_keep_the_columns() {
    let dir = tempfile::tempdir().unwrap();
    let plain_json = render(dir.path(), "plain.json", &[]);
    assert!(contains(&plain_json, TOKEN) && contains(&plain_json, AWS));
    for name in ["x.svg", "x.json", "x.txt"] {
        let bytes = render(dir.path(), name, &["--mask-auto"]);
        for secret in [TOKEN, AWS, PASSWORD] {
            assert!(!contains(&bytes, secret), "{secret} in {name}");
        }
    }
    let svg = String::from_utf8(render(dir.path(), "x.svg", &["--mask-auto"])).unwrap();
    assert!(svg.contains("url(#masked)"), "no hatching");

    // The columns: "END" and "key" stay where they were, every row keeps its cells.
    let parse = |bytes: &[u8]| -> serde_json::Value { serde_json::from_slice(bytes).unwrap() };
    let (plain, masked) = (
        parse(&plain_json),
        parse(&render(dir.path(), "m.json", &["--mask-auto"])),
    );
    let text = |snap: &serde_json::Value, row: usize| -> String {
        snap["rows"][row]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["t"].as_str().unwrap().to_owned())
            .collect()
    };
    for row in 0..8 {
        let cells = |s: &serde_json::Value| s["rows"][row]["cells"].as_array().unwrap().len();
        assert_eq!(cells(&plain), cells(&masked), "row {row}");
        assert_eq!(
            text(&plain, row).len(),
            text(&masked, row).len(),
            "row {row}"
        );
    }
    let masked_text: String = (0..8).map(|r| text(&masked, r)).collect();
    let plain_text: String = (0..8).map(|r| text(&plain, r)).collect();
    assert_eq!(masked_text.find(" END"), plain_text.find(" END"));
    assert_eq!(masked_text.find(" key"), plain_text.find(" key"));
    assert!(
        masked_text.contains("--password=*********************"),
        "{masked_text}"
    );
    assert!(masked["title"].as_str().unwrap().starts_with("deploy ****"));

    // The PNG is drawn from the masked snapshot: it differs from the plain one.
    let png = render(dir.path(), "m.png", &["--mask-auto"]);
    assert_ne!(png, render(dir.path(), "p.png", &[]));
    assert_eq!(
        png,
        render(dir.path(), "m2.png", &["--mask-auto"]),
        "not deterministic"
    );

    // A pattern of one's own; a `secret` group masks only itself.
    let own = render(
        dir.path(),
        "own.txt",
        &["--mask", "export (?P<secret>[A-Z_]+)="],
    );
    let own = String::from_utf8(own).unwrap();
    assert!(own.starts_with("export ************="), "{own}");
    assert!(own.contains(AWS), "only the pattern given masks");
}

#[test]
fn an_animation_is_masked_and_a_cast_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut cast = String::from("{\"version\": 2, \"width\": 60, \"height\": 8}\n");
    for (i, chunk) in String::from_utf8(screen())
        .unwrap()
        .split("\r\n")
        .enumerate()
    {
        let line = format!("{chunk}\r\n");
        cast.push_str(&format!("[{}.0, \"o\", {}]\n", i, serde_json::json!(line)));
    }
    let path = dir.path().join("x.svg");
    let path_text = path.to_str().unwrap();
    shotty(
        &["render", "-", "--video", "-o", path_text, "--mask-auto"],
        cast.as_bytes(),
    );
    let svg = std::fs::read(&path).unwrap();
    assert!(!contains(&svg, TOKEN) && !contains(&svg, AWS) && !contains(&svg, PASSWORD));
    assert!(contains(&svg, "mysql"), "the animation lacks the screen");
    assert!(
        contains(&svg, "url(#masked)"),
        "the animation does not hatch the secrets"
    );

    // A cast holds the raw output: asked to mask, `record` refuses before anything runs.
    let cast_path = dir.path().join("x.cast");
    let out = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .args([
            "record",
            "-o",
            cast_path.to_str().unwrap(),
            "--mask-auto",
            "--",
            "true",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot mask an asciicast"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!cast_path.exists());
}
