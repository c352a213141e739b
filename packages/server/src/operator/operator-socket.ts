import { chmodSync, rmSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { join } from "node:path";
import * as z from "zod";
import type { Logger } from "../shared/logger.ts";
import {
  isOperatorCommand,
  type OperatorAnswer,
  type OperatorDependencies,
  operatorCommands,
} from "./operator-commands.ts";

/** The socket of a running platform on the embedded database, in its data directory. */
export const operatorSocketName = "operator.sock";

export function operatorSocketPath(dataDir: string): string {
  return join(dataDir, operatorSocketName);
}

/** The longest request line read; a request is a command name and a few short arguments. */
const maxRequestBytes = 16 * 1024;
/** How long a connection may take to send its request, or to be answered. */
const exchangeTimeoutMs = 10_000;

const requestSchema = z.object({
  command: z.string().max(64),
  args: z.array(z.string().max(1024)).max(8),
});

export interface OperatorSocket {
  close(): Promise<void>;
}

/**
 * Serves operator commands to `weft server …` run beside a platform that holds the embedded
 * database (which one process at a time may open). The socket is the owner's alone (0600), so the
 * rights to use it are those to the data directory; each connection sends one JSON line and gets
 * one JSON line back.
 */
export async function startOperatorSocket(
  path: string,
  deps: OperatorDependencies & { logger: Logger },
): Promise<OperatorSocket> {
  // This process holds the data directory's lock: a socket file left there is a crashed holder's.
  rmSync(path, { force: true });
  const server = createServer((socket) => serveOne(socket, deps));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ path, readableAll: false, writableAll: false }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

function serveOne(socket: Socket, deps: OperatorDependencies & { logger: Logger }): void {
  socket.setTimeout(exchangeTimeoutMs, () => socket.destroy());
  socket.on("error", () => socket.destroy());
  let received = "";
  let answered = false;
  const answer = (reply: OperatorAnswer) => {
    answered = true;
    socket.end(`${JSON.stringify(reply)}\n`);
  };
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    if (answered) return;
    received += chunk;
    const end = received.indexOf("\n");
    if (end === -1) {
      if (received.length > maxRequestBytes) answer({ ok: false, message: "the request is too long" });
      return;
    }
    void run(received.slice(0, end), deps)
      .catch((error: unknown) => {
        deps.logger.error({ err: error }, "an operator command failed");
        return { ok: false, message: "the command failed inside the platform; its log says why" };
      })
      .then(answer);
  });
}

async function run(line: string, deps: OperatorDependencies): Promise<OperatorAnswer> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { ok: false, message: "the request is not a JSON line" };
  }
  const request = requestSchema.safeParse(parsed);
  if (!request.success) return { ok: false, message: "the request is not { command, args }" };
  const { command, args } = request.data;
  if (!isOperatorCommand(command)) return { ok: false, message: `no operator command is named "${command}"` };
  return operatorCommands[command](deps, args);
}

/** Sends one operator command to the platform listening on `path`; rejects when none listens there. */
export function sendOperatorCommand(path: string, command: string, args: readonly string[]): Promise<OperatorAnswer> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    let received = "";
    socket.setEncoding("utf8");
    socket.setTimeout(exchangeTimeoutMs, () => socket.destroy(new Error("the platform did not answer in time")));
    socket.on("connect", () => socket.write(`${JSON.stringify({ command, args })}\n`));
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("end", () => {
      const reply = z.object({ ok: z.boolean(), message: z.string() }).safeParse(safeJson(received.trim()));
      if (reply.success) resolve(reply.data);
      else reject(new Error("the platform's answer was not understood"));
    });
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
