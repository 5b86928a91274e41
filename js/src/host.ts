/**
 * A client of the session host: newline-delimited JSON-RPC 2.0 on its Unix socket
 * (docs/host-protocol.md). The binary starts the host; this module only talks to it.
 */

import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { join } from "node:path";

import { binary } from "./binary";
import { ShottyError } from "./errors";

/**
 * Milliseconds a reply may take. The host answers every request but `wait`, `stop` and
 * `golden` within 5 s (docs/host-protocol.md); a reply that takes longer means it is stuck.
 */
export const REPLY_TIMEOUT_MS = 10_000;
/** Replies are one line each; a `read` of a 500×500 screen with styles stays far below this. */
const MAX_REPLY_BYTES = 64 << 20;

/** The host's runtime directory, as the binary finds it. */
export function runtimeDir(): string {
  const explicit = process.env.SHOTTY_RUNTIME_DIR;
  if (explicit) {
    return explicit;
  }
  const xdg = process.env.XDG_RUNTIME_DIR;
  if (xdg) {
    return join(xdg, "shotty");
  }
  return `/tmp/shotty-${process.getuid?.() ?? 0}`;
}

/** A JSON-RPC reply as the host sends it. */
interface Reply {
  result?: unknown;
  error?: { message?: string; data?: { code?: string } };
}

function socketInode(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

// Not `instanceof Error`: under jest, test code runs in a realm of its own, whose `Error` is
// not the one Node's sockets throw.
function errorCode(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

function connect(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    socket.once("connect", () => {
      socket.removeListener("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/**
 * Sends `line` and reads the reply: the parsed object, or `undefined` when the host closed the
 * connection without one.
 */
function exchange(socket: Socket, line: string, timeoutMs: number): Promise<Reply | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (outcome: () => void): void => {
      socket.removeAllListeners();
      socket.on("error", () => {});
      socket.destroy();
      outcome();
    };
    socket.setTimeout(timeoutMs, () =>
      settle(() =>
        reject(new ShottyError("host_unavailable", `no reply from the session host in ${timeoutMs / 1000} s`)),
      ),
    );
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received > MAX_REPLY_BYTES) {
        settle(() => reject(new ShottyError("session_error", "the host's reply is over 64 MiB")));
        return;
      }
      if (chunk.includes(0x0a)) {
        settle(() => {
          const text = Buffer.concat(chunks).toString("utf8");
          let reply: unknown;
          try {
            reply = JSON.parse(text);
          } catch (error) {
            reject(new ShottyError("session_error", `the host's reply is not JSON: ${String(error)}`));
            return;
          }
          if (reply === null || typeof reply !== "object" || Array.isArray(reply)) {
            reject(new ShottyError("session_error", "the host's reply is not a JSON object"));
            return;
          }
          resolve(reply as Reply);
        });
      }
    });
    socket.on("end", () => settle(() => resolve(undefined)));
    socket.on("error", (error) => {
      const code = errorCode(error);
      if (code === "EPIPE" || code === "ECONNRESET") {
        settle(() => resolve(undefined));
      } else {
        settle(() => reject(new ShottyError("host_unavailable", `the session host connection failed: ${error.message}`)));
      }
    });
    socket.write(line);
  });
}

/**
 * Requests that change no session, as the binary lists them (`protocol::CHANGES_NO_SESSION`;
 * a test in src/session/protocol.rs checks the two lists agree).
 */
const CHANGES_NO_SESSION = new Set([
  "ping",
  "list",
  "read",
  "snapshot",
  "history",
  "export",
  "commands",
  "find",
  "output",
]);
/** How long a question is asked again of hosts that close the connection unanswered. */
const ASK_AGAIN_FOR_MS = 5_000;
/** How often it is asked again. */
const ASK_AGAIN_PAUSE_MS = 20;

/**
 * The per-user session host, reached through its socket.
 *
 * Each call is a connection of its own (a `wait` ends its connection anyway), so calls may
 * run concurrently. A host that is not running is started by running the binary's
 * `session list`, which starts one and returns once it listens.
 */
export class Host {
  /** The `shotty` binary that starts the host and draws pictures. */
  readonly binary: string;
  #nextId = 1;

  constructor(binaryPath: string) {
    this.binary = binaryPath;
  }

  /** The host's socket. */
  get socketPath(): string {
    return join(runtimeDir(), "host.sock");
  }

  /**
   * Sends one request and returns its `result`.
   *
   * @throws ShottyError the host answered with an error (its stable `code`), or could not be
   *   reached.
   */
  async call(method: string, params: Record<string, unknown>, timeoutMs = REPLY_TIMEOUT_MS): Promise<unknown> {
    const request = { jsonrpc: "2.0", id: this.#nextId++, method, params };
    const line = `${JSON.stringify(request)}\n`;
    // A host that ended in order (its idle exit, a newer host) between our connect and our
    // request closes the connection unread and removes its socket: sent again, once, to the
    // new host, as the CLI does. A host that died mid-request (its socket left behind) is
    // asked again only a question, until a host that lives answers it; any other request may
    // have been half done.
    const question = CHANGES_NO_SESSION.has(method);
    let [inode, reply] = await this.#send(line, timeoutMs);
    if (reply === undefined && (question || socketInode(this.socketPath) !== inode)) {
      const deadline = Date.now() + ASK_AGAIN_FOR_MS;
      for (;;) {
        [inode, reply] = await this.#send(line, timeoutMs);
        if (reply !== undefined || !question || Date.now() >= deadline) {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, ASK_AGAIN_PAUSE_MS));
      }
    }
    if (reply === undefined) {
      throw new ShottyError("host_unavailable", `the session host closed the connection without answering ${method}`);
    }
    if (reply.error !== undefined && reply.error !== null) {
      throw new ShottyError(reply.error.data?.code ?? "session_error", reply.error.message ?? "");
    }
    return reply.result;
  }

  async #send(line: string, timeoutMs: number): Promise<[number | undefined, Reply | undefined]> {
    const [socket, inode] = await this.#connect();
    return [inode, await exchange(socket, line, timeoutMs)];
  }

  async #connect(): Promise<[Socket, number | undefined]> {
    const path = this.socketPath;
    for (const started of [false, true]) {
      const inode = socketInode(path);
      try {
        return [await connect(path), inode];
      } catch (error) {
        const code = errorCode(error);
        const absent = code === "ENOENT" || code === "ECONNREFUSED";
        if (!absent || started) {
          throw new ShottyError("host_unavailable", `cannot reach the session host at ${path}: ${String(error)}`);
        }
        await this.#start();
      }
    }
    throw new ShottyError("host_unavailable", `cannot reach the session host at ${path}`);
  }

  #start(): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile(this.binary, ["session", "list"], { timeout: 30_000 }, (error, _stdout, stderr) => {
        if (error) {
          const message = String(stderr).trim() || error.message;
          reject(new ShottyError("host_unavailable", `cannot start the session host: ${message}`));
        } else {
          resolve();
        }
      });
    });
  }
}

let shared: Host | undefined;

/** The host client this process shares, made on first use. */
export function sharedHost(): Host {
  shared ??= new Host(binary());
  return shared;
}
