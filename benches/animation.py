#!/usr/bin/env python3
"""Animations, end to end, against the peers in the same run: shotty's GIF against agg
(asciinema's GIF renderer), shotty's animated SVG against svg-term-cli, on the same
recordings at the same frame rate and idle limit. Whole processes, as users run them: wall
time (median of --runs), peak memory (max RSS from /usr/bin/time), bytes and gzipped bytes.

Recordings: docs/demo.cast (14 s, typing and a progress bar), agg's own demo.cast (an
asciinema recording of a fish session, 89x22), rich progress bars (RICH_PROGRESS below: three
bars, a spinner and log lines for about 25 s at 100x30, recorded by `asciinema rec` in the run
when RICH_PYTHON names a Python with rich and asciinema is on PATH), and a generated 30-minute
recording (a build log scrolling for 30 minutes with a progress line) for the memory bound.

The peers are not installed by the project: build agg from its public repository
(`cargo build --profile dist`) and `npm install svg-term-cli`, then point AGG and SVG_TERM at the
binaries. AGG_DEMO is agg's demo.cast (its repository's root).

Usage: AGG=… SVG_TERM=… AGG_DEMO=… RICH_PYTHON=… python3 benches/animation.py [--runs 3]
"""
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOTTY = os.path.join(ROOT, "target", "dist", "shotty")
RUNS = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 3


def v2(path, out):
    """A copy of an asciicast as v2 (svg-term-cli reads only v1 and v2)."""
    lines = open(path).read().splitlines()
    header = json.loads(lines[0])
    if header.get("version") == 2:
        return path
    clock, events = 0.0, []
    for line in lines[1:]:
        if not line.strip() or line.startswith("#"):
            continue
        t, code, data = json.loads(line)
        clock += t
        events.append(json.dumps([round(clock, 6), code, data]))
    with open(out, "w") as f:
        size = {"version": 2, "width": header["term"]["cols"], "height": header["term"]["rows"]}
        f.write("\n".join([json.dumps(size)] + events) + "\n")
    return out


def long_recording(path):
    """30 minutes of a build: a log line every 2 s, a progress line rewritten between them."""
    with open(path, "w") as f:
        f.write(json.dumps({"version": 2, "width": 100, "height": 30}) + "\n")
        t = 0.0
        for i in range(900):
            f.write(json.dumps([round(t, 3), "o",
                                f"\x1b[32m   Compiling\x1b[0m crate-{i} v0.{i % 7}.{i % 13}\r\n"]) + "\n")
            bar = "#" * (i * 40 // 900)
            f.write(json.dumps([round(t + 1, 3), "o",
                                f"\x1b[1m[{bar:<40}]\x1b[0m {i}/900\r"]) + "\n")
            t += 2.0
    return path


# rich's own demo (`python -m rich.progress`) never ends (one of its bars has no total), so
# the recording is of bars that do, the same every run but for timing.
RICH_PROGRESS = """
import time
from rich.progress import Progress, SpinnerColumn, TimeElapsedColumn
with Progress(SpinnerColumn(), *Progress.get_default_columns(), TimeElapsedColumn()) as progress:
    bars = [progress.add_task(name, total=total) for name, total in
            (("[red]Downloading", 1000), ("[green]Processing", 1600), ("[yellow]Thinking", 2000))]
    for step in range(2000):
        for bar in bars:
            progress.update(bar, advance=1)
        if step % 250 == 0:
            progress.log(f"checkpoint {step // 250}: {step} steps")
        time.sleep(0.01)
"""


def rich_progress(python, path):
    """RICH_PROGRESS recorded by asciinema at 100x30; None without asciinema."""
    asciinema = shutil.which("asciinema")
    if asciinema is None:
        print("asciinema is not on PATH: no rich progress recording", file=sys.stderr)
        return None
    script = path + ".py"
    with open(script, "w") as f:
        f.write(RICH_PROGRESS)
    subprocess.run([asciinema, "rec", "--quiet", "--overwrite", "--cols", "100", "--rows", "30",
                    "--command", f"{python} {script}", path],
                   check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return path


def measure(argv):
    """Median wall seconds and the largest max RSS (KiB) of `argv` over RUNS runs."""
    times, rss = [], []
    for _ in range(RUNS):
        out = subprocess.run(["/usr/bin/time", "-f", "%e %M", *argv], capture_output=True,
                             text=True)
        if out.returncode != 0:
            raise SystemExit(f"{argv[0]} failed: {out.stderr[-2000:]}")
        wall, kib = out.stderr.strip().splitlines()[-1].split()
        times.append(float(wall))
        rss.append(int(kib))
    return statistics.median(times), max(rss)


def size(path):
    data = open(path, "rb").read()
    return len(data), len(gzip.compress(data, 9))


def main():
    agg, svg_term, agg_demo = (os.environ.get(k) for k in ("AGG", "SVG_TERM", "AGG_DEMO"))
    with tempfile.TemporaryDirectory() as tmp:
        casts = [("docs/demo.cast", os.path.join(ROOT, "docs/demo.cast"))]
        if agg_demo:
            casts.append(("agg demo.cast", v2(agg_demo, os.path.join(tmp, "agg-demo.cast"))))
        rich_python = os.environ.get("RICH_PYTHON")
        if rich_python:
            rich = rich_progress(rich_python, os.path.join(tmp, "rich-progress.cast"))
            if rich:
                casts.append(("rich progress bars", rich))
        casts.append(("30-minute build", long_recording(os.path.join(tmp, "long.cast"))))
        rows = []
        for name, cast in casts:
            timing = ["--fps", "30", "--idle-time-limit", "3"]
            gif = os.path.join(tmp, "s.gif")
            s_gif = measure([SHOTTY, "render", cast, "-o", gif, *timing]) + size(gif)
            svg = os.path.join(tmp, "s.svg")
            s_svg = measure([SHOTTY, "render", cast, "--video", "-o", svg, *timing]) + size(svg)
            a_gif = t_svg = None
            if agg:
                out = os.path.join(tmp, "a.gif")
                a_gif = measure([agg, "--quiet", "--fps-cap", "30", "--idle-time-limit", "3",
                                 cast, out]) + size(out)
            if svg_term and name != "30-minute build":
                out = os.path.join(tmp, "t.svg")
                t_svg = measure([svg_term, "--in", cast, "--out", out]) + size(out)
            rows.append((name, s_gif, a_gif, s_svg, t_svg))
    print("| recording | output | shotty s | peer s | speed | shotty MiB | peer MiB | shotty bytes | peer bytes | gzipped (shotty / peer) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, s_gif, a_gif, s_svg, t_svg in rows:
        for kind, ours, peer, peer_name in (("GIF", s_gif, a_gif, "agg"), ("SVG", s_svg, t_svg, "svg-term")):
            if peer is None:
                print(f"| {name} | {kind} | {ours[0]:.2f} | – | – | {ours[1] / 1024:.0f} | – | {ours[2]:,} | – | {ours[3]:,} / – |")
                continue
            print(f"| {name} | {kind} vs {peer_name} | {ours[0]:.2f} | {peer[0]:.2f} | {peer[0] / max(ours[0], 0.005):.1f}× | "
                  f"{ours[1] / 1024:.0f} | {peer[1] / 1024:.0f} | {ours[2]:,} | {peer[2]:,} | {ours[3]:,} / {peer[3]:,} |")


if __name__ == "__main__":
    main()
