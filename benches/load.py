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

`--faults` measures the host's bounds instead (issue 40): input sent to a program that never
reads (150 sends of 1 MB: replies, host RSS, another client's read latency meanwhile); 10,000
idle connections (refused, threads, descriptors, RSS, a request's latency meanwhile); a flood
of output (three `cat /dev/urandom` at 500×500 and `yes` for 10 s: peak RSS, RSS 1, 3 and 5 s
after `stop --all`); `find` and `history --grep` over 200,000 rows of history (time, RSS growth). `--shotty PATH`
measures another build (e.g. the one before a change) the same way.
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
FAULTS = "--faults" in sys.argv
for i, arg in enumerate(sys.argv):
    if arg == "--shotty":
        SHOTTY = os.path.abspath(sys.argv[i + 1])
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
        reply = self.reply(method, params)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def reply(self, method, params):
        """The whole reply, an error included; a closed connection reads as an error."""
        self.file.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                    "params": params}).encode() + b"\n")
        self.file.flush()
        self.next_id += 1
        line = self.file.readline()
        if not line:
            return {"error": {"data": {"code": "connection closed"}}}
        return json.loads(line)


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


def private_host():
    """A host of its own: its socket path, the connection that started it, its pid."""
    tmp = tempfile.mkdtemp(prefix="shotty-load-")
    env = dict(os.environ, SHOTTY_RUNTIME_DIR=os.path.join(tmp, "run"),
               SHOTTY_STATE_DIR=os.path.join(tmp, "state"), SHOTTY_HOST_IDLE_MS="60000")
    subprocess.run([SHOTTY, "session", "list"], env=env, check=True, capture_output=True)
    path = os.path.join(tmp, "run", "host.sock")
    conn = Conn(path)
    return path, conn, conn.call("ping", {})["pid"]


def run(n):
    path, conn, pid = private_host()
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


def rss(pid):
    return proc_counts(pid)[2]


