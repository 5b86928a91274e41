//! How the binary is linked for a quick start (`build/start_up.rs`): where this machine's
//! toolchain allows it, `shotty` must not load `libgcc_s` and must carry packed relative
//! relocations. Each expectation is derived from the toolchain itself, not from what the build
//! script decided, so a probe that stops finding what is there fails here.

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

#[test]
fn the_unwinder_is_linked_in_where_the_toolchain_has_it() {
    if !cc_knows("libgcc_eh.a") {
        eprintln!("skipped: cc has no libgcc_eh.a");
        return;
    }
    let dynamic = dynamic_section();
    assert!(dynamic.contains("[libc.so.6]"), "{dynamic}");
    assert!(!dynamic.contains("libgcc_s"), "{dynamic}");
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
