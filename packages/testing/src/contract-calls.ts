import { manifestSchema, type ProcedureName } from "@weft/contract";
import fc from "fast-check";
import { contractProcedures } from "./contract-procedures.ts";
import { hostileString } from "./hostile-input.ts";
import { arbitraryOfJsonSchema, type JsonSchema, type SchemaArbitraryOptions } from "./json-schema-arbitrary.ts";
import { callRpc } from "./rpc-calls.ts";
import { registerEmailAgent } from "./test-agents.ts";
import { createTestIdentity, type TestIdentity } from "./test-identities.ts";
import type { TestPlatform } from "./test-platform.ts";
import { storeTestWaitToken } from "./test-wait-tokens.ts";
import { createTeamWorkspace, joinWorkspace } from "./test-workspaces.ts";

/** What one workspace holds, named by id, for a call to aim at. */
export interface CallTarget {
  workspaceId: string;
  /** The workspace's owner, who made everything in it. */
  ownerAccountId: string;
  /** Whoever makes the call. */
  callerAccountId: string;
  projectId: string;
  deploymentId: string;
  executionId: string;
  traceId: string;
  invitationId: string;
  /** A federation policy of the project. */
  policyId: string;
  /** An agent registered by the owner. */
  agentId: string;
  tokenId: string;
}

/**
 * One call of a procedure, aimed at a workspace's things, as every probe makes it (the scope it
 * needs is the procedure's metadata in the contract; a revoked or expired credential gets
 * UNAUTHORIZED from every call):
 * - `asOutsider`: a user of another workspace is `refused` (404, exactly as if nothing existed),
 *   `sees-nothing` (200, with nothing of the workspace), or `creates-own` (200, making something of
 *   the caller's only);
 * - `asViewer`: a viewer of the workspace `reads` (200), is `refused` (403: sees the target but may
 *   not do this), finds it `hidden` (404: another member's agent) or acts on its `own-account` (200).
 */
export interface ProbeCall {
  input: (target: CallTarget) => Record<string, unknown>;
  asOutsider: "refused" | "sees-nothing" | "creates-own";
  asViewer: "reads" | "refused" | "hidden" | "own-account";
}

/** What the fuzz run's fixture offers a procedure's `FuzzHints`. */
export interface FuzzTarget {
  /** Every id and name of the fixture: generated inputs draw on them besides random values. */
  known: readonly string[];
  projectId: string;
  /** A project of its own for `projects.delete`, which would otherwise delete `projectId` under every later surface. */
  doomedProjectId: string;
  executionId: string;
  /** An execution that sleeps for a week, for `workflows.cancelExecution` to reach: the other has finished. */
  heldExecutionId: string;
  /** The names the fixture's deployment gives its workflows, forms, webhooks and schedule. */
  deployedNames: readonly string[];
  /** Issuers a federation policy accepts. */
  issuers: readonly string[];
}

/** How the fuzz run draws a procedure's inputs beyond what its schema says. */
export interface FuzzHints {
  /** The ids its inputs draw, for a procedure that must not reach the fixture's own. */
  known?: (target: FuzzTarget) => readonly string[];
  /** Arbitraries for fields the schema leaves too open to ever meet the fixture. */
  overrides?: (target: FuzzTarget) => SchemaArbitraryOptions["overrides"];
}

/** Everything the probes over the contract need of one procedure. */
export interface ContractCall extends ProbeCall {
  /** More calls of the same procedure, probed like the first, each named `<procedure>#<variant>`. */
  variants?: Record<string, ProbeCall>;
  /**
   * Fields of `input` (or fields it may add) that, holding what PostgreSQL cannot store (a NUL, a
   * lone surrogate) or JSON nested 20 000 deep, get BAD_REQUEST naming them and change nothing.
   */
  hostileFields: readonly [string, ...string[]];
  /**
   * Inputs pairing the caller's own project or workspace with another workspace's thing, by name:
   * NOT_FOUND byte for byte as if the thing did not exist.
   */
  crossed?: Record<string, (theirs: CallTarget, own: CallTarget) => Record<string, unknown>>;
  fuzz?: FuzzHints;
}

/**
 * One entry per procedure of the contract: the compiler names a procedure without one. Every probe
 * over the contract reads this table: tenant isolation, the viewer role, credentials lacking a
 * scope, revoked and expired, hostile input and the fuzz run.
 */
