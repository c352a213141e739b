import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  captureChildOutput,
  capturedLogger,
  findSecrets,
  logCaptureDirVariable,
  registerSecret,
  scanCapturedLogs,
} from "../src/index.ts";

const b64 = (bytes: number) => randomBytes(bytes).toString("base64url");

describe("the log secret scanner", () => {
  it.each([
    ["credential", `{"msg":"issued","value":"weft_${b64(32)}"}`],
    ["claim token", `claim_token=clm_${b64(32)}`],
    ["approval token", `GET /auth/approve?token=apv_${b64(32)}`],
    ["invitation token", `/invitations/accept?token=ivt_${b64(32)}`],
    ["wait token id", `POST /triggers/tokens/wtk_${b64(32)}`],
    ["hosted-form CSRF token", `"_csrf":"1767225600000.${b64(16)}.${b64(32)}"`],
    ["approval CSRF token", `csrf=1767225600000.${b64(32)}`],
    ["claim code", `{"msg":"Your code is 042917"}`],
    ["claim code", `{"code":"123456"}`],
  ])("finds a %s", (kind, line) => {
    expect(findSecrets(`{"msg":"before"}\n${line}\n`)).toEqual([{ kind, line: 2 }]);
  });

  it.each([
    `{"level":30,"time":"2026-11-23T16:07:59.123Z","msg":"request completed","durationMs":123456}`,
    `{"msg":"refused","code":"NOT_FOUND","status":404,"port":54321}`,
    `{"credential":"[redacted]","path":"/triggers/tokens/[redacted]"}`,
    `{"msg":"issued","credentialId":"crd_01jdx4m7k9q2w3e4r5t6y7u8i9"}`,
    `weft_unknown clm_short wtk_${b64(16)}`,
    `{"id":"exe_01jdx4m7k9q2w3e4r5t6y7u8i9","nonce":"${b64(32)}"}`,
  ])("passes a line with no secret: %s", (line) => {
    expect(findSecrets(line)).toEqual([]);
  });

  it("finds registered values anywhere in a line, and only those", () => {
    const text = `{"msg":"calling","header":"x-hook-secret: hook-secret-value"}\n{"msg":"hook-secret"}`;
    expect(findSecrets(text, ["hook-secret-value"])).toEqual([{ kind: "registered secret", line: 1 }]);
  });
});

describe("the run's log capture", () => {
  let dir: string;
  let previous: string | undefined;
  beforeEach(() => {
    previous = process.env[logCaptureDirVariable];
    dir = mkdtempSync(join(tmpdir(), "weft-scan-test-"));
    process.env[logCaptureDirVariable] = dir;
  });
  afterEach(() => {
    if (previous === undefined) delete process.env[logCaptureDirVariable];
    else process.env[logCaptureDirVariable] = previous;
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps logged lines and registered values, and the scan counts lines and findings", () => {
    const { logger } = capturedLogger("info");
    logger.info({ url: "/x" }, "plain line");
    logger.info("sent the integration key sk-test-0123456789");
    registerSecret("sk-test-0123456789");
    registerSecret("short");
    writeFileSync(join(dir, "server-1-1.log"), `{"msg":"worker up"}\n{"value":"weft_${b64(32)}"}\n`);
    const scan = scanCapturedLogs(dir);
    expect(scan).toMatchObject({ files: 2, lines: 4 });
    expect(scan.findings.map(({ kind, file }) => ({ kind, file: file?.split("-")[0] }))).toEqual(
      expect.arrayContaining([
        { kind: "registered secret", file: "captured" },
        { kind: "credential", file: "server" },
      ]),
    );
    expect(scan.findings).toHaveLength(2);
  });

  it("keeps what a spawned process writes to stdout and stderr", async () => {
    const child = spawn(process.execPath, ["-e", 'console.log("out line"); console.error("err line")'], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    captureChildOutput(child, "server");
    await once(child, "close");
    expect(scanCapturedLogs(dir)).toEqual({ files: 2, lines: 2, findings: [] });
  });
});
