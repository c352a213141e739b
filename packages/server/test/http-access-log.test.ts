import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/shared/logger.ts";
import { callRpc, createTestIdentity, startTestPlatform, type TestPlatform } from "./support/index.ts";

let weft: TestPlatform;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  weft = await startTestPlatform({ logger: createLogger({ level: "info", destination }) });
});

afterAll(async () => {
  await weft.stop();
});

const accessLine = (requestId: string) =>
  logLines.find((line) => line.msg === "request completed" && line.requestId === requestId);

describe("the access log", () => {
  it("writes one line per request, for the RPC API as for every other route", async () => {
    await fetch(`${weft.url}/healthz`, { headers: { "x-request-id": "access-health" } });
    const ada = await createTestIdentity(weft, "ada@example.com");
    await callRpc(weft.url, "projects.list", {}, { token: ada.credential, headers: { "x-request-id": "access-rpc" } });
    await callRpc(weft.url, "projects.list", {}, { headers: { "x-request-id": "access-refused" } });
    expect(accessLine("access-health")).toMatchObject({ method: "GET", path: "/healthz", status: 200 });
    expect(accessLine("access-rpc")).toMatchObject({ method: "POST", path: "/rpc/projects/list", status: 200 });
    expect(accessLine("access-refused")).toMatchObject({ path: "/rpc/projects/list", status: 401 });
    expect(accessLine("access-rpc")?.durationMs).toEqual(expect.any(Number));
  });
});
