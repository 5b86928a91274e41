#!/usr/bin/env python3
"""Whole-process emulator throughput: `shotty render STREAM --format txt` against the same
stream fed to alacritty_terminal 0.26 and vt100 0.18 by `examples/feed_peer.rs` (64 KiB reads,
10,000 lines of scrollback, the screen printed as text), interleaved in one run.

  cargo build --profile dist && cargo build --profile dist --examples
  python3 benches/emulator_process.py [--rounds N] [--size WxH] [--stream NAME] [--mib N] [--shotty BIN ...]

The stream (--stream): `fixtures` (default), every recorded fixture (tests/fixtures/*.bin)
concatenated and repeated to 50 MiB; or one of the criterion bench's seeded streams
(benches/support/streams.rs: `synthetic` — equal parts plain text, true-colour SGR runs,
`ls` listings, TUI cursor movement and Unicode — or `mixed`, `sgr`, `unicode`, …) written at
--mib MiB by `examples/bench_stream.rs`. Several --shotty binaries (a change's before and
after) run in the same loop. Prints the median wall time and MiB/s of each, and the ratios
to the peers.
"""
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1 << 20


def option(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def main():
    rounds = int(option("--rounds", "9"))
    width, height = option("--size", "200x50").split("x")
    shottys = [a for i, a in enumerate(sys.argv) if i > 0 and sys.argv[i - 1] == "--shotty"]
    shottys = shottys or [os.path.join(ROOT, "target", "dist", "shotty")]
    examples = os.path.join(ROOT, "target", "dist", "examples")
    peer = os.path.join(examples, "feed_peer")
    kind = option("--stream", "fixtures")
    mib = int(option("--mib", "50"))
    for binary in shottys + [peer] + ([] if kind == "fixtures" else [os.path.join(examples, "bench_stream")]):
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"{binary} is missing: build it first (see the docstring)")
    env = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
    with tempfile.TemporaryDirectory(prefix="shotty-emulator-") as tmp:
        stream = os.path.join(tmp, f"{kind}{mib}.bin")
        if kind == "fixtures":
            fixtures = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "*.bin")))
            data = b"".join(open(f, "rb").read() for f in fixtures)
            with open(stream, "wb") as out:
                while out.tell() < mib * MIB:
                    out.write(data)
        else:
            subprocess.run([os.path.join(examples, "bench_stream"), kind, str(mib), width, height,
                            stream], check=True)
        size = os.path.getsize(stream)
        commands = {
            f"shotty {b}" if len(shottys) > 1 else "shotty": [
                b, "render", stream, "--width", width, "--height", height, "--format", "txt",
                "-o", "/dev/null"]
            for b in shottys
        }
        commands["alacritty_terminal"] = [peer, "alacritty", stream, width, height]
        commands["vt100"] = [peer, "vt100", stream, width, height]
        times = {name: [] for name in commands}
        for _ in range(rounds):
            for name, argv in commands.items():
                start = time.perf_counter()
                subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
                times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(t) for name, t in times.items()}
    print(f"{size / MIB:.1f} MiB {kind} stream at {width}x{height}, {rounds} interleaved rounds, median")
    print("| emulator (whole process) | median | fastest | MiB/s | vs alacritty | vs vt100 |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, median in medians.items():
        print(f"| {name} | {median * 1000:.0f} ms | {min(times[name]) * 1000:.0f} ms |"
              f" {size / MIB / median:.0f} | {medians['alacritty_terminal'] / median:.2f}× |"
              f" {medians['vt100'] / median:.2f}× |")


if __name__ == "__main__":
    main()
