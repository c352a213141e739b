import * as z from "zod";
import { instantInputSchema } from "./instants.ts";
import { connectionPageInput, pageOf, timestampPageInput, timestampPageOf } from "./pagination.ts";
import { displayNameSchema } from "./plain-text.ts";
import { type McpExposure, procedure } from "./procedure.ts";
import { projectIdSchema, workspaceIdSchema } from "./projects.ts";
import { scopeSchema } from "./scopes.ts";

/** Largest page of `access.listWorkspaces`, `access.listMembers` and `access.listInvitations`. */
export const accessPageLimit = 100;
/** Largest page of `access.auditLog`. */
export const auditLogPageLimit = 200;

/** owner > admin > member > viewer. */
export const workspaceRoleSchema = z.enum(["owner", "admin", "member", "viewer"]);
export type WorkspaceRole = z.infer<typeof workspaceRoleSchema>;

export const accountIdSchema = z.string().regex(/^acc_[0-9a-z]{26}$/, "Expected an account id (acc_…).");
export const invitationIdSchema = z.string().regex(/^inv_[0-9a-z]{26}$/, "Expected an invitation id (inv_…).");
export const workspaceNameSchema = displayNameSchema("workspace");

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The caller's role in it. */
  role: workspaceRoleSchema,
  /** The workspace every account gets at sign-up. */
  personal: z.boolean(),
  createdAt: z.iso.datetime(),
});
export type Workspace = z.infer<typeof workspaceSchema>;

export const memberSchema = z.object({
  accountId: z.string(),
  email: z.string(),
  role: workspaceRoleSchema,
  joinedAt: z.iso.datetime(),
});
export type Member = z.infer<typeof memberSchema>;

export const invitationSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  email: z.string(),
  role: workspaceRoleSchema,
  invitedBy: z.string().nullable(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  status: z.enum(["pending", "accepted", "revoked", "expired"]),
});
export type Invitation = z.infer<typeof invitationSchema>;

/** The client an agent registered with: its ID-JAG client and issuer, or the User-Agent it sent. */
export const agentClientSchema = z.object({
  clientId: z.string().nullable(),
  issuer: z.string().nullable(),
  userAgent: z.string().nullable(),
});

export const auditActorSchema = z.object({
  accountId: z.string().nullable(),
  email: z.string().nullable(),
  credentialId: z.string().nullable(),
  /** The registration of the agent that acted, when it acted through one. */
  agentId: z.string().nullable(),
  agent: agentClientSchema.nullable(),
  /** The API surface the change was asked through (`rpc`, `api`, `mcp`); null for pages and ingress. */
  via: z.enum(["rpc", "api", "mcp"]).nullable(),
});

export const auditEventSchema = z.object({
  id: z.string(),
  action: z.string(),
  actor: auditActorSchema,
  targetType: z.string(),
  targetId: z.string(),
  data: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.iso.datetime(),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

const filterText = z.string().min(1).max(200);

/** Largest page of `access.listFederationPolicies`. */
export const federationPolicyPageLimit = 100;
/** A federated credential lives at most an hour; a policy that names no lifetime gives 15 minutes. */
export const maxFederatedTtlSeconds = 3600;
export const defaultFederatedTtlSeconds = 900;

export const federationPolicyIdSchema = z
  .string()
  .regex(/^fed_[0-9a-z]{26}$/, "Expected a federation policy id (fed_…).");

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** An OIDC issuer: https, or http on a loopback host (tests, an identity provider on this machine). */
export const issuerUrlSchema = z
  .string()
  .max(500)
  .refine((value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") return false;
    return url.protocol === "https:" || (url.protocol === "http:" && loopbackHosts.has(url.hostname));
  }, "Expected an https URL without query or fragment (http only on a loopback host).");

/**
 * An exact value, or a glob in which `*` stands for any run of characters. A pattern of wildcards
 * alone would match every token of the issuer: on a shared issuer (GitHub Actions, GitLab CI),
 * every repository's.
 */
export const claimPatternSchema = z
  .string()
  .min(1, "A pattern needs at least 1 character.")
  .max(500)
  .refine(
    (pattern) => /[^*]/.test(pattern),
    "A pattern of * alone matches every token of the issuer: give a literal part that pins the owner, like repo:acme/*.",
  );

export const federationPolicySchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  projectId: z.string(),
  issuer: z.string(),
  audience: z.string(),
  subject: z.string().nullable(),
  claims: z.record(z.string(), z.string()).nullable(),
  scopes: z.array(scopeSchema),
  maxTtlSeconds: z.int(),
  createdBy: z.string(),
  createdAt: z.iso.datetime(),
});
export type FederationPolicy = z.infer<typeof federationPolicySchema>;

const workspaceAdministration: McpExposure = { tool: false, reason: "administrative (workspaces and members)" };
const federationAdministration: McpExposure = { tool: false, reason: "administrative (federation policies)" };

/** The input of a list of one workspace's members or invitations. */
const workspacePageInput = z
  .object({ workspaceId: workspaceIdSchema, ...connectionPageInput({ maxPageSize: accessPageLimit }) })
  .strict();

