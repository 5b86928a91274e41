// `toMatchScreenSnapshot` under vitest as users run it: inner vitest runs on test files
// written for the occasion, their outcomes, messages and goldens checked.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, test } from "vitest";

import { alive, failures, outcomes, scratch, svgText, vitest, write } from "./support.js";

/** A prompt that greets NAME: the screen the goldens pin. */
function promptTest(name: string): string {
  return `
import { spawn } from "shotty";
import { expect, test } from "vitest";

test("prompt", async () => {
  const p = await spawn(["sh", "-c", "printf 'name? '; read n; echo \\"hi $n\\"; exec cat"], { size: [30, 4] });
  await p.waitForText("name?");
  await p.type(${JSON.stringify(name)});
  await p.keys("Enter");
  await p.waitForText("hi");
  await expect(p).toMatchScreenSnapshot();
});
`;
}

const GOLDEN = join("__screenshots__", "prompt.test.ts", "prompt.svg");

describe("toMatchScreenSnapshot under vitest", () => {
  test("a new golden is written beside the test file, then matched", async () => {
    const dir = scratch();
    write(dir, { "prompt.test.ts": promptTest("ann") });
    const first = await vitest(dir);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain(`wrote the new golden ${join(dir, GOLDEN)}: review it and commit it`);
    const golden = readFileSync(join(dir, GOLDEN), "utf8");
    expect(golden.startsWith("<svg")).toBe(true);
    const second = await vitest(dir);
    expect(second.code, second.output).toBe(0);
    expect(second.output).not.toContain("wrote the new golden");
    expect(readFileSync(join(dir, GOLDEN), "utf8")).toBe(golden);
  });

  test("a wait given no timeout fails before the test's own timeout, with its message and the screen", async () => {
    const dir = scratch();
    write(dir, {
      "slow.test.ts": `
import { spawn } from "shotty";
import { test } from "vitest";

test("slow", async () => {
  const p = await spawn(["sh", "-c", "echo ready; exec sleep 60"], { size: [20, 3] });
  await p.waitForText("ready");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await p.waitForText("never shown");
}, 4000);
`,
    });
    const run = await vitest(dir);
    expect(run.code).toBe(1);
    const message = failures(run);
    expect(message).toMatch(/WaitTimeout: timed out after [\d.]+ s waiting for text "never shown"/);
    expect(message).toContain("  |ready");
    expect(message).not.toContain("Test timed out");
  });

  test("a differing screen fails with the cells that differ, and leaves the pictures", async () => {
    const dir = scratch();
    write(dir, { "prompt.test.ts": promptTest("ann") });
    expect((await vitest(dir)).code).toBe(0);
    write(dir, { "prompt.test.ts": promptTest("bob").replace("toMatchScreenSnapshot()", "toMatchScreenSnapshot(undefined, { timeout: 500 })") });
    const run = await vitest(dir);
    expect(run.code).toBe(1);
    expect(outcomes(run)).toEqual({ prompt: "failed" });
    const message = failures(run);
    expect(message).toMatch(/the screen differs from .*prompt\.svg in \d+ cell/);
    expect(message).toContain('row 1:\n  - hi ann\n  + hi bob\n  col 3: expected "a", actual "b"');
    expect(message).toContain(`the differing cells marked: ${join(dir, "__screenshots__", "prompt.test.ts", "prompt.diff.svg")}`);
    const left = readdirSync(join(dir, "__screenshots__", "prompt.test.ts")).sort();
    expect(left).toEqual(["prompt.actual.svg", "prompt.diff.svg", "prompt.svg"]);
  });

  test("-u rewrites the golden", async () => {
    const dir = scratch();
    write(dir, { "prompt.test.ts": promptTest("ann") });
    expect((await vitest(dir)).code).toBe(0);
    const before = readFileSync(join(dir, GOLDEN), "utf8");
    write(dir, { "prompt.test.ts": promptTest("bob") });
    const updated = await vitest(dir, ["-u"]);
    expect(updated.code, updated.output).toBe(0);
    const after = readFileSync(join(dir, GOLDEN), "utf8");
    expect(after).not.toBe(before);
    expect(svgText(join(dir, GOLDEN)).split("\n")[1]).toBe("hi bob");
    expect((await vitest(dir)).code).toBe(0);
  });

  test("with CI set, a missing golden fails and nothing is written", async () => {
    const dir = scratch();
    write(dir, { "prompt.test.ts": promptTest("ann") });
    const run = await vitest(dir, [], { CI: "true" });
    expect(run.code).toBe(1);
    expect(failures(run)).toMatch(/the golden .*prompt\.svg does not exist, and missing goldens fail \(CI is set\)/);
    expect(existsSync(join(dir, "__screenshots__", "prompt.test.ts", "prompt.actual.svg"))).toBe(true);
    expect(existsSync(join(dir, GOLDEN))).toBe(false);
    // Asked to update, it is written, CI or not.
    const updated = await vitest(dir, ["-u"], { CI: "true" });
    expect(updated.code, updated.output).toBe(0);
    expect(svgText(join(dir, GOLDEN)).split("\n")[1]).toBe("hi ann");
  });

  test("goldens are named after the test, a name, and a count", async () => {
    const dir = scratch();
    write(dir, {
      "names.test.ts": `
import { spawn } from "shotty";
import { describe, expect, test } from "vitest";

describe("group", () => {
  test("two unnamed and one named", async () => {
    const p = await spawn(["sh", "-c", "echo one; read x; echo two; exec cat"], { size: [20, 3] });
    await p.waitForText("one");
    await expect(p).toMatchScreenSnapshot();
    await p.keys("Enter");
    await p.waitForText("two");
    await expect(p).toMatchScreenSnapshot();
    await expect(p).toMatchScreenSnapshot("final");
  });
});
`,
    });
    const run = await vitest(dir);
    expect(run.code, run.output).toBe(0);
    expect(readdirSync(join(dir, "__screenshots__", "names.test.ts")).sort()).toEqual([
      "group_two_unnamed_and_one_named-2.svg",
      "group_two_unnamed_and_one_named-final.svg",
      "group_two_unnamed_and_one_named.svg",
    ]);
    // Each golden holds the screen of its moment.
    const screens = join(dir, "__screenshots__", "names.test.ts");
    expect(svgText(join(screens, "group_two_unnamed_and_one_named.svg"))).toBe("one\n\n");
    expect(svgText(join(screens, "group_two_unnamed_and_one_named-2.svg"))).toBe("\ntwo\n");
  });

  test("no program is left after a failed test, nor after one started outside a test", async () => {
    const dir = scratch();
    const perTest = join(dir, "per-test-pids");
    const perFile = join(dir, "per-file-pids");
    write(dir, {
      "fails.test.ts": `
import { appendFileSync, readFileSync } from "node:fs";
import { spawn, type Tui } from "shotty";
import { beforeAll, expect, test } from "vitest";

/** Starts a shell that starts a child; writes both pids to \`file\`. */
async function family(file: string): Promise<Tui> {
  const p = await spawn(["sh", "-c", "sleep 300 & echo child $!; exec sleep 301"], { size: [30, 3] });
  await p.waitForRegex("child \\\\d+");
  appendFileSync(file, (await p.text()).split(/\\s+/)[1] + " " + p.pid + " ");
  return p;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync("/proc/" + pid + "/stat", "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

const pids = (file: string) => readFileSync(file, "utf8").trim().split(" ").map(Number);

let shared: Tui;
beforeAll(async () => {
  shared = await family(${JSON.stringify(perFile)});
});

test("fails with programs running", async () => {
  for (let i = 0; i < 3; i++) await family(${JSON.stringify(perTest)});
  expect(shared.pid).toBe(-1);
});

test("throws with a program running", async () => {
  await family(${JSON.stringify(perTest)});
  throw new Error("boom");
});

test("the next test finds those ended, the file's own still running", () => {
  expect(pids(${JSON.stringify(perTest)}).filter(alive)).toEqual([]);
  expect(pids(${JSON.stringify(perFile)}).filter(alive).length).toBe(2);
});
`,
    });
    const run = await vitest(dir);
    expect(run.code).toBe(1);
    expect(outcomes(run)).toEqual({
      "fails with programs running": "failed",
      "throws with a program running": "failed",
      "the next test finds those ended, the file's own still running": "passed",
    });
    const started = [perTest, perFile].flatMap((file) => readFileSync(file, "utf8").trim().split(" ").map(Number));
    expect(started.length).toBe(10);
    expect(started.filter(alive)).toEqual([]);
  });

  test("a Tui is the only thing it compares, and it cannot be negated", async () => {
    const dir = scratch();
    write(dir, {
      "misuse.test.ts": `
import { spawn } from "shotty";
import { expect, test } from "vitest";

test("not a tui", async () => {
  await expect("text").toMatchScreenSnapshot();
});

test("negated", async () => {
  const p = await spawn(["cat"], { size: [10, 2] });
  await expect(p).not.toMatchScreenSnapshot();
});
`,
    });
    const run = await vitest(dir);
    expect(outcomes(run)).toEqual({ "not a tui": "failed", negated: "failed" });
    const message = failures(run);
    expect(message).toContain("toMatchScreenSnapshot() expects a Tui from shotty's spawn()");
    expect(message).toContain("toMatchScreenSnapshot() cannot be negated");
  });
});
