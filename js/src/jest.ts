/// <reference types="expect" preserve="true" />
/**
 * jest: `expect(tui).toMatchScreenSnapshot()`, and every program a test started ended when it
 * ends. Load it after the framework (`setupFilesAfterEnv: ["shotty/jest"]` in the jest
 * config).
 */

import { endProgramsAfterTests, type ScreenSnapshotOptions, screenMatchers } from "./matcher";

interface JestGlobals {
  expect: { extend(matchers: object): void };
  beforeEach(fn: () => void): void;
  afterEach(fn: () => Promise<void>): void;
  afterAll(fn: () => Promise<void>): void;
}

// jest injects its globals unless `injectGlobals: false`, where they come from @jest/globals.
// (Not named `jest`: jest's module wrapper has a binding of that name.)
const globals: JestGlobals = "expect" in globalThis ? (globalThis as unknown as JestGlobals) : (require("@jest/globals") as JestGlobals);

globals.expect.extend(screenMatchers);
endProgramsAfterTests(globals);

declare module "expect" {
  interface Matchers<R extends void | Promise<void>, T = unknown> {
    /**
     * Compares the screen with `__screenshots__/<test file>/<test name>[-name].svg` beside the
     * test file, cell by cell; `jest -u` rewrites it. Await it.
     */
    toMatchScreenSnapshot(name?: string, options?: ScreenSnapshotOptions): Promise<void>;
  }
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // The declaration @types/jest and vitest both make: the same type parameters, and the
    // same signature as vitest's own, so that a project with both compiles.
    interface Matchers<R, T = {}> {
      /** See the `expect` module's `toMatchScreenSnapshot`. */
      toMatchScreenSnapshot(name?: string, options?: ScreenSnapshotOptions): Promise<void>;
    }
  }
}
