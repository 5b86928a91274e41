//! Playing cast files with the real asciinema (Debian's package), for the tests that check
//! shotty's casts against their reference consumer.

use std::path::Path;
use std::process::{Command, Stdio};

/// `asciinema cat` of a cast file: the output events' data, concatenated. It insists on a
/// controlling terminal (it opens /dev/tty), so it runs under `script`, its stdout in a file.
pub fn asciinema_cat(cast: &Path) -> Vec<u8> {
    let dir = cast.parent().expect("dir");
    let out = dir.join("asciinema-cat.out");
    let command = format!(
        "asciinema cat {} > {}",
        shell_quote(cast),
        shell_quote(&out)
    );
    let status = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .env("HOME", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("script runs (util-linux), asciinema inside it (Debian package asciinema)");
    assert!(
        status.success(),
        "asciinema cat {} failed: {status}",
        cast.display()
    );
    std::fs::read(&out).expect("asciinema's output")
}

/// `path` quoted for `sh`.
pub fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}
