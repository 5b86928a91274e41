#!/usr/bin/env python3
"""SVG size: shotty against termtosvg, rich and termsnap on the same screens.

Installs termtosvg and rich from PyPI (a virtualenv) and termsnap from crates.io
(`cargo install --locked termsnap --root …`) into a work directory (a new temporary one unless
--work DIR is given, which is reused on later runs), builds shotty with the dist profile, and
renders the final screen of a few recorded fixtures with every tool at the fixture's size.

The same input for every tool: each fixture (cut before its last alternate-screen exit where
it has one, as the golden tests do) is played into shotty's emulator, and the final screen is
written back out as plain lines of text with SGR colours and attributes (no cursor motion, no
alternate screen), so tools whose emulators differ (rich only understands SGR; pyte has no
alternate screen) still draw the same cells:

- shotty:    `shotty render --width W --height H screen.ans` (default, --no-metadata,
             --embed-font)
- termtosvg: an asciicast v2 file holding the bytes as one event, `termtosvg render -s`
             (the still frame)
- rich:      `Console(record=True, width=W).print(Text.from_ansi(...))`, `save_svg`
- termsnap:  `termsnap -c W -l H < screen.ans`

Prints a Markdown table of bytes per tool per input (and gzip -9 sizes).
Usage: python3 benches/svg_size.py [--work DIR] [--keep] [--shotty BIN]
"""
import argparse
import gzip
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
# (fixture, cut before the last alternate-screen exit)
INPUTS = [
    ("ls_color", False),
    ("git_log_graph", False),
    ("rich_table", False),
    ("emoji_cjk", False),
    ("htop", True),
    ("vim_split_number", True),
    ("dialog_menu", True),
    ("colors_256", False),
    ("less_search", True),
    ("top", False),
    ("bash_line_editing", False),
    ("bash_wrap_40", False),
    ("python_repl", False),
]
ALT_EXITS = [b"\x1b[?1049l", b"\x1b[?1047l", b"\x1b[?47l"]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def install(work: pathlib.Path):
    """The tools, installed once per work directory; a tool that fails is None."""
    tools = {}
    venv = work / "venv"
    py = venv / "bin" / "python"
    if not py.exists():
        run([sys.executable, "-m", "venv", str(venv)])
    try:
        run([str(py), "-m", "pip", "install", "-q", "termtosvg", "rich"],
            stdout=subprocess.DEVNULL)
        tools["termtosvg"] = venv / "bin" / "termtosvg"
        tools["rich"] = py
    except subprocess.CalledProcessError as e:
        print(f"pip install failed: {e}", file=sys.stderr)
    termsnap = work / "termsnap" / "bin" / "termsnap"
    if not termsnap.exists():
        try:
            run(["cargo", "install", "--locked", "--quiet", "termsnap", "--root", str(work / "termsnap")],
                env={**os.environ, "CARGO_TARGET_DIR": str(work / "termsnap-target")})
        except subprocess.CalledProcessError as e:
            print(f"termsnap is not installable from crates.io here: {e}", file=sys.stderr)
    tools["termsnap"] = termsnap if termsnap.exists() else None
    return tools


def fixture_bytes(name, alt):
    data = (FIXTURES / f"{name}.bin").read_bytes()
    if alt:
        cut = max(data.rfind(p) for p in ALT_EXITS)
        data = data[:cut]
    return data


def color_sgr(value, fg):
    """SGR parameters for a snapshot colour: an index or "#rrggbb"."""
    if isinstance(value, int):
        if value < 8:
            return [str((30 if fg else 40) + value)]
        if value < 16:
            return [str((90 if fg else 100) + value - 8)]
        return ["38" if fg else "48", "5", str(value)]
    r, g, b = (int(value[i:i + 2], 16) for i in (1, 3, 5))
    return ["38" if fg else "48", "2", str(r), str(g), str(b)]


UNDERLINES = {"single": "4", "double": "21", "curly": "4:3", "dotted": "4:4", "dashed": "4:5"}


def style_sgr(style):
    params = ["0"]
    for key, code in [("bold", "1"), ("dim", "2"), ("italic", "3"), ("blink", "5"),
                      ("inverse", "7"), ("hidden", "8"), ("strike", "9"), ("overline", "53")]:
        if style.get(key):
            params.append(code)
    if "underline" in style:
        params.append(UNDERLINES.get(style["underline"], "4"))
    if "fg" in style:
        params += color_sgr(style["fg"], True)
    if "bg" in style:
        params += color_sgr(style["bg"], False)
    return "\x1b[" + ";".join(params) + "m"


