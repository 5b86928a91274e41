//! Link choices that make the `shotty` process start sooner. `shotty session …` commands are
//! short processes that scripts and agents run in loops, and starting the process is most of
//! their time (BENCHMARKS.md, "Sessions"). Each choice is probed on the toolchain and skipped
//! where it does not apply: the binary behaves the same either way, only its start differs
//! (but for NSS sources other than files and DNS, see `link_libc_statically`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Applies the link choices when building natively for Linux with glibc.
pub fn configure() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    println!("cargo:rerun-if-env-changed=SHOTTY_LINK");
    // The probes run the host's C toolchain and the programs it links.
    let native = var("TARGET") == var("HOST");
    let glibc = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    let static_crt = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|feature| feature == "crt-static");
    let Some(out) = std::env::var_os("OUT_DIR").filter(|_| native && glibc && !static_crt) else {
        return;
    };
    let toolchain = Toolchain {
        // rustc drives the link through this program; `cc` unless the target configures another.
        linker: std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_owned()),
        dir: Path::new(&out).join("start-up"),
    };
    if std::fs::create_dir_all(&toolchain.dir).is_err() {
        return;
    }
    let unwinder = link_unwinder_statically(&toolchain);
    let static_libc =
        unwinder && var("SHOTTY_LINK") != "dynamic" && link_libc_statically(&toolchain);
    pack_relative_relocations(&toolchain, static_libc);
}

/// The host's C toolchain, and a directory for what the probes write.
struct Toolchain {
    linker: String,
    dir: PathBuf,
}

/// How a probe program was loaded, when it linked and ran and found its relocated pointer right.
#[derive(PartialEq)]
enum Loaded {
    /// By the dynamic linker, which relocated it.
    Dynamically,
    /// By the kernel alone: the program relocated itself.
    Statically,
}

impl Toolchain {
    /// Where the toolchain finds the archive `file` (`libc.a`), if it has one.
    fn archive(&self, file: &str) -> Option<PathBuf> {
        let output = Command::new(&self.linker)
            .arg(format!("-print-file-name={file}"))
            .stderr(Stdio::null())
            .output()
            .ok()?;
        // A toolchain without the archive prints the bare name back.
        let path = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        (output.status.success() && path.is_absolute() && path.is_file()).then_some(path)
    }

    /// Links a C program holding a relocated pointer with `flags` and runs it.
    fn probe(&self, flags: &[&str]) -> Option<Loaded> {
        // Exit status: 1 for a pointer left wrong, plus 2 when a dynamic linker (AT_BASE) ran.
        const SOURCE: &str = "#include <sys/auxv.h>\nstatic int x;\nint *p = &x;\n\
            int main(void) { return (p == &x ? 0 : 1) + (getauxval(AT_BASE) ? 2 : 0); }\n";
        let (source, program) = (self.dir.join("probe.c"), self.dir.join("probe"));
        std::fs::write(&source, SOURCE).ok()?;
        let _ = std::fs::remove_file(&program);
        // Older linkers warn about options they do not know and link without them.
        let linked = Command::new(&self.linker)
            .args(["-fPIE", "-Wl,--fatal-warnings", "-o"])
            .arg(&program)
            .arg(&source)
            .args(flags)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !linked {
            return None;
        }
        match Command::new(&program).status().ok()?.code()? {
            0 => Some(Loaded::Statically),
            2 => Some(Loaded::Dynamically),
            _ => None,
        }
    }
}

