import type { Scope } from "@weft/contract";

/**
 * What `tools/list` needs to know of a procedure without running it: the scope its handler requires
 * (the same `requireScope` argument; `mcp-tool-catalogue.test.ts` holds the two together) and
 * whether it changes something, which a viewer may not do. The procedure still checks both, and
 * project access, when the tool is called.
 */
export interface ToolRule {
  scope: Scope;
  changes: boolean;
  /**
   * Needs a writer role (owner, admin, member) in some workspace. Revoking one's own agent is a
   * change that a viewer may make.
   */
  needsWriterRole: boolean;
  /** Changes a workspace rather than a project: never for a credential scoped to one project. */
  changesWorkspace?: true;
}

const reads = (scope: Scope): ToolRule => ({ scope, changes: false, needsWriterRole: false });
const writes = (scope: Scope): ToolRule => ({ scope, changes: true, needsWriterRole: true });

/** The procedures that are MCP tools (issue 21's list), by `namespace.verb`. */
export const exposedProcedures: Readonly<Record<string, ToolRule>> = {
  "projects.list": reads("projects:read"),
  "projects.get": reads("projects:read"),
  "projects.create": { ...writes("projects:write"), changesWorkspace: true },
  "deployments.list": reads("deployments:read"),
  "deployments.get": reads("deployments:read"),
  "deployments.activate": writes("deployments:write"),
  "workflows.list": reads("projects:read"),
  "workflows.get": reads("projects:read"),
  "workflows.run": writes("projects:write"),
  "workflows.listExecutions": reads("projects:read"),
  "workflows.getExecution": reads("projects:read"),
  "workflows.listEvents": reads("projects:read"),
  "workflows.cancelExecution": writes("projects:write"),
  "workflows.rerunExecution": writes("projects:write"),
  "workflows.completeToken": writes("projects:write"),
  "traces.list": reads("projects:read"),
  "traces.get": reads("projects:read"),
  "resources.list": reads("projects:read"),
  "resources.get": reads("projects:read"),
  "agents.list": reads("projects:read"),
  "agents.revoke": { scope: "projects:write", changes: true, needsWriterRole: false },
  "schedules.list": reads("projects:read"),
  "schedules.pause": writes("projects:write"),
  "schedules.resume": writes("projects:write"),
  // The usage summary: what the workspace used against its plan (owners and admins; the procedure refuses others).
  "billing.getUsage": reads("projects:read"),
  "billing.getPlan": reads("projects:read"),
  "studio.overview": reads("projects:read"),
};

/**
 * Procedures deliberately kept off MCP, each with its reason. A procedure of the contract must be in
 * exactly one of the two tables (`mcp-tool-catalogue.test.ts`), so a new one is decided, not forgotten.
 */
export const unexposedProcedures: Readonly<Record<string, string>> = {
  "projects.update": "renaming and settings are the person's decision, made in Studio, the CLI or /rpc",
  "projects.delete": "destroys every deployment, execution and trace: never one tool call away",
  "deployments.create": "a deployment is a bundle built by `weft deploy` from the user's repository",
  "agents.get": "agents.list answers the same question for an agent",
  "agents.revokeAll": "administrative: a workspace-wide revocation",
  "access.createWorkspace": "administrative (workspaces and members)",
  "access.listWorkspaces": "administrative (workspaces and members)",
  "access.renameWorkspace": "administrative (workspaces and members)",
  "access.listMembers": "administrative (workspaces and members)",
  "access.invite": "administrative (workspaces and members)",
  "access.listInvitations": "administrative (workspaces and members)",
  "access.revokeInvitation": "administrative (workspaces and members)",
  "access.updateRole": "administrative (workspaces and members)",
  "access.removeMember": "administrative (workspaces and members)",
  "access.auditLog": "administrative (the audit log)",
  "access.createFederationPolicy": "administrative (federation policies)",
  "access.listFederationPolicies": "administrative (federation policies)",
  "access.deleteFederationPolicy": "administrative (federation policies)",
  "integrations.list": "administrative (integrations and their secrets)",
  "integrations.get": "administrative (integrations and their secrets)",
  "integrations.create": "administrative (integrations and their secrets)",
  "integrations.update": "administrative (integrations and their secrets)",
  "integrations.delete": "administrative (integrations and their secrets)",
  "billing.listStatements": "monthly statements are an operator's and a workspace owner's bookkeeping, read in Studio",
  "studio.executionTimeline":
    "a chart's series: studio.overview and workflows.listExecutions answer an agent's questions",
};

/** The tool name of a procedure: `workflows.getExecution` → `workflows_getExecution`, in the character set every MCP client accepts. */
export function toolNameOf(procedure: string): string {
  return procedure.replace(".", "_");
}
