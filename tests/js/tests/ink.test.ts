// An Ink app (React for the terminal, from npm) driven by keys in a real PTY, its screen
// pinned by a committed golden: __screenshots__/ink.test.ts/.
import { join } from "node:path";

import { spawn } from "shotty";
import { expect, test } from "vitest";

import { APPS } from "./support.js";

test("the Ink counter counts up and down and quits", async () => {
  const app = await spawn(["node", join(APPS, "counter.mjs")], { size: [40, 8], env: { COUNTER_COLOR: "green" } });
  await app.waitForText("count: 0", { timeout: 30_000 });
  await expect(app).toMatchScreenSnapshot("start");
  await app.keys("Up", "Up", "Up", "Down");
  await app.waitForText("count: 2");
  await expect(app).toMatchScreenSnapshot("counted");
  await app.keys("q");
  expect(await app.waitForExit()).toBe(0);
});
