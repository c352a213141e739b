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
  it("makes the first account on a fresh server, names /studio/ in a log, and signs the first account in later", async () => {
    const freshPort = await freePort();
    const fresh = await startInTerminal(freshPort);
    try {
      const link = /(http:\/\/\S+\/studio\/api\/sign-in\/first\?token=wsl_[A-Za-z0-9_-]{43})/.exec(fresh.printed)?.[1];
      expect(link, fresh.printed).toBeDefined();
      expect(fresh.printed).toContain("(creates your account and signs you in, once, within 15 minutes)");
      const local = (link as string).replace(/^http:\/\/localhost:\d+/, `http://127.0.0.1:${freshPort}`);
      const token = new URL(local).searchParams.get("token") ?? "";
      const form = await fetch(local);
      expect(form.status).toBe(200);
      expect(await form.text()).toContain("This server has no account yet");
      const post = (fields: Record<string, string>) =>
        fetch(local, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" });

      const badEmail = await post({ token, email: "not an address" });
      expect(badEmail.status).toBe(400);
      expect(await badEmail.text()).toContain("Enter your email address");
      expect((await post({ token: `wsl_${"x".repeat(43)}`, email: "first@example.com" })).status).toBe(400);
      const unreadable = await fetch(local, {
        method: "POST",
        headers: { "content-type": "multipart/form-data" },
        body: new URLSearchParams({ token, email: "first@example.com" }),
      });
      expect(unreadable.status).toBe(400);
      expect(await unreadable.text()).toContain("This form could not be read");

      const created = await post({ token, email: "First@Example.com" });
      expect(created.status).toBe(303);
      expect(created.headers.get("location")).toBe("/studio/");
      const session = await fetch(`http://127.0.0.1:${freshPort}/studio/api/session`, {
        headers: { cookie: `weft_studio_session=${cookiesOf(created).get("weft_studio_session")}` },
      });
      expect(session.status).toBe(200);
      expect(await session.json()).toMatchObject({ email: "first@example.com" });
      expect((await post({ token, email: "second@example.com" })).status).toBe(400);
      expect((await fetch(local)).status).toBe(400);
    } finally {
      await fresh.stop();
    }

    const loggedPort = await freePort();
    const logged = spawnServer({ PORT: String(loggedPort), WEFT_DATA_DIR: dataDir });
    await waitUntilServing(logged, 90_000);
    await expect.poll(() => logged.stdout(), { timeout: 30_000 }).toContain("Weft Studio:");
    expect(logged.stdout()).toContain(
      `Weft Studio: http://localhost:${loggedPort}/studio/ (sign in with your email address; the mail arrives in the dev mailbox)`,
    );
    logged.child.kill("SIGTERM");
    expect(await logged.exited).toBe(0);

    const database = await openDatabase({ kind: "embedded", dataDir });
    await database.db
      .insert(accounts)
      .values({ id: "acc_second", email: "second@example.com", createdAt: new Date("2099-01-01T00:00:00Z") });
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
      expect(await session.json()).toMatchObject({ email: "first@example.com" });
      expect((await fetch(local, { redirect: "manual" })).status).toBe(400);
    } finally {
      await server.stop();
    }
  }, 360_000);
});
