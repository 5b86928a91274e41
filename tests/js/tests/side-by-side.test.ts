// The same Ink component pinned two ways: ink-testing-library's string snapshot (the component
// rendered to a string in process, no terminal) and shotty's golden (the app in a real PTY,
// drawn by shotty's emulator). A colour regression: only the picture of the screen sees it.
import { join } from "node:path";

import { expect, test } from "vitest";

import { APPS, failures, outcomes, scratch, vitest, write } from "./support.js";

const BOTH = `
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { spawn } from "shotty";
import { expect, test } from "vitest";

import { Counter } from ${JSON.stringify(join(APPS, "counter-view.mjs"))};

const settle = () => new Promise((done) => setTimeout(done, 100));

test("ink-testing-library", async () => {
  const { lastFrame, stdin, unmount } = render(h(Counter));
  await settle();
  stdin.write("\\u001B[A");
  await settle();
  stdin.write("\\u001B[A");
  await settle();
  expect(lastFrame()).toContain("count: 2");
  expect(lastFrame()).toMatchSnapshot();
  unmount();
});

test("shotty", async () => {
  const app = await spawn(["node", ${JSON.stringify(join(APPS, "counter.mjs"))}], { size: [40, 8] });
  await app.waitForText("count: 0", { timeout: 30000 });
  await app.keys("Up", "Up");
  await app.waitForText("count: 2");
  await expect(app).toMatchScreenSnapshot();
});
`;

test("shotty's golden catches a colour regression that the string snapshot cannot", async () => {
  const dir = scratch();
  write(dir, { "counter.test.ts": BOTH });
  const first = await vitest(dir, [], { COUNTER_COLOR: "green" });
  expect(first.code, first.output).toBe(0);
  const again = await vitest(dir, [], { COUNTER_COLOR: "green" });
  expect(outcomes(again)).toEqual({ "ink-testing-library": "passed", shotty: "passed" });

  const regressed = await vitest(dir, [], { COUNTER_COLOR: "red" });
  expect(outcomes(regressed)).toEqual({ "ink-testing-library": "passed", shotty: "failed" });
  // shotty says which cells changed and how: the colour of the "2" of "count: 2" (SGR 32 → 31).
  const message = failures(regressed);
  expect(message).toMatch(/the screen differs from .*shotty\.svg in 1 cell\(s\)/);
  expect(message).toContain('col 9: expected "2" {"fg":2}, actual "2" {"fg":1}');
});
