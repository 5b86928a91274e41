/**
 * shotty: drive terminal programs in real pseudo-terminals, read and pin their screens.
 *
 * ```ts
 * import { spawn } from "shotty";
 *
 * await using py = await spawn(["python3", "-q"], { size: [60, 10] });
 * await py.waitForText(">>> ");
 * await py.type("6 * 7");
 * await py.keys("Enter");
 * await py.waitForText("42");
 * await py.screenshot("repl.svg", { window: "macos" });
 * ```
 *
 * Everything runs in shotty's session host (started by the `shotty` binary this package
 * carries): one terminal emulator, one PTY layer and one wait engine for the command line,
 * the MCP server, the Python package and this one. {@link render} draws raw terminal output
 * without running anything.
 */

import { binary } from "./binary";
import { type Appearance, appearanceFlags, runBinary } from "./tui";

export { binary } from "./binary";
export { ProgramExited, ScreenMismatch, ShottyError, WaitTimeout } from "./errors";
export type { ScreenSnapshotOptions } from "./matcher";
export type { Cell, Color, Cursor, Link, Row, Snapshot, Style } from "./snapshot";
export {
  type Appearance,
  type AssertScreenOptions,
  type Command,
  DEFAULT_TIMEOUT_MS,
  type GoldenVerdict,
  type MouseButton,
  type SendStep,
  spawn,
  type SpawnOptions,
  Tui,
  type WaitOptions,
} from "./tui";

/** Options of {@link render}: the size and format, and the options of `shotty render` in camelCase. */
export interface RenderOptions extends Appearance {
  /** Columns (default 100). */
  width?: number;
  /** Rows (default 24). */
  height?: number;
  /** `svg` (default), `png`, `txt`, `json`, `gif`, `apng` or `mp4`. */
  format?: string;
}

/**
 * Renders raw terminal output (or an asciicast recording) with the options of
 * `shotty render` (`{ theme: "dracula", window: "macos" }`). A bare LF starts a new line, as
 * a terminal driver makes it.
 *
 * ```ts
 * const svg = await render("\x1b[1;32mok\x1b[0m done\n", { width: 20, height: 2 });
 * ```
 */
export function render(data: Uint8Array | string, options: RenderOptions = {}): Promise<Buffer> {
  const { width = 100, height = 24, format = "svg", ...appearance } = options;
  const args = ["render", "--width", String(width), "--height", String(height), "--format", format];
  return runBinary(binary(), [...args, ...appearanceFlags(appearance)], data);
}
