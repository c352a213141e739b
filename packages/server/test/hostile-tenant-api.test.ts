import { randomUUID } from "node:crypto";
import {
  type CallTarget,
  callRpc,
  capturedLogger,
  contractCalls,
  createTestIdentity,
  idJagClaimsFor,
  idJagRegistration,
  internalErrorBody,
  missingAccountId,
  missingCallTarget,
  postJson,
  probeCalls,
  procedureOf,
  proceduresWithoutCall,
  registerEmailAgent,
  startTestIdentityProvider,
  startTestPlatform,
  storeTestWaitToken,
  type TestIdentity,
  type TestIdentityProvider,
  type TestPlatform,
  trustedIssuersEnv,
} from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts, auditEvents, deployments, executions, idempotencyKeys, projects } from "../src/db/schema/index.ts";

/** What one tenant owns: the other tries to reach it, and it tries hostile input on its own. */
interface TenantFixture {
  tenant: TestIdentity;
  projectId: string;
  deploymentId: string;
  executionId: string;
  traceId: string;
  invitationId: string;
  agentId: string;
  tokenId: string;
  policyId: string;
}

const bundle = 'export default { workflows: [{ name: "echo", run: async (input) => input }] };';
const manifest = {
  version: 1,
  workflows: [{ name: "echo" }],
  webhooks: [{ name: "orders", workflow: "echo" }],
  schedules: [{ name: "nightly", workflow: "echo", cron: "0 0 * * *" }],
};

let weft: TestPlatform;
let idp: TestIdentityProvider;
let mallory: TenantFixture;
let bob: TenantFixture;
const { logger, lines: logLines } = capturedLogger("error");

async function tenantWith(email: string): Promise<TenantFixture> {
  const tenant = await createTestIdentity(weft, email);
  const token = { token: tenant.credential };
  const created = await callRpc(weft.url, "projects.create", { name: `Plans of ${email}` }, token);
  const projectId = (created.json as { id: string }).id;
  const deployed = await callRpc(weft.url, "deployments.create", { projectId, manifest, bundle }, token);
  const deploymentId = (deployed.json as { id: string }).id;
  const ran = await callRpc(weft.url, "workflows.run", { projectId, workflow: "echo", input: { n: 1 } }, token);
  const executionId = (ran.json as { executionId: string }).executionId;
  const execution = await callRpc(weft.url, "workflows.getExecution", { executionId }, token);
  const invited = await callRpc(
    weft.url,
    "access.invite",
    { workspaceId: tenant.personalWorkspaceId, email: `friend-of-${email}`, role: "member" },
    token,
  );
  const agent = await registerEmailAgent(weft, email);
  const tokenId = await storeTestWaitToken(weft.database.db, { executionId, projectId, now: weft.clock.now() });
  const policy = await callRpc(
    weft.url,
    "access.createFederationPolicy",
    {
      workspaceId: tenant.personalWorkspaceId,
      projectId,
      issuer: "https://token.actions.githubusercontent.com",
      audience: "weft",
      subject: `repo:${email}/*`,
      scopes: ["projects:read"],
    },
    token,
  );
  await callRpc(
    weft.url,
    "integrations.create",
    { projectId, name: "crm", kind: "secret", secrets: { value: `crm-secret-of-${email}` } },
    token,
  );
  return {
    tenant,
    projectId,
    deploymentId,
    executionId,
    traceId: (execution.json as { traceId: string }).traceId,
    invitationId: (invited.json as { id: string }).id,
    agentId: agent.agentId,
    tokenId,
    policyId: (policy.json as { id: string }).id,
  };
}

/** The tenant's things as a call of `contractCalls` aims at them, made by mallory. */
function targetOf({ tenant, ...ids }: TenantFixture): CallTarget {
  return {
    ...ids,
    workspaceId: tenant.personalWorkspaceId,
    ownerAccountId: tenant.accountId,
    callerAccountId: mallory.tenant.accountId,
  };
}

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  weft = await startTestPlatform({
    logger,
    env: { WEFT_TRUSTED_ISSUERS: trustedIssuersEnv(idp), WEFT_RATE_LIMIT_REGISTER: "10000" },
  });
  mallory = await tenantWith("mallory@example.com");
  bob = await tenantWith("bob@example.com");
});

