// `toMatchScreenSnapshot` under jest: inner jest runs (CommonJS test files, shotty/jest after
// the framework) on vim and a prompt, as a jest user's project runs them.
import { existsSync } from "node:fs";
import { join } from "node:path";

import { expect, test } from "vitest";

import { failures, freshHost, jest, need, outcomes, scratch, svgText, write } from "./support.js";

function vimTest(vim: string, text: string): string {
  return `
const { spawn } = require("shotty");

test("vim shows what was typed", async () => {
  const v = await spawn([${JSON.stringify(vim)}, "-u", "NONE", "-i", "NONE", "-N", "-n", "note.txt"], { size: [40, 6], cwd: __dirname });
  await v.waitForText("[New]");
  await v.keys("i");
  await v.type(${JSON.stringify(text)});
  await v.keys("Escape");
  await v.waitUntilGone("-- INSERT --");
  await expect(v).toMatchScreenSnapshot(undefined, { timeout: 1000 });
});
`;
}

const GOLDEN = join("__screenshots__", "vim.test.cjs", "vim_shows_what_was_typed.svg");

test("jest: new, matched, a differing screen's cells, -u, and --ci", async (context) => {
  const vim = need("vim", context);
  const dir = scratch();
  write(dir, { "vim.test.cjs": vimTest(vim, "hello jest") });

  // A host of its own, which the first program of the inner run starts: from inside jest,
  // whose test code runs in a realm of its own (its errors are not this realm's `Error`).
  const host = freshHost();
  const first = await jest(dir, [], host);
  expect(first.code, first.output).toBe(0);
  expect(first.output).toContain(`wrote the new golden ${join(dir, GOLDEN)}`);
  expect(svgText(join(dir, GOLDEN)).split("\n")[0]).toBe("hello jest");
  expect((await jest(dir)).code).toBe(0);

  write(dir, { "vim.test.cjs": vimTest(vim, "hello jets") });
  const differs = await jest(dir);
  expect(outcomes(differs)).toEqual({ "vim shows what was typed": "failed" });
  expect(failures(differs)).toContain('col 8: expected "s", actual "t"');
  expect(existsSync(join(dir, GOLDEN.replace(".svg", ".diff.svg")))).toBe(true);

  const updated = await jest(dir, ["-u"]);
  expect(updated.code, updated.output).toBe(0);
  expect(svgText(join(dir, GOLDEN)).split("\n")[0]).toBe("hello jets");

  // --ci: jest writes no new snapshots, and shotty no new goldens.
  const fresh = scratch();
  write(fresh, { "vim.test.cjs": vimTest(vim, "hello jest") });
  const ci = await jest(fresh, ["--ci"]);
  expect(ci.code).toBe(1);
  expect(failures(ci)).toMatch(/vim_shows_what_was_typed\.svg does not exist/);
  expect(existsSync(join(fresh, GOLDEN))).toBe(false);
});
