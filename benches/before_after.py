#!/usr/bin/env python3
"""Whole-process comparison of two shotty binaries (a change's before and after), interleaved
in one run so drifting load on a shared machine hits both alike; tmux in the same loop for
the session round trip.

  python3 benches/before_after.py OLD_BINARY NEW_BINARY [--rounds N] [--session-only]

Measures, median wall time per command:
  emulator   `render` of a 50 MiB stream (every fixture, repeated) at 200x50 to text
  svg        `render` of each recorded fixture to SVG (the sum over the fixtures)
  capture    `capture -o x.svg -- true`
  session    `session send --text` + `session read` against a `cat` session; tmux's
             `send-keys` + `capture-pane -p` alternating with both (5 x N rounds; the only
             measurement with --session-only)
"""
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(argv, **kwargs):
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - start


def interleave(binaries, rounds, run):
    """`run(binary)` for each binary in turn, `rounds` times; medians in ms per binary."""
    times = {b: [] for b in binaries}
    for _ in range(rounds):
        for b in binaries:
            times[b].append(run(b))
    return {b: statistics.median(t) * 1000 for b, t in times.items()}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = 20
    if "--rounds" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1])
        args = [a for a in args if a != str(rounds)]
    if len(args) != 2:
        raise SystemExit(__doc__)
    old, new = (os.path.abspath(a) for a in args)
    binaries = [old, new]
    tmp = tempfile.mkdtemp(prefix="shotty-before-after-")
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(tmp, "no-config"))
    fixtures = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "*.bin")))
    results = []
    try:
        if "--session-only" not in sys.argv:
            stream = os.path.join(tmp, "mixed50.bin")
            with open(stream, "wb") as out:
                data = b"".join(open(f, "rb").read() for f in fixtures)
                while out.tell() < 50 << 20:
                    out.write(data)
            results.append(("emulator: render 50 MiB at 200x50 to txt", interleave(
                binaries, max(rounds // 2, 3), lambda b: timed(
                    [b, "render", stream, "--width", "200", "--height", "50", "--format", "txt",
                     "-o", "/dev/null"], env=env))))
            results.append((f"svg: render the {len(fixtures)} fixtures to SVG (sum)", interleave(
                binaries, rounds, lambda b: sum(timed(
                    [b, "render", f, "--format", "svg", "-o", "/dev/null"], env=env)
                    for f in fixtures))))
            svg = os.path.join(tmp, "x.svg")
            results.append(("capture -o x.svg -- true", interleave(
                binaries, rounds * 2, lambda b: timed(
                    [b, "capture", "-o", svg, "--", "true"], env=env, cwd=tmp))))
        results.append(("session send + read (cat)", session_round_trip(
            binaries, tmp, rounds * 5)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"| measurement | before | after | after / before |")
    print(f"|---|---:|---:|---:|")
    for name, medians in results:
        extra = ""
        if "tmux" in medians:
            extra = (f" (tmux {medians['tmux']:.2f} ms: before {medians[old] / medians['tmux']:.2f}×,"
                     f" after {medians[new] / medians['tmux']:.2f}× tmux)")
        print(f"| {name}{extra} | {medians[old]:.2f} ms | {medians[new]:.2f} ms |"
              f" {medians[new] / medians[old]:.3f} |")


def session_round_trip(binaries, tmp, rounds):
    """One host per binary, each in its own runtime directory, and a tmux server."""
    envs, ids = {}, {}
    for i, b in enumerate(binaries):
        envs[b] = dict(os.environ, SHOTTY_RUNTIME_DIR=os.path.join(tmp, f"run{i}"),
                       SHOTTY_STATE_DIR=os.path.join(tmp, f"state{i}"),
                       SHOTTY_HOST_IDLE_MS="60000")
        out = subprocess.run([b, "session", "start", "--", "cat"], env=envs[b],
                             capture_output=True, text=True, check=True)
        ids[b] = json.loads(out.stdout)["sessionId"]
    sock = os.path.join(tmp, "tmux.sock")
    subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-x", "100", "-y", "24", "cat"],
                   check=True)
    counter = [0]

    def one(b):
        counter[0] += 1
        text = f"line-{counter[0]}"
        start = time.perf_counter()
        if b == "tmux":
            subprocess.run(["tmux", "-S", sock, "send-keys", "-t", "0", text, "Enter"],
                           check=True)
            subprocess.run(["tmux", "-S", sock, "capture-pane", "-p", "-t", "0"], check=True,
                           stdout=subprocess.DEVNULL)
        else:
            subprocess.run([b, "session", "send", ids[b], "--text", text + "\r"], env=envs[b],
                           check=True, stdout=subprocess.DEVNULL)
            subprocess.run([b, "session", "read", ids[b]], env=envs[b], check=True,
                           stdout=subprocess.DEVNULL)
        return time.perf_counter() - start

    try:
        return interleave(binaries + ["tmux"], rounds, one)
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], check=False)
        for b in binaries:
            subprocess.run([b, "session", "stop", ids[b]], env=envs[b], check=False,
                           capture_output=True)


if __name__ == "__main__":
    main()
