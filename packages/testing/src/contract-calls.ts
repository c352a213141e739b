import type { Scope } from "@weft/server/internals";
import { contractProcedures } from "./contract-procedures.ts";
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
 * How one call of a procedure, aimed at a workspace's things, is described once for every probe:
 * - `scope`: the one scope the procedure needs; a credential lacking it is refused with FORBIDDEN
 *   and `data.missingScope`, whoever holds it;
 * - `asOutsider`: a user of another workspace is `refused` (404, exactly as if nothing existed),
 *   `sees-nothing` (200, with nothing of the workspace), or `creates-own` (200, making something of
 *   the caller's only);
 * - `asViewer`: a viewer of the workspace `reads` (200), is `refused` (403: sees the target but may
 *   not do this), finds it `hidden` (404: another member's agent) or acts on its `own-account` (200).
 * A revoked or expired credential gets UNAUTHORIZED from every call.
 */
export interface ContractCall {
  input: (target: CallTarget) => unknown;
  scope: Scope;
  asOutsider: "refused" | "sees-nothing" | "creates-own";
  asViewer: "reads" | "refused" | "hidden" | "own-account";
}

/**
 * One entry per procedure of the contract (a `#variant` suffix adds another call of the same
 * procedure). Every probe over the contract walks this table and fails for a procedure without an
 * entry, so a new procedure needs one entry here and no other.
 */
export const contractCalls: Record<string, ContractCall> = {
  "projects.list": { input: () => ({}), scope: "projects:read", asOutsider: "sees-nothing", asViewer: "reads" },
  "projects.list#workspace": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "projects.get": {
    input: ({ projectId }) => ({ projectId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "projects.create": {
    input: ({ workspaceId }) => ({ workspaceId, name: "intruder" }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "projects.update": {
    input: ({ projectId }) => ({ projectId, name: "hijacked" }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "projects.delete": {
    input: ({ projectId }) => ({ projectId }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "deployments.create": {
    input: ({ projectId }) => ({ projectId, manifest: { version: 1, workflows: [{ name: "evil" }] }, bundle: "x" }),
    scope: "deployments:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "deployments.activate": {
    input: ({ projectId, deploymentId }) => ({ projectId, deploymentId }),
    scope: "deployments:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "deployments.list": {
    input: ({ projectId }) => ({ projectId }),
    scope: "deployments:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "deployments.get": {
    input: ({ deploymentId }) => ({ deploymentId }),
    scope: "deployments:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "workflows.list": {
    input: ({ projectId }) => ({ projectId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "workflows.get": {
    input: ({ projectId }) => ({ projectId, workflow: "echo" }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "workflows.run": {
    input: ({ projectId }) => ({ projectId, workflow: "echo", input: {} }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "workflows.listExecutions": {
    input: ({ projectId }) => ({ projectId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "workflows.getExecution": {
    input: ({ executionId }) => ({ executionId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "workflows.cancelExecution": {
    input: ({ executionId }) => ({ executionId }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "workflows.rerunExecution": {
    input: ({ executionId }) => ({ executionId }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "workflows.listEvents": {
    input: ({ executionId }) => ({ executionId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "workflows.listEvents#project": {
    input: ({ projectId }) => ({ projectId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "workflows.completeToken": {
    input: ({ tokenId }) => ({ tokenId, data: { approved: true } }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "schedules.list": {
    input: ({ projectId }) => ({ projectId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "schedules.pause": {
    input: ({ projectId }) => ({ projectId, name: "nightly" }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "schedules.resume": {
    input: ({ projectId }) => ({ projectId, name: "nightly" }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "traces.list": {
    input: ({ projectId }) => ({ projectId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "traces.get": {
    input: ({ projectId, traceId }) => ({ projectId, traceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "resources.list": {
    input: ({ projectId }) => ({ projectId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "resources.get": {
    input: ({ projectId }) => ({ projectId, kind: "workflow", name: "echo" }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "access.createWorkspace": {
    input: () => ({ name: "Caller's own" }),
    scope: "projects:write",
    asOutsider: "creates-own",
    asViewer: "own-account",
  },
  "access.listWorkspaces": {
    input: () => ({}),
    scope: "projects:read",
    asOutsider: "sees-nothing",
    asViewer: "reads",
  },
  "access.renameWorkspace": {
    input: ({ workspaceId }) => ({ workspaceId, name: "hijacked" }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "access.listMembers": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "access.invite": {
    input: ({ workspaceId }) => ({ workspaceId, email: "mallory2@example.com", role: "admin" }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "access.listInvitations": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "access.revokeInvitation": {
    input: ({ invitationId }) => ({ invitationId }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "access.updateRole": {
    input: ({ workspaceId, ownerAccountId }) => ({ workspaceId, accountId: ownerAccountId, role: "viewer" }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "access.updateRole#self": {
    input: ({ workspaceId, callerAccountId }) => ({ workspaceId, accountId: callerAccountId, role: "member" }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "access.removeMember": {
    input: ({ workspaceId, ownerAccountId }) => ({ workspaceId, accountId: ownerAccountId }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "access.auditLog": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "billing.getPlan": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "billing.getUsage": {
    input: ({ workspaceId }) => ({
      workspaceId,
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-02-01T00:00:00.000Z",
      groupBy: "day",
    }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "billing.listStatements": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "studio.overview": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "studio.executionTimeline": {
    input: ({ projectId }) => ({
      projectId,
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-01-02T00:00:00.000Z",
      bucket: "hour",
    }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "studio.executionTimeline#workspace": {
    input: ({ workspaceId }) => ({
      workspaceId,
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-01-02T00:00:00.000Z",
      bucket: "hour",
    }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
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
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "access.listFederationPolicies": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "access.deleteFederationPolicy": {
    input: ({ policyId }) => ({ policyId }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "integrations.list": {
    input: ({ projectId }) => ({ projectId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "integrations.get": {
    input: ({ projectId }) => ({ projectId, name: "stripe" }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "reads",
  },
  "integrations.create": {
    input: ({ projectId }) => ({ projectId, name: "intruder", kind: "secret", secrets: { value: "planted-value" } }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "integrations.update": {
    input: ({ projectId }) => ({ projectId, name: "stripe", secrets: { value: "planted-value" } }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "integrations.delete": {
    input: ({ projectId }) => ({ projectId, name: "stripe" }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "agents.list": { input: () => ({}), scope: "projects:read", asOutsider: "sees-nothing", asViewer: "reads" },
  "agents.list#workspace": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "refused",
  },
  "agents.get": {
    input: ({ agentId }) => ({ agentId }),
    scope: "projects:read",
    asOutsider: "refused",
    asViewer: "hidden",
  },
  "agents.revoke": {
    input: ({ agentId }) => ({ agentId }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "hidden",
  },
  "agents.revokeAll": {
    input: ({ workspaceId }) => ({ workspaceId }),
    scope: "projects:write",
    asOutsider: "refused",
    asViewer: "refused",
  },
};

/** The procedure a table key names: `access.updateRole#self` → `access.updateRole`. */
export function procedureOf(callName: string): string {
  return callName.split("#")[0] ?? callName;
}

/** Procedures of the contract that `contractCalls` has no entry for: every probe expects none. */
export function proceduresWithoutCall(): string[] {
  const covered = new Set(Object.keys(contractCalls).map(procedureOf));
  return contractProcedures().filter((name) => !covered.has(name));
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
