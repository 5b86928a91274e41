#!/usr/bin/env python3
"""Host load benchmark (issue: many sessions, slow programs).

  cargo build --profile dist && python3 benches/load.py [--quick] [--sizes 10,100,1000]

For each N: N idle `cat` sessions in one host, then M = 20 clients — separate processes, each
with its own connection to the host socket (no CLI processes) — run a mix of requests for a
fixed time, each client at about 20 requests a second (pauses drawn from an exponential
distribution, as agents polling their sessions do): read 60 %, send 20 % (a line to a random
session, which cat echoes), wait 10 % (a pattern that is on the screen, so it matches at
once), list 10 %. `--flood` drops the pauses (every client as fast as it can: on two cores
that measures the clients' own scheduling more than the host). Reported per request kind:
median, p90, p99 and max latency as the client sees it; the host's RSS, threads and open
files with the sessions idle, the CPU it used over 5 s of idleness, and how long the N starts
and one `stop --all` took. Everything runs in a private runtime directory.
"""
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOTTY = os.path.join(ROOT, "target", "dist", "shotty")
QUICK = "--quick" in sys.argv
SIZES = [10, 100, 1000]
for i, arg in enumerate(sys.argv):
    if arg == "--sizes":
        SIZES = [int(n) for n in sys.argv[i + 1].split(",")]
FLOOD = "--flood" in sys.argv
CLIENTS = 20
PAUSE = 0.05
SECONDS = 3 if QUICK else 10
MIX = ["read"] * 6 + ["send"] * 2 + ["wait"] + ["list"]


class Conn:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.next_id = 1

    def call(self, method, params):
        self.file.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                    "params": params}).encode() + b"\n")
        self.file.flush()
        self.next_id += 1
        reply = json.loads(self.file.readline())
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]


def client(path, ids, seconds, seed, out):
    rng = random.Random(seed)
    conn = Conn(path)
    times = {kind: [] for kind in set(MIX)}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        kind = rng.choice(MIX)
        sid = rng.choice(ids)
        params = {
            "read": {"sessionId": sid},
            "send": {"sessionId": sid, "steps": [{"text": f"line {rng.random()}\r"}]},
            "wait": {"sessionId": sid, "regex": "ready|line", "timeoutMs": 1000},
            "list": {},
        }[kind]
        # wait answers and closes its connection: it gets one of its own.
        c = Conn(path) if kind == "wait" else conn
        start = time.perf_counter()
        c.call(kind, params)
        times[kind].append(time.perf_counter() - start)
        if not FLOOD:
            time.sleep(rng.expovariate(1 / PAUSE))
    out.put(times)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def proc_counts(pid):
    threads = len(os.listdir(f"/proc/{pid}/task"))
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    rss = next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS"))
    return threads, fds, rss / 1024


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(n):
    tmp = tempfile.mkdtemp(prefix="shotty-load-")
    env = dict(os.environ, SHOTTY_RUNTIME_DIR=os.path.join(tmp, "run"),
               SHOTTY_STATE_DIR=os.path.join(tmp, "state"), SHOTTY_HOST_IDLE_MS="60000")
    subprocess.run([SHOTTY, "session", "list"], env=env, check=True, capture_output=True)
    path = os.path.join(tmp, "run", "host.sock")
    conn = Conn(path)
    pid = conn.call("ping", {})["pid"]
    base = proc_counts(pid)
    started = time.monotonic()
    ids = [conn.call("start", {"command": ["sh", "-c", "echo ready; exec cat"],
                               "width": 80, "height": 24})["sessionId"] for _ in range(n)]
    start_time = time.monotonic() - started
    for sid in ids:
        Conn(path).call("wait", {"sessionId": sid, "text": "ready", "timeoutMs": 10000})
    time.sleep(1)
    idle = proc_counts(pid)
    cpu0 = cpu_seconds(pid)
    time.sleep(5)
    idle_cpu = (cpu_seconds(pid) - cpu0) / 5 * 100
    out = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=client, args=(path, ids, SECONDS, seed, out))
               for seed in range(CLIENTS)]
    for w in workers:
        w.start()
    merged = {}
    for _ in workers:
        for kind, values in out.get().items():
            merged.setdefault(kind, []).extend(values)
    for w in workers:
        w.join()
    busy = proc_counts(pid)
    started = time.monotonic()
    stopped = Conn(path).call("stop", {"all": True})
    stop_time = time.monotonic() - started
    assert len(stopped["stopped"]) == n, stopped
    pace = "as fast as they can" if FLOOD else f"~{1 / PAUSE:.0f} requests/s each"
    print(f"\nN = {n} sessions, {CLIENTS} clients ({pace}), {SECONDS} s")
    print(f"  {n} starts: {start_time:.2f} s; stop --all: {stop_time:.2f} s")
    print(f"  host before sessions: {base[0]} threads, {base[1]} fds, {base[2]:.1f} MB RSS")
    print(f"  host with {n} idle sessions: {idle[0]} threads, {idle[1]} fds, {idle[2]:.1f} MB RSS, "
          f"{idle_cpu:.1f} % CPU over 5 s")
    print(f"  host after the load: {busy[0]} threads, {busy[1]} fds, {busy[2]:.1f} MB RSS")
    print("  | request | count | median | p90 | p99 | max |")
    print("  |---|---|---|---|---|---|")
    for kind in ["read", "send", "wait", "list"]:
        v = merged.get(kind, [])
        if not v:
            continue
        f = lambda s: f"{s * 1000:.2f} ms"
        print(f"  | {kind} | {len(v)} | {f(percentile(v, 50))} | {f(percentile(v, 90))} | "
              f"{f(percentile(v, 99))} | {f(max(v))} |")


if __name__ == "__main__":
    for n in SIZES:
        run(n)
