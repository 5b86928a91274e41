/** Where the `shotty` binary is: the one this package was installed with. */

import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** An environment variable naming the binary to use instead of the installed one. */
export const BINARY_VAR = "SHOTTY_BIN";

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The path of the `shotty` binary: `$SHOTTY_BIN`; else the one this package carries
 * (`bin/shotty`, what `npx shotty` runs); else `shotty` on `PATH`.
 *
 * @throws Error when none is found.
 */
export function binary(): string {
  const override = process.env[BINARY_VAR];
  if (override) {
    if (!isExecutable(override)) {
      throw new Error(`$${BINARY_VAR} is ${JSON.stringify(override)}, which is not an executable`);
    }
    return override;
  }
  const carried = join(__dirname, "..", "bin", "shotty");
  if (isExecutable(carried)) {
    return carried;
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir || ".", "shotty");
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  throw new Error(
    `the shotty binary was not found: install the package (npm install shotty), put shotty on PATH, or set $${BINARY_VAR}`,
  );
}
