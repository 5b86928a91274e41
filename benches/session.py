#!/usr/bin/env python3
"""Session benchmarks (issue: session host), against tmux on the same machine.

  cargo build --profile dist && python3 benches/session.py [--quick]

(a) CLI round trip: `shotty session send --text` + `shotty session read`, vs
    `tmux send-keys` + `tmux capture-pane -p`; medians over N rounds, ratio reported.
(b) `wait` reaction: from the child printing a marker (its own timestamp) to the CLI returning.
(c) 100 idle bash sessions: host RSS and CPU over 5 s of idleness.
(d) `cat` of 100 MiB of mixed output: drain throughput of a session, against the emulator's own
    rate on the same bytes, a bare PTY (`script`, no emulator; and a reader of the master that
    does nothing else, with the bytes each read returns) and a tmux pane.
Everything runs in a private runtime directory; sessions and the tmux server are cleaned up.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOTTY = os.path.join(ROOT, "target", "dist", "shotty")
QUICK = "--quick" in sys.argv
ROUNDS = 20 if QUICK else 200  # issue 15 asks for the median of 200 interleaved rounds

tmp = tempfile.mkdtemp(prefix="shotty-bench-")
env = dict(os.environ, SHOTTY_RUNTIME_DIR=os.path.join(tmp, "run"),
           SHOTTY_STATE_DIR=os.path.join(tmp, "state"), SHOTTY_HOST_IDLE_MS="20000")


def session(*args, check=True):
    out = subprocess.run([SHOTTY, "session", *args], env=env, capture_output=True, text=True)
    doc = json.loads(out.stdout)
    if check and doc.get("status") != "ok":
        raise SystemExit(f"shotty session {args}: {doc}")
    return doc


def ms(seconds):
    return f"{seconds * 1000:.2f} ms"


def host_pid():
    import socket
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.path.join(env["SHOTTY_RUNTIME_DIR"], "host.sock"))
    f = s.makefile("rw")
    f.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    f.flush()
    return json.loads(f.readline())["result"]["pid"]


def round_trip():
    """Rounds alternate between shotty and tmux, so drifting machine load hits both alike.
    Each read is checked to show the line just sent and cat's copy of it."""
    sid = session("start", "--", "cat")["sessionId"]
    sock = os.path.join(tmp, "tmux.sock")
    subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-x", "100", "-y", "24", "cat"], check=True)
    time.sleep(0.3)
    samples, tmux = [], []
    stale = {"shotty": 0, "tmux": 0}
    for i in range(ROUNDS):
        line = f"x{i}"
        t = time.perf_counter()
        session("send", sid, "--text", f"{line}\r")
        text = session("read", sid)["screen"]["text"]
        samples.append(time.perf_counter() - t)
        stale["shotty"] += f"{line}\n{line}\n" not in text
        t = time.perf_counter()
        subprocess.run(["tmux", "-S", sock, "send-keys", "-t", "0", line, "Enter"], check=True)
        text = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p", "-t", "0"], check=True,
                              capture_output=True, text=True).stdout
        tmux.append(time.perf_counter() - t)
        stale["tmux"] += f"{line}\n{line}\n" not in text
    session("stop", sid)
    subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
    a, b = statistics.median(samples), statistics.median(tmux)
    print(f"(a) send+read round trip, median of {ROUNDS}: shotty {ms(a)}, tmux {ms(b)}: "
          f"{a / b:.2f}x tmux (target <= 1.0x); reads missing the reply: shotty {stale['shotty']}, "
          f"tmux {stale['tmux']}")
    return a, b


def wait_latency():
    """bash prints the marker with its own clock reading ($EPOCHREALTIME, taken by the same
    builtin that writes the line); the latency runs from there to the CLI having returned."""
    import re
    fifo = os.path.join(tmp, "go")
    os.mkfifo(fifo)
    script = f'while :; do read x < {fifo}; printf "MARK-%s %s\\n" "$x" "$EPOCHREALTIME"; done'
    sid = session("start", "--", "bash", "--norc", "--noprofile", "-c", script)["sessionId"]
    time.sleep(0.3)
    samples = []
    for i in range(20 if QUICK else 50):
        waiter = subprocess.Popen([SHOTTY, "session", "wait", sid, "--text", f"MARK-{i} ", "--timeout", "10s"],
                                  env=env, stdout=subprocess.PIPE)
        time.sleep(0.05)  # the wait is parked on the host
        with open(fifo, "w") as f:
            f.write(f"{i}\n")
        out, _ = waiter.communicate()
        done = time.time()
        text = json.loads(out)["screen"]["text"]
        printed = float(re.search(rf"MARK-{i} ([0-9.]+)", text).group(1))
        samples.append(done - printed)
    session("stop", sid)
    m = statistics.median(samples)
    print(f"(b) wait reaction, median of {len(samples)}: {ms(m)} (target <= 10 ms; from bash's clock "
          f"reading as it prints the marker to the CLI process having exited)")
    return m


