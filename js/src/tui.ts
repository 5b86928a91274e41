/** `Tui`: one program in a terminal of the session host. */

import { execFile, spawnSync } from "node:child_process";
import { constants as osConstants } from "node:os";
import { resolve as resolvePath } from "node:path";

import { ProgramExited, ScreenMismatch, ShottyError, WaitTimeout } from "./errors";
import { type Host, REPLY_TIMEOUT_MS, sharedHost } from "./host";
import type { Snapshot } from "./snapshot";

/** Milliseconds a wait gives its condition unless told otherwise. */
export const DEFAULT_TIMEOUT_MS = 5_000;
/** How long before the running test's own timeout a wait without one gives up. */
const TEST_DEADLINE_MARGIN_MS = 500;

/**
 * Tells waits when the running test will be timed out by its runner (`undefined`: unknown),
 * so a wait given no timeout ends first and the test fails with the wait's message and the
 * screen rather than the runner's bare "test timed out". The vitest setup sets it per test.
 */
export function setTestDeadline(at: number | undefined): void {
  shared.testDeadline = at;
}

/** The timeout of a wait given none: {@link DEFAULT_TIMEOUT_MS}, ending before the test's deadline. */
export function defaultTimeout(): number {
  const deadline = shared.testDeadline;
  if (deadline === undefined) {
    return DEFAULT_TIMEOUT_MS;
  }
  return Math.max(0, Math.min(DEFAULT_TIMEOUT_MS, deadline - TEST_DEADLINE_MARGIN_MS - Date.now()));
}
/** Milliseconds a reply may take beyond the time the request itself asks the host to spend. */
const REPLY_MARGIN_MS = 10_000;
/** `stop` ends process trees with a 3 s grace and answers within 60 s. */
const STOP_TIMEOUT_MS = 60_000;

/** A command the shell ran (shell integration): what {@link Tui.waitForCommand} returns. */
export interface Command {
  /** The command line as typed. */
  text: string;
  /** Its exit status, when the shell reported one. */
  exitCode: number | null;
  /** What it printed (plain text). */
  output: string;
  /** Whether `output` was cut short. */
  outputTruncated: boolean;
  /** Milliseconds it ran. */
  durationMs: number;
}

/**
 * How a picture is drawn: the options of `shotty session capture` / `shotty render` in
 * camelCase (`{ theme: "nord", window: "macos", noCursor: true, fontsize: 16, scale: 2 }`).
 * The binary checks them; `false`, `null` and `undefined` leave an option out, an array
 * repeats it.
 */
export type Appearance = Record<string, string | number | boolean | null | undefined | readonly (string | number)[]>;

/** Options of {@link spawn}. */
export interface SpawnOptions {
  /** Columns and rows (default `[80, 24]`). */
  size?: readonly [number, number];
  /**
   * Variables set for the program on top of this process's environment (the program sees
   * what this process sees, plus `TERM=xterm-256color`, `COLORTERM=truecolor`,
   * `FORCE_COLOR=3`, without `CI`).
   */
  env?: Record<string, string>;
  /** Its working directory (default: this process's). */
  cwd?: string;
  /** Make bash, zsh or fish report each command and its exit code ({@link Tui.waitForCommand}). */
  shellIntegration?: boolean;
  /** How `shotty session list` names it. */
  name?: string;
  /** How `shotty session list` groups it. */
  group?: string;
  /** End the program after this many milliseconds. */
  timeout?: number;
  /** Resolve once the program waits for input (its first prompt, with shell integration), waiting at most this many milliseconds. */
  waitReady?: number;
}

/** Options of a wait. */
export interface WaitOptions {
  /** Milliseconds to give the condition (default 5000). */
  timeout?: number;
}

/** Options of {@link Tui.assertScreen}. */
export interface AssertScreenOptions extends WaitOptions {
  /** Rewrite the golden with the screen. */
  update?: boolean;
  /** A missing golden is a failure instead of being written. */
  missingFails?: boolean;
}

/** What {@link Tui.assertScreen} found: the screen matched, the golden was rewritten, or written anew. */
export type GoldenVerdict = "matched" | "updated" | "new";

/** A mouse button. */
export type MouseButton = "left" | "middle" | "right";

/** One step of the host protocol's `send` (docs/host-protocol.md). */
export type SendStep =
  | { text: string }
  | { paste: string }
  | { keys: string }
  | { rawHex: string }
  | { delay: number }
  | { mouse: Record<string, unknown> };

