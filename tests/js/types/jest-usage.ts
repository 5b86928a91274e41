// Type-checked by `tsc -p tests/js/tsconfig.jest.json` (never run), apart from the vitest
// files: the matcher's type as a jest user in TypeScript gets it, from `shotty/jest`.
import { expect } from "@jest/globals";
import { spawn } from "shotty";
import "shotty/jest";

export async function jestUsage(): Promise<void> {
  const tui = await spawn(["vim"]);
  await expect(tui).toMatchScreenSnapshot();
  await expect(tui).toMatchScreenSnapshot("named", { timeout: 1000 });
  // @ts-expect-error options are an object
  await expect(tui).toMatchScreenSnapshot("named", 1000);
}
