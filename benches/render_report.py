#!/usr/bin/env python3
"""Summarise criterion results of `cargo bench --bench render` as a Markdown table.

Reads target/criterion/render_<size>/<stage>/new/{benchmark,estimates}.json and prints the
median time of every stage per screen size.
Usage: python3 benches/render_report.py [target/criterion]
"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
STAGES = ["layout", "svg", "svg_no_metadata", "png", "png_first", "png_fast", "rasterize",
          "rasterize_resvg", "encode_default", "encode_fast"]
results = {}
for bench in root.glob("*/*/new/benchmark.json"):
    meta = json.loads(bench.read_text())
    group, stage = meta["group_id"], meta["function_id"]
    if not group.startswith("render/") or stage not in STAGES:
        continue
    est = json.loads((bench.parent / "estimates.json").read_text())
    results.setdefault(group.split("/", 1)[1], {})[stage] = est["median"]["point_estimate"] / 1e6


def fmt(ms):
    return f"{ms * 1000:.0f} µs" if ms < 1 else f"{ms:.2f} ms"


sizes = sorted(results, key=lambda s: [int(n) for n in s.split("x")])
print("| stage | " + " | ".join(sizes) + " |")
print("|---|" + "---:|" * len(sizes))
for stage in STAGES:
    print(f"| {stage} | " + " | ".join(fmt(results[s][stage]) if stage in results[s] else "–"
                                       for s in sizes) + " |")
