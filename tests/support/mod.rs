//! Helpers shared by the integration tests that replay `tests/fixtures/`.

#![allow(dead_code)]

pub mod golden_inputs;
pub mod needs;

/// Whether the environment variable `var` asks a pinning test to rewrite its references: set,
/// and neither empty nor `0` (so `UPDATE_GOLDEN=0` compares, as it reads) — the rule of
/// `UPDATE_GOLDEN` everywhere ([`shotty::golden::env_flag`]).
pub fn updating(var: &str) -> bool {
    shotty::golden::env_flag(var)
}

use std::path::{Path, PathBuf};

/// One recorded fixture of `tests/fixtures/manifest.json`.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub name: String,
    pub width: usize,
    pub height: usize,
    pub bytes: Vec<u8>,
}

impl Fixture {
    pub fn path(&self) -> PathBuf {
        fixtures_dir().join(format!("{}.bin", self.name))
    }
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every fixture of the manifest, in manifest order, with its bytes loaded.
pub fn fixtures() -> Vec<Fixture> {
    let manifest = fixtures_dir().join("manifest.json");
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", manifest.display()));
    let entries: Vec<serde_json::Value> =
        serde_json::from_str(&text).expect("manifest.json is a JSON array");
    assert!(!entries.is_empty(), "manifest.json lists no fixture");
    entries
        .iter()
        .map(|e| {
            let name = e["name"].as_str().expect("fixture name").to_owned();
            let dim = |key: &str| {
                e[key]
                    .as_u64()
                    .unwrap_or_else(|| panic!("fixture {name}: missing {key}"))
                    as usize
            };
            let (width, height) = (dim("width"), dim("height"));
            let path = fixtures_dir().join(format!("{name}.bin"));
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            Fixture {
                name,
                width,
                height,
                bytes,
            }
        })
        .collect()
}

/// The offset of the last sequence leaving the alternate screen (`CSI ? … l` with 1049, 1047
/// or 47 among its parameters), or `None` when the stream never leaves it.
pub fn last_alt_screen_exit(bytes: &[u8]) -> Option<usize> {
    let mut last = None;
    let mut i = 0;
    while i + 2 < bytes.len() {
        if bytes[i] == 0x1b && bytes[i + 1] == b'[' && bytes[i + 2] == b'?' {
            let start = i;
            let mut j = i + 3;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b';') {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'l' {
                let params = std::str::from_utf8(&bytes[i + 3..j]).unwrap_or("");
                if params
                    .split(';')
                    .any(|p| matches!(p, "1049" | "1047" | "47"))
                {
                    last = Some(start);
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    last
}

/// A printable rendering of a byte string: ESC as `␛`, other controls as `\xNN`.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\x1b' => out.push('␛'),
                '\r' => out.push_str("\\r"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\x08' => out.push_str("\\b"),
                c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}