/// Links the GCC unwinder (panics, backtraces) from `libgcc_eh.a` instead of loading
/// `libgcc_s.so` at start. That library's constructor identifies the CPU with about ten CPUID
/// instructions, which a virtual machine traps (11 µs each on the benchmark machine).
///
/// As a native library of the `shotty` library crate, `-lgcc_eh` comes before std's `-lgcc_s`
/// on every link line that includes the crate (the tests' too), so the unwinder is taken from
/// the archive and `--as-needed` leaves `libgcc_s` out. `-bundle` keeps the archive out of the
/// rlib.
fn link_unwinder_statically(toolchain: &Toolchain) -> bool {
    // A directory of its own: the compiler's holds `libgcc_s.so` too, which the static link
    // of the C library must not find before its own `libgcc_s.a`.
    let dir = toolchain.dir.join("unwinder");
    let _ = std::fs::remove_dir_all(&dir);
    let linked = toolchain.archive("libgcc_eh.a").is_some_and(|archive| {
        std::fs::create_dir_all(&dir).is_ok()
            && std::os::unix::fs::symlink(archive, dir.join("libgcc_eh.a")).is_ok()
    });
    if linked {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
    }
    linked
}

/// Links the C library into the `shotty` binary: a static PIE, still loaded at a random
/// address, that no dynamic linker has to map, bind (about 180 symbols of libc and libm) and
/// relocate at every start. Without it a one-screen render took 0.3–0.5 ms (15–19 %) longer
/// on the benchmark machine. Only what the C library itself loads at run time stays dynamic: NSS
/// modules other than files and DNS (the user's shell is looked up when `$SHELL` is unset).
///
/// rustc's own way, the `crt-static` target feature, cannot be set for the binary alone: set
/// for the build it also reaches proc-macros, which rustc then refuses to build. The binary's
/// link line asks for the system libraries as `-Bdynamic -lc -lm -lgcc_s …`; a directory
/// searched before the system's holds only archives under those names — the toolchain's own
/// `libc.a`, `libm.a`, … and an empty `libgcc_s.a`, the unwinder being linked in already —
/// so each `-l` finds its archive. `-static-pie` picks the start files and tells the linker to
/// make no dynamic section, and the libraries rustc names after `-lc` for `crt-static` close
/// the line. The result is the link rustc makes with `crt-static`. `SHOTTY_LINK=dynamic` at
/// build time keeps the C library dynamic (a distribution that updates glibc on its own).
fn link_libc_statically(toolchain: &Toolchain) -> bool {
    // The libraries std and the libc crate ask for, in the order rustc names them.
    const SYSTEM: [&str; 6] = ["util", "rt", "pthread", "m", "dl", "c"];
    let shim = toolchain.dir.join("static-libs");
    let _ = std::fs::remove_dir_all(&shim);
    if std::fs::create_dir_all(&shim).is_err()
        || std::fs::write(shim.join("libgcc_s.a"), "!<arch>\n").is_err()
    {
        return false;
    }
    for name in SYSTEM {
        let file = format!("lib{name}.a");
        let Some(archive) = toolchain.archive(&file) else {
            return false;
        };
        if std::os::unix::fs::symlink(&archive, shim.join(&file)).is_err() {
            return false;
        }
    }
    let search = format!("-L{}", shim.display());
    let probe = [
        "-static-pie",
        &search,
        "-Wl,-Bdynamic",
        "-lgcc_s",
        "-lm",
        "-lc",
    ];
    if toolchain.probe(&probe) != Some(Loaded::Statically) {
        return false;
    }
    for arg in ["-static-pie", &search, "-lgcc_eh", "-lgcc", "-lc"] {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
    true
}

/// Packs the binaries' relative relocations as DT_RELR: the start reads 5 KB of bitmaps
/// instead of 400 KB of `Elf64_Rela` entries before `main`. Such a binary needs glibc 2.36 or
/// later (`GLIBC_ABI_DT_RELR`; for a static PIE, its start files), so the flag is used only
/// when a C program linked with it the way the binary is linked runs and finds its relocated
/// pointer right.
fn pack_relative_relocations(toolchain: &Toolchain, static_libc: bool) {
    const FLAG: &str = "-Wl,-z,pack-relative-relocs";
    let (flags, loaded): (&[&str], _) = if static_libc {
        (&["-static-pie", FLAG], Loaded::Statically)
    } else {
        (&["-pie", FLAG], Loaded::Dynamically)
    };
    if toolchain.probe(flags) == Some(loaded) {
        println!("cargo:rustc-link-arg-bins={FLAG}");
    }
}
