//! `scripts/package`: the release archive, unpacked on this machine, runs a capture with
//! nothing but what it holds; its checksum file verifies; the same binary packs into the same
//! bytes. Packaged here from the test's own binary (`--binary`), as the `dist` build would be.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn package(out: &Path) -> std::process::Output {
    Command::new(Path::new(ROOT).join("scripts/package"))
        .args(["--binary", env!("CARGO_BIN_EXE_shotty"), "--out"])
        .arg(out)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("scripts/package runs")
}

fn is_dynamic(binary: &str) -> bool {
    let out = Command::new("readelf")
        .args(["--program-headers", binary])
        .output()
        .expect("readelf runs");
    String::from_utf8_lossy(&out.stdout).contains("INTERP")
}

#[test]
fn the_archive_runs_a_capture_and_verifies() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = package(&dir.path().join("a"));
    if is_dynamic(env!("CARGO_BIN_EXE_shotty")) {
        // No static C library in this toolchain: the script refuses rather than ship a binary
        // that needs the build machine's glibc.
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("linked dynamically"));
        return;
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let archive = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let name = Path::new(&archive)
        .file_name()
        .and_then(|n| n.to_str())
        .expect("an archive name")
        .to_owned();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        name.starts_with(&format!("shotty-{version}-"))
            && name.ends_with("-unknown-linux-gnu.tar.gz"),
        "{name}"
    );

    // The checksum file is what `sha256sum -c` reads, next to the archive.
    let check = Command::new("sha256sum")
        .args(["-c", &format!("{name}.sha256")])
        .current_dir(dir.path().join("a"))
        .output()
        .expect("sha256sum runs");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // The same binary packs into the same bytes.
    let again = package(&dir.path().join("b"));
    assert!(again.status.success());
    assert_eq!(
        std::fs::read(&archive).expect("archive"),
        std::fs::read(dir.path().join("b").join(&name)).expect("second archive"),
        "the archive is not reproducible"
    );

    let unpacked = dir.path().join("unpacked");
    std::fs::create_dir(&unpacked).expect("dir");
    let tar = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .current_dir(&unpacked)
        .status()
        .expect("tar runs");
    assert!(tar.success());
    let top = unpacked.join(name.trim_end_matches(".tar.gz"));
    for file in [
        "shotty",
        "LICENSE",
        "README.md",
        "completions/shotty.bash",
        "completions/_shotty",
        "completions/shotty.fish",
        "man/man1/shotty.1",
        "man/man1/shotty-session-start.1",
    ] {
        assert!(top.join(file).is_file(), "{file} is not in the archive");
    }
    // The unpacked binary alone, with no library path of the build and nothing installed.
    let work = dir.path().join("work");
    std::fs::create_dir(&work).expect("dir");
    let capture = Command::new(top.join("shotty"))
        .args(["-o", "hi.txt", "--", "echo", "from the archive"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &work)
        .current_dir(&work)
        .output()
        .expect("the unpacked shotty runs");
    assert!(
        capture.status.success(),
        "{}",
        String::from_utf8_lossy(&capture.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(work.join("hi.txt")).expect("hi.txt"),
        "from the archive\n"
    );
}
