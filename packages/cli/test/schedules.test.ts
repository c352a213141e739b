import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deployedProject } from "./support/deployed-project.ts";
import { parseJson, runCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("schedules@example.com");

/** The scheduled workflow of the README, as written there. */
const readmeConfig = `import { defineConfig, workflow } from "@weft/sdk";

const report = workflow({
  name: "report",
  input: {
    type: "object",
    properties: { scheduledFor: { type: "string", format: "date-time" }, team: { type: "string" } },
    required: ["scheduledFor", "team"],
  },
  async run(input: { scheduledFor: string; team: string }, ctx) {
    const summary = await ctx.step("summarise", async () => \`\${input.team}: report for \${input.scheduledFor}\`);
    return { summary };
  },
});

export default defineConfig({
  workflows: [report],
  schedules: [
    { name: "every-minute", workflow: "report", cron: "* * * * *", input: { team: "ops" } },
    {
      name: "weekday-mornings",
      workflow: "report",
      cron: "30 8 * * 1-5",
      timezone: "Europe/Berlin",
      input: { team: "sales" },
    },
  ],
});
`;

interface ScheduleJson {
  name: string;
  enabled: boolean;
  pausedThroughApi: boolean;
  nextRunAt: string | null;
  lastExecutionId: string | null;
}

const { cli } = deployedProject(signedIn, "scheduled", { "weft.config.ts": readmeConfig });

describe("weft schedules", () => {
  it("lists the README's schedules, and its every-minute schedule runs the workflow at its tick", async () => {
    const listed = parseJson<{ results: ScheduleJson[] }>(await cli(["schedules", "list", "--json"]));
    // The manual clock starts at 2026-01-01T00:00:00Z, a Thursday.
    expect(listed.results).toMatchObject([
      { name: "every-minute", enabled: true, nextRunAt: "2026-01-01T00:01:00.000Z", lastExecutionId: null },
      { name: "weekday-mornings", enabled: true, nextRunAt: "2026-01-01T07:30:00.000Z" },
    ]);
    expect((await cli(["deployments", "list"])).stdout).toContain("1 workflow, 0 forms, 0 webhooks, 2 schedules");
    const text = await cli(["schedules", "list"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/weekday-mornings\s+report\s+30 8 \* \* 1-5\s+Europe\/Berlin\s+enabled/);

    signedIn.weft.clock.advance(60_000);
    await signedIn.weft.platform.periodicJobs?.fireSchedules();
    const [fired] = parseJson<{ results: ScheduleJson[] }>(await cli(["schedules", "list", "--json"])).results;
    const executionId = fired?.lastExecutionId ?? "";
    expect(executionId).toMatch(/^exe_/);
    const watched = await cli(["executions", "watch", executionId]);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain('output: {"summary":"ops: report for 2026-01-01T00:01:00.000Z"}');
  });

  it("pauses and resumes a schedule by name", async () => {
    const paused = await cli(["schedules", "pause", "weekday-mornings", "--json"]);
    expect(paused.code).toBe(0);
    expect(parseJson<ScheduleJson>(paused)).toMatchObject({ enabled: false, pausedThroughApi: true, nextRunAt: null });
    const resumed = await cli(["schedules", "resume", "weekday-mornings"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/state\s+enabled/);
  });

  it("runs a schedule now and prints the execution it started", async () => {
    const ran = await cli(["schedules", "run", "weekday-mornings", "--json"]);
    expect(ran.code).toBe(0);
    const started = parseJson<{ executionId: string; schedule: ScheduleJson }>(ran);
    expect(started.executionId).toMatch(/^exe_/);
    expect(started.schedule).toMatchObject({ name: "weekday-mornings", lastExecutionId: started.executionId });
    const plain = await cli(["schedules", "run", "weekday-mornings"]);
    expect(plain.stdout).toMatch(/execution\s+exe_/);
  });

  it("pausing a schedule that does not exist fails with exit code 1 and a fix", async () => {
    const missing = await cli(["schedules", "pause", "nope", "--json"]);
    expect(missing.code).toBe(1);
    expect(parseJson<{ error: { code: string; message: string } }>(missing).error).toMatchObject({
      message: expect.stringContaining('no schedule "nope"'),
      fix: expect.any(String),
    });
  });

  it("refuses to deploy a schedule with an invalid cron expression, naming it, and uploads nothing", async () => {
    const broken = mkdtempSync(join(tmpdir(), "weft-schedules-broken-"));
    writeFileSync(join(broken, "weft.config.ts"), readmeConfig.replace('cron: "* * * * *"', 'cron: "every minute"'));
    const result = await runCli(["deploy", "--create", "--name", "broken"], { cwd: broken, env: signedIn.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'weft.config.ts: schedules[every-minute].cron: schedule "every-minute": "every minute" is not a 5-field cron expression',
    );
    expect(result.stderr).toContain("nothing was uploaded");
  });
});
