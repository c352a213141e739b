import { mkdtempSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestIdentity, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OperatorSocket, sendOperatorCommand, startOperatorSocket } from "../src/operator/operator-socket.ts";

let weft: TestPlatform;
let socket: OperatorSocket;
const path = join(mkdtempSync(join(tmpdir(), "weft-operator-")), "operator.sock");

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_PLANS: JSON.stringify([{ name: "team", projects: 50 }]) } });
  const { context } = weft.platform;
  socket = await startOperatorSocket(path, {
    db: weft.database.db,
    catalogue: context.config.billing,
    logger: context.logger,
  });
});

afterAll(async () => {
  await socket.close();
  await weft.stop();
});

/** Sends raw bytes and reads the one line answered. */
function exchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = createConnection({ path }, () => connection.end(bytes));
    let received = "";
    connection.setEncoding("utf8");
    connection.on("data", (chunk: string) => {
      received += chunk;
    });
    connection.on("error", reject);
    connection.on("close", () => resolve(received));
  });
}

describe("the operator socket", () => {
  it("runs set-plan and answers its outcome", async () => {
    const ada = await createTestIdentity(weft, "ada@operator.test");
    expect(await sendOperatorCommand(path, "set-plan", [ada.personalWorkspaceId, "team"])).toEqual({
      ok: true,
      message: `Workspace ${ada.personalWorkspaceId} is now on the plan "team".`,
    });
    expect(await sendOperatorCommand(path, "set-plan", ["wsp_00000000000000000000000000", "team"])).toMatchObject({
      ok: false,
    });
  });

  it("refuses what is not a request, an unknown command and an endless line, and keeps serving", async () => {
    expect(JSON.parse(await exchange("not json\n"))).toEqual({ ok: false, message: "the request is not a JSON line" });
    expect(JSON.parse(await exchange('{"command": 1}\n'))).toEqual({
      ok: false,
      message: "the request is not { command, args }",
    });
    expect(JSON.parse(await exchange('{"command": "rotate-secret-key", "args": []}\n'))).toEqual({
      ok: false,
      message: 'no operator command is named "rotate-secret-key"',
    });
    expect(JSON.parse(await exchange('{"command": "toString", "args": []}\n'))).toMatchObject({ ok: false });
    expect(JSON.parse(await exchange("x".repeat(100_000)))).toEqual({ ok: false, message: "the request is too long" });
    expect(await sendOperatorCommand(path, "set-plan", ["wsp_00000000000000000000000000", "gold"])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/no plan is named "gold"/),
    });
  });
});