afterAll(async () => {
  await weft.stop();
  await idp.close();
});

async function snapshot() {
  const db = weft.database.db;
  return {
    projects: await db.select().from(projects).orderBy(projects.id),
    audit: await db.select({ id: auditEvents.id }).from(auditEvents).orderBy(auditEvents.id),
    deployments: await db.select({ id: deployments.id }).from(deployments).orderBy(deployments.id),
    executions: await db.select({ id: executions.id }).from(executions).orderBy(executions.id),
    idempotencyKeys: await db.select().from(idempotencyKeys).orderBy(idempotencyKeys.key),
  };
}

/** Raw RPC call, for bodies a JSON encoder cannot produce (20 000 levels) or that carry `meta`. */
async function postRpc(procedure: string, body: string, token: string) {
  const response = await fetch(`${weft.url}/rpc/${procedure.replaceAll(".", "/")}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, json: (JSON.parse(text) as { json?: unknown }).json };
}

async function postApi(procedure: string, body: string, token: string) {
  const response = await fetch(`${weft.url}/api/${procedure.replaceAll(".", "/")}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as unknown };
}

/** `{...input, [field]: <placeholder>}` as JSON text, the placeholder replaced by raw JSON. */
function bodyWith(input: Record<string, unknown>, field: string, rawValue: string): string {
  const placeholder = `__${randomUUID()}__`;
  return JSON.stringify({ ...input, [field]: placeholder }).replace(JSON.stringify(placeholder), rawValue);
}

const deepJson = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;

const hostileValues: [string, string][] = [
  ["a NUL character", JSON.stringify("a\u0000b")],
  ["a lone surrogate", '"a\\ud800b"'],
  ["input nested 20 000 deep", deepJson],
];

const hostileCases = Object.entries(contractCalls).flatMap(([name, call]) =>
  call.hostileFields.flatMap((field) =>
    hostileValues.flatMap(([what, raw]) =>
      (["rpc", "api"] as const).map((surface) => ({ name, call, field, what, raw, surface })),
    ),
  ),
);