def screen_as_sgr(snapshot):
    """The snapshot's screen as lines of text with SGR styling; no newline after the last row
    (it would scroll)."""
    styles = snapshot["styles"]
    lines = []
    for row in snapshot["rows"]:
        out, current = [], 0
        for cell in row["cells"]:
            if cell.get("w", 1) == 0:
                continue
            s = cell.get("s", 0)
            if s != current:
                out.append(style_sgr(styles[s]))
                current = s
            out.append(cell["t"] or " ")
        if current != 0:
            out.append("\x1b[0m")
        lines.append("".join(out).rstrip(" ") if current == 0 else "".join(out))
    return "\r\n".join(lines).encode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", help="work directory (kept and reused)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary work directory")
    ap.add_argument("--shotty", help="a shotty binary to measure (another build, for a before/after "
                    "comparison) instead of building this checkout")
    args = ap.parse_args()
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="shotty-svg-size-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        tools = install(work)
        if args.shotty:
            shotty = pathlib.Path(args.shotty).resolve()
        else:
            run(["cargo", "build", "--profile", "dist", "--quiet"], cwd=ROOT)
            shotty = ROOT / "target" / "dist" / "shotty"
        manifest = {e["name"]: e for e in json.loads((FIXTURES / "manifest.json").read_text())}
        rich_script = work / "rich_svg.py"
        rich_script.write_text(
            "import sys\n"
            "from rich.console import Console\n"
            "from rich.text import Text\n"
            "src, out, width = sys.argv[1], sys.argv[2], int(sys.argv[3])\n"
            "c = Console(record=True, width=width, force_terminal=True,\n"
            "            color_system='truecolor', file=open('/dev/null', 'w'))\n"
            "c.print(Text.from_ansi(open(src, encoding='utf-8').read()), end='')\n"
            "c.save_svg(out, title='')\n")
        columns = ["shotty", "shotty --no-metadata", "shotty --embed-font", "termtosvg",
                   "rich", "termsnap"]
        results = {}
        for name, alt in INPUTS:
            w, h = manifest[name]["width"], manifest[name]["height"]
            d = work / name
            d.mkdir(exist_ok=True)
            raw = d / "raw.bin"
            raw.write_bytes(fixture_bytes(name, alt))
            snap = subprocess.run(
                [str(shotty), "render", "--width", str(w), "--height", str(h),
                 "--format", "json", str(raw)], check=True, capture_output=True).stdout
            screen = d / "screen.ans"
            screen.write_bytes(screen_as_sgr(json.loads(snap)))
            sizes = {}

            def shotty_svg(label, *extra):
                out = d / f"{label}.svg"
                run([str(shotty), "render", "--width", str(w), "--height", str(h), *extra,
                     "-o", str(out), str(screen)])
                sizes[label] = out

            shotty_svg("shotty")
            shotty_svg("shotty --no-metadata", "--no-metadata")
            shotty_svg("shotty --embed-font", "--embed-font")
            if "termtosvg" in tools:
                cast = d / "screen.cast"
                header = {"version": 2, "width": w, "height": h}
                event = [0.0, "o", screen.read_bytes().decode()]
                cast.write_text(json.dumps(header) + "\n" + json.dumps(event) + "\n")
                frames = d / "termtosvg"
                shutil.rmtree(frames, ignore_errors=True)
                try:
                    run([str(tools["termtosvg"]), "render", str(cast), str(frames), "-s"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    # One event, one frame.
                    sizes["termtosvg"] = sorted(frames.glob("*.svg"))[-1]
                except subprocess.CalledProcessError:
                    print(f"termtosvg failed on {name}", file=sys.stderr)
            if "rich" in tools:
                out = d / "rich.svg"
                run([str(tools["rich"]), str(rich_script), str(screen), str(out), str(w)])
                sizes["rich"] = out
            if tools.get("termsnap"):
                out = d / "termsnap.svg"
                with open(screen, "rb") as stdin:
                    run([str(tools["termsnap"]), "-c", str(w), "-l", str(h), "-o", str(out)],
                        stdin=stdin)
                sizes["termsnap"] = out
            results[(name, w, h)] = sizes

        def table(measure, unit):
            print(f"| input | size | " + " | ".join(columns) + " |")
            print("|---|---|" + "---:|" * len(columns))
            for (name, w, h), sizes in results.items():
                cells = []
                plain = measure(sizes["shotty --no-metadata"])
                others = [measure(p) for k, p in sizes.items() if not k.startswith("shotty")]
                for col in columns:
                    if col not in sizes:
                        cells.append("n/a")
                        continue
                    v = measure(sizes[col])
                    mark = "**" if col == "shotty --no-metadata" and all(
                        plain <= o for o in others) else ""
                    cells.append(f"{mark}{v:,}{mark}")
                print(f"| {name} | {w}x{h} | " + " | ".join(cells) + " |")
            print(f"\n({unit}; bold: shotty --no-metadata smallest of all tools)\n")

        table(lambda p: p.stat().st_size, "bytes")
        gzipped = lambda p: len(gzip.compress(p.read_bytes(), 9))
        table(gzipped, "bytes after gzip -9")
        if all(s.get("termsnap") for s in results.values()):
            ratios = sorted(gzipped(s["shotty --no-metadata"]) / gzipped(s["termsnap"])
                            for s in results.values())
            middle = len(ratios) // 2
            median = (ratios[middle] if len(ratios) % 2
                      else (ratios[middle - 1] + ratios[middle]) / 2)
            print(f"gzipped shotty --no-metadata / termsnap: median {median:.2f}, "
                  f"range {ratios[0]:.2f}–{ratios[-1]:.2f} over {len(ratios)} screens")
        print(f"work directory: {work}", file=sys.stderr)
    finally:
        if not (args.work or args.keep):
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
