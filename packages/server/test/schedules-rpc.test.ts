import { bundleConfig, expectInputIssue, signedInTestPlatform } from "@weft/testing";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, deployments, schedules } from "../src/db/schema/index.ts";
import { createManualClock } from "../src/shared/clock.ts";

const signedIn = signedInTestPlatform("scheduler@example.com", {
  clock: createManualClock(new Date("2026-06-01T08:59:00.000Z")),
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});
let bundle: string;

const configSource = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "report",
      input: {
        type: "object",
        properties: { scheduledFor: { type: "string", format: "date-time" }, region: { type: "string" } },
        required: ["scheduledFor", "region"],
        additionalProperties: false,
      },
      async run(input: { scheduledFor: string; region: string }, ctx) {
        return ctx.step("summarise", async () => \`\${input.region} at \${input.scheduledFor}\`);
      },
    }),
  ],
});
`;

const reportWorkflow = {
  name: "report",
  inputSchema: {
    type: "object",
    properties: { scheduledFor: { type: "string", format: "date-time" }, region: { type: "string" } },
    required: ["scheduledFor", "region"],
    additionalProperties: false,
  },
};

type ScheduleInput = {
  name: string;
  workflow: string;
  cron: string;
  timezone?: string;
  input?: unknown;
  enabled?: boolean;
};

interface ScheduleJson {
  name: string;
  workflow: string;
  cron: string;
  timezone: string;
  enabled: boolean;
  pausedThroughApi: boolean;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastExecutionId: string | null;
  lastSkippedAt: string | null;
  lastSkipReason: string | null;
}

async function newProject(name: string): Promise<string> {
  return (await signedIn.call<{ id: string }>("projects.create", { name })).json.id;
}

function deploy(projectId: string, scheduleList: ScheduleInput[]) {
  return signedIn.call<{ id: string; number: number }>("deployments.create", {
    projectId,
    manifest: { version: 1, workflows: [reportWorkflow], schedules: scheduleList },
    bundle,
  });
}

async function listed(projectId: string): Promise<ScheduleJson[]> {
  const page = await signedIn.call<{ results: ScheduleJson[]; totalCount: number }>("schedules.list", { projectId });
  expect(page.status).toBe(200);
  return page.json.results;
}

beforeAll(async () => {
  bundle = await bundleConfig(configSource);
});

describe("schedules namespace", () => {
  it("lists a deployed schedule with its next run, and resources.list shows it", async () => {
    const projectId = await newProject("Listed");
    const deployed = await deploy(projectId, [
      { name: "morning", workflow: "report", cron: "0 9 * * 1-5", timezone: "Europe/Berlin", input: { region: "eu" } },
      { name: "hourly", workflow: "report", cron: "0 * * * *", input: { region: "us" }, enabled: false },
    ]);
    expect(deployed.status).toBe(200);
    expect(await listed(projectId)).toEqual([
      {
        name: "hourly",
        workflow: "report",
        cron: "0 * * * *",
        timezone: "UTC",
        enabled: false,
        pausedThroughApi: false,
        nextRunAt: null,
        lastRunAt: null,
        lastExecutionId: null,
        lastSkippedAt: null,
        lastSkipReason: null,
      },
      {
        name: "morning",
        workflow: "report",
        cron: "0 9 * * 1-5",
        timezone: "Europe/Berlin",
        enabled: true,
        pausedThroughApi: false,
        // 2026-06-01 is a Monday; 09:00 in Berlin (CEST) is 07:00Z, already past: Tuesday.
        nextRunAt: "2026-06-02T07:00:00.000Z",
        lastRunAt: null,
        lastExecutionId: null,
        lastSkippedAt: null,
        lastSkipReason: null,
      },
    ]);
    const resources = await signedIn.call<{ results: Record<string, unknown>[] }>("resources.list", {
      projectId,
      kind: "schedule",
    });
    expect(resources.json.results).toEqual([
      {
        kind: "schedule",
        name: "hourly",
        deploymentId: deployed.json.id,
        workflow: "report",
        cron: "0 * * * *",
        timezone: "UTC",
        enabled: false,
        input: { region: "us" },
      },
      {
        kind: "schedule",
        name: "morning",
        deploymentId: deployed.json.id,
        workflow: "report",
        cron: "0 9 * * 1-5",
        timezone: "Europe/Berlin",
        enabled: true,
        input: { region: "eu" },
      },
    ]);
  });

  it("starts the workflow at its tick with { scheduledFor, ...input }, run by the worker", async () => {
    const projectId = await newProject("Fired");
    await deploy(projectId, [{ name: "top", workflow: "report", cron: "0 * * * *", input: { region: "eu" } }]);
    signedIn.weft.clock.set(new Date("2026-06-01T09:00:00.000Z"));
    await signedIn.weft.platform.periodicJobs?.fireSchedules();
    const [schedule] = await listed(projectId);
    expect(schedule?.lastRunAt).toBe("2026-06-01T09:00:00.000Z");
    expect(schedule?.nextRunAt).toBe("2026-06-01T10:00:00.000Z");
    const executionId = schedule?.lastExecutionId ?? "";
    let execution: { status: string; input: unknown; output: unknown; trigger: unknown } | undefined;
    await expect
      .poll(
        async () => {
          execution = (await signedIn.call<typeof execution>("workflows.getExecution", { executionId })).json;
          return execution?.status;
        },
        { timeout: 30_000 },
      )
      .toBe("succeeded");
    expect(execution?.input).toEqual({ scheduledFor: "2026-06-01T09:00:00.000Z", region: "eu" });
    expect(execution?.output).toBe("eu at 2026-06-01T09:00:00.000Z");
    expect(execution?.trigger).toEqual({ kind: "schedule", name: "top" });
    signedIn.weft.clock.set(new Date("2026-06-01T08:59:00.000Z"));
  });

  it("pause and resume are audited; an API pause outlasts deploys, which otherwise re-apply enabled", async () => {
    const projectId = await newProject("Paused");
    const config: ScheduleInput[] = [
      { name: "daily", workflow: "report", cron: "0 6 * * *", input: { region: "eu" } },
      { name: "off", workflow: "report", cron: "0 7 * * *", input: { region: "eu" }, enabled: false },
    ];
    await deploy(projectId, config);
    const paused = await signedIn.call<ScheduleJson>("schedules.pause", { projectId, name: "daily" });
    expect(paused.status).toBe(200);
    expect(paused.json).toMatchObject({ enabled: false, pausedThroughApi: true, nextRunAt: null });
    const resumedOff = await signedIn.call<ScheduleJson>("schedules.resume", { projectId, name: "off" });
    expect(resumedOff.json).toMatchObject({
      enabled: true,
      pausedThroughApi: false,
      nextRunAt: "2026-06-02T07:00:00.000Z",
    });

    await deploy(projectId, config);
    const afterDeploy = await listed(projectId);
    expect(afterDeploy.map((schedule) => [schedule.name, schedule.enabled, schedule.pausedThroughApi])).toEqual([
      ["daily", false, true],
      ["off", false, false],
    ]);

    const resumed = await signedIn.call<ScheduleJson>("schedules.resume", { projectId, name: "daily" });
    expect(resumed.json).toMatchObject({
      enabled: true,
      pausedThroughApi: false,
      nextRunAt: "2026-06-02T06:00:00.000Z",
    });
    await deploy(projectId, config);
    expect((await listed(projectId)).map((schedule) => [schedule.name, schedule.enabled])).toEqual([
      ["daily", true],
      ["off", false],
    ]);

    const audited = await signedIn.weft.database.db
      .select({ action: auditEvents.action, targetId: auditEvents.targetId, actor: auditEvents.actorAccountId })
      .from(auditEvents)
      .where(eq(auditEvents.targetType, "schedule"))
      .orderBy(auditEvents.id);
    expect(audited).toEqual([
      { action: "schedule.paused", targetId: `${projectId}/daily`, actor: signedIn.identity.accountId },
      { action: "schedule.resumed", targetId: `${projectId}/off`, actor: signedIn.identity.accountId },
      { action: "schedule.resumed", targetId: `${projectId}/daily`, actor: signedIn.identity.accountId },
    ]);
  });

  it("pausing a schedule the project does not have is NOT_FOUND and changes nothing", async () => {
    const projectId = await newProject("Unknown");
    await deploy(projectId, [{ name: "daily", workflow: "report", cron: "0 6 * * *", input: { region: "eu" } }]);
    const before = await signedIn.weft.database.db.select().from(auditEvents);
    const missing = await signedIn.call<{ code: string; message: string }>("schedules.pause", {
      projectId,
      name: "weekly",
    });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ code: "NOT_FOUND", message: 'The project has no schedule "weekly".' });
    expect(await signedIn.weft.database.db.select().from(auditEvents)).toEqual(before);
  });

  it("a rollback replaces the project's schedules with those of the deployment it activates", async () => {
    const projectId = await newProject("Rolled back");
    const first = await deploy(projectId, [
      { name: "first", workflow: "report", cron: "0 6 * * *", input: { region: "eu" } },
    ]);
    await deploy(projectId, [{ name: "second", workflow: "report", cron: "0 7 * * *", input: { region: "eu" } }]);
    expect((await listed(projectId)).map((schedule) => schedule.name)).toEqual(["second"]);
    const rolledBack = await signedIn.call("deployments.activate", { projectId, deploymentId: first.json.id });
    expect(rolledBack.status).toBe(200);
    expect((await listed(projectId)).map((schedule) => schedule.name)).toEqual(["first"]);
  });

  it("runs a paused schedule now: audited, its last run, the executions it started; its next tick unchanged", async () => {
    const projectId = await newProject("Run now");
    await deploy(projectId, [
      { name: "daily", workflow: "report", cron: "0 6 * * *", input: { region: "eu" } },
      { name: "other", workflow: "report", cron: "0 7 * * *", input: { region: "us" } },
    ]);
    await signedIn.call("schedules.pause", { projectId, name: "daily" });
    const ran = await signedIn.call<{ executionId: string; schedule: ScheduleJson }>("schedules.runNow", {
      projectId,
      name: "daily",
    });
    expect(ran.status).toBe(200);
    expect(ran.json.schedule).toMatchObject({
      name: "daily",
      enabled: false,
      pausedThroughApi: true,
      nextRunAt: null,
      lastRunAt: "2026-06-01T08:59:00.000Z",
      lastExecutionId: ran.json.executionId,
    });
    const execution = await signedIn.call<{ input: unknown; trigger: unknown }>("workflows.getExecution", {
      executionId: ran.json.executionId,
    });
    expect(execution.json).toMatchObject({
      input: { scheduledFor: "2026-06-01T08:59:00.000Z", region: "eu" },
      trigger: { kind: "schedule", name: "daily" },
    });
    await signedIn.call("schedules.runNow", { projectId, name: "other" });
    await signedIn.call("workflows.run", {
      projectId,
      workflow: "report",
      input: { scheduledFor: "2026-06-01T00:00:00.000Z", region: "eu" },
    });
    const started = await signedIn.call<{ results: { id: string }[]; totalCount: number }>("workflows.listExecutions", {
      projectId,
      schedule: "daily",
    });
    expect(started.json.results.map((row) => row.id)).toEqual([ran.json.executionId]);
    expect(started.json.totalCount).toBe(1);

    const audited = await signedIn.weft.database.db
      .select({ action: auditEvents.action, targetId: auditEvents.targetId, data: auditEvents.data })
      .from(auditEvents)
      .where(eq(auditEvents.action, "schedule.run"))
      .orderBy(auditEvents.id);
    expect(audited[0]).toEqual({
      action: "schedule.run",
      targetId: `${projectId}/daily`,
      data: { projectId, name: "daily", workflow: "report", executionId: ran.json.executionId },
    });
  });

  it("running a schedule the project does not have is NOT_FOUND and starts nothing", async () => {
    const projectId = await newProject("Run unknown");
    await deploy(projectId, [{ name: "daily", workflow: "report", cron: "0 6 * * *", input: { region: "eu" } }]);
    const missing = await signedIn.call<{ code: string; message: string }>("schedules.runNow", {
      projectId,
      name: "weekly",
    });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ code: "NOT_FOUND", message: 'The project has no schedule "weekly".' });
    const executions = await signedIn.call<{ totalCount: number }>("workflows.listExecutions", { projectId });
    expect(executions.json.totalCount).toBe(0);
  });

  describe("a deploy with a bad schedule is refused (400) naming the schedule, and changes nothing", () => {
    const refusals: [string, ScheduleInput, (string | number)[], RegExp][] = [
      [
        "an invalid cron expression",
        { name: "broken", workflow: "report", cron: "61 * * * *", input: { region: "eu" } },
        ["manifest", "schedules", 0, "cron"],
        /schedule "broken": "61 \* \* \* \*" is not a 5-field cron expression/,
      ],
      [
        "a cron expression with seconds",
        { name: "broken", workflow: "report", cron: "0 0 6 * * *", input: { region: "eu" } },
        ["manifest", "schedules", 0, "cron"],
        /schedule "broken": "0 0 6 \* \* \*" is not a 5-field cron expression/,
      ],
      [
        "a cron expression that never matches",
        { name: "broken", workflow: "report", cron: "0 0 30 2 *", input: { region: "eu" } },
        ["manifest", "schedules", 0, "cron"],
        /schedule "broken": "0 0 30 2 \*" never matches a date/,
      ],
      [
        "an unknown time zone",
        { name: "broken", workflow: "report", cron: "0 6 * * *", timezone: "Mars/Olympus", input: { region: "eu" } },
        ["manifest", "schedules", 0, "timezone"],
        /schedule "broken": "Mars\/Olympus" is not an IANA time zone name/,
      ],
      [
        "an unknown workflow",
        { name: "broken", workflow: "missing", cron: "0 6 * * *" },
        ["manifest", "schedules", 0, "workflow"],
        /schedule "broken" names the workflow "missing", which this deployment does not define/,
      ],
      [
        "input the workflow's schema refuses",
        { name: "broken", workflow: "report", cron: "0 6 * * *", input: { region: 7 } },
        ["manifest", "schedules", 0, "input", "region"],
        /schedule "broken": its input \(\{ scheduledFor, \.\.\.input \}\) does not match the input schema of workflow "report": region must be string/,
      ],
      [
        "input lacking what the workflow's schema requires",
        { name: "broken", workflow: "report", cron: "0 6 * * *" },
        ["manifest", "schedules", 0, "input", "region"],
        /schedule "broken": .*must have required property 'region'/,
      ],
    ];

    it.each(refusals)("%s", async (_what, schedule, path, message) => {
      const projectId = await newProject(`Refused ${_what}`);
      await deploy(projectId, [{ name: "kept", workflow: "report", cron: "0 6 * * *", input: { region: "eu" } }]);
      const before = {
        deployments: await signedIn.weft.database.db.select({ id: deployments.id }).from(deployments),
        schedules: await signedIn.weft.database.db.select().from(schedules).where(eq(schedules.projectId, projectId)),
      };
      const refused = await deploy(projectId, [schedule]);
      expectInputIssue(refused, path, message);
      expect(await signedIn.weft.database.db.select({ id: deployments.id }).from(deployments)).toEqual(
        before.deployments,
      );
      expect(
        await signedIn.weft.database.db.select().from(schedules).where(eq(schedules.projectId, projectId)),
      ).toEqual(before.schedules);
    });
  });
});
