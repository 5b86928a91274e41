// What the tests share: programs they need, process checks, and inner test runs (vitest or
// jest started on test files written for the occasion, as users run them).
import { execFile } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { onTestFinished } from "vitest";

/** The suite's directory (tests/js, or its copy where the package was installed). */
export const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The programs the tests drive. */
export const APPS = join(PROJECT, "apps");

/**
 * The path of `program` on PATH. A test that needs an absent program fails in CI (`CI` set)
 * and is skipped elsewhere, saying what is missing (tests/dependencies.txt).
 */
export function need(program: string, context: { skip(note?: string): void }): string {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = join(dir || ".", program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  const message = `${program} is not installed (tests/dependencies.txt)`;
  if (process.env.CI) {
    throw new Error(message);
  }
  context.skip(message);
  throw new Error(message);
}

/** Whether process `pid` exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z";
  } catch {
    return false;
  }
}

/** A temporary directory inside the project (so that `shotty` and the runners resolve from it), removed when the test ends. */
export function scratch(): string {
  const runs = join(PROJECT, ".runs");
  mkdirSync(runs, { recursive: true });
  const dir = mkdtempSync(join(runs, "t-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The environment of a session host of the test's own, not yet running: the first program
 * started with it starts the host. (It ends by itself once idle: SHOTTY_HOST_IDLE_MS.)
 */
export function freshHost(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "shotty-js-host-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "state"), { mode: 0o700 });
  return { SHOTTY_RUNTIME_DIR: dir, SHOTTY_STATE_DIR: join(dir, "state") };
}

/** How an inner run ended: its exit code, output, and the runner's JSON report. */
export interface InnerRun {
  code: number;
  output: string;
  report: JsonReport;
}

/** The part of the JSON report (jest's format, which vitest's `json` reporter also writes) the tests read. */
export interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { title: string; fullName: string; status: string; failureMessages: string[] }[] }[];
}

/** The environment of an inner run: this one's without `CI` (a run asks for it), plus `env`. */
function innerEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(merged)) {
    if (key === "CI" || key.startsWith("VITEST") || key === "NODE_ENV" || key.startsWith("JEST_")) {
      delete merged[key];
    }
  }
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) {
      delete merged[key];
    } else {
      merged[key] = value;
    }
  }
  return merged;
}

function runner(dir: string, command: string, args: string[], env: Record<string, string | undefined>): Promise<InnerRun> {
  const reportPath = join(dir, "report.json");
  rmSync(reportPath, { force: true });
  return new Promise((done) => {
    execFile(
      join(PROJECT, "node_modules", ".bin", command),
      args,
      { cwd: dir, env: innerEnv(env), maxBuffer: 64 << 20, timeout: 100_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        let report: JsonReport;
        try {
          report = JSON.parse(readFileSync(reportPath, "utf8")) as JsonReport;
        } catch {
          report = { numPassedTests: 0, numFailedTests: 0, testResults: [] };
        }
        done({ code, output: `${stdout}\n${stderr}`, report });
      },
    );
  });
}

/** Writes `files` into `dir`. */
export function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

/** Runs vitest in `dir` (its test files written there) with shotty's setup file, as a user's project does. */
export function vitest(dir: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<InnerRun> {
  write(dir, {
    "vitest.config.mjs": `export default { test: { setupFiles: ["shotty/vitest"], testTimeout: 60000 } };\n`,
  });
  return runner(dir, "vitest", ["run", "--config", "vitest.config.mjs", "--reporter=default", "--reporter=json", "--outputFile=report.json", ...args], env);
}

/** Runs jest in `dir` with shotty's setup file after the framework, as a user's project does. */
export function jest(dir: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<InnerRun> {
  write(dir, {
    "jest.config.cjs": `module.exports = { setupFilesAfterEnv: ["shotty/jest"], testEnvironment: "node", testTimeout: 60000 };\n`,
  });
  return runner(dir, "jest", ["--config", "jest.config.cjs", "--rootDir", dir, "--json", "--outputFile=report.json", ...args], env);
}

/** Each test of a report: its name and status (`passed`, `failed`). */
export function outcomes(run: InnerRun): Record<string, string> {
  const found: Record<string, string> = {};
  for (const file of run.report.testResults) {
    for (const test of file.assertionResults) {
      found[test.title] = test.status;
    }
  }
  return found;
}

/** The failure messages of a report, joined. */
export function failures(run: InnerRun): string {
  return run.report.testResults.flatMap((file) => file.assertionResults.flatMap((test) => test.failureMessages)).join("\n");
}

/** The screen an SVG of shotty holds, as text: its structured snapshot's cells, row by row. */
export function svgText(path: string): string {
  const svg = readFileSync(path, "utf8");
  const start = svg.indexOf("<metadata>");
  const end = svg.indexOf("</metadata>");
  if (start < 0 || end < 0) {
    throw new Error(`${path} has no structured snapshot`);
  }
  const snapshot = JSON.parse(svg.slice(start + "<metadata>".length, end)) as { rows: { cells: { t: string }[] }[] };
  return snapshot.rows.map((row) => row.cells.map((cell) => cell.t).join("").trimEnd()).join("\n");
}
