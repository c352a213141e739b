import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  buildManifest,
  defineConfig,
  durationToMs,
  ManifestError,
  type WorkflowContext,
  workflow,
} from "../src/index.ts";

const echo = workflow({
  name: "echo",
  async run(input: { n: number }, ctx) {
    const doubled = await ctx.step("double", async () => input.n * 2);
    return { doubled };
  },
});

function issuesOf(config: Parameters<typeof buildManifest>[0]): string[] {
  try {
    buildManifest(config);
  } catch (error) {
    if (error instanceof ManifestError) return error.issues.map((issue) => `${issue.path}: ${issue.message}`);
    throw error;
  }
  throw new Error("expected a ManifestError");
}

describe("durations", () => {
  it.each([
    [250, 250],
    ["500ms", 500],
    ["3s", 3000],
    ["1.5s", 1500],
    ["5m", 300_000],
    ["1h", 3_600_000],
    ["2d", 172_800_000],
  ] as const)("%s is %d ms", (duration, ms) => {
    expect(durationToMs(duration)).toBe(ms);
  });

  it("refuses what is not a duration", () => {
    expect(() => durationToMs("3 weeks" as "3s")).toThrow(/"3 weeks" is not a duration/);
    expect(() => durationToMs(-1)).toThrow(RangeError);
  });
});

describe("workflow typing", () => {
  it("flows a zod input type into run", () => {
    workflow({
      name: "typed",
      input: z.object({ email: z.email() }),
      async run(input, ctx) {
        expectTypeOf(input).toEqualTypeOf<{ email: string }>();
        expectTypeOf(ctx).toEqualTypeOf<WorkflowContext<Record<never, never>>>();
        return input.email;
      },
    });
  });

  it("types ctx.integrations from the declared names and kinds", () => {
    workflow({
      name: "calls-out",
      integrations: { crm: "http", stripe: "secret", mail: "smtp" },
      async run(_input, ctx) {
        expectTypeOf(ctx.integrations.stripe).toEqualTypeOf<string>();
        expectTypeOf(ctx.integrations.crm.fetch).toEqualTypeOf<
          (path: string, init?: RequestInit) => Promise<Response>
        >();
        expectTypeOf(ctx.integrations.mail.port).toEqualTypeOf<number>();
        // @ts-expect-error: only declared integrations are typed
        ctx.integrations.undeclared;
        return null;
      },
    });
  });
});

describe("buildManifest", () => {
  it("turns a config into a manifest: zod to JSON Schema, durations to ms, defaults filled", () => {
    const manifest = buildManifest(
      defineConfig({
        project: "prj_x",
        workflows: [
          echo,
          workflow({
            name: "signup",
            input: z.object({ email: z.email(), age: z.int().optional() }),
            retries: { maxAttempts: 3, minDelay: "500ms", maxDelay: "10s" },
            timeout: "5m",
            concurrency: 2,
            run: async (input) => input.email,
          }),
        ],
        forms: [
          {
            name: "contact",
            workflow: "echo",
            schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
          },
        ],
        webhooks: [{ name: "hook", workflow: "echo", secret: { header: "X-Hook-Secret", value: "s3cret" } }],
      }),
    );
    expect(manifest.workflows[0]).toEqual({ name: "echo" });
    expect(manifest.workflows[1]).toMatchObject({
      name: "signup",
      retries: { maxAttempts: 3, minDelayMs: 500, maxDelayMs: 10_000 },
      timeoutMs: 300_000,
      concurrency: 2,
      inputSchema: { type: "object", required: ["email"] },
    });
    expect(manifest.forms[0]).toMatchObject({ name: "contact", visibility: "public", disabled: false });
    expect(manifest.webhooks[0]?.secret).toEqual({ header: "x-hook-secret", value: "s3cret" });
  });

  it("names the definition and the field of every problem", () => {
    const issues = issuesOf({
      workflows: [echo],
      forms: [{ name: "Bad Name", workflow: "echo", schema: { type: "object" } }],
      webhooks: [{ name: "hook", workflow: "echo", secret: { header: "x-secret", value: undefined } }],
    });
    expect(issues).toEqual([
      expect.stringMatching(/^forms\[Bad Name\]\.name: must start with a lower-case letter/),
      expect.stringMatching(/^webhooks\[hook\]\.secret\.value: is missing/),
    ]);
  });

  it("finds duplicate names and references to workflows that do not exist", () => {
    const issues = issuesOf({
      workflows: [echo, { ...echo }],
      forms: [{ name: "contact", workflow: "missing", schema: { type: "object" } }],
    });
    expect(issues).toEqual([
      'workflows: the name "echo" is used twice',
      expect.stringMatching(/^forms\[contact\]\.workflow: form "contact" names the workflow "missing"/),
    ]);
  });
});