/** The session host's reply to `wait` (the fields this package reads). */
interface WaitReply {
  matched?: boolean;
  result?: string;
  exitCode?: number | null;
  signal?: string | null;
  stopReason?: string | null;
  screen?: ScreenText;
  command?: Partial<Command> & { durationMs?: number };
}

/** A screen as the host's `read` gives it. */
interface ScreenText {
  width?: number;
  height?: number;
  text?: string;
}

/** `{ noCursor: true, theme: "nord" }` → `--no-cursor --theme nord`: the binary's own options. */
export function appearanceFlags(appearance: Appearance): string[] {
  const flags: string[] = [];
  for (const [key, value] of Object.entries(appearance)) {
    const flag = `--${key.replace(/[A-Z]/g, (upper) => `-${upper.toLowerCase()}`).replace(/_/g, "-")}`;
    if (value === undefined || value === null || value === false) {
      continue;
    }
    if (value === true) {
      flags.push(flag);
    } else if (Array.isArray(value)) {
      for (const item of value) {
        flags.push(flag, String(item));
      }
    } else {
      flags.push(flag, String(value));
    }
  }
  return flags;
}

/** Runs the binary: its stdout, or a {@link ShottyError} with its message when it fails. */
export function runBinary(path: string, args: readonly string[], input?: Uint8Array | string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      path,
      args,
      { encoding: "buffer", maxBuffer: 1 << 30 },
      (error, stdout, stderr) => {
        if (error) {
          const message = stderr.toString("utf8").trim() || `shotty ${args[0]} failed (${error.message})`;
          reject(new ShottyError("invalid_request", message));
        } else {
          resolve(stdout);
        }
      },
    );
    // A binary that exits before reading all its input closes the pipe: its exit says why.
    child.stdin?.on("error", () => {});
    child.stdin?.end(input ?? "");
  });
}

/**
 * This process's environment as `start`'s `baseEnv`: the program sees what the caller sees,
 * whichever process started the host.
 */
function clientEnvironment(): [string, string][] {
  return Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined);
}

/** A program's end as Node reports a child's: the exit code, or `-N` when signal N ended it. */
function exitStatus(reply: WaitReply): number {
  if (typeof reply.exitCode === "number") {
    return reply.exitCode;
  }
  const number = reply.signal ? (osConstants.signals as Record<string, number>)[reply.signal] : undefined;
  return number === undefined ? -1 : -number;
}

function describeEnd(reply: WaitReply): string {
  if (typeof reply.exitCode === "number") {
    return `exit code ${reply.exitCode}`;
  }
  if (reply.signal) {
    return `killed by ${reply.signal}`;
  }
  return reply.stopReason ?? "stopped";
}

/** The screen for a message: its size, then each row behind a bar, so blanks show. */
function describeScreen(screen: ScreenText | undefined): string | undefined {
  if (!screen) {
    return undefined;
  }
  const rows = (screen.text ?? "").split("\n");
  while (rows.length > 1 && rows[rows.length - 1]?.trim() === "") {
    rows.pop();
  }
  return `the screen (${screen.width}x${screen.height}):\n${rows.map((row) => `  |${row}`).join("\n")}`;
}

/** A regular expression for the host (Rust's regex syntax): a JavaScript `RegExp`'s `i`, `m` and `s` flags become inline flags. */
function hostPattern(pattern: string | RegExp): string {
  if (typeof pattern === "string") {
    return pattern;
  }
  const flags = [...pattern.flags].filter((flag) => "ims".includes(flag)).join("");
  return flags ? `(?${flags})${pattern.source}` : pattern.source;
}

/** What every copy of this module in the process shares (see {@link shared}). */
interface Shared {
  /** Every program started and not closed yet, in order: what the test-runner integrations end. */
  live: Set<Tui>;
  /** The serial number of the program started last. */
  serial: number;
  /** When the running test times out, where its runner says (see {@link setTestDeadline}). */
  testDeadline: number | undefined;
  /** Whether the exit hook is in place. */
  exitHookInstalled: boolean;
}

/**
 * The process's one {@link Shared}: a test runner may load this package twice — vitest runs
 * a linked package's ESM setup file through its own module runner while the tests `require`
 * it — and the programs started and the test's deadline must be the same for both copies.
 */
const shared: Shared = ((globalThis as Record<symbol, unknown>)[Symbol.for("shotty.tui")] ??= {
  live: new Set<Tui>(),
  serial: 0,
  testDeadline: undefined,
  exitHookInstalled: false,
}) as Shared;
const live = shared.live;

