// What a call of the JavaScript API costs: one `text()` (a request to the session host over
// its Unix socket, the screen back as JSON) and a whole program's life (spawn → exit →
// close), timed in the Node process; beside it, in the same run on the same session, the
// Python package's `text()` (python/) and the command line's `shotty session read` (a process
// each time). The package is js/ as built in place (`cd js && npm ci && npm run build`), the
// binary $SHOTTY_BIN (default target/release/shotty); the host is one of its own, in a
// temporary runtime directory.
//
//   node benches/js_api.mjs [--calls 2000] [--programs 40]
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { calls: { type: "string", default: "2000" }, programs: { type: "string", default: "40" } } });
const root = new URL("..", import.meta.url).pathname;
process.env.SHOTTY_BIN ??= join(root, "target/release/shotty");
const runtime = mkdtempSync(join(tmpdir(), "shotty-js-bench-"));
process.env.SHOTTY_RUNTIME_DIR = runtime;
process.env.SHOTTY_STATE_DIR = join(runtime, "state");
const { spawn } = createRequire(import.meta.url)(join(root, "js/dist/index.js"));

function summary(name, times) {
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(times.length * q))].toFixed(3);
  console.log(`${name}: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms (${times.length})`);
}

async function timed(count, step) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await step();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

try {
  const cat = await spawn(["cat"], { size: [80, 24] });
  await cat.type("hello");
  await cat.waitForText("hello");
  await timed(100, () => cat.text());
  summary("text() of an 80x24 screen", await timed(Number(values.calls), () => cat.text()));
  summary(
    "spawn(['true']) → waitForExit() → close()",
    await timed(Number(values.programs), async () => {
      const program = await spawn(["true"], { size: [80, 24] });
      await program.waitForExit();
      await program.close();
    }),
  );
  const { execFileSync } = await import("node:child_process");
  const python = `
import json, sys, time
sys.path.insert(0, ${JSON.stringify(join(root, "python"))})
from shotty._host import shared_host
host, times = shared_host(), []
for i in range(100 + ${Number(values.calls)}):
    start = time.perf_counter()
    host.call("read", {"sessionId": ${JSON.stringify(cat.sessionId)}})
    times.append((time.perf_counter() - start) * 1000)
print(json.dumps(times[100:]))
`;
  summary("Python: Tui.text()'s request, same session", JSON.parse(execFileSync("python3", ["-c", python], { encoding: "utf8" })));
  summary(
    "shotty session read (a process each)",
    await timed(50, () => execFileSync(process.env.SHOTTY_BIN, ["session", "read", cat.sessionId], { stdio: "ignore" })),
  );
  await cat.close();
} finally {
  const { execFileSync } = await import("node:child_process");
  execFileSync(process.env.SHOTTY_BIN, ["session", "stop", "--all", "--yes"], { stdio: "ignore" });
  rmSync(runtime, { recursive: true, force: true });
}