describe("hostile tenant: input the API cannot store", () => {
  it("has a hostile input for every procedure of the contract", () => {
    expect(proceduresWithoutCall()).toEqual([]);
  });

  it.each(hostileCases)(
    "$name with $what in $field over /$surface answers 400 and changes nothing",
    async ({ name, call, field, raw, surface }) => {
      const before = await snapshot();
      const input = bodyWith(call.input(targetOf(mallory)), field, raw);
      const result =
        surface === "rpc"
          ? await postRpc(name, `{"json":${input}}`, mallory.tenant.credential)
          : await postApi(name, input, mallory.tenant.credential);
      expect(result.status).toBe(400);
      const refusal = result.json as { code: string; data: { issues: { path: unknown[] }[] } };
      expect(refusal.code).toBe("BAD_REQUEST");
      expect(refusal.data.issues[0]?.path[0]).toBe(field);
      expect(await snapshot()).toEqual(before);
    },
  );

  it("refuses form-encoded /api input nested 20 000 deep or holding a NUL, and still accepts a plain form", async () => {
    const before = await snapshot();
    const post = (body: string) =>
      fetch(`${weft.url}/api/projects/create`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Bearer ${mallory.tenant.credential}`,
        },
        body,
      });
    for (const body of [`name${"[a]".repeat(20_000)}=x`, "name=a%00b"]) {
      const refused = await post(body);
      expect(refused.status).toBe(400);
      const refusal = (await refused.json()) as { code: string; data: { issues: { path: unknown[] }[] } };
      expect(refusal.code).toBe("BAD_REQUEST");
      expect(refusal.data.issues[0]?.path[0]).toBe("name");
    }
    expect(await snapshot()).toEqual(before);
    const accepted = await post("name=Form%20encoded");
    expect(accepted.status).toBe(200);
    await callRpc(
      weft.url,
      "projects.delete",
      { projectId: ((await accepted.json()) as { id: string }).id },
      { token: mallory.tenant.credential },
    );
  });

  it("refuses a BigInt decoded from oRPC meta, naming the field", async () => {
    const before = await snapshot();
    const { projectId } = mallory;
    const run = await postRpc(
      "workflows.run",
      JSON.stringify({ json: { projectId, workflow: "echo", input: "12345678901234567890" }, meta: [[0, "input"]] }),
      mallory.tenant.credential,
    );
    expect(run.status).toBe(400);
    expect(run.json).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["input"] }] } });
    const nested = await postRpc(
      "workflows.run",
      JSON.stringify({ json: { projectId, workflow: "echo", input: { n: "1" } }, meta: [[0, "input", "n"]] }),
      mallory.tenant.credential,
    );
    expect(nested.status).toBe(400);
    expect(nested.json).toMatchObject({ data: { issues: [{ path: ["input", "n"] }] } });
    const name = await postRpc(
      "projects.create",
      JSON.stringify({ json: { name: "1" }, meta: [[0, "name"]] }),
      mallory.tenant.credential,
    );
    expect(name.status).toBe(400);
    expect(name.json).toMatchObject({ data: { issues: [{ path: ["name"] }] } });
    expect(await snapshot()).toEqual(before);
  });

  it("refuses NUL and lone surrogates in project names, naming the field", async () => {
    const before = await snapshot();
    for (const name of ["evil\u0000name", "evil\ud800name"]) {
      const created = await callRpc(weft.url, "projects.create", { name }, { token: mallory.tenant.credential });
      expect(created.status).toBe(400);
      expect(created.json).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["name"] }] } });
      const renamed = await callRpc(
        weft.url,
        "projects.update",
        { projectId: mallory.projectId, name },
        { token: mallory.tenant.credential },
      );
      expect(renamed.status).toBe(400);
      expect(renamed.json).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["name"] }] } });
    }
    expect(await snapshot()).toEqual(before);
  });

  it("refuses NUL and lone surrogates in idempotency keys, naming the field", async () => {
    const before = await snapshot();
    for (const idempotencyKey of ["key\u0000", "key\udc00"]) {
      const result = await callRpc(
        weft.url,
        "workflows.run",
        { projectId: mallory.projectId, workflow: "echo", input: {}, idempotencyKey },
        { token: mallory.tenant.credential },
      );
      expect(result.status).toBe(400);
      expect(result.json).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["idempotencyKey"] }] } });
    }
    expect(await snapshot()).toEqual(before);
  });
});

const extremeInstants = [
  "+275760-09-13T00:00:00.001Z",
  "+275760-09-13T00:00:00.000Z",
  "0000-01-01T00:00:00Z",
  "-000001-01-01T00:00:00.000Z",
  "-1",
  "Invalid Date",
];

const dateFilters = [
  { procedure: "traces.list", field: "from" },
  { procedure: "traces.list", field: "to" },
  { procedure: "workflows.listExecutions", field: "createdFrom" },
  { procedure: "workflows.listExecutions", field: "createdTo" },
];

function traceCursor(time: string, executionId: string): string {
  return Buffer.from(`${time}|${executionId}`, "utf8").toString("base64url");
}

describe("hostile tenant: extreme dates in filters and cursors", () => {
  it.each(dateFilters.flatMap((filter) => extremeInstants.map((instant) => ({ ...filter, instant }))))(
    "$procedure with $field $instant answers 400 naming the field",
    async ({ procedure, field, instant }) => {
      const result = await callRpc(
        weft.url,
        procedure,
        { projectId: mallory.projectId, [field]: instant },
        { token: mallory.tenant.credential },
      );
      expect(result.status).toBe(400);
      const refusal = result.json as { code: string; data: { issues: { path: unknown[] }[] } };
      expect(refusal.code).toBe("BAD_REQUEST");
      expect(refusal.data.issues.map((issue) => issue.path)).toEqual(refusal.data.issues.map(() => [field]));
    },
  );

  it.each(dateFilters)("$procedure accepts $field before 1970 and in 9999", async ({ procedure, field }) => {
    for (const instant of ["1969-12-31T23:59:59.999Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z"]) {
      const result = await callRpc(
        weft.url,
        procedure,
        { projectId: mallory.projectId, [field]: instant },
        { token: mallory.tenant.credential },
      );
      expect(result.status).toBe(200);
    }
  });

  it.each(extremeInstants.filter((instant) => instant !== "-1"))(
    "traces.list with a cursor at %s answers 400 naming the cursor",
    async (instant) => {
      const result = await callRpc(
        weft.url,
        "traces.list",
        { projectId: mallory.projectId, cursor: traceCursor(instant, mallory.executionId) },
        { token: mallory.tenant.credential },
      );
      expect(result.status).toBe(400);
      expect(result.json).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["cursor"] }] } });
    },
  );

  it("traces.list pages through every trace with the cursors it hands out", async () => {
    const token = { token: mallory.tenant.credential };
    for (const n of [1, 2]) {
      await callRpc(weft.url, "workflows.run", { projectId: mallory.projectId, workflow: "echo", input: { n } }, token);
    }
    const all = await callRpc(weft.url, "traces.list", { projectId: mallory.projectId, limit: 100 }, token);
    const everyTrace = (all.json as { data: { traceId: string }[] }).data.map((trace) => trace.traceId);
    expect(everyTrace.length).toBeGreaterThan(1);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await callRpc(
        weft.url,
        "traces.list",
        { projectId: mallory.projectId, limit: 1, ...(cursor === undefined ? {} : { cursor }) },
        token,
      );
      expect(page.status).toBe(200);
      const body = page.json as { data: { traceId: string }[]; nextCursor?: string };
      paged.push(...body.data.map((trace) => trace.traceId));
      cursor = body.nextCursor;
    } while (cursor !== undefined && paged.length <= everyTrace.length);
    expect(paged).toEqual(everyTrace);
  });

  it("traces.list with a cursor whose execution id PostgreSQL cannot store answers 400", async () => {
    const cursor = traceCursor("2026-01-01T00:00:00.000Z", "exe_\u0000");
    const result = await callRpc(
      weft.url,
      "traces.list",
      { projectId: mallory.projectId, cursor },
      { token: mallory.tenant.credential },
    );
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["cursor"] }] } });
  });

  it("workflows.listExecutions with a forged page cursor answers 400 naming it", async () => {
    for (const id of ["exe_\u0000", "+275760-09-13T00:00:00.001Z"]) {
      const after = Buffer.from(JSON.stringify({ id }), "utf8").toString("base64url");
      const result = await callRpc(
        weft.url,
        "workflows.listExecutions",
        { projectId: mallory.projectId, pagination: { after } },
        { token: mallory.tenant.credential },
      );
      expect(result.status).toBe(400);
      expect(result.json).toMatchObject({ data: { issues: [{ path: ["pagination", "after"] }] } });
    }
  });
});

/** Ids of the right shape that name nothing, called for by mallory. */
function missingTarget(): CallTarget {
  return missingCallTarget({ ownerAccountId: missingAccountId(), callerAccountId: mallory.tenant.accountId });
}

/**
 * Every call that names another workspace's things: the table's calls another workspace's user is
 * refused, and its inputs that pair the caller's own project or workspace with such a thing.
 */
const lookups: (readonly [string, (theirs: CallTarget) => Record<string, unknown>])[] = [
  ...probeCalls().flatMap(([name, call]) => (call.asOutsider === "refused" ? [[name, call.input] as const] : [])),
  ...Object.entries(contractCalls).flatMap(([name, call]) =>
    Object.entries(call.crossed ?? {}).map(
      ([variant, crossed]) =>
        [`${name}#${variant}`, (theirs: CallTarget) => crossed(theirs, targetOf(mallory))] as const,
    ),
  ),
];

describe("hostile tenant: not found reads the same for missing and someone else's", () => {
  it("has a lookup for every procedure of the contract", () => {
    expect(proceduresWithoutCall()).toEqual([]);
  });

  it.each(lookups)("%s answers byte for byte the same NOT_FOUND", async (name, lookup) => {
    const procedure = procedureOf(name);
    const token = mallory.tenant.credential;
    const theirs = await postRpc(procedure, JSON.stringify({ json: lookup(targetOf(bob)) }), token);
    const missing = await postRpc(procedure, JSON.stringify({ json: lookup(missingTarget()) }), token);
    expect(theirs.status).toBe(404);
    expect(missing.text).toBe(theirs.text);
    const theirsApi = await postApi(procedure, JSON.stringify(lookup(targetOf(bob))), token);
    const missingApi = await postApi(procedure, JSON.stringify(lookup(missingTarget())), token);
    expect(theirsApi.status).toBe(404);
    expect(missingApi.text).toBe(theirsApi.text);
  });
});

describe("hostile tenant: idempotency keys cannot collide across triggers", () => {
  it("an API key shaped like a webhook's does not return the webhook's execution", async () => {
    const key = `collide-${randomUUID()}`;
    const hook = await fetch(`${weft.url}/triggers/webhooks/${mallory.projectId}/orders`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ order: 1 }),
    });
    expect(hook.status).toBe(202);
    const hooked = { executionId: ((await hook.json()) as { executionIds: string[] }).executionIds[0] };
    const forged = await callRpc(
      weft.url,
      "workflows.run",
      { projectId: mallory.projectId, workflow: "echo", input: {}, idempotencyKey: `webhook:orders:${key}` },
      { token: mallory.tenant.credential },
    );
    expect(forged.status).toBe(200);
    expect((forged.json as { executionId: string }).executionId).not.toBe(hooked.executionId);
    const plain = await callRpc(
      weft.url,
      "workflows.run",
      { projectId: mallory.projectId, workflow: "echo", input: {}, idempotencyKey: key },
      { token: mallory.tenant.credential },
    );
    expect((plain.json as { executionId: string }).executionId).not.toBe(hooked.executionId);
    const again = await fetch(`${weft.url}/triggers/webhooks/${mallory.projectId}/orders`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ order: 1 }),
    });
    expect(((await again.json()) as { executionIds: string[] }).executionIds).toEqual([hooked.executionId]);
  });

  it("the same API key names one execution per workflow", async () => {
    const key = `per-workflow-${randomUUID()}`;
    const run = () =>
      callRpc(
        weft.url,
        "workflows.run",
        { projectId: mallory.projectId, workflow: "echo", input: {}, idempotencyKey: key },
        { token: mallory.tenant.credential },
      );
    const first = (await run()).json as { executionId: string };
    const second = (await run()).json as { executionId: string };
    expect(second.executionId).toBe(first.executionId);
    const rows = await weft.database.db.select().from(idempotencyKeys).where(sql`${idempotencyKeys.key} = ${key}`);
    expect(rows).toEqual([expect.objectContaining({ scope: "api:echo", key, executionId: first.executionId })]);
  });
});

