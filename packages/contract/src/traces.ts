import * as z from "zod";
import { instantInputSchema } from "./instants.ts";
import { definitionNameSchema } from "./manifest.ts";
import { timestampPageInput, timestampPageOf } from "./pagination.ts";
import { procedure } from "./procedure.ts";
import { projectIdSchema } from "./projects.ts";
import { executionStatusSchema } from "./workflows.ts";

/** Largest page of `traces.list`. */
export const tracesPageLimit = 100;

const spanStatusSchema = z.object({ code: z.enum(["unset", "ok", "error"]), message: z.string().nullable() });

export const traceSummarySchema = z.object({
  traceId: z.string(),
  executionId: z.string().nullable(),
  workflow: z.string().nullable(),
  executionStatus: executionStatusSchema.nullable(),
  name: z.string(),
  startTime: z.iso.datetime(),
  endTime: z.iso.datetime().nullable(),
  durationMs: z.number().nullable(),
  status: spanStatusSchema,
});

export interface SpanOutput {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: "trigger" | "execution" | "attempt" | "step" | "token";
  startTime: string;
  endTime: string | null;
  attributes: Record<string, string | number | boolean>;
  status: z.infer<typeof spanStatusSchema>;
  children: SpanOutput[];
}

/** An OpenTelemetry-shaped span with its children. */
export const spanSchema: z.ZodType<SpanOutput> = z.object({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().nullable(),
  name: z.string(),
  kind: z.enum(["trigger", "execution", "attempt", "step", "token"]),
  startTime: z.iso.datetime(),
  endTime: z.iso.datetime().nullable(),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  status: spanStatusSchema,
  get children() {
    return z.array(spanSchema);
  },
});

/** The `traces` namespace: spans of executions (trigger → execution → attempts → steps). */
export const tracesContract = {
  list: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "List a project's traces, newest first (timestamp cursor)", tags: ["traces"] })
    .input(
      z
        .object({
          projectId: projectIdSchema,
          from: instantInputSchema.optional(),
          to: instantInputSchema.optional(),
          workflow: definitionNameSchema.optional(),
          status: z.union([executionStatusSchema, z.array(executionStatusSchema).min(1)]).optional(),
          ...timestampPageInput({ maxPageSize: tracesPageLimit }),
        })
        .strict(),
    )
    .output(timestampPageOf(traceSummarySchema)),
  get: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "Read a trace as a tree of spans", tags: ["traces"] })
    .input(z.object({ projectId: projectIdSchema, traceId: z.string().regex(/^[0-9a-f]{32}$/) }).strict())
    .output(z.object({ traceId: z.string(), spans: z.array(spanSchema) })),
};
