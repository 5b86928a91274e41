//! Reads every theme in `themes/` at build time into the binary: the directory is the single
//! list of built-in themes, and a broken theme file fails the build instead of a render. Also
//! picks link options that make the binary start sooner (`build/start_up.rs`).

use std::fmt::Write;
use std::path::Path;

#[path = "build/start_up.rs"]
mod start_up;

mod scheme {
    #![allow(dead_code)]
    include!("src/render/scheme.rs");
}

fn main() {
    embed_themes();
    start_up::configure();
}

fn embed_themes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed=src/render/scheme.rs");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("themes/ directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    let mut code = String::from("/// Built-in themes as (id, name, colours), sorted by id.\n");
    code.push_str("pub static BUILTIN_THEMES: &[(&str, &str, SchemeColors)] = &[\n");
    for path in entries {
        println!("cargo:rerun-if-changed={}", path.display());
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("UTF-8 theme file name");
        let json = std::fs::read_to_string(&path).expect("readable theme file");
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (name, colors) = scheme::read_scheme(|key| match map.get(key) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(format!("{key}: not a string")),
        })
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // `SchemeColors`' Debug form (tuples, an array, field names) is its Rust literal.
        writeln!(code, "    ({id:?}, {name:?}, {colors:?}),").expect("writing to a String");
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("themes.rs");
    std::fs::write(out, code).expect("writing themes.rs");
}
