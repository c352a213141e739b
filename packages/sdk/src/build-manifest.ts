import { durationToMs, type JsonSchema, type Manifest, manifestSchema } from "@weft/contract";
import { z } from "zod";
import type { SchemaDefinition, WeftConfig } from "./definitions.ts";
import { flowControlManifest } from "./flow-control-manifest.ts";

function isStandardSchema(schema: SchemaDefinition): schema is Exclude<SchemaDefinition, JsonSchema> {
  return typeof schema === "object" && schema !== null && "~standard" in schema;
}

/** JSON Schema of a definition's schema: a zod schema is converted, JSON Schema is kept as is. */
export function toJsonSchema(schema: SchemaDefinition): JsonSchema {
  if (!isStandardSchema(schema)) return schema;
  if ((schema["~standard"] as { vendor: string }).vendor !== "zod") {
    throw new TypeError("only zod schemas and JSON Schema objects are supported as schemas");
  }
  return z.toJSONSchema(schema as unknown as z.ZodType, { io: "input" }) as JsonSchema;
}

export class ManifestError extends Error {
  override readonly name = "ManifestError";
  readonly issues: { path: string; message: string }[];

  constructor(issues: { path: string; message: string }[]) {
    super(issues.map((issue) => `${issue.path}: ${issue.message}`).join("\n"));
    this.issues = issues;
  }
}

/**
 * Turns a `weft.config.ts` configuration into the manifest a deployment carries, validating every
 * definition. Issue paths name the definition (`workflows[echo].retries.maxAttempts`).
 */
export function buildManifest(config: WeftConfig): Manifest {
  const input = {
    version: 1,
    workflows: config.workflows.map((definition) => ({
      name: definition.name,
      ...(definition.input === undefined ? {} : { inputSchema: toJsonSchema(definition.input) }),
      ...(definition.retries === undefined
        ? {}
        : {
            retries: {
              maxAttempts: definition.retries.maxAttempts,
              minDelayMs: durationToMs(definition.retries.minDelay ?? "1s"),
              maxDelayMs: durationToMs(definition.retries.maxDelay ?? "1m"),
            },
          }),
      ...(definition.timeout === undefined ? {} : { timeoutMs: durationToMs(definition.timeout) }),
      ...flowControlManifest(definition).fields,
      ...(definition.integrations === undefined ? {} : { integrations: definition.integrations }),
      ...(definition.on === undefined ? {} : { on: definition.on }),
      ...(definition.cancelOn === undefined ? {} : { cancelOn: definition.cancelOn }),
    })),
    forms: (config.forms ?? []).map(
      ({ name, workflow, title, description, visibility, schema, basicAuth, disabled, globalName }) => ({
        name,
        workflow,
        title,
        description,
        visibility,
        schema: toJsonSchema(schema),
        basicAuth,
        disabled,
        ...(globalName === undefined ? {} : { globalName }),
      }),
    ),
    webhooks: (config.webhooks ?? []).map(({ name, workflow, event, secret }) => ({
      name,
      ...(workflow === undefined ? {} : { workflow }),
      ...(event === undefined ? {} : { event }),
      ...(secret === undefined ? {} : { secret }),
    })),
    schedules: (config.schedules ?? []).map(({ name, workflow, cron, timezone, input, enabled }) => ({
      name,
      workflow,
      cron,
      timezone,
      input,
      enabled,
    })),
    alerts: config.alerts ?? [],
  };
  const periodIssues = config.workflows.flatMap((definition) =>
    flowControlManifest(definition).issues.map((issue) => ({
      path: `workflows[${definition.name}].${issue.field}`,
      message: issue.message,
    })),
  );
  const parsed = manifestSchema.safeParse(input);
  if (parsed.success && periodIssues.length === 0) return parsed.data;
  throw new ManifestError([
    ...periodIssues,
    ...(parsed.success ? [] : parsed.error.issues).map((issue) => ({
      path: describePath(input, issue.path),
      message: issue.message,
    })),
  ]);
}

function describePath(input: Record<string, unknown>, path: PropertyKey[]): string {
  const [kind, index, ...rest] = path;
  if (typeof kind !== "string") return "manifest";
  const entries = input[kind] as { name?: unknown }[] | undefined;
  const entry = typeof index === "number" ? entries?.[index] : undefined;
  const label = entry === undefined ? kind : `${kind}[${typeof entry.name === "string" ? entry.name : String(index)}]`;
  return [label, ...rest.map(String)].join(".");
}