def reset_peak(pid):
    """Starts a new high-water mark of the host's RSS (`clear_refs` 5); False if not allowed."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss(pid):
    return next(int(l.split()[1]) for l in open(f"/proc/{pid}/status")
                if l.startswith("VmHWM")) / 1024


def timed_reads(path, sid, stop, out):
    """Reads `sid` until `stop` is set; puts the latencies."""
    conn = Conn(path)
    latencies = []
    while not stop.is_set():
        started = time.monotonic()
        conn.call("read", {"sessionId": sid})
        latencies.append(time.monotonic() - started)
        time.sleep(0.01)
    out.put(latencies)


def error_code(reply):
    return reply.get("error", {}).get("data", {}).get("code", "?")


def input_bound():
    path, conn, pid = private_host()
    sleeper = conn.call("start", {"command": ["sleep", "300"]})["sessionId"]
    reader = conn.call("start", {"command": ["sh", "-c", "echo ready; exec cat"]})["sessionId"]
    before = rss(pid)
    stop = multiprocessing.Event()
    out = multiprocessing.Queue()
    worker = multiprocessing.Process(target=timed_reads, args=(path, reader, stop, out))
    worker.start()
    time.sleep(0.5)
    chunk = "x" * 1_000_000
    outcomes = {}
    started = time.monotonic()
    for _ in range(150):
        reply = conn.reply("send", {"sessionId": sleeper, "steps": [{"text": chunk}]})
        key = "ok" if "result" in reply else error_code(reply)
        outcomes[key] = outcomes.get(key, 0) + 1
    took = time.monotonic() - started
    peak = rss(pid)
    stop.set()
    reads = out.get()
    worker.join()
    conn.call("stop", {"all": True})
    time.sleep(1)
    print("\nInput to a program that never reads: 150 sends of 1 MB")
    print(f"  replies: {outcomes} in {took:.1f} s")
    print(f"  host RSS: {before:.1f} MB before, {peak:.1f} MB after the sends, "
          f"{rss(pid):.1f} MB 1 s after stop")
    print(f"  another client's read meanwhile: {len(reads)} reads, median "
          f"{percentile(reads, 50) * 1000:.2f} ms, p99 {percentile(reads, 99) * 1000:.2f} ms, "
          f"max {max(reads) * 1000:.2f} ms")


def idle_connections():
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 30_000), hard))
    path, conn, pid = private_host()
    before = proc_counts(pid)
    waiting = Conn(path)  # a client connected before the others came
    held, refused = [], 0
    for _ in range(10_000):
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            held.append(s)
        except OSError:
            refused += 1
            s.close()
    time.sleep(1)
    # Refused connections are answered and closed by the host: they read as closed at once.
    closed = 0
    for s in held:
        s.setblocking(False)
        try:
            if s.recv(4096):
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    during = proc_counts(pid)
    def timed_list(conn_of):
        started = time.monotonic()
        try:
            conn_of().call("list", {})
            outcome = "answered"
        except (OSError, RuntimeError) as e:
            outcome = f"failed ({e})"
        return f"{outcome} in {(time.monotonic() - started) * 1000:.2f} ms"
    existing = timed_list(lambda: waiting)
    new = timed_list(lambda: Conn(path))
    for s in held:
        s.close()
    time.sleep(1)
    after = proc_counts(pid)
    print("\n10,000 idle connections")
    print(f"  connect failed: {refused}; answered host_unavailable and closed: {closed}")
    print(f"  host before: {before[0]} threads, {before[1]} fds, {before[2]:.1f} MB RSS")
    print(f"  host with them open: {during[0]} threads, {during[1]} fds, {during[2]:.1f} MB RSS")
    print(f"  a `list` meanwhile, on a connection made before: {existing}; on a new one: {new}")
    print(f"  host after they closed: {after[0]} threads, {after[1]} fds, {after[2]:.1f} MB RSS")


def flood():
    path, conn, pid = private_host()
    idle = rss(pid)
    for _ in range(3):
        conn.call("start", {"command": ["cat", "/dev/urandom"], "width": 500, "height": 500})
    conn.call("start", {"command": ["yes"]})
    peak = idle
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        peak = max(peak, rss(pid))
        time.sleep(0.2)
    conn.call("stop", {"all": True})
    stopped = time.monotonic()
    after = []
    for at in [1, 3, 5]:
        time.sleep(max(0, stopped + at - time.monotonic()))
        after.append(rss(pid))
    print("\nOutput flood: 3 × cat /dev/urandom at 500×500 and yes, 10 s")
    print(f"  host RSS: {idle:.1f} MB idle, {peak:.1f} MB peak; after stop --all "
          f"{after[0]:.1f} / {after[1]:.1f} / {after[2]:.1f} MB at 1 / 3 / 5 s")


def find_in_history():
    path, conn, pid = private_host()
    # Rows of 99 y's: ~20 million matches in all, of which a reply holds 1,000.
    sid = conn.call("start", {"command": ["sh", "-c", f"yes {'y' * 99} | head -n 200000; echo done"],
                              "scrollback": 200000})["sessionId"]
    Conn(path).call("wait", {"sessionId": sid, "text": "done", "timeoutMs": 60000})
    def measured(method, params):
        before = rss(pid)
        peak_known = reset_peak(pid)
        started = time.monotonic()
        reply = Conn(path).reply(method, params)
        took = time.monotonic() - started
        peak = f"peak {peak_rss(pid):.1f} MB" if peak_known else "peak unknown"
        outcome = "ok" if "result" in reply else error_code(reply)
        return reply, f"{took:.2f} s ({outcome}); host RSS {before:.1f} MB, {peak}"
    found, find_figures = measured("find", {"sessionId": sid, "regex": "y", "history": True})
    listed, history_figures = measured("history", {"sessionId": sid, "grep": "y",
                                                   "limit": 10000})
    print("\nQueries over 200,000 rows of history")
    print(f"  find --regex y --history ({len(found.get('result', {}).get('matches', []))} "
          f"matches returned): {find_figures}")
    print(f"  history --grep y --limit 10000 ({len(listed.get('result', {}).get('lines', []))} "
          f"lines returned): {history_figures}")
    conn.call("stop", {"all": True})


if __name__ == "__main__":
    if FAULTS:
        print(f"binary: {SHOTTY}")
        input_bound()
        idle_connections()
        flood()
        find_in_history()
    else:
        for n in SIZES:
            run(n)
