/**
 * `expect(tui).toMatchScreenSnapshot()` and the test hooks that end programs, shared by the
 * vitest (`shotty/vitest`) and jest (`shotty/jest`) entry points: both runners give a custom
 * matcher the same context (`testPath`, `currentTestName`, `snapshotState`).
 */

import { basename, dirname, join } from "node:path";

import { ScreenMismatch } from "./errors";
import { closeStarted, defaultTimeout, nextSerial, Tui } from "./tui";

/** Options of `toMatchScreenSnapshot`. */
export interface ScreenSnapshotOptions {
  /** Milliseconds the program has to come to match (default 5000). */
  timeout?: number;
  /** The golden file to compare with, instead of the one named after the test. */
  golden?: string;
}

/** What vitest and jest give a matcher as `this` (the parts this module reads). */
export interface MatcherContext {
  isNot: boolean;
  testPath?: string | undefined;
  currentTestName?: string | undefined;
  /** The runner's snapshot state: its `_updateSnapshot` is `all` under `-u`, `none` under `--ci`. */
  snapshotState?: unknown;
}

/** A matcher's answer. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/** The hooks of a test runner this module registers its cleanup with. */
export interface TestHooks {
  beforeEach(fn: () => void): void;
  afterEach(fn: () => Promise<void>): void;
  afterAll(fn: () => Promise<void>): void;
}

/** Whether `name` is on: set, and not empty, `0` or `false` (the rule of shotty's `session::golden::env_flag`). */
function flag(name: string): boolean {
  const value = process.env[name] ?? "";
  return value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

function fileSafe(name: string): string {
  return name.replace(/[^\w.[\]=,+-]+/g, "_");
}

/** Unnamed goldens taken so far in each test: the second is `-2`, the third `-3`… */
const unnamedTaken = new Map<string, number>();

/**
 * `__screenshots__/<test file>/<test name>[-name].svg` beside the test file; a second unnamed
 * golden in one test is `-2`, a third `-3`…
 */
export function goldenPath(testPath: string, testName: string, name?: string): string {
  let suffix: string;
  if (name === undefined) {
    const key = `${testPath}\0${testName}`;
    const taken = (unnamedTaken.get(key) ?? 0) + 1;
    unnamedTaken.set(key, taken);
    suffix = taken === 1 ? "" : `-${taken}`;
  } else {
    suffix = `-${name}`;
  }
  return join(dirname(testPath), "__screenshots__", basename(testPath), `${fileSafe(testName + suffix)}.svg`);
}

/**
 * Compares the screen of `received` (a {@link Tui}) with its golden SVG cell by cell (`shotty
 * diff`'s semantics, not the picture's bytes). The runner's update mode (`-u`) or
 * `UPDATE_GOLDEN=1` rewrites it; a missing golden is written with a warning, unless `CI` is
 * set or the runner writes no new snapshots (`--ci`): then the test fails.
 */
export async function toMatchScreenSnapshot(
  this: MatcherContext,
  received: unknown,
  name?: string,
  options: ScreenSnapshotOptions = {},
): Promise<MatcherResult> {
  if (!(received instanceof Tui)) {
    throw new TypeError(`toMatchScreenSnapshot() expects a Tui from shotty's spawn(), got ${String(received)}`);
  }
  if (this.isNot) {
    throw new TypeError("toMatchScreenSnapshot() cannot be negated: a screen either matches its golden or the report says how it differs");
  }
  const mode = (this.snapshotState as { _updateSnapshot?: string } | undefined)?._updateSnapshot;
  let golden = options.golden;
  if (golden === undefined) {
    if (!this.testPath || !this.currentTestName) {
      throw new TypeError("toMatchScreenSnapshot() runs inside a test (or give it options.golden)");
    }
    golden = goldenPath(this.testPath, this.currentTestName, name);
  }
  try {
    const verdict = await received.assertScreen(golden, {
      update: mode === "all" || flag("UPDATE_GOLDEN"),
      missingFails: flag("CI") || mode === "none",
      timeout: options.timeout ?? defaultTimeout(),
    });
    if (verdict === "new") {
      console.warn(`shotty: wrote the new golden ${golden}: review it and commit it`);
    }
    return { pass: true, message: () => `the screen matches ${golden}` };
  } catch (error) {
    if (error instanceof ScreenMismatch) {
      const pictures = [
        error.actual && `the screen: ${error.actual}`,
        error.diff && `the differing cells marked: ${error.diff}`,
        // The host's message names the CLI's option; here the runner's own rewrites goldens.
        "the test runner's -u rewrites the golden with the screen",
      ].filter(Boolean);
      return { pass: false, message: () => `${error.message.trimEnd()}\n\n${pictures.join("\n")}` };
    }
    throw error;
  }
}

/** The matchers to hand to `expect.extend`. */
export const screenMatchers = { toMatchScreenSnapshot };

/**
 * Ends, after each test, every program it started — also when it failed — and after the
 * file, those started outside a test (`beforeAll`). Not for `test.concurrent`, whose tests
 * share one set of hooks.
 */
export function endProgramsAfterTests(hooks: TestHooks): void {
  let fromSerial = nextSerial();
  hooks.beforeEach(() => {
    fromSerial = nextSerial();
    unnamedTaken.clear();
  });
  hooks.afterEach(() => closeStarted(fromSerial));
  hooks.afterAll(() => closeStarted());
}
