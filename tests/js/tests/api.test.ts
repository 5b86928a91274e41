// The JavaScript API on real programs: the python REPL, vim, bash with shell integration, a
// program that crashes, and what each failure tells.
import { execFileSync, spawn as nodeSpawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

import {
  binary,
  type Command,
  ProgramExited,
  render,
  ScreenMismatch,
  ShottyError,
  type Snapshot,
  spawn,
  Tui,
  WaitTimeout,
} from "shotty";
import { describe, expect, test } from "vitest";

import { alive, APPS, need, scratch } from "./support.js";

/** The error `promise` rejects with (failing the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<ShottyError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ShottyError);
    return error as ShottyError;
  }
  throw new Error("expected a rejection");
}

describe("driving programs", () => {
  test("the python REPL computes and exits", async (context) => {
    const python = need("python3", context);
    await using py = await spawn([python, "-q"], { size: [50, 8] });
    await py.waitForText(">>> ");
    await py.type("6 * 7");
    await py.keys("Enter");
    await py.waitForText("42");
    expect((await py.text()).split("\n").slice(0, 3)).toEqual([">>> 6 * 7", "42", ">>>"]);
    await py.keys("Ctrl+D");
    expect(await py.waitForExit()).toBe(0);
  });

  test("the program sees this process's environment and directory, and its terminal's size", async (context) => {
    const python = need("python3", context);
    const dir = mkdtempSync(join(tmpdir(), "shotty-js-cwd-"));
    // Set after the host started: only a client's own environment can carry it.
    process.env.SHOTTY_SUITE_MARK = "from-the-test";
    process.env.COLUMNS = "80";
    try {
      const script =
        "import os, shutil; e = os.environ; size = shutil.get_terminal_size();" +
        "print(e['SHOTTY_SUITE_MARK'], e['EXTRA'], os.getcwd(), e['TERM'], e.get('CI', 'no-ci'), f'{size.columns}x{size.lines}')";
      await using p = await spawn([python, "-c", script], { size: [120, 4], env: { EXTRA: "x1" }, cwd: dir });
      expect(await p.waitForExit()).toBe(0);
      expect((await p.text()).split("\n")[0]).toBe(`from-the-test x1 ${dir} xterm-256color no-ci 120x4`);
    } finally {
      delete process.env.SHOTTY_SUITE_MARK;
      delete process.env.COLUMNS;
    }
  });

  test("vim edits and writes a file", async (context) => {
    const vim = need("vim", context);
    const target = join(scratch(), "note.txt");
    await using v = await spawn([vim, "-u", "NONE", "-i", "NONE", "-N", "-n", target], { size: [60, 10] });
    await v.waitForText("[New]");
    await v.keys("i");
    await v.type("hello from shotty");
    await v.keys("Escape");
    await v.waitUntilGone("-- INSERT --");
    await v.type(":wq");
    await v.keys("Enter");
    expect(await v.waitForExit()).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("hello from shotty\n");
  });

  test("bash commands report their exit codes", async (context) => {
    const bash = need("bash", context);
    await using sh = await spawn([bash, "--norc", "--noprofile"], { shellIntegration: true, waitReady: 10_000 });
    await sh.type("echo one; echo two");
    await sh.keys("Enter");
    const done: Command = await sh.waitForCommand();
    expect([done.text, done.exitCode, done.output.split(/\s+/).filter(Boolean)]).toEqual(["echo one; echo two", 0, ["one", "two"]]);
    await sh.type("false");
    await sh.keys("Enter");
    expect((await sh.waitForCommand()).exitCode).toBe(1);
  });

  test("clicks and pastes reach the program encoded for the modes it turned on", async (context) => {
    const python = need("python3", context);
    await using p = await spawn([python, join(APPS, "keys.py")], { size: [60, 8] });
    await p.waitForText("click here");
    await p.clickText("here");
    await p.waitForText("M");
    await p.click(3, 20, { button: "right" });
    await p.waitForText("21;4M");
    await p.paste("a b");
    await p.waitForText("201~");
    await p.send({ delay: 10 }, { rawHex: "1b5b41" });
    await p.waitForText("[A'");
    const lines = (await p.text()).split("\n");
    expect(lines.slice(1, 5)).toEqual([
      String.raw`b'\x1b[<0;7;1M\x1b[<0;7;1m'`,
      String.raw`b'\x1b[<2;21;4M\x1b[<2;21;4m'`,
      String.raw`b'\x1b[200~a b\x1b[201~'`,
      String.raw`b'\x1b[A'`,
    ]);
  });

  test("waitUntilGone is met by text never shown and waits for text shown", async () => {
    const script = "echo ready; read x; printf '\\033[2J\\033[Hdone'; exec sleep 30";
    await using p = await spawn(["sh", "-c", script], { size: [30, 4] });
    await p.waitForText("ready");
    // "Loading" never appears (or came and went before the wait): nothing to wait for.
    const started = Date.now();
    await p.waitUntilGone("Loading", { timeout: 3000 });
    expect(Date.now() - started).toBeLessThan(2000);
    // The key that clears "ready" is given its moment before the screen is judged.
    await p.keys("Enter");
    await p.waitUntilGone("ready", { timeout: 5000 });
    expect(await p.text()).toMatch(/^done/);
    const error = await rejection(p.waitUntilGone("done", { timeout: 300 }));
    expect(error).toBeInstanceOf(WaitTimeout);
  });

  test("a RegExp's flags reach the host's pattern", async () => {
    await using p = await spawn(["sh", "-c", "echo 'Ready: 42'; exec sleep 30"], { size: [30, 3] });
    await p.waitForRegex(/ready: \d+$/im);
    const error = await rejection(p.waitForRegex(/ready: \d+$/, { timeout: 300 }));
    expect(error).toBeInstanceOf(WaitTimeout);
  });
});

describe("failures carry the screen", () => {
  test("a wait that times out shows the screen", async () => {
    await using p = await spawn(["sh", "-c", "echo ready; exec sleep 30"], { size: [30, 4] });
    await p.waitForText("ready");
    const started = Date.now();
    const error = await rejection(p.waitForText("never shown", { timeout: 300 }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toBeInstanceOf(WaitTimeout);
    expect(error.code).toBe("wait_timeout");
    expect(error.message).toContain('timed out after 0.3 s waiting for text "never shown"');
    expect(error.message).toContain("the screen (30x4):\n  |ready");
    expect(error.screen).toContain("  |ready");
  });

  test("a program that crashes fails the wait at once, with its screen", async (context) => {
    const python = need("python3", context);
    const crash = "import os, signal; print('about to crash', flush=True); os.kill(os.getpid(), signal.SIGSEGV)";
    await using p = await spawn([python, "-c", crash], { size: [40, 4] });
    const started = Date.now();
    const error = await rejection(p.waitForText("a prompt that never comes", { timeout: 20_000 }));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error).toBeInstanceOf(ProgramExited);
    expect(error.message).toContain("the program ended (killed by SIGSEGV)");
    expect(error.message).toContain("  |about to crash");
    expect(await p.waitForExit()).toBe(-11);
  });

  test("input to an ended program is refused with its screen", async () => {
    await using p = await spawn(["sh", "-c", "echo bye"], { size: [20, 3] });
    expect(await p.waitForExit()).toBe(0);
    const error = await rejection(p.type("anything"));
    expect(error).toBeInstanceOf(ProgramExited);
    expect(error.code).toBe("session_exited");
    expect(error.message).toContain("  |bye");
  });

  test("an unknown key name is a clear error", async () => {
    await using p = await spawn(["cat"], { size: [20, 3] });
    const error = await rejection(p.keys("Ctrl+Nope"));
    expect(error.code).toBe("unsupported_key");
    expect(error.message).toContain("Ctrl+Nope");
  });

  test("a program that does not exist is refused", async () => {
    const error = await rejection(spawn(["/nonexistent/program"]));
    expect(error.code).toBe("session_not_started");
    expect(error.message).toContain("/nonexistent/program");
  });

  test("bad arguments are refused before anything runs", async () => {
    await expect(spawn([] as string[])).rejects.toThrow(TypeError);
    await using p = await spawn(["cat"], { size: [20, 3] });
    const error = await rejection(p.resize(0, 3));
    expect(error.code).toBe("invalid_request");
  });
});

describe("ending programs", () => {
  test("close ends the whole process tree", async () => {
    const p = await spawn(["sh", "-c", "sleep 60 & echo child $!; exec sleep 60"], { size: [30, 3] });
    await p.waitForRegex(String.raw`child \d+`);
    const child = Number((await p.text()).split(/\s+/)[1]);
    const leader = p.pid ?? 0;
    expect(alive(child) && alive(leader)).toBe(true);
    await p.close();
    await p.close(); // a second close does nothing
    expect(p.closed).toBe(true);
    expect(alive(child) || alive(leader)).toBe(false);
    const error = await rejection(p.text());
    expect(error.code).toBe("invalid_operation");
  });

  test("await using ends the program on leaving the block", async () => {
    let pid = 0;
    {
      await using p = await spawn(["sleep", "60"], { size: [20, 2] });
      pid = p.pid ?? 0;
      expect(alive(pid)).toBe(true);
    }
    expect(alive(pid)).toBe(false);
  });

  test("a program left open ends when the Node process exits", async () => {
    const dir = scratch();
    const script = join(dir, "forget.mjs");
    writeFileSync(
      script,
      `import { spawn } from "shotty";\nconst p = await spawn(["sleep", "300"], { size: [20, 2] });\nconsole.log(p.pid);\n`,
    );
    const pid = Number(execFileSync("node", [script], { cwd: dir, encoding: "utf8" }).trim());
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });

  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    test(`a program left open ends when the Node process is killed by ${signal}`, async () => {
      const dir = scratch();
      const script = join(dir, "killed.mjs");
      writeFileSync(
        script,
        `import { spawn } from "shotty";\nconst p = await spawn(["sleep", "300"], { size: [20, 2] });\nconsole.log(p.pid);\nsetInterval(() => {}, 1000);\n`,
      );
      const node = nodeSpawn("node", [script], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
      const pid = await new Promise<number>((resolve) => node.stdout.once("data", (line) => resolve(Number(String(line).trim()))));
      expect(alive(pid)).toBe(true);
      node.kill(signal);
      const deadline = Date.now() + 5000;
      while (alive(pid) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(alive(pid)).toBe(false);
    });
  }
});

describe("reading and pictures", () => {
  test("snapshot, resize and screenshots", async () => {
    await using p = await spawn(["sh", "-c", "printf '\\033[1;31mred\\033[0m\\n'; exec sleep 30"], { size: [20, 3] });
    await p.waitForText("red");
    const snap: Snapshot = await p.snapshot();
    expect([snap.width, snap.height]).toEqual([20, 3]);
    const cells = snap.rows[0]?.cells ?? [];
    expect(cells.slice(0, 3).map((cell) => cell.t).join("")).toBe("red");
    expect(snap.styles[cells[0]?.s ?? 0]).toEqual({ bold: true, fg: 1 });
    await p.resize(30, 5);
    expect(p.size).toEqual([30, 5]);
    expect((await p.snapshot()).width).toBe(30);
    const dir = scratch();
    const svg = await p.screenshot(join(dir, "shot.svg"), { theme: "dracula", window: "macos" });
    const png = await p.screenshot(join(dir, "shot.png"), { scale: 2, noCursor: true });
    expect(readFileSync(svg, "utf8")).toMatch(/^<svg[\s\S]*red/);
    expect(readFileSync(png).subarray(0, 8)).toEqual(Buffer.from("\x89PNG\r\n\x1a\n", "latin1"));
    const error = await rejection(p.screenshot(join(dir, "bad.svg"), { theme: "no-such-theme" }));
    expect(error.message).toContain("no-such-theme");
  });

  test("render draws raw output without running anything, byte for byte the same each time", async () => {
    const svg = await render("\x1b[1;32mok\x1b[0m done\n", { width: 20, height: 2 });
    expect(svg.toString("utf8")).toMatch(/^<svg[\s\S]*done/);
    expect(await render(Buffer.from("\x1b[1;32mok\x1b[0m done\n"), { width: 20, height: 2 })).toEqual(svg);
    const txt = await render("a\nb", { width: 5, height: 2, format: "txt" });
    expect(txt.toString("utf8").split("\n").slice(0, 2)).toEqual(["a", "b"]);
    const png = await render("x", { width: 10, height: 1, format: "png", theme: "nord" });
    expect(png.subarray(0, 4).toString("latin1")).toBe("\x89PNG");
    await expect(render("x", { format: "bmp" })).rejects.toThrow(/bmp/);
  });

  test("assertScreen pins a screen and reports cells", async () => {
    const golden = join(scratch(), "prompt.svg");
    await using p = await spawn(["sh", "-c", "printf 'name? '; exec cat"], { size: [30, 3] });
    await p.waitForText("name?");
    expect(await p.assertScreen(golden)).toBe("new");
    expect(await p.assertScreen(golden)).toBe("matched");
    await p.type("bob");
    const error = await rejection(p.assertScreen(golden, { timeout: 500 }));
    expect(error).toBeInstanceOf(ScreenMismatch);
    const mismatch = error as ScreenMismatch;
    expect(mismatch.message).toContain('col 6: expected " ", actual "b"');
    expect(existsSync(mismatch.actual ?? "") && existsSync(mismatch.diff ?? "")).toBe(true);
    expect(await p.assertScreen(golden, { update: true })).toBe("updated");
    expect(await p.assertScreen(golden)).toBe("matched");
  });

  test("the binary is the one the package carries", () => {
    const path = binary();
    expect(basename(path)).toBe("shotty");
    accessSync(path, constants.X_OK);
    if (!process.env.SHOTTY_BIN) {
      expect(path).toBe(join(PROJECT_PACKAGE, "bin", "shotty"));
    }
    expect(execFileSync(path, ["--version"], { encoding: "utf8" })).toMatch(/^shotty \d/);
    expect(Tui.name).toBe("Tui");
  });
});

/** Where the installed package is (node_modules/shotty). */
const PROJECT_PACKAGE = join(new URL("../node_modules/shotty", import.meta.url).pathname);