export const contractCalls: Record<ProcedureName, ContractCall> = {
  "projects.list": {
    input: () => ({}),
    asOutsider: "sees-nothing",
    asViewer: "reads",
    variants: {
      workspace: { input: ({ workspaceId }) => ({ workspaceId }), asOutsider: "refused", asViewer: "reads" },
    },
    hostileFields: ["workspaceId"],
  },
  "projects.get": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["projectId"],
  },
  "projects.create": {
    input: ({ workspaceId }) => ({ workspaceId, name: "intruder" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["name"],
  },
  "projects.update": {
    input: ({ projectId }) => ({ projectId, name: "hijacked" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["name"],
  },
  "projects.delete": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["projectId"],
    fuzz: {
      known: ({ known, projectId, doomedProjectId }) => known.map((id) => (id === projectId ? doomedProjectId : id)),
    },
  },
  "deployments.create": {
    input: ({ projectId }) => ({ projectId, manifest: { version: 1, workflows: [{ name: "evil" }] }, bundle: "x" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["manifest", "bundle"],
    fuzz: {
      overrides: () => ({
        manifest: fc.oneof(
          arbitraryOfJsonSchema(manifestSchema.toJSONSchema({ io: "input", unrepresentable: "any" }) as JsonSchema),
          fc.jsonValue({ maxDepth: 4 }),
        ),
        bundle: fc.constantFrom("export default {};", "", "throw new Error()", "export default { workflows: 1 };"),
      }),
    },
  },
  "deployments.activate": {
    input: ({ projectId, deploymentId }) => ({ projectId, deploymentId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["deploymentId"],
    crossed: { "own-project": ({ deploymentId }, own) => ({ projectId: own.projectId, deploymentId }) },
  },
  "deployments.list": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["projectId"],
  },
  "deployments.get": {
    input: ({ deploymentId }) => ({ deploymentId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["deploymentId"],
  },
  "workflows.list": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["projectId"],
  },
  "workflows.get": {
    input: ({ projectId }) => ({ projectId, workflow: "echo" }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["workflow"],
  },
  "workflows.run": {
    input: ({ projectId }) => ({ projectId, workflow: "echo", input: {} }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["input", "idempotencyKey"],
  },
  "workflows.runMany": {
    input: ({ projectId }) => ({ projectId, workflow: "echo", inputs: [{}, {}] }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["inputs"],
  },
  "workflows.listExecutions": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["createdFrom"],
  },
  "workflows.getExecution": {
    input: ({ executionId }) => ({ executionId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["executionId"],
  },
  "workflows.cancelExecution": {
    input: ({ executionId }) => ({ executionId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["executionId"],
    fuzz: {
      known: ({ known, executionId, heldExecutionId }) =>
        known.map((id) => (id === executionId ? heldExecutionId : id)),
    },
  },
  "workflows.completeToken": {
    input: ({ tokenId }) => ({ tokenId, data: { approved: true } }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["data"],
  },
  "workflows.answerToken": {
    input: ({ executionId }) => ({ executionId, name: "approval", decision: "approve" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["name"],
  },
  "workflows.rerunExecution": {
    input: ({ executionId }) => ({ executionId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["executionId"],
  },
  "workflows.listEvents": {
    input: ({ executionId }) => ({ executionId }),
    asOutsider: "refused",
    asViewer: "reads",
    variants: {
      project: { input: ({ projectId }) => ({ projectId }), asOutsider: "refused", asViewer: "reads" },
    },
    hostileFields: ["cursor", "projectId"],
  },
  "traces.list": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["cursor"],
  },
  "traces.get": {
    input: ({ projectId, traceId }) => ({ projectId, traceId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["traceId"],
    crossed: { "own-project": ({ traceId }, own) => ({ projectId: own.projectId, traceId }) },
  },
  "events.send": {
    input: ({ projectId }) => ({ projectId, name: "order.created", data: { orderId: "o-1" } }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["name", "data", "id"],
  },
  "events.list": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["cursor", "name"],
  },
  "resources.list": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["kind"],
  },
  "resources.get": {
    input: ({ projectId }) => ({ projectId, kind: "workflow", name: "echo" }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["name"],
    fuzz: {
      // The name is any string to the schema: without the deployed names the lookup would never match.
      overrides: ({ deployedNames }) => ({
        name: fc.oneof(fc.constantFrom(...deployedNames), fc.string({ minLength: 1 })),
      }),
    },
  },
  "agents.list": {
    input: () => ({}),
    asOutsider: "sees-nothing",
    asViewer: "reads",
    variants: {
      workspace: { input: ({ workspaceId }) => ({ workspaceId }), asOutsider: "refused", asViewer: "refused" },
    },
    hostileFields: ["status"],
  },
  "agents.get": {
    input: ({ agentId }) => ({ agentId }),
    asOutsider: "refused",
    asViewer: "hidden",
    hostileFields: ["agentId"],
  },
  "agents.revoke": {
    input: ({ agentId }) => ({ agentId }),
    asOutsider: "refused",
    asViewer: "hidden",
    hostileFields: ["agentId"],
  },
  "agents.revokeAll": {
    input: ({ workspaceId }) => ({ workspaceId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["workspaceId"],
  },
  "access.createWorkspace": {
    input: () => ({ name: "Caller's own" }),
    asOutsider: "creates-own",
    asViewer: "own-account",
    hostileFields: ["name"],
  },
  "access.listWorkspaces": {
    input: () => ({}),
    asOutsider: "sees-nothing",
    asViewer: "reads",
    hostileFields: ["pagination"],
  },
  "access.renameWorkspace": {
    input: ({ workspaceId }) => ({ workspaceId, name: "hijacked" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["name"],
  },
  "access.listMembers": {
    input: ({ workspaceId }) => ({ workspaceId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["workspaceId"],
  },
  "access.invite": {
    input: ({ workspaceId }) => ({ workspaceId, email: "mallory2@example.com", role: "admin" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["email"],
  },
  "access.listInvitations": {
    input: ({ workspaceId }) => ({ workspaceId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["pagination"],
  },
  "access.revokeInvitation": {
    input: ({ invitationId }) => ({ invitationId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["invitationId"],
  },
  "access.updateRole": {
    input: ({ workspaceId, ownerAccountId }) => ({ workspaceId, accountId: ownerAccountId, role: "viewer" }),
    asOutsider: "refused",
    asViewer: "refused",
    variants: {
      self: {
        input: ({ workspaceId, callerAccountId }) => ({ workspaceId, accountId: callerAccountId, role: "member" }),
        asOutsider: "refused",
        asViewer: "refused",
      },
    },
    hostileFields: ["role"],
  },
  "access.removeMember": {
    input: ({ workspaceId, ownerAccountId }) => ({ workspaceId, accountId: ownerAccountId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["accountId"],
    crossed: {
      "own-workspace": ({ ownerAccountId }, own) => ({ workspaceId: own.workspaceId, accountId: ownerAccountId }),
    },
  },
  "access.auditLog": {
    input: ({ workspaceId }) => ({ workspaceId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["filter"],
  },
  "access.createFederationPolicy": {
    input: ({ workspaceId, projectId }) => ({
      workspaceId,
      projectId,
      issuer: "https://token.actions.githubusercontent.com",
      audience: "weft",
      subject: "repo:mallory/*",
      scopes: ["deployments:write"],
    }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["subject"],
    fuzz: {
      // The issuer is any string to the JSON Schema (its URL rules are a refinement).
      overrides: ({ issuers }) => ({ issuer: fc.oneof(fc.constantFrom(...issuers), fc.webUrl(), hostileString) }),
    },
  },
  "access.listFederationPolicies": {
    input: ({ workspaceId }) => ({ workspaceId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["projectId"],
  },
  "access.deleteFederationPolicy": {
    input: ({ policyId }) => ({ policyId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["policyId"],
  },
  "schedules.list": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["projectId"],
  },
  "schedules.pause": {
    input: ({ projectId }) => ({ projectId, name: "nightly" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["name"],
  },
  "schedules.resume": {
    input: ({ projectId }) => ({ projectId, name: "nightly" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["name"],
  },
  "schedules.runNow": {
    input: ({ projectId }) => ({ projectId, name: "nightly" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["name"],
  },
  "integrations.list": {
    input: ({ projectId }) => ({ projectId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["pagination"],
  },
  "integrations.get": {
    input: ({ projectId }) => ({ projectId, name: "stripe" }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["name"],
  },
  "integrations.create": {
    input: ({ projectId }) => ({ projectId, name: "intruder", kind: "secret", secrets: { value: "planted-value" } }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["secrets"],
  },
  "integrations.update": {
    input: ({ projectId }) => ({ projectId, name: "stripe", secrets: { value: "planted-value" } }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["config"],
  },
  "integrations.delete": {
    input: ({ projectId }) => ({ projectId, name: "stripe" }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["name"],
  },
  "billing.getPlan": {
    input: ({ workspaceId }) => ({ workspaceId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["workspaceId"],
  },
  "billing.getUsage": {
    input: ({ workspaceId }) => ({
      workspaceId,
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-02-01T00:00:00.000Z",
      groupBy: "day",
    }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["from"],
  },
  "billing.listStatements": {
    input: ({ workspaceId }) => ({ workspaceId }),
    asOutsider: "refused",
    asViewer: "refused",
    hostileFields: ["cursor"],
  },
  "studio.overview": {
    input: ({ workspaceId }) => ({ workspaceId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["workspaceId"],
  },
  "studio.approvals": {
    input: ({ workspaceId }) => ({ workspaceId }),
    asOutsider: "refused",
    asViewer: "reads",
    hostileFields: ["workspaceId"],
  },
  "studio.executionTimeline": {
    input: ({ projectId }) => ({
      projectId,
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-01-02T00:00:00.000Z",
      bucket: "hour",
    }),
    asOutsider: "refused",
    asViewer: "reads",
    variants: {
      workspace: {
        input: ({ workspaceId }) => ({
          workspaceId,
          from: "2026-01-01T00:00:00.000Z",
          to: "2026-01-02T00:00:00.000Z",
          bucket: "hour",
        }),
        asOutsider: "refused",
        asViewer: "reads",
      },
    },
    hostileFields: ["to"],
  },
};

/** Every call of the table, its variants included, by name: `projects.list`, `projects.list#workspace`. */
export function probeCalls(): [string, ProbeCall][] {
  return Object.entries(contractCalls).flatMap(([name, call]): [string, ProbeCall][] => [
    [name, call],
    ...Object.entries(call.variants ?? {}).map(([variant, probe]): [string, ProbeCall] => [
      `${name}#${variant}`,
      probe,
    ]),
  ]);
}

/** The procedure a call's name names: `access.updateRole#self` → `access.updateRole`. */
export function procedureOf(callName: string): ProcedureName {
  return (callName.split("#")[0] ?? callName) as ProcedureName;
}

/**
 * Procedures of the contract that `contractCalls` has no entry for. The compiler already names
 * them; this catches a table bent past it (a cast) at run time.
 */
export function proceduresWithoutCall(): string[] {
  return contractProcedures().filter((name) => contractCalls[name] === undefined);
}

/** A team workspace with something of everything in it, made over the API by its owner, and a viewer of it. */
export interface ContractFixture {
  owner: TestIdentity;
  viewer: TestIdentity;
  /** Everything but `callerAccountId`, which each probe fills in. */
  target: Omit<CallTarget, "callerAccountId">;
  /** Names that only the workspace's members may see. */
  privateNames: string[];
}

/** The value of the fixture's integration: no answer to anyone but its members may carry it, nor its hint. */
const integrationSecret = "sk_fixture_0123456789";

export async function createContractFixture(weft: TestPlatform): Promise<ContractFixture> {
  const owner = await createTestIdentity(weft, "owner@example.com");
  const viewer = await createTestIdentity(weft, "viewer@example.com");
  const workspaceId = await createTeamWorkspace(weft, owner, "Secret team");
  await joinWorkspace(weft, { workspaceId, by: owner, member: viewer, role: "viewer" });
  const token = { token: owner.credential };
  const created = await callRpc(weft.url, "projects.create", { name: "Secret plans", workspaceId }, token);
  const projectId = (created.json as { id: string }).id;
  const deployed = await callRpc(
    weft.url,
    "deployments.create",
    {
      projectId,
      manifest: {
        version: 1,
        workflows: [{ name: "echo" }],
        schedules: [{ name: "nightly", workflow: "echo", cron: "0 0 * * *" }],
      },
      bundle: 'export default { workflows: [{ name: "echo", run: async (input) => input }] };',
    },
    token,
  );
  const ran = await callRpc(weft.url, "workflows.run", { projectId, workflow: "echo", input: { secret: 1 } }, token);
  const executionId = (ran.json as { executionId: string }).executionId;
  const execution = await callRpc(weft.url, "workflows.getExecution", { executionId }, token);
  const invited = await callRpc(
    weft.url,
    "access.invite",
    { workspaceId, email: "carol@example.com", role: "member" },
    token,
  );
  const agent = await registerEmailAgent(weft, owner.email);
  const tokenId = await storeTestWaitToken(weft.database.db, { executionId, projectId, now: weft.clock.now() });
  await callRpc(
    weft.url,
    "integrations.create",
    { projectId, name: "stripe", kind: "secret", secrets: { value: integrationSecret } },
    token,
  );
  const policy = await callRpc(
    weft.url,
    "access.createFederationPolicy",
    {
      workspaceId,
      projectId,
      issuer: "https://token.actions.githubusercontent.com",
      audience: "weft",
      subject: "repo:team/secret-plans:*",
      scopes: ["projects:read"],
    },
    token,
  );
  const target = {
    workspaceId,
    ownerAccountId: owner.accountId,
    projectId,
    deploymentId: (deployed.json as { id: string }).id,
    executionId,
    traceId: (execution.json as { traceId: string }).traceId,
    invitationId: (invited.json as { id: string }).id,
    agentId: agent.agentId,
    tokenId,
    policyId: (policy.json as { id: string }).id,
  };
  const privateNames = [
    ...Object.values(target),
    owner.personalWorkspaceId,
    owner.email,
    viewer.email,
    "carol@example.com",
    "Secret plans",
    "Secret team",
    integrationSecret,
    // Its masked hint's characters.
    integrationSecret.slice(-4),
  ];
  return { owner, viewer, target, privateNames };
}