describe("hostile tenant: errors that leak nothing", () => {
  it("logs a database error with its SQLSTATE and request id, never its parameters", async () => {
    const secret = `secret-${randomUUID()}`;
    await weft.database.db.execute(sql`alter table projects rename to projects_gone`);
    try {
      const result = await callRpc(
        weft.url,
        "projects.create",
        { name: secret },
        { token: mallory.tenant.credential, headers: { "x-request-id": "req-leak-1" } },
      );
      expect(result.status).toBe(500);
    } finally {
      await weft.database.db.execute(sql`alter table projects_gone rename to projects`);
    }
    const logged = logLines.filter((line) => line.requestId === "req-leak-1");
    expect(logged).toEqual([
      expect.objectContaining({ level: 50, err: expect.objectContaining({ sqlState: "42P01" }) }),
    ]);
    expect(JSON.stringify(logLines)).not.toContain(secret);
    expect(JSON.stringify(logged)).not.toContain("params");
  });

  it("answers an RPC 500 with the request id and nothing else", async () => {
    await weft.database.db.execute(sql`alter table deployments rename to deployments_gone`);
    try {
      const rpc = await callRpc(
        weft.url,
        "deployments.list",
        { projectId: mallory.projectId },
        { token: mallory.tenant.credential, headers: { "x-request-id": "req-500-rpc" } },
      );
      expect(rpc.status).toBe(500);
      expect(rpc.json).toEqual(internalErrorBody("req-500-rpc"));
      const api = await fetch(`${weft.url}/api/deployments/list`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${mallory.tenant.credential}`,
          "x-request-id": "req-500-api",
        },
        body: JSON.stringify({ projectId: mallory.projectId }),
      });
      expect(api.status).toBe(500);
      expect(await api.json()).toEqual(internalErrorBody("req-500-api"));
    } finally {
      await weft.database.db.execute(sql`alter table deployments_gone rename to deployments`);
    }
  });

  it("answers an ingress 500 with the request id and nothing else", async () => {
    await weft.database.db.execute(sql`alter table executions rename to executions_gone`);
    try {
      const response = await fetch(`${weft.url}/triggers/webhooks/${mallory.projectId}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": "req-500-ingress" },
        body: JSON.stringify({ secret: "submitted-value" }),
      });
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({
        error: "internal_error",
        message: "Something went wrong; quote request id req-500-ingress.",
      });
    } finally {
      await weft.database.db.execute(sql`alter table executions_gone rename to executions`);
    }
    expect(JSON.stringify(logLines)).not.toContain("submitted-value");
  });

  it("answers an authorization server 500 with the request id and nothing else", async () => {
    await weft.database.db.execute(sql`alter table accounts rename to accounts_gone`);
    try {
      const response = await postJson(
        `${weft.url}/agent/auth`,
        idJagRegistration(await idp.sign(idJagClaims({ email: "carol@example.com" }))),
        { "x-request-id": "req-500-auth" },
      );
      expect(response.status).toBe(500);
      expect(response.body).toEqual({
        error: "server_error",
        error_description: "Something went wrong; retry later, quoting request id req-500-auth.",
      });
    } finally {
      await weft.database.db.execute(sql`alter table accounts_gone rename to accounts`);
    }
    expect(JSON.stringify(logLines)).not.toContain("carol@example.com");
  });
});

