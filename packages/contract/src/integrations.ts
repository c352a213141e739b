import * as z from "zod";
import { pageOf } from "./pagination.ts";
import { type McpExposure, procedure } from "./procedure.ts";
import { projectIdSchema, projectPageInput } from "./projects.ts";

/** Largest page of `integrations.list`. */
export const integrationsPageLimit = 100;

/** Largest secret value, in UTF-8 bytes. */
export const maxSecretBytes = 64 * 1024;

/** Most headers of an `http` integration. */
export const maxHttpHeaders = 50;

export const integrationKinds = ["secret", "http", "smtp"] as const;
export type IntegrationKind = (typeof integrationKinds)[number];

export const integrationNamePattern = /^[a-z0-9_-]{1,64}$/;
export const integrationNameSchema = z
  .string()
  .regex(integrationNamePattern, "An integration name is 1 to 64 characters of a-z, 0-9, _ and -.");

/** An HTTP header name (RFC 9110 token). */
export const headerNameSchema = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, "Expected an HTTP header name.");

const utf8 = new TextEncoder();

export const secretValueSchema = z
  .string()
  .min(1, "A secret value is not empty.")
  .refine((value) => utf8.encode(value).length <= maxSecretBytes, {
    message: `A secret value has at most ${maxSecretBytes} bytes.`,
  });

/**
 * Per kind, its non-secret config and the names of its secrets. A secret's name is its field
 * (`value`, `password`) or, for `http`, the header it is sent as.
 */
export const integrationConfigSchemas = {
  secret: z.object({}).strict(),
  http: z
    .object({
      baseUrl: z.url({ protocol: /^https?$/, error: "Expected an http(s) URL." }).max(2048),
    })
    .strict(),
  smtp: z
    .object({
      host: z.string().trim().min(1, "Expected a host name.").max(253),
      port: z.int().min(1).max(65535),
      user: z.string().min(1).max(256),
    })
    .strict(),
} as const;

export const integrationSecretsSchemas = {
  secret: z.object({ value: secretValueSchema }).strict(),
  http: z
    .record(headerNameSchema, secretValueSchema)
    .refine((headers) => Object.keys(headers).length <= maxHttpHeaders, {
      message: `An http integration has at most ${maxHttpHeaders} headers.`,
    }),
  smtp: z.object({ password: secretValueSchema }).strict(),
} as const;

const createTarget = { projectId: projectIdSchema, name: integrationNameSchema };

export const createIntegrationInputSchema = z.discriminatedUnion("kind", [
  z
    .object({
      ...createTarget,
      kind: z.literal("secret"),
      config: integrationConfigSchemas.secret.default({}),
      secrets: integrationSecretsSchemas.secret,
    })
    .strict(),
  z
    .object({
      ...createTarget,
      kind: z.literal("http"),
      config: integrationConfigSchemas.http,
      secrets: integrationSecretsSchemas.http.default({}),
    })
    .strict(),
  z
    .object({
      ...createTarget,
      kind: z.literal("smtp"),
      config: integrationConfigSchemas.smtp,
      secrets: integrationSecretsSchemas.smtp,
    })
    .strict(),
]);
export type CreateIntegrationInput = z.infer<typeof createIntegrationInputSchema>;

export const updateIntegrationInputSchema = z
  .object({
    ...createTarget,
    /** Fields to change; those left out keep their values. Checked against the integration's kind. */
    config: z.record(z.string(), z.unknown()).optional(),
    /** A secret left out keeps its value; `null` removes it. */
    secrets: z.record(z.string(), secretValueSchema.nullable()).optional(),
  })
  .strict();
export type UpdateIntegrationInput = z.infer<typeof updateIntegrationInputSchema>;

export const secretHintSchema = z.object({
  /** At most the last 4 characters, fewer for short values, after `••••`. */
  hint: z.string(),
  changedAt: z.iso.datetime(),
  /** The email (or account id) of who last set it. */
  changedBy: z.string().nullable(),
});

export const integrationSchema = z.object({
  name: z.string(),
  kind: z.enum(integrationKinds),
  config: z.record(z.string(), z.unknown()),
  secrets: z.record(z.string(), secretHintSchema),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Integration = z.infer<typeof integrationSchema>;

const integrationTarget = z.object(createTarget).strict();

const integrationAdministration: McpExposure = {
  tool: false,
  reason: "administrative (integrations and their secrets)",
};

/** The `integrations` namespace: a project's secrets and connections, which reach its workflow code. */
export const integrationsContract = {
  list: procedure({ scope: "projects:read", mutates: false, mcp: integrationAdministration })
    .route({ summary: "List a project's integrations, by name, with masked secrets", tags: ["integrations"] })
    .input(projectPageInput({ maxPageSize: integrationsPageLimit }))
    .output(pageOf(integrationSchema)),
  get: procedure({ scope: "projects:read", mutates: false, mcp: integrationAdministration })
    .route({ summary: "Read one integration, with masked secrets", tags: ["integrations"] })
    .input(integrationTarget)
    .output(integrationSchema),
  create: procedure({ scope: "projects:write", mutates: true, mcp: integrationAdministration })
    .route({ summary: "Create an integration; its secrets are stored encrypted", tags: ["integrations"] })
    .input(createIntegrationInputSchema)
    .output(integrationSchema),
  update: procedure({ scope: "projects:write", mutates: true, mcp: integrationAdministration })
    .route({ summary: "Change an integration's config or secrets", tags: ["integrations"] })
    .input(updateIntegrationInputSchema)
    .output(integrationSchema),
  delete: procedure({ scope: "projects:write", mutates: true, mcp: integrationAdministration })
    .route({ summary: "Delete an integration", tags: ["integrations"] })
    .input(integrationTarget)
    .output(z.object({ name: z.string(), deleted: z.literal(true) })),
};
