#!/usr/bin/env python3
"""`shotty web` under a page's load: 100 live sessions idle, one page listening.

Starts its own session host (a private runtime directory) with N sessions (`cat`, 80x24),
then `shotty web`, then a listener on /api/events holding the stream a page holds, and
measures:

  * the CPU time of the host and of the web server over an idle stretch, as a share of one
    core, with the page listening and again after it closed;
  * how long a change of a screen takes to reach the page (send → event), median of 50;
  * how long the page's requests take with N sessions: the list, one screen as SVG.

With --chromium PATH, the page itself is then opened in headless Chromium (its list, the
thumbnails of all N screens, the selected one live) and the idle share measured again with
the page open.

Usage: python3 benches/web.py [--binary target/release/shotty] [--sessions 100] [--idle 20]
                              [--chromium /usr/bin/chromium]
"""

import argparse
import http.client
import json
import os
import queue
import socket
import statistics
import subprocess
import tempfile
import threading
import time

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def host_call(runtime, method, params):
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.path.join(runtime, "host.sock"))
    f = s.makefile("rw")
    f.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) + "\n")
    f.flush()
    reply = json.loads(f.readline())
    s.close()
    return reply["result"]


def listen(addr, token, events, stop):
    conn = http.client.HTTPConnection(addr)
    conn.request("GET", "/api/events", headers={"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    while not stop.is_set():
        line = response.fp.readline()
        if not line:
            return
        if line.startswith(b"data: "):
            events.put((time.perf_counter(), json.loads(line[6:])))
    conn.close()


def timed_get(addr, token, path, runs=20):
    times = []
    for _ in range(runs):
        conn = http.client.HTTPConnection(addr)
        start = time.perf_counter()
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        body = conn.getresponse().read()
        times.append(time.perf_counter() - start)
        conn.close()
    return statistics.median(times) * 1000, len(body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="target/release/shotty")
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--idle", type=float, default=20.0)
    parser.add_argument("--chromium")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)

    with tempfile.TemporaryDirectory() as root:
        runtime = os.path.join(root, "run")
        os.mkdir(runtime, 0o700)
        env = dict(os.environ, SHOTTY_RUNTIME_DIR=runtime, SHOTTY_STATE_DIR=os.path.join(root, "state"))
        ids = []
        for n in range(args.sessions):
            out = subprocess.run([binary, "session", "start", "--width", "80", "--height", "24", "--", "cat"],
                                 env=env, capture_output=True, check=True)
            ids.append(json.loads(out.stdout)["sessionId"])
        host_pid = host_call(runtime, "ping", {})["pid"]
        web = subprocess.Popen([binary, "web", "--listen", "127.0.0.1:0"], env=env,
                               stdout=subprocess.PIPE, text=True)
        try:
            url = web.stdout.readline().strip()
            addr, token = url.removeprefix("http://").split("/?token=")
            events, stop = queue.Queue(), threading.Event()
            threading.Thread(target=listen, args=(addr, token, events, stop), daemon=True).start()
            # Every session's watcher starts with the lister's first round.
            time.sleep(3)
            target = ids[-1]
            while True:
                host_call(runtime, "send", {"sessionId": target, "steps": [{"text": "."}]})
                try:
                    _, event = events.get(timeout=0.5)
                    if event.get("sessionId") == target:
                        break
                except queue.Empty:
                    pass
            time.sleep(1)
            while not events.empty():
                events.get()

            def idle_share(seconds):
                before = (cpu_seconds(host_pid), cpu_seconds(web.pid), time.perf_counter())
                time.sleep(seconds)
                after = (cpu_seconds(host_pid), cpu_seconds(web.pid), time.perf_counter())
                elapsed = after[2] - before[2]
                return ((after[0] - before[0]) / elapsed * 100, (after[1] - before[1]) / elapsed * 100)

            host_busy, web_busy = idle_share(args.idle)
            print(f"{args.sessions} sessions idle, one page listening, {args.idle:g} s: "
                  f"host {host_busy:.2f} % of a core, shotty web {web_busy:.2f} %")

            latencies = []
            for n in range(50):
                sent = time.perf_counter()
                host_call(runtime, "send", {"sessionId": target, "steps": [{"text": f"{n} "}]})
                while True:
                    at, event = events.get(timeout=5)
                    if event.get("type") == "screen" and event.get("sessionId") == target:
                        latencies.append((at - sent) * 1000)
                        break
            latencies.sort()
            print(f"screen change → page: median {statistics.median(latencies):.2f} ms, "
                  f"p90 {latencies[int(len(latencies) * 0.9)]:.2f} ms, max {latencies[-1]:.2f} ms (50 changes)")

            list_ms, list_bytes = timed_get(addr, token, "/api/sessions")
            svg_ms, svg_bytes = timed_get(addr, token, f"/api/sessions/{target}/screen.svg")
            print(f"page requests with {args.sessions} sessions: list {list_ms:.2f} ms ({list_bytes} B), "
                  f"one screen as SVG {svg_ms:.2f} ms ({svg_bytes} B) (medians of 20)")

            stop.set()
            # The listener notices at its next event; the server at its next write.
            host_call(runtime, "send", {"sessionId": target, "steps": [{"text": "x"}]})
            time.sleep(3)
            host_busy, web_busy = idle_share(min(args.idle, 10))
            print(f"page closed, {min(args.idle, 10):g} s: host {host_busy:.2f} % of a core, "
                  f"shotty web {web_busy:.2f} %")

            if args.chromium:
                profile = os.path.join(root, "chromium")
                browser = subprocess.Popen(
                    [args.chromium, "--headless", "--no-sandbox", "--disable-gpu",
                     "--disable-background-networking", "--disable-component-update",
                     "--no-first-run", "--disable-sync", f"--user-data-dir={profile}",
                     "--remote-debugging-port=0", "--window-size=1280,4000", url],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    # The page loads the list, 100 thumbnails and the selected screen.
                    time.sleep(10)
                    host_busy, web_busy = idle_share(args.idle)
                    print(f"the page open in Chromium ({args.sessions} thumbnails), {args.idle:g} s: "
                          f"host {host_busy:.2f} % of a core, shotty web {web_busy:.2f} %")
                    list_ms, _ = timed_get(addr, token, "/api/sessions")
                    print(f"with the page open: list {list_ms:.2f} ms (median of 20)")
                finally:
                    browser.kill()
                    browser.wait()
        finally:
            web.kill()
            subprocess.run([binary, "session", "stop", "--all", "--yes"], env=env, capture_output=True)


if __name__ == "__main__":
    main()