/** The serial number the next program will get: programs started later have a larger one. */
export function nextSerial(): number {
  return shared.serial + 1;
}

/**
 * Ends every program started (by this process) from `fromSerial` on that is not closed yet,
 * the first failure thrown once all were tried.
 */
export async function closeStarted(fromSerial = 0): Promise<void> {
  const ending = [...live].filter((tui) => tui.serial >= fromSerial);
  const outcomes = await Promise.allSettled(ending.map((tui) => tui.close()));
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (failure) {
    throw failure.reason;
  }
}

/**
 * Programs still open when this process exits are ended with it: sessions must not outlive
 * a test run that forgot them (or crashed). `exit` handlers cannot wait for a socket, so the
 * binary's own `session stop` does it.
 */
function installExitHook(host: Host): void {
  if (shared.exitHookInstalled) {
    return;
  }
  shared.exitHookInstalled = true;
  process.once("exit", () => {
    const ids = [...live].map((tui) => tui.sessionId);
    if (ids.length > 0) {
      spawnSync(host.binary, ["session", "stop", ...ids], { stdio: "ignore", timeout: STOP_TIMEOUT_MS });
    }
  });
}

/**
 * A program running in a terminal of the session host ({@link spawn} makes one).
 *
 * Methods that send return the `Tui` (as a promise), so a step reads
 * `await tui.type("ls")` then `await tui.keys("Enter")`. `close()` ends the program and its
 * whole process tree; `await using tui = await spawn(…)` does it on leaving the block.
 */
export class Tui {
  /** The host's id for the session (`shotty session read ID` reads it too). */
  readonly sessionId: string;
  /** The program's process id. */
  readonly pid: number | undefined;
  /** The command line. */
  readonly argv: readonly string[];
  /** Columns and rows. */
  size: [number, number];
  /** Started `serial`-th in this process (see {@link closeStarted}). */
  readonly serial: number;
  readonly #host: Host;
  #closed = false;

  private constructor(host: Host, started: Record<string, unknown>, argv: readonly string[]) {
    this.#host = host;
    this.sessionId = String(started.sessionId);
    this.pid = typeof started.processId === "number" ? started.processId : undefined;
    this.argv = argv;
    this.size = [Number(started.width), Number(started.height)];
    this.serial = ++shared.serial;
  }

