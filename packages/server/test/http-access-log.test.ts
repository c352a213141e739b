import { callRpc, capturedLogger, createTestIdentity, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let weft: TestPlatform;
const { logger, lines: logLines } = capturedLogger("info");

beforeAll(async () => {
  weft = await startTestPlatform({ logger });
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
