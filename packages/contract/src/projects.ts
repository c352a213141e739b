import * as z from "zod";
import { connectionPageInput, pageOf } from "./pagination.ts";
import { displayNameSchema } from "./plain-text.ts";
import { procedure } from "./procedure.ts";

/** Largest page of `projects.list`. */
export const projectsPageLimit = 100;

export const projectIdSchema = z.string().regex(/^prj_[0-9a-z]{26}$/, "Expected a project id (prj_…).");
export const workspaceIdSchema = z.string().regex(/^wsp_[0-9a-z]{26}$/, "Expected a workspace id (wsp_…).");
/** The input of a list of one project's things: the project and the page, nothing else. */
export function projectPageInput(options: { maxPageSize: number }) {
  return z.object({ projectId: projectIdSchema, ...connectionPageInput(options) }).strict();
}

export const projectNameSchema = displayNameSchema("project");

/** Days a project's finished executions are kept, when it sets its own. */
export const retentionDaysSchema = z
  .int("Retention is a whole number of days.")
  .min(1, "Retention is at least 1 day.")
  .max(36500, "Retention is at most 36500 days.");

export const projectSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  /** Days finished executions are kept; null follows the platform's default (WEFT_RETENTION_DAYS). */
  retentionDays: retentionDaysSchema.nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Project = z.infer<typeof projectSchema>;

/** The `projects` namespace: the projects of every workspace the user belongs to. */
export const projectsContract = {
  list: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "List the projects of the user's workspaces", tags: ["projects"] })
    .input(
      z
        .object({
          ...connectionPageInput({ maxPageSize: projectsPageLimit }),
          workspaceId: workspaceIdSchema.optional(),
        })
        .strict()
        .default({}),
    )
    .output(pageOf(projectSchema)),
  get: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "Read one project", tags: ["projects"] })
    .input(z.object({ projectId: projectIdSchema }).strict())
    .output(projectSchema),
  create: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true, changesWorkspace: true } })
    .route({ summary: "Create a project (in the personal workspace unless one is named)", tags: ["projects"] })
    .input(z.object({ name: projectNameSchema, workspaceId: workspaceIdSchema.optional() }).strict())
    .output(projectSchema),
  update: procedure({
    scope: "projects:write",
    mutates: true,
    mcp: { tool: false, reason: "renaming and settings are the person's decision, made in Studio, the CLI or /rpc" },
  })
    .route({
      summary: "Rename a project or set how long its finished executions are kept",
      description:
        "Changes the fields given. `retentionDays: null` makes the project follow the platform's default again.",
      tags: ["projects"],
    })
    .input(
      z
        .object({
          projectId: projectIdSchema,
          name: projectNameSchema.optional(),
          retentionDays: retentionDaysSchema.nullable().optional(),
        })
        .strict()
        .refine((input) => input.name !== undefined || input.retentionDays !== undefined, {
          message: "Give a name, retentionDays, or both.",
        }),
    )
    .output(projectSchema),
  delete: procedure({
    scope: "projects:write",
    mutates: true,
    mcp: { tool: false, reason: "destroys every deployment, execution and trace: never one tool call away" },
  })
    .route({ summary: "Delete a project", tags: ["projects"] })
    .input(z.object({ projectId: projectIdSchema }).strict())
    .output(z.object({ id: z.string(), deleted: z.literal(true) })),
};
