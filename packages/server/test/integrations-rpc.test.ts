import {
  callRpc,
  capturedLogger,
  createTeamWorkspace,
  createTestIdentity,
  joinWorkspace,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, integrations } from "../src/db/schema/index.ts";
import { openSecrets } from "../src/integrations/sealed-secrets.ts";
import { integrationKeyring, undecryptableSecretMessage } from "../src/integrations/secret-sealing.ts";
import { updateIntegration } from "../src/integrations/update-integration.ts";

const secretKey = "5a".repeat(32);
/** Every secret value the tests store: none may appear in an answer, an audit event or a log line. */
const secretValues = {
  token: "sk_live_0123456789abcdefWXYZ",
  header: "Bearer hdr-secret-7f3e9a1c",
  password: "smtp-pass-9Q8w7E6r",
  rotated: "sk_live_rotated_value_4242",
  short: "%&~",
};

const captured = capturedLogger("debug");
let weft: TestPlatform;
let owner: TestIdentity;
let stranger: TestIdentity;
let projectId: string;

interface IntegrationJson {
  name: string;
  kind: string;
  config: Record<string, unknown>;
  secrets: Record<string, { hint: string; changedAt: string; changedBy: string | null }>;
}

async function call(procedure: string, input: unknown, who: TestIdentity = owner) {
  return callRpc(weft.url, procedure, input, { token: who.credential });
}

function expectNoSecretIn(text: string): void {
  for (const value of Object.values(secretValues)) expect(text).not.toContain(value);
}

function issuePaths(json: unknown): string[] {
  return ((json as { data?: { issues?: { path: (string | number)[] }[] } }).data?.issues ?? []).map((issue) =>
    issue.path.join("."),
  );
}

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_SECRET_KEY: secretKey }, logger: captured.logger });
  owner = await createTestIdentity(weft, "owner@example.com");
  stranger = await createTestIdentity(weft, "stranger@example.com");
  projectId = ((await call("projects.create", { name: "Integrations" })).json as { id: string }).id;
});

afterAll(async () => {
  await weft.stop();
  expectNoSecretIn(captured.lines.map((line) => JSON.stringify(line)).join("\n"));
});

