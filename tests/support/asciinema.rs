//! Playing cast files with the real asciinema (Debian's package), for the tests that check
//! shotty's casts against their reference consumer.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::needs;

/// `asciinema cat` of a cast file: the output events' data, concatenated; `None` when asciinema
/// or `script` is missing (the test is then skipped, outside CI). It insists on a controlling
/// terminal (it opens /dev/tty), so it runs under `script`, its stdout in a file.
pub fn asciinema_cat(cast: &Path) -> Option<Vec<u8>> {
    needs::program("asciinema")?;
    let script = needs::program("script")?;
    let dir = cast.parent().expect("dir");
    let out = dir.join("asciinema-cat.out");
    let command = format!(
        "asciinema cat {} > {}",
        shell_quote(cast),
        shell_quote(&out)
    );
    let status = Command::new(script)
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .env("HOME", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("script runs");
    assert!(
        status.success(),
        "asciinema cat {} failed: {status}",
        cast.display()
    );
    Some(std::fs::read(&out).expect("asciinema's output"))
}

/// `path` quoted for `sh`.
pub fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}
