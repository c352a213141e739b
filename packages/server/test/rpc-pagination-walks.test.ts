import { callRpc, createTestIdentity, startTestPlatform, type TestIdentity, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accounts,
  auditEvents,
  credentials,
  events,
  integrations,
  invitations,
  memberships,
  projects,
  registrations,
  schedules,
  usageStatements,
  workspaces,
} from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { enqueueExecution } from "../src/engine/enqueue-execution.ts";
import { createManualClock } from "../src/shared/clock.ts";
import type { IdGenerator } from "../src/shared/ids.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";
import { listExecutions } from "../src/workflows/read-executions.ts";

/**
 * Every list walked end to end over RPC, 250 rows each, most of them created in one millisecond:
 * whatever the page size and direction, each row comes back exactly once and in the list's order.
 */

const rowCount = 250;
const sharedInstant = new Date("2026-03-01T12:00:00.000Z");
/** The first 200 rows share one instant; the last 50 follow a millisecond apart. */
function instantOf(index: number): Date {
  return new Date(sharedInstant.getTime() + Math.max(0, index - 199));
}

interface Envelope {
  pagination: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor?: string; endCursor?: string };
  results: Record<string, unknown>[];
  totalCount: number;
}

const clock = createManualClock(sharedInstant);
let weft: TestPlatform;
let owner: TestIdentity;
let projectId: string;
let resourceProjectId: string;
let sixProjectId: string;
let scheduleProjectId: string;
const projectIds: string[] = [];
const deploymentIds: string[] = [];
const executions: { id: string; at: Date }[] = [];
const resourceKeys: string[] = [];
/** A team workspace whose members, invitations and audit events are the walked lists. */
let teamId: string;
const workspaceIds: string[] = [];
const memberIds: string[] = [];
const invitationIds: string[] = [];
const agentIds: string[] = [];
const auditEventsOfTeam: { id: string; at: Date }[] = [];

/** 250 closed months of the owner's workspace, the first of them in January 2000. */
const statementPeriods: string[] = [];
async function seedStatements() {
  const rows = Array.from({ length: rowCount }, (_, index) => {
    const periodStart = new Date(Date.UTC(2000, index, 1));
    statementPeriods.push(periodStart.toISOString());
    return {
      workspaceId: owner.personalWorkspaceId,
      periodStart,
      plan: { name: "unlimited" },
      totals: { executions: index, stepSeconds: 0, bytes: 0, activeProjects: 0 },
      projects: [],
      closedAt: new Date(Date.UTC(2000, index + 1, 1)),
    };
  });
  await weft.platform.context.database.db.insert(usageStatements).values(rows);
}

/**
 * Rows of the `access` and `agents` lists, inserted directly (as the projects are): the owner's
 * workspaces, a team of 250 members with 250 invitations and 250 audit events, and 250 agents.
 */
