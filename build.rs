//! Reads every theme in `themes/` at build time into the binary: the directory is the single
//! list of built-in themes, and a broken theme file fails the build instead of a render. Also
//! writes the emulator's table of cell widths (`build/cell_widths.rs`) and picks link options
//! that make the binary start sooner (`build/start_up.rs`).

use std::fmt::Write;
use std::path::Path;

#[path = "build/cell_widths.rs"]
mod cell_widths;
#[path = "build/start_up.rs"]
mod start_up;

mod scheme {
    #![allow(dead_code)]
    include!("src/render/scheme.rs");
}

fn main() {
    embed_themes();
    let out_dir = std::env::var("OUT_DIR").expect("OUT_DIR");
    cell_widths::write(Path::new(&out_dir));
    start_up::configure();
}

fn embed_themes() {
    // Read when the script runs, not when it was compiled: cargo reuses one compiled build
    // script for every checkout that shares a target directory.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest_dir).join("themes");
    println!("cargo:rerun-if-changed=src/render/scheme.rs");
    let mut code = String::from("/// Built-in themes as (id, name, colours), sorted by id.\n");
    // `read_themes` sorts by file name, that is by id.
    write_table(&mut code, "BUILTIN_THEMES", &read_themes(&root));
    let mut vhs = read_themes(&root.join("vhs"));
    // VHS lists its themes by lowercased name (Go's `strings.ToLower`: one character for each);
    // the exact name orders names that differ only in case.
    vhs.sort_by_cached_key(|(_, name, _)| {
        let lower: String = name
            .chars()
            .map(|c| c.to_lowercase().next().unwrap_or(c))
            .collect();
        (lower, name.clone())
    });
    code.push_str(
        "/// VHS's themes (`themes/vhs/`) as (id, name, colours), sorted as VHS lists them: by\n\
         /// lowercased name, then by name.\n",
    );
    write_table(&mut code, "VHS_THEMES", &vhs);
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("themes.rs");
    std::fs::write(out, code).expect("writing themes.rs");
}

/// The themes of the `*.json` files directly in `dir` as (id, name, colours), sorted by file
/// name. A file that is not a valid theme panics, which fails the build.
fn read_themes(dir: &Path) -> Vec<(String, String, scheme::SchemeColors)> {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            println!("cargo:rerun-if-changed={}", path.display());
            let id = path
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("UTF-8 theme file name");
            let json = std::fs::read_to_string(path).expect("readable theme file");
            let map: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let (name, colors) = scheme::read_scheme(|key| match map.get(key) {
                None => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(s.as_str())),
                Some(_) => Err(format!("{key}: not a string")),
            })
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (id.to_owned(), name.to_owned(), colors)
        })
        .collect()
}

/// Appends `pub static <name>: &[(&str, &str, SchemeColors)]` holding `themes`, in order.
fn write_table(code: &mut String, name: &str, themes: &[(String, String, scheme::SchemeColors)]) {
    writeln!(
        code,
        "pub static {name}: &[(&str, &str, SchemeColors)] = &["
    )
    .expect("writing to a String");
    for (id, name, colors) in themes {
        // `SchemeColors`' Debug form (tuples, an array, field names) is its Rust literal.
        writeln!(code, "    ({id:?}, {name:?}, {colors:?}),").expect("writing to a String");
    }
    code.push_str("];\n");
}
