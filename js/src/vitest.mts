/// <reference types="vitest" preserve="true" />
/**
 * vitest: `expect(tui).toMatchScreenSnapshot()`, and every program a test started ended when
 * it ends. Load it as a setup file (`test.setupFiles: ["shotty/vitest"]` in vitest.config) or
 * import it at the top of a test file.
 */

import { afterAll, afterEach, beforeEach, expect } from "vitest";

import { endProgramsAfterTests, type ScreenSnapshotOptions, screenMatchers } from "./matcher.js";

expect.extend(screenMatchers);
endProgramsAfterTests({ beforeEach, afterEach, afterAll });

declare module "vitest" {
  interface Matchers<T = any> {
    /**
     * Compares the screen with `__screenshots__/<test file>/<test name>[-name].svg` beside the
     * test file, cell by cell; `vitest -u` rewrites it. Await it.
     */
    toMatchScreenSnapshot(name?: string, options?: ScreenSnapshotOptions): Promise<void>;
  }
}
