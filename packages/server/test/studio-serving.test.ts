import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const builtApp = fileURLToPath(new URL("./fixtures/studio-app", import.meta.url));
const studioCsp =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

let weft: TestPlatform;

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_STUDIO_DIR: builtApp } });
});

afterAll(async () => {
  await weft.stop();
});

describe("Studio's pages", () => {
  it("serves index.html at /studio and /studio/ with the strict CSP and no caching", async () => {
    for (const path of ["/studio", "/studio/"]) {
      const page = await fetch(`${weft.url}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("content-security-policy")).toBe(studioCsp);
      expect(page.headers.get("cache-control")).toBe("no-cache");
      expect(await page.text()).toContain("Weft Studio (test build)");
    }
  });

  it("answers a path without an extension with index.html, for the app's router", async () => {
    for (const path of ["/studio/projects", "/studio/executions/exe_01/trace", "/studio/agents/"]) {
      const page = await fetch(`${weft.url}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toBe(studioCsp);
      expect(await page.text()).toContain("Weft Studio (test build)");
    }
  });

  it("serves hashed assets for a year, as JavaScript", async () => {
    const asset = await fetch(`${weft.url}/studio/assets/app-0f3c9a.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await asset.text()).toContain("Studio test build");
  });

  it("answers 404 for a file that is not there, outside the build, or an unknown API path", async () => {
    for (const path of [
      "/studio/assets/missing-1234.js",
      "/studio/missing.css",
      "/studio/%2e%2e/studio-serving.test.ts",
      "/studio/assets/..%2f..%2fstudio-serving.test.ts",
      "/studio/api/unknown",
      "/studio/rpc",
    ]) {
      const answer = await fetch(`${weft.url}${path}`);
      expect(answer.status, path).toBe(404);
      expect(await answer.json()).toMatchObject({ error: "not_found" });
    }
  });
});

describe("without a build", () => {
  it("answers 503 with a page that says how to build it", async () => {
    const empty = mkdtempSync(join(tmpdir(), "weft-studio-empty-"));
    const unbuilt = await startTestPlatform({ env: { WEFT_STUDIO_DIR: empty } });
    try {
      for (const path of ["/studio", "/studio/projects", "/studio/assets/app-0f3c9a.js"]) {
        const page = await fetch(`${unbuilt.url}${path}`);
        expect(page.status).toBe(503);
        expect(await page.text()).toContain("npm run build:studio");
      }
      // Signing in does not need the build.
      expect((await fetch(`${unbuilt.url}/studio/api/session`)).status).toBe(401);
    } finally {
      await unbuilt.stop();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
