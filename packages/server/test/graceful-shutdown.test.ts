import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { freePort, spawnServer, waitUntilServing } from "@weft/testing";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../src/http/app-env.ts";
import { listen } from "../src/http/http-server.ts";

describe("graceful shutdown", () => {
  it("lets an in-flight request finish while refusing new connections", async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => undefined;
    const requestStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const app = new Hono<AppEnv>().get("/slow", async (c) => {
      started();
      await released;
      return c.text("finished");
    });
    const http = await listen(getRequestListener(app.fetch), 0, "127.0.0.1");
    const url = `http://127.0.0.1:${http.port}`;
    const inFlight = fetch(`${url}/slow`).then((response) => response.text());
    await requestStarted;
    const closed = http.close(5000);
    await expect(fetch(`${url}/slow`)).rejects.toThrow();
    release();
    expect(await inFlight).toBe("finished");
    await closed;
  });

  it("cuts event streams at once rather than waiting out the grace for them, while other requests finish", async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => undefined;
    const requestStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const app = new Hono<AppEnv>()
      .get("/slow", async (c) => {
        started();
        await released;
        return c.text("finished");
      })
      // A stream that never ends on its own, as /api/events follows a project until its client leaves.
      .get("/events", (c) =>
        streamSSE(c, async (stream) => {
          await stream.writeSSE({ id: "1", data: "first" });
          await new Promise<void>((resolve) => stream.onAbort(resolve));
        }),
      );
    const http = await listen(getRequestListener(app.fetch), 0, "127.0.0.1");
    const url = `http://127.0.0.1:${http.port}`;
    const events = await fetch(`${url}/events`);
    const reader = events.body?.getReader();
    if (reader === undefined) throw new Error("no event stream body");
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("data: first");
    const inFlight = fetch(`${url}/slow`).then((response) => response.text());
    await requestStarted;
    // A grace longer than the test may take: only cutting the stream lets the close end.
    const closed = http.close(600_000);
    await expect(reader.read()).rejects.toThrow();
    release();
    expect(await inFlight).toBe("finished");
    await closed;
  });

  it("exits 0 promptly on SIGTERM and on SIGINT", async () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const port = await freePort();
      const server = spawnServer({
        PORT: String(port),
        WEFT_DATA_DIR: mkdtempSync(join(tmpdir(), "weft-shutdown-")),
      });
      await waitUntilServing(server);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const signalledAt = Date.now();
      server.child.kill(signal);
      expect(await server.exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
    }
  }, 90_000);
});
