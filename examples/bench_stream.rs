//! Writes one of the emulator benchmarks' deterministic streams (`benches/support/streams.rs`)
//! to a file, for whole-process runs (`benches/emulator_process.py --stream NAME`):
//!
//! ```sh
//! cargo build --release --example bench_stream
//! target/release/examples/bench_stream synthetic 50 200 50 synthetic.bin
//! ```

#[path = "../benches/support/streams.rs"]
mod streams;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, mib, width, height, out] = args.as_slice() else {
        eprintln!(
            "usage: bench_stream NAME MIB WIDTH HEIGHT OUT (NAME: {})",
            streams::NAMES.join(", ")
        );
        std::process::exit(2);
    };
    let number = |text: &str| -> usize {
        text.parse().unwrap_or_else(|_| {
            eprintln!("bench_stream: {text} is not a number");
            std::process::exit(2);
        })
    };
    let (mib, width, height) = (number(mib), number(width), number(height));
    let Some(bytes) = streams::by_name(name, mib << 20, width, height) else {
        eprintln!(
            "bench_stream: no stream named {name} ({})",
            streams::NAMES.join(", ")
        );
        std::process::exit(2);
    };
    if let Err(e) = std::fs::write(out, bytes) {
        eprintln!("bench_stream: {out}: {e}");
        std::process::exit(1);
    }
}
