import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url));
const committedDist = join(repositoryRoot, "packages/server/studio-dist");
const viteBin = join(repositoryRoot, "node_modules/vite/bin/vite.js");

async function filesUnder(root: string): Promise<Map<string, string>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = new Map<string, string>();
  for (const entry of entries.filter((candidate) => candidate.isFile())) {
    const path = join(entry.parentPath, entry.name);
    files.set(relative(root, path), await readFile(path, "utf8"));
  }
  return files;
}

describe("Studio's committed build", () => {
  let rebuilt: string;
  let report: string;

  beforeAll(async () => {
    rebuilt = await mkdtemp(join(tmpdir(), "weft-studio-dist-"));
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [viteBin, "build", "--config", "packages/studio/vite.config.ts"],
      // As `npm run build:studio` runs: without the test run's NODE_ENV=test, which React reads at build time.
      { cwd: repositoryRoot, env: { PATH: process.env.PATH, WEFT_STUDIO_OUT_DIR: rebuilt, NO_COLOR: "1" } },
    );
    report = `${stdout}${stderr}`;
  }, 120_000);

  afterAll(async () => {
    await rm(rebuilt, { recursive: true, force: true });
  });

  it("is what the sources build to (run `npm run build:studio` and commit packages/server/studio-dist)", async () => {
    const expected = await filesUnder(rebuilt);
    const committed = await filesUnder(committedDist);
    expect([...committed.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, content] of expected) expect(committed.get(path), path).toBe(content);
  });

  it("reports its gzipped size within the first-load budget", () => {
    const summary = /first load at most ([\d.]+) kB \(budget 300\.0 kB\)/.exec(report);
    expect(summary, report).not.toBeNull();
    expect(Number(summary?.[1])).toBeLessThanOrEqual(300);
  });

  it("has no inline script or style, which the page's CSP refuses", async () => {
    const html = await readFile(join(committedDist, "index.html"), "utf8");
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/studio\/assets\//);
      expect(body?.trim()).toBe("");
    }
    expect(html).not.toMatch(/<style\b|\sstyle="/);
  });
});
