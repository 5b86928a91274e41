//! Embeds every theme in `themes/` into the binary: the directory is the single list of
//! built-in themes.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("themes/ directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    let mut code = String::from("/// Built-in themes as (id, JSON), sorted by id.\n");
    code.push_str("pub static BUILTIN_THEMES: &[(&str, &str)] = &[\n");
    for path in entries {
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("UTF-8 theme file name");
        writeln!(
            code,
            "    ({id:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("writing to a String");
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("themes.rs");
    std::fs::write(out, code).expect("writing themes.rs");
}
