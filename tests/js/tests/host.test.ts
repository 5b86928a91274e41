// A host killed with a request read and unanswered leaves its socket behind: a question is
// asked again of a new host, which answers it; a start, which may have been half done, is not.
import { linkSync, mkdirSync, mkdtempSync, unlinkSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { ShottyError, spawn } from "shotty";
import { expect, test } from "vitest";

/**
 * Listens at `path` (0600) like a host, reads the first request and dies: the connection is
 * dropped unanswered with the socket file back in place (Node removes it on close).
 */
function dyingHost(path: string): Promise<void> {
  return new Promise((resolve) => {
    const server = createServer((connection: Socket) => {
      connection.once("data", () => {
        const kept = `${path}.kept`;
        linkSync(path, kept);
        server.close();
        linkSync(kept, path);
        unlinkSync(kept);
        connection.destroy();
        resolve();
      });
    });
    server.listen(path);
  });
}

/** The pid of the host listening at `path`, from its `ping`. */
function hostPid(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const connection = createConnection(path, () => {
      connection.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    });
    let reply = "";
    connection.on("data", (chunk) => {
      reply += chunk.toString("utf8");
      if (reply.endsWith("\n")) {
        connection.destroy();
        resolve(Number(JSON.parse(reply).result.pid));
      }
    });
    connection.on("error", reject);
  });
}

test("a host dead before answering is asked a question again, and nothing else", async () => {
  const root = mkdtempSync(join(tmpdir(), "shotty-dying-host-"));
  const saved = { ...process.env };
  try {
    for (const name of ["run", "state"]) {
      mkdirSync(join(root, name), { mode: 0o700 });
    }
    process.env.SHOTTY_RUNTIME_DIR = join(root, "run");
    process.env.SHOTTY_STATE_DIR = join(root, "state");
    const socket = join(root, "run", "host.sock");

    // A start is not sent again.
    let died = dyingHost(socket);
    const refused = await spawn(["sleep", "30"]).then(
      () => undefined,
      (error: unknown) => error,
    );
    await died;
    expect(refused).toBeInstanceOf(ShottyError);
    expect((refused as ShottyError).code).toBe("host_unavailable");

    // A question is: the new host answers it (the session is its, started after).
    unlinkSync(socket);
    const tui = await spawn(["sh", "-c", "echo ready; exec sleep 30"]);
    await tui.waitForText("ready");
    process.kill(await hostPid(socket), "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 200));
    unlinkSync(socket);
    died = dyingHost(socket);
    const text = await tui.text();
    await died;
    expect(typeof text).toBe("string");
    await tui.close();
  } finally {
    process.env = saved;
  }
});