def idle_sessions():
    ids = [session("start", "--", "bash", "--norc", "--noprofile", "-i")["sessionId"] for _ in range(100)]
    time.sleep(2)
    pid = host_pid()

    def cpu():
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss():
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    c0 = cpu()
    time.sleep(5)
    used = cpu() - c0
    r = rss()
    for sid in ids:
        session("stop", sid, check=False)
    print(f"(c) 100 idle bash sessions: host RSS {r:.1f} MB (target <= 200 MB), CPU over 5 s idle: "
          f"{used:.2f} s = {used / 5 * 100:.1f}% of one core")
    return r, used


def drain():
    """The same 100 MiB through: the emulator alone (`shotty render`, no PTY), a bare PTY
    (`script` copying it to /dev/null, no emulator; a reader that only counts), a shotty
    session, and a tmux pane."""
    data = os.path.join(tmp, "mixed.bin")
    size = 100 * 1024 * 1024
    chunk = (b"\x1b[1;32mok\x1b[0m plain text line with some words in it \x1b[38;5;208mcolour\x1b[0m\r\n"
             b"\x1b[31merror\x1b[0m: \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e and more text to wrap a little\r\n") * 64
    with open(data, "wb") as f:
        written = 0
        while written < size:
            f.write(chunk)
            written += len(chunk)
    mib = written / (1 << 20)

    def rate(seconds):
        return mib / seconds

    t = time.perf_counter()
    subprocess.run([SHOTTY, "render", data, "--width", "100", "--height", "24", "--format", "txt",
                    "-o", os.devnull], check=True)
    emulator = rate(time.perf_counter() - t)

    # util-linux `script` copies a PTY to its output in a C poll loop: the PTY's own ceiling.
    t = time.perf_counter()
    subprocess.run(["script", "-q", "-c", f"cat {data}", os.devnull], check=True,
                   stdout=subprocess.DEVNULL)
    bare_pty = rate(time.perf_counter() - t)

    # The same through a reader that does nothing but read the master into one buffer (64 KiB
    # at a time, no allocation per read): what the kernel's PTY delivers, and in how large pieces.
    master, slave = os.openpty()
    buffer = bytearray(1 << 16)
    t = time.perf_counter()
    cat = subprocess.Popen(["cat", data], stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    received = reads = 0
    while True:
        try:
            n = os.readv(master, [buffer])
        except OSError:  # EIO: the slave side is closed
            break
        if not n:
            break
        received += n
        reads += 1
    cat.wait()
    bare_reader = rate(time.perf_counter() - t)
    os.close(master)

    t = time.perf_counter()
    sid = session("start", "--width", "100", "--height", "24", "--", "cat", data)["sessionId"]
    session("wait", sid, "--exit", "--timeout", "10m")
    shotty = rate(time.perf_counter() - t)
    session("stop", sid, check=False)

    sock = os.path.join(tmp, "tmux-drain.sock")
    go = os.path.join(tmp, "tmux-go")
    os.mkfifo(go)
    subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-x", "100", "-y", "24",
                    f"read x < {go}; cat {data}; tmux -S {sock} wait-for -S done; sleep 60"],
                   check=True)
    waiter = subprocess.Popen(["tmux", "-S", sock, "wait-for", "done"])
    time.sleep(0.3)
    t = time.perf_counter()
    with open(go, "w") as f:
        f.write("go\n")
    waiter.wait()
    tmux = rate(time.perf_counter() - t)
    subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)

    print(f"(d) {mib:.0f} MiB of mixed output: emulator alone {emulator:.0f} MiB/s; bare PTY "
          f"(script) {bare_pty:.0f} MiB/s ({bare_pty / emulator:.0%} of the emulator); a bare "
          f"reader {bare_reader:.0f} MiB/s ({bare_reader / emulator:.0%}), "
          f"{received / max(reads, 1):.0f} bytes a read; shotty "
          f"session {shotty:.0f} MiB/s = {shotty / emulator:.0%} of the emulator (target >= 50%), "
          f"{shotty / bare_pty:.0%} of the bare PTY; tmux {tmux:.0f} MiB/s")
    return shotty


if __name__ == "__main__":
    if not os.path.exists(SHOTTY):
        raise SystemExit("build first: cargo build --profile dist")
    for tool, package in (("tmux", "tmux"), ("script", "util-linux")):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is needed (apt-get install {package})")
    try:
        round_trip()
        wait_latency()
        idle_sessions()
        drain()
    finally:
        subprocess.run([SHOTTY, "session", "stop", "--all", "--yes"], env=env, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
