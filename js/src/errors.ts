/**
 * What shotty throws. Every error carries the host's stable `code` and, where there was a
 * screen, the screen as text in `screen` and at the end of the message.
 */

/** A failure reported by shotty. */
export class ShottyError extends Error {
  /**
   * The stable error code (docs/host-protocol.md): `wait_timeout`, `session_exited`,
   * `unsupported_key`, `invalid_request`, `host_unavailable`…
   */
  readonly code: string;
  /** The screen as text when the failure concerns a program. */
  readonly screen: string | undefined;

  constructor(code: string, message: string, screen?: string) {
    super(screen === undefined ? message : `${message}\n${screen}`);
    this.name = new.target.name;
    this.code = code;
    this.screen = screen;
  }
}

/** A wait ran out of time before its condition held. */
export class WaitTimeout extends ShottyError {}

/** The program ended while something still needed it (a wait, input). */
export class ProgramExited extends ShottyError {}

/** The screen differs from its golden file (or the golden is missing where it must exist). */
export class ScreenMismatch extends ShottyError {
  /** `NAME.actual.svg` beside the golden (the screen), when written. */
  readonly actual: string | undefined;
  /** `NAME.diff.svg` beside the golden (the differing cells marked), when written. */
  readonly diff: string | undefined;

  constructor(message: string, actual?: string, diff?: string) {
    super("screen_mismatch", message);
    this.actual = actual;
    this.diff = diff;
  }
}
