import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cookiesOf, freePort, serverEntry, spawnServer, waitUntilServing } from "@weft/testing";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.ts";
import { accounts } from "../src/db/schema/index.ts";

const dataDir = mkdtempSync(join(tmpdir(), "weft-studio-link-"));

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * `npm start` as a person runs it: the server's output goes to a terminal (a pseudo-terminal made
 * by util-linux `script`). Resolves with everything printed up to the Studio line.
 */
async function startInTerminal(port: number): Promise<{ printed: string; stop: () => Promise<void> }> {
  const command = `${shellQuoted(process.execPath)} ${shellQuoted(serverEntry)}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let printed = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes("Weft Studio:") && printed.slice(printed.indexOf("Weft Studio:")).includes("\n")) {
        resolve();
      }
    });
    child.once("exit", () => reject(new Error(`the server ended before printing Studio's line: ${printed}`)));
  });
  return {
    printed,
    stop: async () => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      await exited;
    },
  };
}

describe("the sign-in link npm start prints", () => {
  it("names /studio/ before an account exists, then prints a one-time link for the first account", async () => {
    const firstPort = await freePort();
    const first = spawnServer({ PORT: String(firstPort), WEFT_DATA_DIR: dataDir });
    // A fresh embedded database migrates first: slow on a busy machine.
    await waitUntilServing(first, 90_000);
    await expect.poll(() => first.stdout()).toContain("Weft Studio:");
    expect(first.stdout()).toContain(
      `Weft Studio: http://localhost:${firstPort}/studio/ (sign in with your email address; the mail arrives in the dev mailbox)`,
    );
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const database = await openDatabase({ kind: "embedded", dataDir });
    await database.db.insert(accounts).values([
      { id: "acc_first", email: "first@example.com", createdAt: new Date("2026-01-01T00:00:00Z") },
      { id: "acc_second", email: "second@example.com", createdAt: new Date("2026-01-02T00:00:00Z") },
    ]);
    await database.close();

    const port = await freePort();
    const server = await startInTerminal(port);
    try {
      const link = /(http:\/\/\S+\/studio\/api\/sign-in\/link\?token=wsl_[A-Za-z0-9_-]{43})/.exec(server.printed)?.[1];
      expect(link).toBeDefined();
      expect(server.printed).toContain("(signs first@example.com in, once, within 15 minutes)");
      const local = (link as string).replace(/^http:\/\/localhost:\d+/, `http://127.0.0.1:${port}`);
      const used = await fetch(local, { redirect: "manual" });
      expect(used.status).toBe(303);
      expect(used.headers.get("location")).toBe("/studio/");
      const session = await fetch(`http://127.0.0.1:${port}/studio/api/session`, {
        headers: { cookie: `weft_studio_session=${cookiesOf(used).get("weft_studio_session")}` },
      });
      expect(session.status).toBe(200);
      expect(await session.json()).toMatchObject({ email: "first@example.com", accountId: "acc_first" });
      expect((await fetch(local, { redirect: "manual" })).status).toBe(400);
    } finally {
      await server.stop();
    }
  }, 240_000);
});
