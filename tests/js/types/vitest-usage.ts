// Type-checked by `tsc -p tests/js` (never run): the package's declarations as a vitest user
// in TypeScript meets them (the matcher's type from `types: ["shotty/vitest"]`), with the
// mistakes they must refuse.
import { type Command, render, type Snapshot, spawn, type Tui, WaitTimeout } from "shotty";
import { expect } from "vitest";

export async function vitestUsage(): Promise<void> {
  const tui: Tui = await spawn(["vim"], { size: [80, 24], env: { A: "b" }, shellIntegration: false, waitReady: 1000 });
  const chained: Tui = await (await tui.type("x")).keys("Enter", "Ctrl+C");
  await chained.waitForRegex(/x/i, { timeout: 100 });
  const command: Command = await tui.waitForCommand();
  const code: number | null = command.exitCode;
  const snapshot: Snapshot = await tui.snapshot();
  const first: string | undefined = snapshot.rows[0]?.cells[0]?.t;
  const exit: number = await tui.waitForExit();
  const svg: Buffer = await render("x", { width: 10, theme: "nord", noCursor: true });
  const verdict: "matched" | "updated" | "new" = await tui.assertScreen("a.svg", { update: false });
  await expect(tui).toMatchScreenSnapshot();
  await expect(tui).toMatchScreenSnapshot("named", { timeout: 1000 });
  void [code, first, exit, svg, verdict, new WaitTimeout("wait_timeout", "m").screen];

  // @ts-expect-error argv is an array
  await spawn("vim");
  // @ts-expect-error the size is [columns, rows]
  await spawn(["vim"], { size: 80 });
  // @ts-expect-error a name is a string
  await expect(tui).toMatchScreenSnapshot(42);
  // @ts-expect-error waits take options, not a number of seconds
  await tui.waitForText("x", 5);
}
