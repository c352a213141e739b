import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import { createTestIdentity, startTestPlatform, type TestIdentity, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultBodyLimitBytes as rpcBodyLimitBytes } from "../src/http/body-limit.ts";
import { unreadBodyDiscardBytes } from "../src/http/unread-body.ts";

let weft: TestPlatform;
let ada: TestIdentity;

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_ROLES: "auth,api,ingress" } });
  ada = await createTestIdentity(weft, "ada@example.com");
});

afterAll(async () => {
  await weft.stop();
});

const fiveTimesTheLimit = 5 * rpcBodyLimitBytes;

/** `bytes` bytes as a body stream of 64 KiB chunks: sent chunked, with no Content-Length. */
function streamOf(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(120);
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      controller.enqueue(chunk.subarray(0, Math.min(left, chunk.length)));
      left -= chunk.length;
    },
  });
}

function postBody(path: string, body: Buffer | ReadableStream<Uint8Array>, headers: Record<string, string>) {
  return fetch(`${weft.url}${path}`, {
    method: "POST",
    headers,
    body,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

const rpcHeaders = () => ({ "content-type": "application/json", authorization: `Bearer ${ada.credential}` });

/**
 * A POST to `path` over a raw connection whose chunked body trickles (64 KiB every 5 ms) until
 * `bytes` are sent or the connection ends; resolves with what came back and whether the connection
 * ended.
 */
async function tricklePost(path: string, type: string, bytes: number): Promise<{ answer: string; ended: boolean }> {
  const url = new URL(weft.url);
  const socket: Socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once("connect", resolve));
  let answer = "";
  let ended = false;
  let failure: Error | undefined;
  socket.on("data", (data: Buffer) => {
    answer += data.toString();
  });
  socket.on("end", () => {
    ended = true;
  });
  socket.on("error", (error) => {
    failure = error;
  });
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nTransfer-Encoding: chunked\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 120);
  for (let sent = 0; sent < bytes && !socket.destroyed && !ended; sent += chunk.length) {
    socket.write(`${chunk.length.toString(16)}\r\n`);
    socket.write(chunk);
    socket.write("\r\n");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (!ended && !socket.destroyed) socket.write("0\r\n\r\n");
  await new Promise<void>((resolve) => {
    const check = () => (answer.includes("\r\n\r\n") || socket.destroyed ? resolve() : setTimeout(check, 10));
    check();
  });
  socket.destroy();
  if (failure !== undefined && answer === "") throw failure;
  return { answer, ended };
}

describe("answers given before the body is read", () => {
  it("reach fetch as the 413 with its JSON body, for a body five times the limit sent whole or streamed", async () => {
    for (let round = 0; round < 5; round++) {
      for (const body of [Buffer.alloc(fiveTimesTheLimit, 120), streamOf(fiveTimesTheLimit)]) {
        const rpc = await postBody(
          "/rpc/projects/create",
          body instanceof Buffer ? body : streamOf(fiveTimesTheLimit),
          rpcHeaders(),
        );
        expect(rpc.status).toBe(413);
        expect(await rpc.json()).toMatchObject({ json: { code: "PAYLOAD_TOO_LARGE" } });
        const platform = await postBody("/healthz", body, { "content-type": "application/json" });
        expect(platform.status).toBe(413);
        expect(await platform.json()).toMatchObject({ error: "payload_too_large" });
      }
    }
  }, 60_000);

  it("reach a client still trickling its body, and leave the connection open", async () => {
    for (const [path, type, status] of [
      ["/rpc/projects/create", "application/json", 413],
      ["/healthz", "application/json", 413],
      ["/triggers/tokens/wtk_unknown", "application/json", 413],
      ["/triggers/tokens/wtk_unknown", "text/plain", 415],
    ] as const) {
      const { answer, ended } = await tricklePost(path, type, 2 * rpcBodyLimitBytes);
      expect(answer.split("\r\n")[0], path).toBe(
        `HTTP/1.1 ${status} ${status === 413 ? "Payload Too Large" : "Unsupported Media Type"}`,
      );
      expect(answer.toLowerCase()).not.toContain("connection: close");
      expect(ended).toBe(false);
    }
  }, 60_000);

  it("keep one keep-alive connection through 200 requests alternating 413s, 415s and good requests", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<Socket>();
    const big = Buffer.alloc(fiveTimesTheLimit, 120);
    const post = (path: string, type: string, body: Buffer, token?: string) =>
      new Promise<number>((resolve, reject) => {
        const headers = { "content-type": type, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) };
        const sent = request(new URL(path, weft.url), { method: "POST", agent, headers }, (response) => {
          sockets.add(response.socket);
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
          response.on("error", reject);
        });
        sent.on("error", reject);
        sent.end(body);
      });
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        const kind = i % 3;
        if (kind === 0) statuses.push(await post("/rpc/projects/create", "application/json", big, ada.credential));
        if (kind === 1) statuses.push(await post("/triggers/tokens/wtk_unknown", "text/plain", big));
        if (kind === 2) {
          statuses.push(
            await post("/rpc/projects/list", "application/json", Buffer.from('{"json":{}}'), ada.credential),
          );
        }
      }
    } finally {
      agent.destroy();
    }
    expect(statuses.filter((status, i) => status !== [413, 415, 200][i % 3])).toEqual([]);
    expect(sockets.size).toBe(1);
  }, 120_000);

  it("close the connection, after the answer, once the rest is beyond the discard bound", async () => {
    const beyond = unreadBodyDiscardBytes + 4 * rpcBodyLimitBytes;
    for (const body of [Buffer.alloc(beyond, 120), streamOf(beyond)]) {
      const response = await postBody("/rpc/projects/create", body, rpcHeaders());
      expect(response.status).toBe(413);
      expect(response.headers.get("connection")).toBe("close");
      expect(await response.json()).toMatchObject({ json: { code: "PAYLOAD_TOO_LARGE" } });
      const next = await fetch(`${weft.url}/healthz`);
      expect(next.status).toBe(200);
    }
  }, 60_000);
});