function idJagClaims(overrides: Record<string, unknown>): Record<string, unknown> {
  return idJagClaimsFor(idp, weft.url, weft.clock.now(), { sub: `user-${randomUUID()}` }, overrides);
}

describe("hostile tenant: ID-JAG email claims", () => {
  it.each([
    ["an empty email", ""],
    ["an email with CRLF", "eve@example.com\r\nBcc: victim@example.com"],
    ["something that is not an address", "not an address"],
  ])("refuses %s with missing_verified_email and creates no account", async (_what, email) => {
    const before = await weft.database.db.select({ id: accounts.id }).from(accounts);
    const response = await postJson(
      `${weft.url}/agent/auth`,
      idJagRegistration(await idp.sign(idJagClaims({ email }))),
    );
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: "missing_verified_email" });
    expect(await weft.database.db.select({ id: accounts.id }).from(accounts)).toEqual(before);
  });

  it.each([
    ["jti", "\u0000"],
    ["sub", "user-\ud800"],
  ])("refuses a %s claim PostgreSQL cannot store with invalid_assertion", async (claim, value) => {
    const before = await weft.database.db.select({ id: accounts.id }).from(accounts);
    const response = await postJson(
      `${weft.url}/agent/auth`,
      idJagRegistration(await idp.sign(idJagClaims({ email: "frank@example.com", [claim]: value }))),
    );
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: "invalid_assertion" });
    expect(await weft.database.db.select({ id: accounts.id }).from(accounts)).toEqual(before);
  });

  it("still registers a well-formed address", async () => {
    const response = await postJson(
      `${weft.url}/agent/auth`,
      idJagRegistration(await idp.sign(idJagClaims({ email: "dora@example.com" }))),
    );
    expect(response.status).toBe(201);
  });
});
