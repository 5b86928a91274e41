#!/usr/bin/env python3
"""Session benchmarks (issue: session host), against tmux on the same machine.

  cargo build --release && python3 benches/session.py [--quick]

(a) CLI round trip: `shotty session send --text` + `shotty session read`, vs
    `tmux send-keys` + `tmux capture-pane -p`; medians over N rounds, ratio reported.
(b) `wait` reaction: from the child printing a marker (its own timestamp) to the CLI returning.
(c) 100 idle bash sessions: host RSS and CPU over 5 s of idleness.
(d) `cat` of 100 MB of mixed output: drain throughput, against the emulator's own rate.
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
SHOTTY = os.path.join(ROOT, "target", "release", "shotty")
QUICK = "--quick" in sys.argv
ROUNDS = 20 if QUICK else 100

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
    sid = session("start", "--", "cat")["sessionId"]
    samples = []
    for i in range(ROUNDS):
        t = time.perf_counter()
        session("send", sid, "--text", f"x{i}\r")
        session("read", sid)
        samples.append(time.perf_counter() - t)
    session("stop", sid)
    sock = os.path.join(tmp, "tmux.sock")
    subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-x", "100", "-y", "24", "cat"], check=True)
    tmux = []
    for i in range(ROUNDS):
        t = time.perf_counter()
        subprocess.run(["tmux", "-S", sock, "send-keys", "-t", "0", f"x{i}", "Enter"], check=True)
        subprocess.run(["tmux", "-S", sock, "capture-pane", "-p", "-t", "0"], check=True, capture_output=True)
        tmux.append(time.perf_counter() - t)
    subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
    a, b = statistics.median(samples), statistics.median(tmux)
    print(f"(a) send+read round trip, median of {ROUNDS}: shotty {ms(a)}, tmux {ms(b)}: "
          f"{a / b:.2f}x tmux (target <= 1.0x)")
    return a, b


def wait_latency():
    fifo = os.path.join(tmp, "go")
    stamp = os.path.join(tmp, "t0")
    os.mkfifo(fifo)
    script = f"while :; do read x < {fifo}; python3 -c 'import time;print(time.time())' > {stamp}.tmp; " \
             f"mv {stamp}.tmp {stamp}; echo MARK-$x; done"
    sid = session("start", "--", "sh", "-c", script)["sessionId"]
    time.sleep(0.3)
    samples = []
    for i in range(20 if QUICK else 50):
        waiter = subprocess.Popen([SHOTTY, "session", "wait", sid, "--text", f"MARK-{i}", "--timeout", "10s"],
                                  env=env, stdout=subprocess.PIPE)
        time.sleep(0.05)  # the wait is parked on the host
        with open(fifo, "w") as f:
            f.write(f"{i}\n")
        waiter.communicate()
        done = time.time()
        with open(stamp) as f:
            printed = float(f.read())
        # The marker is echoed right after the stamp is written: the latency includes the
        # emulator, the host's wake-up, the reply and the CLI's exit.
        samples.append(done - printed)
    session("stop", sid)
    m = statistics.median(samples)
    print(f"(b) wait reaction, median of {len(samples)}: {ms(m)} (target <= 10 ms; includes writing "
          f"the stamp file and the CLI process exiting)")
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
    sys.path.insert(0, os.path.join(ROOT, "benches"))
    data = os.path.join(tmp, "mixed.bin")
    size = 100 * 1024 * 1024
    chunk = (b"\x1b[1;32mok\x1b[0m plain text line with some words in it \x1b[38;5;208mcolour\x1b[0m\r\n"
             b"\x1b[31merror\x1b[0m: \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e and more text to wrap a little\r\n") * 64
    with open(data, "wb") as f:
        written = 0
        while written < size:
            f.write(chunk)
            written += len(chunk)
    t = time.perf_counter()
    sid = session("start", "--width", "100", "--height", "24", "--", "cat", data)["sessionId"]
    session("wait", sid, "--exit", "--timeout", "10m")
    elapsed = time.perf_counter() - t
    session("stop", sid, check=False)
    rate = written / elapsed / (1 << 20)
    print(f"(d) cat of {written / (1 << 20):.0f} MiB through a session: {elapsed:.2f} s = {rate:.0f} MiB/s "
          f"(target >= 50% of the emulator's own rate; see BENCHMARKS.md)")
    return rate


if __name__ == "__main__":
    if not os.path.exists(SHOTTY):
        raise SystemExit("build first: cargo build --release")
    if not shutil.which("tmux"):
        raise SystemExit("tmux is needed (apt-get install tmux)")
    try:
        round_trip()
        wait_latency()
        idle_sessions()
        drain()
    finally:
        subprocess.run([SHOTTY, "session", "stop", "--all", "--yes"], env=env, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
