// The suite gets a session host of its own: a private runtime directory, HOME and state, set
// before vitest starts its workers (which inherit them); at the end every session is stopped
// and the directory removed.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { binary } from "shotty";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "shotty-js-suite-"));
  for (const name of ["run", "home", "state"]) {
    mkdirSync(join(root, name), { mode: 0o700 });
  }
  Object.assign(process.env, {
    SHOTTY_SUITE_ROOT: root,
    SHOTTY_RUNTIME_DIR: join(root, "run"),
    SHOTTY_STATE_DIR: join(root, "state"),
    SHOTTY_HOST_IDLE_MS: "3000",
    HOME: join(root, "home"),
  });
  return () => {
    try {
      execFileSync(binary(), ["session", "stop", "--all", "--yes"], { stdio: "ignore" });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
}
