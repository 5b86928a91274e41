#!/usr/bin/env python3
"""Records docs/demo.cast, the README's animation, through a background shotty session:
a shell in which `ls` runs, then a rich progress bar, typed a key at a time.

Run from the repository root with a built shotty (target/release/shotty) and python3 with
rich. The session runs in a temporary project directory with its own HOME and runtime
directory; the cast is written to docs/demo.cast. docs/generate-images.sh renders it.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOTTY = os.path.join(ROOT, "target", "release", "shotty")

PROGRESS = '''import time
from rich.progress import track
from rich.console import Console
console = Console(force_terminal=True, width=72)
for _ in track(range(30), description="[cyan]Rendering frames", console=console):
    time.sleep(0.05)
console.print("[bold green]✔[/] wrote [bold]demo.gif[/] (30 frames)")
'''


def main():
    with tempfile.TemporaryDirectory() as tmp:
        proj = os.path.join(tmp, "proj")
        for d in ("home", "run", "proj/src", "proj/docs"):
            os.makedirs(os.path.join(tmp, d), mode=0o700)
        for f in ("Cargo.toml", "README.md", "src/main.rs", "src/lib.rs", "docs/guide.md"):
            open(os.path.join(proj, f), "w").close()
        with open(os.path.join(proj, "progress.py"), "w") as f:
            f.write(PROGRESS)
        env = dict(os.environ, HOME=os.path.join(tmp, "home"),
                   SHOTTY_RUNTIME_DIR=os.path.join(tmp, "run"))

        def session(*args):
            out = subprocess.run([SHOTTY, "session", *args], capture_output=True, text=True,
                                 env=env, check=True).stdout
            return json.loads(out)

        sid = session("start", "--width", "72", "--height", "14", "--cwd", proj,
                      "--env", "PS1=\\[\\e[1;32m\\]~/proj\\[\\e[0m\\] $ ",
                      "--", "bash", "--norc", "--noprofile")["sessionId"]
        try:
            time.sleep(0.8)

            def type_line(text):
                for ch in text:
                    session("send", sid, "--text", ch)
                    time.sleep(0.07)
                time.sleep(0.3)
                session("send", sid, "--keys", "Enter")

            type_line("ls --color=always -F")
            time.sleep(1.2)
            type_line("python3 progress.py")
            session("wait", sid, "--regex", "wrote", "--timeout", "20s")
            time.sleep(1.5)
            session("mark", sid, "--label", "done")
            session("export", sid, "-o", os.path.join(ROOT, "docs", "demo.cast"))
        finally:
            session("stop", sid)


if __name__ == "__main__":
    sys.exit(main())
