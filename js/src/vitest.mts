/// <reference types="vitest" preserve="true" />
/**
 * vitest: `expect(tui).toMatchScreenSnapshot()`, and every program a test started ended when
 * it ends. Load it as a setup file (`test.setupFiles: ["shotty/vitest"]` in vitest.config) or
 * import it at the top of a test file.
 */

import { afterAll, afterEach, beforeEach, expect } from "vitest";

import { endProgramsAfterTests, type ScreenSnapshotOptions, screenMatchers } from "./matcher.js";
import { setTestDeadline } from "./tui.js";

expect.extend(screenMatchers);
endProgramsAfterTests({ beforeEach, afterEach, afterAll });
// A wait given no timeout ends before the test's own, so the test fails with the wait's
// message and screen, not "Test timed out" (vitest's default test timeout is shotty's default
// wait). The context's destructuring is what vitest requires of a hook's first argument.
beforeEach(({ task }) => {
  const timeout = (task as { timeout?: number }).timeout;
  setTestDeadline(timeout ? Date.now() + timeout : undefined);
});
afterEach(() => setTestDeadline(undefined));

declare module "vitest" {
  interface Matchers<T = any> {
    /**
     * Compares the screen with `__screenshots__/<test file>/<test name>[-name].svg` beside the
     * test file, cell by cell; `vitest -u` rewrites it. Await it.
     */
    toMatchScreenSnapshot(name?: string, options?: ScreenSnapshotOptions): Promise<void>;
  }
}
