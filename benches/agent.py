#!/usr/bin/env python3
"""Agent benchmarks (SPEC §11), through the host's socket as any client talks to it.

  cargo build --profile dist && python3 benches/agent.py [--rounds N]

(a) `wait --command` reaction: a bash session with shell integration runs
    `sleep 0.2; printf ... $EPOCHREALTIME > file` (the command's last act; the shell's D mark
    follows it at once); a `wait` with `command: true` is pending on its own connection. The
    figure is from that timestamp to the wait's reply reaching the client.
(b) `read` with `since` when nothing changed, and (c) `find` of a word on a full 200x50
    screen: round trips on one connection, and the same minus a `ping` round trip measured
    interleaved (what the host spends beyond the socket and JSON framing).
Medians (and p90) over the rounds; everything in a private runtime directory.
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOTTY = os.path.join(ROOT, "target", "dist", "shotty")
ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 200

tmp = tempfile.mkdtemp(prefix="shotty-agent-bench-")
env = dict(os.environ, SHOTTY_RUNTIME_DIR=os.path.join(tmp, "run"),
           SHOTTY_STATE_DIR=os.path.join(tmp, "state"), SHOTTY_HOST_IDLE_MS="20000",
           HOME=tmp)


class Conn:
    def __init__(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(os.path.join(env["SHOTTY_RUNTIME_DIR"], "host.sock"))
        self.file = self.sock.makefile("rwb")
        self.id = 0

    def call(self, method, **params):
        self.id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        self.file.write(line.encode() + b"\n")
        self.file.flush()
        reply = json.loads(self.file.readline())
        if "error" in reply:
            raise SystemExit(f"{method}: {reply['error']}")
        return reply["result"]


def cli(*args):
    out = subprocess.run([SHOTTY, "session", *args], env=env, capture_output=True, text=True)
    return json.loads(out.stdout)


def stats(samples):
    samples = sorted(samples)
    return statistics.median(samples), samples[int(len(samples) * 0.9)]


def wait_command():
    sid = cli("start", "--shell-integration", "--wait-ready", "--", "bash")["sessionId"]
    stamp = os.path.join(tmp, "stamp")
    reactions = []
    for _ in range(max(20, ROUNDS // 10)):
        sender = Conn()
        sender.call("send", sessionId=sid, steps=[
            {"text": f"sleep 0.2; printf %s $EPOCHREALTIME > {stamp}"}, {"keys": "Enter"}])
        waiter = Conn()
        waiter.call("wait", sessionId=sid, command=True, timeoutMs=10000)
        arrived = time.time()
        with open(stamp) as f:
            finished = float(f.read().strip())
        reactions.append(arrived - finished)
    cli("stop", sid)
    return reactions


def host_costs():
    sid = cli("start", "--width", "200", "--height", "50", "--", "cat")["sessionId"]
    conn = Conn()
    words = " ".join(f"word{i:03d}" for i in range(22))[:199]
    conn.call("send", sessionId=sid, steps=[{"text": "".join(
        f"{words}\r" for _ in range(49))}])
    time.sleep(0.5)
    version = conn.call("read", sessionId=sid)["version"]
    ping, since, find = [], [], []
    for _ in range(ROUNDS):
        for sink, method, params in (
            (ping, "ping", {}),
            (since, "read", {"sessionId": sid, "since": version}),
            (find, "find", {"sessionId": sid, "text": "word017"}),
        ):
            t = time.perf_counter()
            result = conn.call(method, **params)
            sink.append(time.perf_counter() - t)
            if method == "read":
                assert result["changed"] is False, result
            if method == "find":
                assert len(result["matches"]) >= 40, len(result["matches"])
    cli("stop", sid)
    return ping, since, find


def main():
    if not os.path.exists(SHOTTY):
        raise SystemExit("build first: cargo build --profile dist")
    cli("list")
    try:
        reactions = wait_command()
        ping, since, find = host_costs()
    finally:
        subprocess.run([SHOTTY, "session", "stop", "--all", "--yes"], env=env,
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    p50, p90 = stats(reactions)
    print(f"wait --command reaction after the command's end: median {p50 * 1000:.2f} ms, "
          f"p90 {p90 * 1000:.2f} ms ({len(reactions)} commands)")
    base, _ = stats(ping)
    for name, samples in (("read --since (unchanged)", since), ("find on 200x50", find)):
        p50, p90 = stats(samples)
        print(f"{name}: round trip median {p50 * 1000:.3f} ms, p90 {p90 * 1000:.3f} ms; "
              f"beyond a ping ({base * 1000:.3f} ms): {(p50 - base) * 1000:.3f} ms")


main()
