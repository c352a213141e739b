import { describe, expect, it } from "vitest";
import { buildManifest, defineConfig, ManifestError, webhook, workflow } from "../src/index.ts";

function issuesOf(build: () => unknown): string[] {
  try {
    build();
    return [];
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    return error.issues.map((issue) => issue.path);
  }
}

describe("events in the manifest", () => {
  it("carries a workflow's subscriptions and cancelOn entries, and a webhook that sends an event", () => {
    const manifest = buildManifest(
      defineConfig({
        workflows: [
          workflow({
            name: "fulfil",
            on: [{ event: "order.created", if: { path: "$.data.plan", equals: "pro" } }],
            cancelOn: [{ event: "order.cancelled", match: { event: "$.data.orderId", input: "$.data.orderId" } }],
            run: async () => 1,
          }),
        ],
        webhooks: [webhook({ name: "shop", event: "order.created" })],
      }),
    );
    expect(manifest.workflows[0]).toMatchObject({
      on: [{ event: "order.created", if: { path: "$.data.plan", equals: "pro" } }],
      cancelOn: [{ event: "order.cancelled", match: { event: "$.data.orderId", input: "$.data.orderId" } }],
    });
    expect(manifest.webhooks).toEqual([{ name: "shop", event: "order.created" }]);
  });

  it("names the field of a subscription, a cancelOn entry or a webhook that is not valid", () => {
    const config = (options: Record<string, unknown>) => () =>
      buildManifest(defineConfig({ workflows: [workflow({ name: "w", ...options, run: async () => 1 })] }));
    expect(issuesOf(config({ on: [{ event: "order created" }] }))).toEqual(["workflows[w].on.0.event"]);
    expect(issuesOf(config({ on: [{ event: "a", if: { path: "data.plan", equals: "pro" } }] }))).toEqual([
      "workflows[w].on.0.if.path",
    ]);
    expect(issuesOf(config({ cancelOn: [{ event: "a", match: { event: "$", input: "$.id" } }] }))).toEqual([
      "workflows[w].cancelOn.0.match.event",
    ]);
    const both = () =>
      buildManifest({
        workflows: [workflow({ name: "w", run: async () => 1 })],
        // biome-ignore lint/suspicious/noExplicitAny: a webhook naming both, which its type refuses.
        webhooks: [{ name: "h", workflow: "w", event: "a" } as any],
      });
    expect(issuesOf(both)).toEqual(["webhooks[h].workflow"]);
  });
});
