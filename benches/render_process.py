#!/usr/bin/env python3
"""Whole-process SVG rendering speed: `shotty render` against termsnap on the ten real screens
of benches/svg_size.py (the same SGR-only screen file for both), interleaved in one run.

  cargo build --profile dist
  python3 benches/render_process.py [--rounds N] [--termsnap BIN] [--shotty BIN ...]
  python3 benches/render_process.py --format png --shotty BEFORE --shotty AFTER [--rounds N]

termsnap is `cargo install --locked termsnap --root …` (svg_size.py installs it into its work
directory; pass --termsnap, or it is looked for on PATH). Each round runs every command once
per screen, in turn, so drifting machine load hits every tool alike. Prints, per screen and in
the sum, the median wall time of each command and the ratio termsnap / shotty (above 1: shotty
is faster), and the geometric mean and median of the per-screen ratios. Several --shotty
binaries (a change's before and after) run in the same loop. With `--format png` termsnap
(which writes no PNG) is left out and the ratios are the first shotty's time over each one's.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg_size import FIXTURES, INPUTS, fixture_bytes, screen_as_sgr  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def option(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def timed(argv, stdin_path):
    with open(stdin_path, "rb") as stdin:
        start = time.perf_counter()
        subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - start


def main():
    rounds = int(option("--rounds", "31"))
    fmt = option("--format", "svg")
    termsnap = option("--termsnap", shutil.which("termsnap"))
    if fmt == "svg" and not termsnap:
        raise SystemExit("termsnap not found: pass --termsnap BIN (see the docstring)")
    shottys = [a for i, a in enumerate(sys.argv) if i > 0 and sys.argv[i - 1] == "--shotty"]
    shottys = shottys or [os.path.join(ROOT, "target", "dist", "shotty")]
    manifest = {e["name"]: e for e in json.loads((FIXTURES / "manifest.json").read_text())}
    env = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
    with tempfile.TemporaryDirectory(prefix="shotty-render-process-") as tmp:
        cases = []
        for name, alt in INPUTS:
            w, h = manifest[name]["width"], manifest[name]["height"]
            raw = os.path.join(tmp, f"{name}.bin")
            with open(raw, "wb") as f:
                f.write(fixture_bytes(name, alt))
            snapshot = subprocess.run(
                [shottys[0], "render", "--width", str(w), "--height", str(h), "--format",
                 "json", raw], check=True, capture_output=True, env=env).stdout
            screen = os.path.join(tmp, f"{name}.ans")
            with open(screen, "wb") as f:
                f.write(screen_as_sgr(json.loads(snapshot)))
            commands = {
                (f"shotty {b}" if len(shottys) > 1 else "shotty"): [
                    b, "render", "--width", str(w), "--height", str(h), "-o",
                    os.path.join(tmp, f"out.{fmt}"), "-"]
                for b in shottys
            }
            if fmt == "svg":
                commands["termsnap"] = [termsnap, "-c", str(w), "-l", str(h), "-o",
                                        os.path.join(tmp, "termsnap.svg")]
            cases.append((name, screen, commands))
        times = {(name, tool): [] for name, _, commands in cases for tool in commands}
        for _ in range(rounds):
            for name, screen, commands in cases:
                for tool, argv in commands.items():
                    times[(name, tool)].append(timed(argv, screen))
        tools = list(cases[0][2])
        reference = "termsnap" if fmt == "svg" else tools[0]
        print(f"median of {rounds} rounds, whole process, {fmt.upper()}, ms")
        shotty_tools = [t for t in tools if t != reference]
        print("| screen | " + " | ".join(tools) + " | "
              + " | ".join(f"{reference} / {t}" for t in shotty_tools) + " |")
        print("|---|" + "---:|" * (len(tools) + len(shotty_tools)))
        totals = {tool: 0.0 for tool in tools}
        ratios = {tool: [] for tool in shotty_tools}
        for name, _, _ in cases:
            medians = {tool: statistics.median(times[(name, tool)]) for tool in tools}
            for tool in tools:
                totals[tool] += medians[tool]
            for tool in ratios:
                ratios[tool].append(medians[reference] / medians[tool])
            cells = [f"{medians[t] * 1000:.2f}" for t in tools]
            cells += [f"{values[-1]:.2f}×" for values in ratios.values()]
            print(f"| {name} | " + " | ".join(cells) + " |")
        cells = [f"{totals[t] * 1000:.2f}" for t in tools]
        cells += [f"{totals[reference] / totals[t]:.2f}×" for t in shotty_tools]
        print("| **sum of medians** | " + " | ".join(cells) + " |")
        for tool, values in ratios.items():
            print(f"{tool}: {reference} / it per screen: geometric mean "
                  f"{statistics.geometric_mean(values):.2f}×, median "
                  f"{statistics.median(values):.2f}×, range {min(values):.2f}–{max(values):.2f}×")


if __name__ == "__main__":
    main()