async function seedAccessLists(deps: { ids: IdGenerator }) {
  const { db } = weft.platform.context.database;
  workspaceIds.push(owner.personalWorkspaceId);
  const workspaceRows = Array.from({ length: rowCount - 1 }, (_, index) => {
    clock.set(instantOf(index));
    return {
      id: deps.ids("workspace"),
      name: `team-${index}`,
      billingAccountId: owner.accountId,
      createdAt: clock.now(),
    };
  });
  await db.insert(workspaces).values([...workspaceRows].reverse());
  await db.insert(memberships).values(
    workspaceRows.map((row) => ({
      workspaceId: row.id,
      accountId: owner.accountId,
      role: "owner" as const,
      createdAt: row.createdAt,
    })),
  );
  workspaceIds.push(...workspaceRows.map((row) => row.id));
  teamId = workspaceRows[0]?.id ?? "";

  memberIds.push(owner.accountId);
  const accountRows = Array.from({ length: rowCount - 1 }, (_, index) => {
    clock.set(instantOf(index));
    return { id: deps.ids("account"), email: `member-${index}@example.com`, createdAt: clock.now() };
  });
  await db.insert(accounts).values([...accountRows].reverse());
  await db.insert(memberships).values(
    accountRows.map((row) => ({
      workspaceId: teamId,
      accountId: row.id,
      role: "viewer" as const,
      createdAt: row.createdAt,
    })),
  );
  memberIds.push(...accountRows.map((row) => row.id));

  const invitationRows = Array.from({ length: rowCount }, (_, index) => {
    clock.set(instantOf(index));
    const id = deps.ids("invitation");
    return {
      id,
      workspaceId: teamId,
      email: `invitee-${index}@example.com`,
      role: "member" as const,
      tokenHash: id,
      invitedByAccountId: owner.accountId,
      createdAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 86_400_000),
    };
  });
  await db.insert(invitations).values([...invitationRows].reverse());
  invitationIds.push(...invitationRows.map((row) => row.id));

  const auditRows = Array.from({ length: rowCount }, (_, index) => {
    clock.set(instantOf(index));
    return {
      id: deps.ids("auditEvent"),
      workspaceId: teamId,
      actorAccountId: owner.accountId,
      action: "test.walked",
      targetType: "workspace",
      targetId: teamId,
      createdAt: clock.now(),
    };
  });
  await db.insert(auditEvents).values([...auditRows].reverse());
  auditEventsOfTeam.push(...auditRows.map((row) => ({ id: row.id, at: row.createdAt })));

  for (let index = 0; index < rowCount; index += 1) {
    clock.set(instantOf(index));
    const credentialId = deps.ids("credential");
    const registrationId = deps.ids("registration");
    await db.insert(credentials).values({
      id: credentialId,
      secretHash: credentialId,
      accountId: owner.accountId,
      registrationId,
      scopes: ["projects:read"],
      createdAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 86_400_000),
    });
    await db.insert(registrations).values({
      id: registrationId,
      type: "email-verification",
      status: "claimed",
      email: owner.email,
      scopes: ["projects:read"],
      agentDescription: `walker-${index}`,
      accountId: owner.accountId,
      credentialId,
      createdAt: clock.now(),
    });
    agentIds.push(registrationId);
  }
}
const scheduleNames: string[] = [];
const integrationNames: string[] = [];

