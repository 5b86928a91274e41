#!/usr/bin/env python3
"""VHS tapes: shotty's GIF against agg's GIF of the same run, on tapes from VHS's examples.

For each tape (from a VHS checkout's `examples/`, run unchanged but for its `Output` lines,
which are replaced by one GIF and one asciicast), this runs `shotty tape` as a whole process
and measures its wall time, peak memory (max RSS), the GIF's size and its length against the
length the tape scripts (`shotty tape --check` prints it: typing, keys and sleeps; these tapes
have no `Wait`). Then agg (asciinema's GIF renderer, the reference encoder) turns shotty's
asciicast of the same run into a GIF, measured the same way: the cast is on the tape's clock,
so agg gets the same timing to encode.

GIF lengths are read with Pillow (an independent decoder). VHS itself needs ttyd, ffmpeg and a
browser, which this machine does not have; its figures are not measured here.

Usage:
  python3 benches/tape.py --vhs VHS_CHECKOUT --shotty target/release/shotty \
      --agg PATH/TO/agg [--runs 3] [TAPE …]
TAPE: paths under the checkout (default: five tapes that need only bash).
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

DEFAULT_TAPES = [
    "examples/demo.tape",
    "examples/commands/hide.tape",
    "examples/commands/type.tape",
    "examples/settings/set-window-bar.tape",
    "examples/settings/set-typing-speed.tape",
]

# Reads a GIF: its frame count and total length in ms.
PILLOW = """
import json, sys
from PIL import Image
im = Image.open(sys.argv[1])
total = 0
for i in range(im.n_frames):
    im.seek(i)
    total += im.info.get("duration", 0)
print(json.dumps({"frames": im.n_frames, "ms": total, "size": list(im.size)}))
"""


def timed(cmd, cwd):
    """Runs cmd under /usr/bin/time -v: (wall seconds, max RSS MiB)."""
    out = subprocess.run(
        ["/usr/bin/time", "-v", *cmd], cwd=cwd, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {out.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", out.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr)
    hours, minutes, seconds = wall.groups()
    seconds = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    return seconds, int(rss.group(1)) / 1024


def gif_info(python, path):
    out = subprocess.run([python, "-c", PILLOW, str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vhs", required=True, type=pathlib.Path)
    parser.add_argument("--shotty", required=True)
    parser.add_argument("--agg", required=True)
    parser.add_argument("--python", default=sys.executable, help="a Python with Pillow")
    parser.add_argument("--runs", type=int, default=3, help="runs per tool (the median is kept)")
    parser.add_argument("tapes", nargs="*", default=DEFAULT_TAPES)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="shotty-tape-bench-") as tmp:
        work = pathlib.Path(tmp)
        for tape in args.tapes:
            source = (args.vhs / tape).read_text()
            name = pathlib.Path(tape).stem
            body = "\n".join(l for l in source.splitlines() if not l.startswith("Output "))
            (work / f"{name}.tape").write_text(f"Output {name}.gif\nOutput {name}.cast\n{body}\n")
            check = subprocess.run(
                [args.shotty, "tape", "--check", f"{name}.tape"],
                cwd=work, capture_output=True, text=True, check=True,
            ).stdout
            scripted = float(re.search(r"([\d.]+) s scripted", check).group(1)) * 1000
            fps = 50
            match = re.search(r"^Set Framerate (\d+)", source, re.M)
            if match:
                fps = int(match.group(1))
            shotty_runs = sorted(timed([args.shotty, "tape", f"{name}.tape"], work) for _ in range(args.runs))
            shotty_wall, shotty_rss = shotty_runs[len(shotty_runs) // 2]
            shotty_gif = gif_info(args.python, work / f"{name}.gif")
            shotty_bytes = (work / f"{name}.gif").stat().st_size
            shutil.copy(work / f"{name}.cast", work / f"{name}.agg.cast")
            # A cast ends with its last output; the tape's last frame lasts to the tape's end,
            # which agg is told, so both animations are meant to last the scripted time.
            last_event = max(
                json.loads(line)[0]
                for line in (work / f"{name}.cast").read_text().splitlines()[1:]
            )
            hold = max(scripted / 1000 - last_event, 0)
            agg_cmd = [
                args.agg, "--fps-cap", str(fps), "--idle-time-limit", "1000",
                "--last-frame-duration", f"{hold:.3f}", "--font-size", "22",
                f"{name}.agg.cast", f"{name}.agg.gif",
            ]
            agg_runs = sorted(timed(agg_cmd, work) for _ in range(args.runs))
            agg_wall, agg_rss = agg_runs[len(agg_runs) // 2]
            agg_gif = gif_info(args.python, work / f"{name}.agg.gif")
            agg_bytes = (work / f"{name}.agg.gif").stat().st_size
            rows.append((tape, scripted, fps, shotty_wall, shotty_rss, shotty_bytes, shotty_gif,
                         agg_wall, agg_rss, agg_bytes, agg_gif))
    print("| tape | scripted s | shotty tape s (whole run, in real time) | shotty MiB | "
          "shotty GIF px | shotty GIF bytes | shotty GIF length − scripted | agg s (encode only) | "
          "agg MiB | agg GIF px | agg GIF bytes | agg GIF length − scripted |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (tape, scripted, fps, sw, sr, sb, sg, aw, ar, ab, ag) in rows:
        frame = 1000 / fps
        size = lambda g: f"{g['size'][0]}×{g['size'][1]}"
        print(f"| {tape} | {scripted / 1000:.2f} | {sw:.2f} | {sr:.0f} | {size(sg)} | {sb:,} | "
              f"{sg['ms'] - scripted:+.0f} ms ({(sg['ms'] - scripted) / frame:+.1f} frames) | "
              f"{aw:.2f} | {ar:.0f} | {size(ag)} | {ab:,} | "
              f"{ag['ms'] - scripted:+.0f} ms ({(ag['ms'] - scripted) / frame:+.1f} frames) |")


if __name__ == "__main__":
    main()
