import { describe, expect, it } from "vitest";
import { buildManifest, defineConfig, ManifestError, workflow } from "../src/index.ts";

describe("flow control in the manifest", () => {
  it("names the field of a period that does not parse in weft.config.ts", () => {
    const issuesOf = (options: Record<string, unknown>) => {
      try {
        buildManifest(defineConfig({ workflows: [workflow({ name: "w", ...options, run: async () => 1 })] }));
        return [];
      } catch (error) {
        if (!(error instanceof ManifestError)) throw error;
        return error.issues.map((issue) => issue.path);
      }
    };
    expect(issuesOf({ throttle: { limit: 1, period: "soon" } })).toEqual(["workflows[w].throttle.period"]);
    expect(issuesOf({ rateLimit: { limit: 1, period: "1 minute" } })).toEqual(["workflows[w].rateLimit.period"]);
    expect(issuesOf({ debounce: { period: "-1s" } })).toEqual(["workflows[w].debounce.period"]);
    expect(issuesOf({ concurrency: { limit: 0, key: "$.c" } })).toEqual(["workflows[w].concurrency"]);
    expect(
      buildManifest(
        defineConfig({
          workflows: [
            workflow({
              name: "w",
              concurrency: { limit: 2, key: "$.customerId" },
              throttle: { limit: 10, period: "1s" },
              debounce: { period: "10m", key: "$.userId" },
              rateLimit: { limit: 100, period: 60_000 },
              priority: "$.priority",
              run: async () => 1,
            }),
          ],
        }),
      ).workflows[0],
    ).toEqual({
      name: "w",
      concurrency: 2,
      concurrencyKey: "$.customerId",
      throttle: { limit: 10, periodMs: 1000 },
      rateLimit: { limit: 100, periodMs: 60_000 },
      debounce: { periodMs: 600_000, key: "$.userId" },
      priority: "$.priority",
    });
  });
});