describe("integrations through RPC", () => {
  it("creates each kind and answers secrets only as masked hints", async () => {
    const secret = await call("integrations.create", {
      projectId,
      name: "stripe",
      kind: "secret",
      secrets: { value: secretValues.token },
    });
    expect(secret.status, secret.text).toBe(200);
    expect(secret.json).toMatchObject({
      name: "stripe",
      kind: "secret",
      config: {},
      secrets: { value: { hint: "••••WXYZ", changedBy: "owner@example.com" } },
    });
    const http = await call("integrations.create", {
      projectId,
      name: "crm-api",
      kind: "http",
      config: { baseUrl: "https://crm.example.com/v2" },
      secrets: { Authorization: secretValues.header, "X-Short": secretValues.short },
    });
    expect(http.status, http.text).toBe(200);
    expect((http.json as IntegrationJson).secrets).toMatchObject({
      Authorization: { hint: "••••9a1c" },
      "X-Short": { hint: "••••" },
    });
    const smtp = await call("integrations.create", {
      projectId,
      name: "mail",
      kind: "smtp",
      config: { host: "smtp.example.com", port: 587, user: "robot" },
      secrets: { password: secretValues.password },
    });
    expect(smtp.status, smtp.text).toBe(200);
    expect(smtp.json).toMatchObject({ config: { host: "smtp.example.com", port: 587, user: "robot" } });

    const listed = await call("integrations.list", { projectId });
    expect(listed.status).toBe(200);
    expect((listed.json as { results: IntegrationJson[] }).results.map((result) => result.name)).toEqual([
      "crm-api",
      "mail",
      "stripe",
    ]);
    const got = await call("integrations.get", { projectId, name: "mail" });
    expect(got.json).toMatchObject({ kind: "smtp", secrets: { password: { hint: "••••7E6r" } } });
    for (const answer of [secret, http, smtp, listed, got]) expectNoSecretIn(answer.text);
  });

  it("stores each value sealed, with a fresh nonce even for equal values", async () => {
    for (const name of ["twin-a", "twin-b"]) {
      await call("integrations.create", { projectId, name, kind: "secret", secrets: { value: secretValues.token } });
    }
    const rows = await weft.database.db.select().from(integrations).where(eq(integrations.projectId, projectId));
    expectNoSecretIn(JSON.stringify(rows));
    const sealed = rows.filter((row) => row.name.startsWith("twin-")).map((row) => row.secrets.value?.sealed);
    expect(new Set(sealed).size).toBe(2);
  });

  it("keeps a secret left out of an update, removes one given as null, and re-hints a changed one", async () => {
    const before = (await call("integrations.get", { projectId, name: "crm-api" })).json as IntegrationJson;
    weft.clock.advance(60_000);
    const updated = await call("integrations.update", {
      projectId,
      name: "crm-api",
      config: { baseUrl: "https://crm.example.com/v3" },
      secrets: { "X-Short": null, "X-Tenant": "tenant-0042" },
    });
    expect(updated.status, updated.text).toBe(200);
    const after = updated.json as IntegrationJson;
    expect(after.config).toEqual({ baseUrl: "https://crm.example.com/v3" });
    expect(Object.keys(after.secrets).sort()).toEqual(["Authorization", "X-Tenant"]);
    expect(after.secrets.Authorization).toEqual(before.secrets.Authorization);
    expect(after.secrets["X-Tenant"]?.changedAt).toBe(weft.clock.now().toISOString());

    const [row] = await weft.database.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.projectId, projectId), eq(integrations.name, "crm-api")));
    if (row === undefined) throw new Error("no row");
    expect(openSecrets(integrationKeyring({ secretKey: Buffer.from(secretKey, "hex") }), row)).toEqual({
      Authorization: secretValues.header,
      "X-Tenant": "tenant-0042",
    });
  });

  it("writes an audit event per change naming only names and kinds", async () => {
    await call("integrations.create", { projectId, name: "doomed", kind: "secret", secrets: { value: "doomed-1234" } });
    await call("integrations.update", { projectId, name: "doomed", secrets: { value: secretValues.rotated } });
    const deleted = await call("integrations.delete", { projectId, name: "doomed" });
    expect(deleted.json).toEqual({ name: "doomed", deleted: true });
    expect((await call("integrations.get", { projectId, name: "doomed" })).status).toBe(404);
    const events = await weft.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.targetId, `${projectId}/doomed`))
      .orderBy(auditEvents.id);
    expect(events.map((event) => event.action)).toEqual([
      "integration.created",
      "integration.updated",
      "integration.deleted",
    ]);
    for (const event of events) {
      expect(event.actorAccountId).toBe(owner.accountId);
      expect(event.data).toMatchObject({ projectId, name: "doomed", kind: "secret" });
    }
    const allEvents = JSON.stringify(await weft.database.db.select().from(auditEvents));
    expectNoSecretIn(allEvents);
    expect(allEvents).not.toContain("doomed-1234");
  });

  it("refuses bad input with BAD_REQUEST and issues, changing nothing", async () => {
    const rowsBefore = await weft.database.db.select().from(integrations);
    const auditBefore = await weft.database.db.select({ id: auditEvents.id }).from(auditEvents);
    const refusals: { input: Record<string, unknown>; path: string; procedure?: string }[] = [
      { input: { projectId, name: "x", kind: "ftp", secrets: { value: "v" } }, path: "kind" },
      { input: { projectId, name: "x", kind: "secret", secrets: {} }, path: "secrets.value" },
      {
        input: { projectId, name: "x", kind: "smtp", config: { host: "h", user: "u" }, secrets: { password: "p" } },
        path: "config.port",
      },
      { input: { projectId, name: "x", kind: "http", config: {} }, path: "config.baseUrl" },
      { input: { projectId, name: "x", kind: "http", config: { baseUrl: "ftp://h" } }, path: "config.baseUrl" },
      { input: { projectId, name: "Not OK", kind: "secret", secrets: { value: "v" } }, path: "name" },
      { input: { projectId, name: "a".repeat(65), kind: "secret", secrets: { value: "v" } }, path: "name" },
      { input: { projectId, name: "stripe", kind: "secret", secrets: { value: "v" } }, path: "name" },
      {
        input: { projectId, name: "huge", kind: "secret", secrets: { value: "x".repeat(64 * 1024 + 1) } },
        path: "secrets.value",
      },
      {
        input: { projectId, name: "crm-api", secrets: { "not a header": "v" } },
        path: "secrets.not a header",
        procedure: "integrations.update",
      },
      {
        input: { projectId, name: "mail", secrets: { password: null } },
        path: "secrets.password",
        procedure: "integrations.update",
      },
      {
        input: { projectId, name: "mail", secrets: { user: "x" } },
        path: "secrets.user",
        procedure: "integrations.update",
      },
      {
        input: { projectId, name: "mail", config: { port: 0 } },
        path: "config.port",
        procedure: "integrations.update",
      },
      {
        input: { projectId, name: "stripe", secrets: { value: "y".repeat(64 * 1024 + 1) } },
        path: "secrets.value",
        procedure: "integrations.update",
      },
    ];
    for (const refusal of refusals) {
      const result = await call(refusal.procedure ?? "integrations.create", refusal.input);
      expect(result.status, `${JSON.stringify(refusal.input).slice(0, 200)} → ${result.text}`).toBe(400);
      expect(result.json).toMatchObject({ code: "BAD_REQUEST" });
      expect(issuePaths(result.json)).toContain(refusal.path);
      expect(result.text).not.toContain("xxxxxxxx");
    }
    expect(await weft.database.db.select().from(integrations)).toEqual(rowsBefore);
    expect(await weft.database.db.select({ id: auditEvents.id }).from(auditEvents)).toEqual(auditBefore);
  });

  it("answers NOT_FOUND for a project of another workspace and for an unknown integration", async () => {
    for (const [procedure, input] of [
      ["integrations.list", { projectId }],
      ["integrations.get", { projectId, name: "stripe" }],
      ["integrations.create", { projectId, name: "mine", kind: "secret", secrets: { value: "stolen-value" } }],
      ["integrations.update", { projectId, name: "stripe", secrets: { value: "stolen-value" } }],
      ["integrations.delete", { projectId, name: "stripe" }],
    ] as const) {
      const result = await call(procedure, input, stranger);
      expect(result.status).toBe(404);
      expect(result.json).toMatchObject({ code: "NOT_FOUND" });
    }
    for (const procedure of ["integrations.get", "integrations.update", "integrations.delete"]) {
      const result = await call(procedure, { projectId, name: "nothing-here" });
      expect(result.status).toBe(404);
      expect(result.json).toMatchObject({
        code: "NOT_FOUND",
        message: 'The project has no integration "nothing-here".',
      });
    }
  });

  it("lets a viewer read hints but not change anything", async () => {
    const workspaceId = await createTeamWorkspace(weft, owner, "Team");
    const viewer = await createTestIdentity(weft, "viewer@example.com");
    await joinWorkspace(weft, { workspaceId, by: owner, member: viewer, role: "viewer" });
    const teamProject = ((await call("projects.create", { name: "Team's", workspaceId })).json as { id: string }).id;
    await call("integrations.create", {
      projectId: teamProject,
      name: "key",
      kind: "secret",
      secrets: { value: secretValues.token },
    });
    expect((await call("integrations.list", { projectId: teamProject }, viewer)).status).toBe(200);
    const refused = await call(
      "integrations.update",
      { projectId: teamProject, name: "key", secrets: { value: "viewer-was-here" } },
      viewer,
    );
    expect(refused.status).toBe(403);
  });

  it("does not open a sealed value copied to another project", async () => {
    const otherProject = ((await call("projects.create", { name: "Elsewhere" })).json as { id: string }).id;
    const [row] = await weft.database.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.projectId, projectId), eq(integrations.name, "stripe")));
    if (row === undefined) throw new Error("no row");
    await weft.database.db.insert(integrations).values({ ...row, projectId: otherProject });
    const keyring = integrationKeyring({ secretKey: Buffer.from(secretKey, "hex") });
    expect(openSecrets(keyring, row)).toEqual({ value: secretValues.token });
    expect(openSecrets(keyring, { ...row, projectId: otherProject })).toBeUndefined();
    expect(openSecrets(keyring, { ...row, name: "twin-a" })).toBeUndefined();
    // Its hint still reads, but changing it cannot keep what does not open.
    const moved = await call("integrations.get", { projectId: otherProject, name: "stripe" });
    expect(moved.json).toMatchObject({ secrets: { value: { hint: "••••WXYZ" } } });
  });

  it("fails closed when the key that sealed a row is gone, overwriting nothing", async () => {
    const [before] = await weft.database.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.projectId, projectId), eq(integrations.name, "crm-api")));
    const otherKeyring = integrationKeyring({ secretKey: Buffer.alloc(32, 7) });
    const result = await updateIntegration(
      weft.database.db,
      { clock: weft.clock, ids: weft.platform.context.ids, keyring: otherKeyring },
      {
        projectId,
        workspaceId: owner.personalWorkspaceId,
        actor: { accountId: owner.accountId },
        change: { name: "crm-api", secrets: { "X-Tenant": "tenant-0043" } },
      },
    );
    expect(result).toEqual({ ok: false, failure: { kind: "conflict", message: undecryptableSecretMessage } });
    const [after] = await weft.database.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.projectId, projectId), eq(integrations.name, "crm-api")));
    expect(after).toEqual(before);
  });
});
