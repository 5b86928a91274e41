#!/usr/bin/env python3
"""Summarise criterion results of `cargo bench --bench emulator` as a Markdown table.

Reads target/criterion/<stream>_<size>/<emulator>/new/{benchmark,estimates}.json and prints
MiB/s per emulator (from the median time) and shotty's ratio to each peer.
Usage: python3 benches/report.py [target/criterion]
"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
PEERS = ["shotty", "alacritty", "vt100"]
results = {}
for bench in root.glob("*/*/new/benchmark.json"):
    meta = json.loads(bench.read_text())
    est = json.loads((bench.parent / "estimates.json").read_text())
    group, emulator = meta["group_id"], meta["function_id"]
    if emulator not in PEERS:
        continue
    nbytes = meta["throughput"]["Bytes"]
    seconds = est["median"]["point_estimate"] / 1e9
    results.setdefault(group, {})[emulator] = nbytes / seconds / (1 << 20)

def order(group):
    stream, size = group.split("/")
    streams = ["mixed", "ascii", "sgr", "ls_color", "tui_redraw", "scroll_region", "unicode"]
    return (size != "80x24", streams.index(stream) if stream in streams else 99)

print("| stream | size | shotty MiB/s | alacritty MiB/s | vt100 MiB/s | shotty / alacritty | shotty / vt100 |")
print("|---|---|---:|---:|---:|---:|---:|")
for group in sorted(results, key=order):
    r = results[group]
    if not all(p in r for p in PEERS):
        continue
    stream, size = group.split("/")
    print(f"| {stream} | {size} | {r['shotty']:.0f} | {r['alacritty']:.0f} | {r['vt100']:.0f} "
          f"| {r['shotty'] / r['alacritty']:.2f}× | {r['shotty'] / r['vt100']:.2f}× |")
