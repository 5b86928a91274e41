//! How the binary is linked for a quick start (`build/start_up.rs`): where this machine's
//! toolchain allows it, `shotty` must carry the C library and the unwinder itself (a static
//! PIE, which no dynamic linker loads) and packed relative relocations. Each expectation is
//! derived from the toolchain itself, not from what the build script decided, so a probe that
//! stops finding what is there fails here.

use std::process::Command;

/// The binary's dynamic section as `readelf` prints it.
fn dynamic_section() -> String {
    let output = Command::new("readelf")
        .args(["--dynamic", env!("CARGO_BIN_EXE_shotty")])
        .output()
        .expect("readelf (binutils) runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn cc_knows(file: &str) -> bool {
    let output = Command::new("cc")
        .arg(format!("-print-file-name={file}"))
        .output()
        .expect("cc runs");
    let path = std::path::PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    path.is_absolute() && path.is_file()
}

/// Whether the toolchain has what a static PIE needs: every archive of the C libraries rustc
/// names, the unwinder's and the start files, and the build did not ask for a dynamic C
/// library.
fn static_libc_expected() -> bool {
    const NEEDED: [&str; 8] = [
        "libc.a",
        "libm.a",
        "libpthread.a",
        "librt.a",
        "libdl.a",
        "libutil.a",
        "libgcc_eh.a",
        "rcrt1.o",
    ];
    option_env!("SHOTTY_LINK") != Some("dynamic") && NEEDED.into_iter().all(cc_knows)
}

#[test]
fn the_c_library_and_the_unwinder_are_linked_in_where_the_toolchain_has_them() {
    let dynamic = dynamic_section();
    let headers = Command::new("readelf")
        .args(["--program-headers", env!("CARGO_BIN_EXE_shotty")])
        .output()
        .expect("readelf (binutils) runs");
    let headers = String::from_utf8_lossy(&headers.stdout);
    if static_libc_expected() {
        // Still a PIE (loaded at a random address), needing no library and no loader.
        assert!(dynamic.contains("PIE"), "{dynamic}");
        assert!(!dynamic.contains("(NEEDED)"), "{dynamic}");
        assert!(!headers.contains("INTERP"), "{headers}");
    } else if cc_knows("libgcc_eh.a") {
        assert!(dynamic.contains("[libc.so.6]"), "{dynamic}");
        assert!(!dynamic.contains("libgcc_s"), "{dynamic}");
    } else {
        eprintln!("skipped: cc has no libgcc_eh.a");
    }
}

#[test]
fn relative_relocations_are_packed_on_glibc_2_36_and_later() {
    let output = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .expect("getconf runs");
    let version = String::from_utf8_lossy(&output.stdout);
    // "glibc 2.36"
    let minor = version
        .trim()
        .strip_prefix("glibc 2.")
        .and_then(|minor| minor.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("unexpected glibc version {version:?}"));
    let dynamic = dynamic_section();
    assert_eq!(
        dynamic.contains("(RELR)"),
        minor >= 36,
        "glibc 2.{minor}:\n{dynamic}"
    );
}

/// A static glibc still reads the password database (its `files` source is built in): with
/// `SHELL` unset, a captured program gets the user's login shell, as `getent` reports it.
#[test]
fn the_login_shell_comes_from_the_password_database() {
    let uid = Command::new("id").arg("-u").output().expect("id runs");
    let uid = String::from_utf8_lossy(&uid.stdout).trim().to_owned();
    let entry = Command::new("getent")
        .args(["passwd", &uid])
        .output()
        .expect("getent runs");
    let entry = String::from_utf8_lossy(&entry.stdout).trim().to_owned();
    let shell = match entry.rsplit(':').next() {
        Some("") | None => "/bin/sh",
        Some(shell) => shell,
    };
    let home = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_shotty"))
        .args(["capture", "--format", "txt", "-o", "-", "--"])
        .args(["sh", "-c", "printf 'shell=%s\\n' \"$SHELL\""])
        .env_remove("SHELL")
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .current_dir(home.path())
        .output()
        .expect("shotty runs");
    assert!(output.status.success(), "{output:?}");
    let screen = String::from_utf8_lossy(&output.stdout);
    assert!(
        screen
            .lines()
            .any(|line| line.trim_end() == format!("shell={shell}")),
        "passwd entry {entry:?}, screen:\n{screen}"
    );
}