/** The `access` namespace: team workspaces, their members and invitations, and the audit log. */
export const accessContract = {
  createWorkspace: procedure({ scope: "projects:write", mutates: true, mcp: workspaceAdministration })
    .route({ summary: "Create a team workspace, with the caller as owner", tags: ["access"] })
    .input(z.object({ name: workspaceNameSchema }).strict())
    .output(workspaceSchema),
  listWorkspaces: procedure({ scope: "projects:read", mutates: false, mcp: workspaceAdministration })
    .route({ summary: "List the caller's workspaces with the caller's role in each", tags: ["access"] })
    .input(
      z
        .object(connectionPageInput({ maxPageSize: accessPageLimit }))
        .strict()
        .default({}),
    )
    .output(pageOf(workspaceSchema)),
  renameWorkspace: procedure({ scope: "projects:write", mutates: true, mcp: workspaceAdministration })
    .route({ summary: "Rename a workspace (owner, admin)", tags: ["access"] })
    .input(z.object({ workspaceId: workspaceIdSchema, name: workspaceNameSchema }).strict())
    .output(workspaceSchema),
  listMembers: procedure({ scope: "projects:read", mutates: false, mcp: workspaceAdministration })
    .route({ summary: "List a workspace's members", tags: ["access"] })
    .input(workspacePageInput)
    .output(pageOf(memberSchema)),
  invite: procedure({ scope: "projects:write", mutates: true, mcp: workspaceAdministration })
    .route({ summary: "Invite someone by email; they accept from the mailed link (owner, admin)", tags: ["access"] })
    .input(
      z
        .object({
          workspaceId: workspaceIdSchema,
          email: z.email("Expected an email address.").max(254),
          role: workspaceRoleSchema,
        })
        .strict(),
    )
    .output(invitationSchema),
  listInvitations: procedure({ scope: "projects:read", mutates: false, mcp: workspaceAdministration })
    .route({ summary: "List a workspace's invitations (owner, admin)", tags: ["access"] })
    .input(workspacePageInput)
    .output(pageOf(invitationSchema)),
  revokeInvitation: procedure({ scope: "projects:write", mutates: true, mcp: workspaceAdministration })
    .route({ summary: "Cancel a pending invitation (owner, admin)", tags: ["access"] })
    .input(z.object({ invitationId: invitationIdSchema }).strict())
    .output(invitationSchema),
  updateRole: procedure({ scope: "projects:write", mutates: true, mcp: workspaceAdministration })
    .route({ summary: "Change a member's role (owner, admin)", tags: ["access"] })
    .input(z.object({ workspaceId: workspaceIdSchema, accountId: accountIdSchema, role: workspaceRoleSchema }).strict())
    .output(memberSchema),
  removeMember: procedure({ scope: "projects:write", mutates: true, mcp: workspaceAdministration })
    .route({ summary: "Remove a member, or leave (one's own account id)", tags: ["access"] })
    .input(z.object({ workspaceId: workspaceIdSchema, accountId: accountIdSchema }).strict())
    .output(z.object({ accountId: z.string(), removed: z.literal(true) })),
  auditLog: procedure({
    scope: "projects:read",
    mutates: false,
    mcp: { tool: false, reason: "administrative (the audit log)" },
  })
    .route({ summary: "Read a workspace's audit log, newest first (owner, admin)", tags: ["access"] })
    .input(
      z
        .object({
          workspaceId: workspaceIdSchema,
          filter: z
            .object({
              /** An account id or a credential id. */
              actor: filterText.optional(),
              action: filterText.optional(),
              targetType: filterText.optional(),
              targetId: filterText.optional(),
              since: instantInputSchema.optional(),
              until: instantInputSchema.optional(),
            })
            .strict()
            .optional(),
          ...timestampPageInput({ maxPageSize: auditLogPageLimit }),
        })
        .strict(),
    )
    .output(timestampPageOf(auditEventSchema)),
  createFederationPolicy: procedure({ scope: "projects:write", mutates: true, mcp: federationAdministration })
    .route({
      summary: "Trust an identity provider's tokens for a project-scoped credential (owner, admin)",
      tags: ["access"],
    })
    .input(
      z
        .object({
          workspaceId: workspaceIdSchema,
          projectId: projectIdSchema,
          issuer: issuerUrlSchema,
          audience: z.string().min(1).max(500),
          subject: claimPatternSchema.optional(),
          claims: z
            .record(z.string().min(1).max(100), claimPatternSchema)
            .refine((claims) => Object.keys(claims).length <= 20, "At most 20 claims.")
            .optional(),
          scopes: z.array(scopeSchema).min(1, "Grant at least one scope."),
          maxTtlSeconds: z.int().min(60).max(maxFederatedTtlSeconds).default(defaultFederatedTtlSeconds),
        })
        .strict()
        .refine(
          (policy) => policy.subject !== undefined || Object.keys(policy.claims ?? {}).length > 0,
          "Name a subject or claims: a policy without either would trust every token of the issuer.",
        ),
    )
    .output(federationPolicySchema),
  listFederationPolicies: procedure({ scope: "projects:read", mutates: false, mcp: federationAdministration })
    .route({ summary: "List a workspace's federation policies (owner, admin)", tags: ["access"] })
    .input(
      z
        .object({
          workspaceId: workspaceIdSchema,
          projectId: projectIdSchema.optional(),
          ...connectionPageInput({ maxPageSize: federationPolicyPageLimit }),
        })
        .strict(),
    )
    .output(pageOf(federationPolicySchema)),
  deleteFederationPolicy: procedure({ scope: "projects:write", mutates: true, mcp: federationAdministration })
    .route({
      summary: "Delete a federation policy and revoke the credentials it gave (owner, admin)",
      tags: ["access"],
    })
    .input(z.object({ policyId: federationPolicyIdSchema }).strict())
    .output(federationPolicySchema),
};
