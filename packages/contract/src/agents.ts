import * as z from "zod";
import { agentClientSchema } from "./access.ts";
import { connectionPageInput, pageOf } from "./pagination.ts";
import { procedure } from "./procedure.ts";
import { workspaceIdSchema } from "./projects.ts";

/** Largest page of `agents.list`. */
export const agentsPageLimit = 100;

export const agentIdSchema = z.string().regex(/^reg_[0-9a-z]{26}$/, "Expected an agent id (reg_…).");
export const agentStatusSchema = z.enum(["active", "revoked", "expired"]);

/** An agent: one registration and the credential it holds. */
export const agentSchema = z.object({
  /** The registration id. */
  id: z.string(),
  type: z.enum(["agent-provider", "email-verification", "federated", "oauth-client"]),
  accountId: z.string(),
  email: z.string(),
  /** The registering client: ID-JAG client_id and issuer, OAuth client_id and client name, or the User-Agent. */
  agent: agentClientSchema,
  /** A federated agent's policy, the one project its credential sees, and its token's `sub`. */
  federation: z.object({ policyId: z.string(), projectId: z.string(), subject: z.string() }).nullable(),
  scopes: z.array(z.string()),
  createdAt: z.iso.datetime(),
  /** Kept in batches: up to a few seconds behind (see the README). */
  lastUsedAt: z.iso.datetime().nullable(),
  expiresAt: z.iso.datetime(),
  status: agentStatusSchema,
});
export type Agent = z.infer<typeof agentSchema>;

/** The `agents` namespace: the AI agents acting for the caller, or for a workspace's members. */
export const agentsContract = {
  list: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "List the caller's agents, or every member's (workspaceId; owner, admin)", tags: ["agents"] })
    .input(
      z
        .object({
          workspaceId: workspaceIdSchema.optional(),
          status: agentStatusSchema.optional(),
          ...connectionPageInput({ maxPageSize: agentsPageLimit }),
        })
        .strict()
        .default({}),
    )
    .output(pageOf(agentSchema)),
  get: procedure({
    scope: "projects:read",
    mutates: false,
    mcp: { tool: false, reason: "agents.list answers the same question for an agent" },
  })
    .route({ summary: "Read one agent", tags: ["agents"] })
    .input(z.object({ agentId: agentIdSchema }).strict())
    .output(agentSchema),
  revoke: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true, viewerMayChange: true } })
    .route({ summary: "Revoke an agent's credential: refused from its very next request", tags: ["agents"] })
    .input(z.object({ agentId: agentIdSchema }).strict())
    .output(agentSchema),
  revokeAll: procedure({
    scope: "projects:write",
    mutates: true,
    mcp: { tool: false, reason: "administrative: a workspace-wide revocation" },
  })
    .route({
      summary: "Revoke every active credential of every member of a workspace (owner, admin)",
      tags: ["agents"],
    })
    .input(z.object({ workspaceId: workspaceIdSchema }).strict())
    .output(z.object({ revoked: z.int().min(0) })),
};