describe("schedules", () => {
  it("carry their cron, time zone (UTC by default), input and enabled into the manifest", () => {
    const manifest = buildManifest(
      defineConfig({
        workflows: [echo],
        schedules: [
          { name: "nightly", workflow: "echo", cron: "0 3 * * *", input: { n: 2 } },
          { name: "berlin", workflow: "echo", cron: "30 8 * * 1-5", timezone: "Europe/Berlin", enabled: false },
        ],
      }),
    );
    expect(manifest.schedules).toEqual([
      { name: "nightly", workflow: "echo", cron: "0 3 * * *", timezone: "UTC", input: { n: 2 }, enabled: true },
      { name: "berlin", workflow: "echo", cron: "30 8 * * 1-5", timezone: "Europe/Berlin", enabled: false },
    ]);
  });

  it("refuses an invalid cron expression and an unknown time zone, naming the schedule", () => {
    const issues = issuesOf({
      workflows: [echo],
      schedules: [
        { name: "often", workflow: "echo", cron: "*/0 * * * *" },
        { name: "away", workflow: "echo", cron: "0 3 * * *", timezone: "Europe/Atlantis" },
      ],
    });
    expect(issues).toEqual([
      expect.stringMatching(/^schedules\[often\]\.cron: schedule "often": "\*\/0 \* \* \* \*" is not a 5-field cron/),
      'schedules[away].timezone: schedule "away": "Europe/Atlantis" is not an IANA time zone name (such as "Europe/Berlin" or "UTC")',
    ]);
  });
});

describe("alerts", () => {
  it("carry mail and webhook alerts into the manifest, none by default", () => {
    const alerts = [
      { on: "failed" as const, mail: ["ops@example.com", "oncall@example.com"] },
      { on: "failed" as const, webhook: "https://hooks.example.com/weft" },
    ];
    expect(buildManifest(defineConfig({ workflows: [echo], alerts })).alerts).toEqual(alerts);
    expect(buildManifest(defineConfig({ workflows: [echo] })).alerts).toEqual([]);
  });

  it("refuses bad addresses, a non-http(s) URL, too many recipients and alerts, each naming the alert", () => {
    expect(
      issuesOf({
        workflows: [echo],
        alerts: [
          { on: "failed", mail: ["ops@example.com", "ops at example"] },
          { on: "failed", webhook: "file:///etc/passwd" },
          { on: "failed", mail: Array.from({ length: 21 }, (_, index) => `r${index}@example.com`) },
          { on: "failed", webhook: "https://hooks.example.com/a" },
          { on: "failed", webhook: "https://hooks.example.com/a" },
        ],
      }),
    ).toEqual([
      'alerts[0].mail.1: alert 1 (mail): "ops at example" is not an email address',
      'alerts[1].webhook: alert 2 (webhook): "file:///etc/passwd" is not an http(s) URL',
      "alerts[2].mail: alert 3 (mail): 21 recipients; at most 20 are accepted",
      'alerts: the webhook "https://hooks.example.com/a" is named by two alerts',
    ]);
    expect(
      issuesOf({
        workflows: [echo],
        alerts: Array.from({ length: 11 }, () => ({ on: "failed" as const, mail: ["ops@example.com"] })),
      }),
    ).toEqual(["alerts: at most 10 alerts are accepted"]);
  });
});