  /**
   * Starts `argv` (run directly, no shell unless it is one) in a terminal.
   *
   * @throws ShottyError the program cannot be started (`session_not_started` for one that does not exist).
   */
  static async spawn(argv: readonly string[], options: SpawnOptions = {}): Promise<Tui> {
    if (!Array.isArray(argv) || argv.length === 0 || argv.some((arg) => typeof arg !== "string")) {
      throw new TypeError("spawn(argv): argv must be a non-empty array of strings");
    }
    const [width, height] = options.size ?? [80, 24];
    const params: Record<string, unknown> = {
      command: [...argv],
      width,
      height,
      cwd: resolvePath(options.cwd ?? process.cwd()),
      baseEnv: clientEnvironment(),
      env: Object.entries(options.env ?? {}),
      shellIntegration: options.shellIntegration ?? false,
      // The program ends with this process, however it ends (a signal, a crash): the exit
      // hook below cannot run on a signal.
      ownerPid: process.pid,
    };
    if (options.name !== undefined) params.name = options.name;
    if (options.group !== undefined) params.group = options.group;
    if (options.timeout !== undefined) params.timeoutMs = Math.round(options.timeout);
    let replyTimeout = REPLY_TIMEOUT_MS;
    if (options.waitReady !== undefined) {
      params.waitReadyMs = Math.round(options.waitReady);
      replyTimeout += options.waitReady;
    }
    const host = sharedHost();
    const started = (await host.call("start", params, replyTimeout)) as Record<string, unknown>;
    const tui = new Tui(host, started, [...argv]);
    live.add(tui);
    installExitHook(host);
    return tui;
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  // -- input --------------------------------------------------------------------------

  /**
   * Sends steps of the host protocol in one operation, in order: `{ text }`, `{ paste }`,
   * `{ keys }`, `{ rawHex }`, `{ mouse: {…} }`, `{ delay: ms }` (docs/host-protocol.md).
   */
  async send(...steps: SendStep[]): Promise<this> {
    await this.#call("send", { steps });
    return this;
  }

  /**
   * Presses keys by name, in order: `Enter`, `Tab`, `Escape`, `Up`, `F5`, `Ctrl+C`, `Alt+x`,
   * `Shift+Tab`… (`shotty session send --help`).
   */
  keys(...names: string[]): Promise<this> {
    return this.send(...names.map((name) => ({ keys: name })));
  }

  /** Types text as keystrokes. */
  type(text: string): Promise<this> {
    return this.send({ text });
  }

  /** Pastes text (bracketed when the program asked for bracketed paste). */
  paste(text: string): Promise<this> {
    return this.send({ paste: text });
  }

  /**
   * Clicks the cell at `row`, `col` (0-based), encoded for the program's mouse mode. Fails
   * when the program has not turned mouse tracking on.
   */
  click(row: number, col: number, options: { button?: MouseButton } = {}): Promise<this> {
    return this.send({ mouse: { action: "click", row, col, button: options.button ?? "left" } });
  }

  /** Clicks the first cell of the `nth` (from 1) occurrence of `text` on the screen. */
  clickText(text: string, options: { nth?: number; button?: MouseButton } = {}): Promise<this> {
    return this.send({ mouse: { action: "click", text, nth: options.nth ?? 1, button: options.button ?? "left" } });
  }

  /** Resizes the terminal; the program gets SIGWINCH. */
  async resize(cols: number, rows: number): Promise<this> {
    const reply = (await this.#call("resize", { width: cols, height: rows })) as Record<string, unknown>;
    this.size = [Number(reply.width), Number(reply.height)];
    return this;
  }

  // -- waiting ------------------------------------------------------------------------

  /**
   * Waits until `text` is on the screen (blanks match spaces, a line break the end of a row).
   *
   * @throws WaitTimeout, ProgramExited — their message shows the screen.
   */
  async waitForText(text: string, options: WaitOptions = {}): Promise<this> {
    await this.#wait({ text }, options, `text ${JSON.stringify(text)}`);
    return this;
  }

  /**
   * Waits until the regular expression matches the screen (one line per row, `^` and `$`
   * anchor lines). A string is Rust's regex syntax; a `RegExp` keeps its `i`, `m`, `s` flags.
   */
  async waitForRegex(pattern: string | RegExp, options: WaitOptions = {}): Promise<this> {
    const regex = hostPattern(pattern);
    await this.#wait({ regex }, options, `a match of /${regex}/`);
    return this;
  }

  /**
   * Waits until `text` is not on the screen once the program has reacted to the input sent
   * before, whether or not it was ever seen (a message that came and went in a moment does not
   * make the wait time out).
   */
  async waitUntilGone(text: string, options: WaitOptions = {}): Promise<this> {
    await this.#wait({ text, until: "gone" }, options, `${JSON.stringify(text)} to go`);
    return this;
  }

  /** Waits until the screen has not changed for `ms` milliseconds. */
  async waitForIdle(ms = 200, options: WaitOptions = {}): Promise<this> {
    await this.#wait({ idleMs: ms }, options, `the screen to be idle for ${ms} ms`);
    return this;
  }

  /** Waits for the shell to finish the command typed last and returns it (needs `shellIntegration`). */
  async waitForCommand(options: WaitOptions = {}): Promise<Command> {
    const reply = await this.#wait({ command: true }, options, "a command to finish");
    const done = reply.command ?? {};
    return {
      text: done.text ?? "",
      exitCode: done.exitCode ?? null,
      output: done.output ?? "",
      outputTruncated: Boolean(done.outputTruncated),
      durationMs: done.durationMs ?? 0,
    };
  }

  /** Waits for the program to end: its exit code, or `-N` when signal `N` ended it. */
  async waitForExit(options: WaitOptions = {}): Promise<number> {
    return exitStatus(await this.#wait({ exit: true }, options, "the program to exit"));
  }

  async #wait(condition: Record<string, unknown>, options: WaitOptions, what: string): Promise<WaitReply> {
    const timeout = Math.max(0, Math.round(options.timeout ?? defaultTimeout()));
    const reply = (await this.#call("wait", { ...condition, timeoutMs: timeout }, timeout + REPLY_MARGIN_MS)) as WaitReply;
    if (reply.matched) {
      return reply;
    }
    const screen = describeScreen(reply.screen);
    if (reply.result === "session-ended") {
      throw new ProgramExited("session_exited", `waiting for ${what}: the program ended (${describeEnd(reply)})`, screen);
    }
    throw new WaitTimeout("wait_timeout", `timed out after ${timeout / 1000} s waiting for ${what}`, screen);
  }

  // -- reading ------------------------------------------------------------------------

  /** The screen as text: one line per row, each without its trailing blanks. */
  async text(): Promise<string> {
    const reply = (await this.#call("read", {})) as { screen: ScreenText };
    return String(reply.screen.text ?? "");
  }

  /** The screen as a snapshot (schema v1: cells, styles, cursor, title, modes). */
  async snapshot(): Promise<Snapshot> {
    const reply = (await this.#call("snapshot", {})) as { snapshot: Snapshot };
    return reply.snapshot;
  }

  /**
   * Renders the screen to `path`: `.svg`, `.png`, `.txt` or `.json`, drawn with the options of
   * `shotty session capture` (`{ theme: "nord", window: "macos", fontsize: 16, scale: 2 }`).
   * Resolves to the absolute path.
   */
  async screenshot(path: string, appearance: Appearance = {}): Promise<string> {
    this.#ensureOpen();
    const target = resolvePath(path);
    await runBinary(this.#host.binary, ["session", "capture", this.sessionId, "-o", target, ...appearanceFlags(appearance)]);
    return target;
  }

  /**
   * Compares the screen with a golden `.svg` (or `.json`) cell by cell — text, width, style,
   * link, cursor, title, size — giving the program up to `timeout` ms to come to match.
   * `update` rewrites the golden; a missing golden is written, unless `missingFails`.
   *
   * @throws ScreenMismatch carrying the cell report; the screen is left in `NAME.actual.svg`
   *   and the differing cells marked in `NAME.diff.svg`.
   */
  async assertScreen(golden: string, options: AssertScreenOptions = {}): Promise<GoldenVerdict> {
    const timeout = Math.max(0, Math.round(options.timeout ?? defaultTimeout()));
    const reply = (await this.#call(
      "golden",
      { path: resolvePath(golden), update: options.update ?? false, missingFails: options.missingFails ?? false, timeoutMs: timeout },
      timeout + REPLY_MARGIN_MS,
    )) as { verdict: GoldenVerdict | "failed"; message?: string; actual?: string; diff?: string };
    if (reply.verdict === "failed") {
      throw new ScreenMismatch(reply.message ?? "", reply.actual, reply.diff);
    }
    return reply.verdict;
  }

  // -- ending -------------------------------------------------------------------------

  /**
   * Ends the program and every process it started, and forgets the session (nothing of it
   * stays on disk). Calling it again does nothing.
   */
  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    live.delete(this);
    try {
      await this.#host.call("stop", { sessionIds: [this.sessionId] }, STOP_TIMEOUT_MS);
    } catch (error) {
      if (!(error instanceof ShottyError) || !["session_not_found", "session_expired"].includes(error.code)) {
        throw error;
      }
    }
  }

  /** `await using tui = await spawn(…)` closes the program on leaving the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** For `console.log` and messages. */
  toString(): string {
    return `Tui(${this.sessionId} ${JSON.stringify(this.argv)})`;
  }

  #ensureOpen(): void {
    if (this.#closed) {
      throw new ShottyError("invalid_operation", `${this.toString()} was closed`);
    }
  }

  async #call(method: string, params: Record<string, unknown>, timeout?: number): Promise<unknown> {
    this.#ensureOpen();
    try {
      return await this.#host.call(method, { sessionId: this.sessionId, ...params }, timeout);
    } catch (error) {
      if (!(error instanceof ShottyError) || error.screen !== undefined || method === "read" || method === "snapshot") {
        throw error;
      }
      // The failure is about this program: show what it shows.
      const screen = await this.#screenOrUndefined();
      const Kind = error.code === "session_exited" ? ProgramExited : ShottyError;
      throw new Kind(error.code, error.message, screen);
    }
  }

  async #screenOrUndefined(): Promise<string | undefined> {
    try {
      const reply = (await this.#host.call("read", { sessionId: this.sessionId })) as { screen?: ScreenText };
      return describeScreen(reply.screen);
    } catch {
      return undefined;
    }
  }
}

/** Starts a program in a terminal: `await spawn(argv, { size: [cols, rows], env, cwd, shellIntegration })`. */
export function spawn(argv: readonly string[], options?: SpawnOptions): Promise<Tui> {
  return Tui.spawn(argv, options);
}