function manifestWith(workflows: number, forms: number, webhooks: number) {
  const names = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(3, "0")}`);
  return {
    version: 1,
    workflows: names("w", workflows).map((name) => ({ name })),
    forms: names("f", forms).map((name) => ({ name, workflow: "w000", schema: { type: "object" } })),
    webhooks: names("h", webhooks).map((name) => ({
      name,
      workflow: "w000",
      secret: { header: "X-Hook-Secret", value: "a-long-enough-webhook-secret" },
    })),
  };
}

beforeAll(async () => {
  // No worker: the executions stay queued, so nothing but this test writes while it pages.
  weft = await startTestPlatform({ clock, env: { WEFT_ROLES: "auth,api,ingress" } });
  owner = await createTestIdentity(weft, "walker@example.com");
  const { db } = weft.platform.context.database;
  const deps = { clock, ids: weft.platform.context.ids };

  const projectRows = Array.from({ length: rowCount }, (_, index) => {
    clock.set(instantOf(index));
    return {
      id: deps.ids("project"),
      workspaceId: owner.personalWorkspaceId,
      name: `walk-${index}`,
      createdByAccountId: owner.accountId,
      createdAt: clock.now(),
      updatedAt: clock.now(),
    };
  });
  // Inserted out of order: the list's order is the ids', not the table's.
  await db.insert(projects).values([...projectRows].reverse());
  projectIds.push(...projectRows.map((row) => row.id));
  [projectId = "", resourceProjectId = "", sixProjectId = "", scheduleProjectId = ""] = projectIds;

  const manifest = manifestWith(1, 0, 0);
  for (let index = 0; index < rowCount; index += 1) {
    clock.set(instantOf(index));
    const deployment = valueOrThrow(
      await createDeployment(db, deps, { projectId, manifest, bundle: `export default ${index}` }),
    );
    deploymentIds.push(deployment.id);
  }
  const deploymentId = deploymentIds.at(-1) ?? "";

  await db.transaction(async (tx) => {
    for (let index = 0; index < rowCount; index += 1) {
      clock.set(instantOf(index));
      const { executionId } = valueOrThrow(
        await enqueueExecution(tx, deps, {
          projectId,
          deploymentId,
          workflow: "w000",
          input: { index },
          trigger: { kind: "api" },
        }),
      );
      executions.push({ id: executionId, at: clock.now() });
    }
  });

  await seedAccessLists(deps);
  await seedStatements();

  clock.set(sharedInstant);
  const six = valueOrThrow(await createDeployment(db, deps, { projectId: sixProjectId, manifest, bundle: "x" }));
  await db.transaction(async (tx) => {
    for (let index = 0; index < 6; index += 1) {
      valueOrThrow(
        await enqueueExecution(tx, deps, {
          projectId: sixProjectId,
          deploymentId: six.id,
          workflow: "w000",
          input: { index },
          trigger: { kind: "api" },
        }),
      );
    }
  });

  valueOrThrow(
    await createDeployment(db, deps, {
      projectId: resourceProjectId,
      manifest: manifestWith(100, 75, 75),
      bundle: "x",
    }),
  );
  const definitions = manifestWith(100, 75, 75);
  resourceKeys.push(
    ...definitions.workflows.map((workflow) => `workflow:${workflow.name}`),
    ...definitions.forms.map((form) => `form:${form.name}`),
    ...definitions.webhooks.map((webhook) => `webhook:${webhook.name}`),
  );

  // More schedules than one deployment may define (200), so the rows are written directly.
  const scheduleDeployment = valueOrThrow(
    await createDeployment(db, deps, { projectId: scheduleProjectId, manifest, bundle: "x" }),
  );
  scheduleNames.push(...Array.from({ length: rowCount }, (_, index) => `s${String(index).padStart(3, "0")}`));
  await db.insert(schedules).values(
    [...scheduleNames].reverse().map((name) => ({
      projectId: scheduleProjectId,
      name,
      deploymentId: scheduleDeployment.id,
      workflow: "w000",
      cron: "0 0 * * *",
      timezone: "UTC",
      configEnabled: true,
      enabled: true,
      pausedThroughApi: false,
      nextRunAt: new Date("2026-03-02T00:00:00.000Z"),
      updatedAt: clock.now(),
    })),
  );

  // Integrations without secrets: the walk is about names, so nothing needs sealing.
  integrationNames.push(...Array.from({ length: rowCount }, (_, index) => `i${String(index).padStart(3, "0")}`));
  await db.insert(integrations).values(
    [...integrationNames].reverse().map((name) => ({
      projectId: scheduleProjectId,
      name,
      kind: "secret" as const,
      config: {},
      secrets: {},
      keyId: "none",
      createdAt: clock.now(),
      updatedAt: clock.now(),
    })),
  );
}, 120_000);

afterAll(async () => {
  await weft.stop();
});

async function call(procedure: string, input: Record<string, unknown>): Promise<unknown> {
  const result = await callRpc(weft.url, procedure, input, { token: owner.credential });
  expect(result.status, JSON.stringify(result.json)).toBe(200);
  return result.json;
}

/**
 * Pages through the list to its end, forward with `first/after` or backward with `last/before`,
 * checking the envelope of every page; returns the rows in list order.
 */
async function walk(
  direction: "forward" | "backward",
  procedure: string,
  input: Record<string, unknown>,
  size: number,
  keyOf: (result: Record<string, unknown>) => string,
): Promise<string[]> {
  const forward = direction === "forward";
  const seen: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    // An undefined cursor leaves the JSON body, as on the first page.
    const pagination = forward ? { first: size, after: cursor } : { last: size, before: cursor };
    const page = (await call(procedure, { ...input, pagination })) as Envelope;
    expect(page.totalCount).toBe(rowCount);
    expect(page.results.length).toBe(Math.min(size, rowCount - seen.length));
    const { hasNextPage, hasPreviousPage, startCursor, endCursor } = page.pagination;
    expect(forward ? hasPreviousPage : hasNextPage).toBe(seen.length > 0);
    const keys = page.results.map(keyOf);
    if (forward) seen.push(...keys);
    else seen.unshift(...keys);
    if (!(forward ? hasNextPage : hasPreviousPage)) return seen;
    cursor = forward ? endCursor : startCursor;
    expect(cursor).toBeDefined();
  }
}

const byId = (result: Record<string, unknown>) => String(result.id);

const envelopeLists = [
  { procedure: "projects.list", input: () => ({}), expected: () => projectIds, keyOf: byId },
  { procedure: "deployments.list", input: () => ({ projectId }), expected: () => deploymentIds, keyOf: byId },
  {
    procedure: "workflows.listExecutions",
    input: () => ({ projectId }),
    expected: () => executions.map((execution) => execution.id),
    keyOf: byId,
  },
  {
    procedure: "resources.list",
    input: () => ({ projectId: resourceProjectId }),
    expected: () => resourceKeys,
    keyOf: (result: Record<string, unknown>) => `${String(result.kind)}:${String(result.name)}`,
  },
  { procedure: "access.listWorkspaces", input: () => ({}), expected: () => workspaceIds, keyOf: byId },
  {
    procedure: "access.listMembers",
    input: () => ({ workspaceId: teamId }),
    expected: () => memberIds,
    keyOf: (result: Record<string, unknown>) => String(result.accountId),
  },
  {
    procedure: "access.listInvitations",
    input: () => ({ workspaceId: teamId }),
    expected: () => invitationIds,
    keyOf: byId,
  },
  { procedure: "agents.list", input: () => ({}), expected: () => agentIds, keyOf: byId },
  {
    procedure: "schedules.list",
    input: () => ({ projectId: scheduleProjectId }),
    expected: () => scheduleNames,
    keyOf: (result: Record<string, unknown>) => String(result.name),
  },
  {
    procedure: "integrations.list",
    input: () => ({ projectId: scheduleProjectId }),
    expected: () => integrationNames,
    keyOf: (result: Record<string, unknown>) => String(result.name),
  },
];

describe("every standard list walks 250 rows with many sharing one instant", () => {
  it.each(envelopeLists)("$procedure forward and backward, with no gap and no duplicate", async (list) => {
    const expected = list.expected();
    expect(new Set(expected).size).toBe(rowCount);
    for (const size of [7, 100]) {
      expect(await walk("forward", list.procedure, list.input(), size, list.keyOf)).toEqual(expected);
      expect(await walk("backward", list.procedure, list.input(), size, list.keyOf)).toEqual(expected);
    }
  });
});

describe("workflows.listExecutions counts no further than its cap", () => {
  it("answers an exact count under the cap and the cap, marked as a lower bound, above it", async () => {
    const { db } = weft.platform.context.database;
    const countAt = async (countCap: number, cursor?: string) => {
      const page = await listExecutions(db, {
        projectId,
        page: { direction: "forward", size: 10, cursor },
        countCap,
      });
      return {
        totalCount: page.totalCount,
        totalCountIsLowerBound: page.totalCountIsLowerBound,
        rows: page.rows.length,
      };
    };
    expect(await countAt(rowCount)).toEqual({ totalCount: rowCount, totalCountIsLowerBound: false, rows: 10 });
    expect(await countAt(rowCount - 1)).toEqual({ totalCount: rowCount - 1, totalCountIsLowerBound: true, rows: 10 });
    // The count is the list's, wherever the page starts.
    const middle = executions[120]?.id;
    expect(await countAt(100, middle)).toEqual({ totalCount: 100, totalCountIsLowerBound: true, rows: 10 });

    const overRpc = (await call("workflows.listExecutions", { projectId })) as Envelope & {
      totalCountIsLowerBound: boolean;
    };
    expect(overRpc.totalCountIsLowerBound).toBe(false);
  });
});

describe("a cursor of one list is refused by another", () => {
  const foreign = [
    { procedure: "projects.list", input: () => ({}), cursorOf: resourceCursorOfFirstPage },
    {
      procedure: "resources.list",
      input: () => ({ projectId: resourceProjectId }),
      cursorOf: projectCursorOfFirstPage,
    },
    { procedure: "workflows.listExecutions", input: () => ({ projectId }), cursorOf: traceCursorOfFirstPage },
  ];

  it.each(foreign)("$procedure answers BAD_REQUEST naming pagination.after", async (list) => {
    const result = await callRpc(
      weft.url,
      list.procedure,
      { ...list.input(), pagination: { after: await list.cursorOf() } },
      { token: owner.credential },
    );
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["pagination", "after"] }] } });
  });

  it("traces.list answers BAD_REQUEST naming the cursor", async () => {
    const cursor = await projectCursorOfFirstPage();
    const result = await callRpc(weft.url, "traces.list", { projectId, cursor }, { token: owner.credential });
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["cursor"] }] } });
  });
});

async function projectCursorOfFirstPage(): Promise<string> {
  return String(((await call("projects.list", { pagination: { first: 1 } })) as Envelope).pagination.endCursor);
}

async function resourceCursorOfFirstPage(): Promise<string> {
  const page = (await call("resources.list", { projectId: resourceProjectId, pagination: { first: 1 } })) as Envelope;
  return String(page.pagination.endCursor);
}

async function traceCursorOfFirstPage(): Promise<string> {
  return String(((await call("traces.list", { projectId, limit: 1 })) as { nextCursor: string }).nextCursor);
}

describe("traces.list walks 250 traces with many sharing one instant", () => {
  /** Newest first; traces of one millisecond by execution id, newest first too. */
  function newestFirst(): string[] {
    return [...executions]
      .sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((execution) => execution.id);
  }

  async function walk(tracesOf: string, limit: number): Promise<{ executionId: string; startTime: string }[]> {
    const seen: { executionId: string; startTime: string }[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = (await call("traces.list", {
        projectId: tracesOf,
        limit,
        ...(cursor === null ? {} : { cursor }),
      })) as {
        data: { executionId: string; startTime: string }[];
        nextCursor?: string;
      };
      seen.push(...page.data.map(({ executionId, startTime }) => ({ executionId, startTime })));
      if (page.nextCursor === undefined) return seen;
      expect(page.data.length).toBe(limit);
      cursor = page.nextCursor;
    }
  }

  it.each([2, 7, 100])("in pages of %i, with no gap and no duplicate", async (limit) => {
    const expected = newestFirst();
    expect(new Set(expected).size).toBe(rowCount);
    const traces = await walk(projectId, limit);
    expect(traces.map((trace) => trace.executionId)).toEqual(expected);
    expect(traces.filter((trace) => trace.startTime === sharedInstant.toISOString()).length).toBe(200);
  });

  it("returns all six traces of executions started in one millisecond, paged two at a time", async () => {
    const traces = await walk(sixProjectId, 2);
    expect(new Set(traces.map((trace) => trace.executionId)).size).toBe(6);
    expect(new Set(traces.map((trace) => trace.startTime))).toEqual(new Set([sharedInstant.toISOString()]));
  });
});

describe("access.auditLog walks 250 events with many sharing one instant", () => {
  it.each([2, 7, 200])("in pages of %i, newest first, with no gap and no duplicate", async (limit) => {
    const expected = [...auditEventsOfTeam]
      .sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((event) => event.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = (await call("access.auditLog", {
        workspaceId: teamId,
        limit,
        ...(cursor === null ? {} : { cursor }),
      })) as { data: { id: string }[]; nextCursor?: string };
      seen.push(...page.data.map((event) => event.id));
      if (page.nextCursor === undefined) break;
      expect(page.data.length).toBe(limit);
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(expected);
  });
});

describe("billing.listStatements walks 250 months", () => {
  it.each([2, 7, 100])("in pages of %i, newest first, with no gap and no duplicate", async (limit) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = (await call("billing.listStatements", {
        workspaceId: owner.personalWorkspaceId,
        limit,
        ...(cursor === null ? {} : { cursor }),
      })) as { data: { periodStart: string }[]; nextCursor?: string };
      seen.push(...page.data.map((statement) => statement.periodStart));
      if (page.nextCursor === undefined) break;
      expect(page.data.length).toBe(limit);
      cursor = page.nextCursor;
    }
    expect(seen).toEqual([...statementPeriods].reverse());
  });
});

describe("events.list walks 250 events with many sharing one instant", () => {
  const sent: { id: string; at: Date }[] = [];

  beforeAll(async () => {
    const ids = weft.platform.context.ids;
    const rows = Array.from({ length: rowCount }, (_, index) => {
      const row = { id: ids("event"), at: instantOf(index) };
      sent.push(row);
      return {
        id: row.id,
        projectId,
        name: "order.created",
        data: { index },
        idempotencyId: null,
        sourceKind: "api" as const,
        sourceName: null,
        sentAt: row.at,
        executions: [],
        resumed: 0,
        cancelled: 0,
      };
    });
    await weft.platform.context.database.db.insert(events).values(rows);
  });

  it.each([2, 7, 100])("in pages of %i, newest first, with no gap and no duplicate", async (limit) => {
    const expected = [...sent]
      .sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((event) => event.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = (await call("events.list", {
        projectId,
        limit,
        ...(cursor === null ? {} : { cursor }),
      })) as { data: { id: string }[]; nextCursor?: string };
      seen.push(...page.data.map((event) => event.id));
      if (page.nextCursor === undefined) break;
      expect(page.data.length).toBe(limit);
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(expected);
  });
});
