//! Link choices that make the `shotty` process start sooner. `shotty session …` commands are
//! short processes that scripts and agents run in loops, and starting the process is most of
//! their time (BENCHMARKS.md, "Sessions"). Each choice is probed on the toolchain and skipped
//! where it does not apply: the binary behaves the same either way, only its start differs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Applies the link choices when building natively for Linux with glibc.
pub fn configure() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    // The probes run the host's C toolchain and the programs it links.
    let native = var("TARGET") == var("HOST");
    let glibc = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    let static_crt = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|feature| feature == "crt-static");
    if !native || !glibc || static_crt {
        return;
    }
    // rustc drives the link through this program; `cc` unless the target configures another.
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_owned());
    link_unwinder_statically(&linker);
    pack_relative_relocations(&linker);
}

/// Links the GCC unwinder (panics, backtraces) from `libgcc_eh.a` instead of loading
/// `libgcc_s.so` at start. That library's constructor identifies the CPU with about ten CPUID
/// instructions, which a virtual machine traps (11 µs each on the benchmark machine).
///
/// As a native library of the `shotty` library crate, `-lgcc_eh` comes before std's `-lgcc_s`
/// on every link line that includes the crate, so the unwinder is taken from the archive and
/// `--as-needed` leaves `libgcc_s` out. `-bundle` keeps the archive out of the rlib.
fn link_unwinder_statically(linker: &str) {
    let Ok(output) = Command::new(linker)
        .arg("-print-file-name=libgcc_eh.a")
        .stderr(Stdio::null())
        .output()
    else {
        return;
    };
    // A toolchain without the archive prints the bare name back.
    let archive = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    if !output.status.success() || !archive.is_absolute() || !archive.is_file() {
        return;
    }
    if let Some(dir) = archive.parent() {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
    }
}

/// Packs the binaries' relative relocations as DT_RELR: the dynamic linker reads 5 KB of
/// bitmaps instead of 400 KB of `Elf64_Rela` entries before `main`. Such a binary needs
/// glibc 2.36 or later (`GLIBC_ABI_DT_RELR`), so the flag is used only when a C program linked
/// with it here runs and finds its relocated pointer right.
fn pack_relative_relocations(linker: &str) {
    const FLAG: &str = "-Wl,-z,pack-relative-relocs";
    let Some(out) = std::env::var_os("OUT_DIR") else {
        return;
    };
    let dir = Path::new(&out).join("relr-probe");
    let (source, program) = (dir.join("probe.c"), dir.join("probe"));
    let probe = "static int x;\nint *p = &x;\nint main(void) { return p == &x ? 0 : 1; }\n";
    if std::fs::create_dir_all(&dir).is_err() || std::fs::write(&source, probe).is_err() {
        return;
    }
    let quiet = |command: &mut Command| {
        command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    // Older linkers warn about `-z` values they do not know and link without them.
    let linked = quiet(
        Command::new(linker)
            .args(["-fPIE", "-pie", FLAG, "-Wl,--fatal-warnings", "-o"])
            .arg(&program)
            .arg(&source),
    );
    if linked && quiet(&mut Command::new(&program)) {
        println!("cargo:rustc-link-arg-bins={FLAG}");
    }
}
