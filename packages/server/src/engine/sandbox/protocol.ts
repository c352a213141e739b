import { hasControlCharacter } from "@weft/contract";
import { z } from "zod";
import {
  maxSleepMs,
  maxStepNameLength,
  maxTokenDescriptionLength,
  maxTokenFieldLabelLength,
  maxTokenFields,
  maxTokenFieldValueLength,
  maxTokenTimeoutMs,
  maxTokenTitleLength,
} from "../limits.ts";

/**
 * Messages between a worker (parent) and a sandbox child process running one deployment's bundle.
 * The parent owns the database: the child asks it to store each step result, and waits for the
 * answer before anything the workflow does reaches outside the sandbox (a small step's result is
 * returned before it, see `storeBehind` in child-runtime.ts). `child-runtime.ts` repeats these shapes because it may import
 * nothing outside its own file (the child can read only its bundle and its runtime).
 *
 * User code can call `process.send` itself, so what the child sends is parsed here like any
 * untrusted input: `childMessageSchema` checks the shapes; sizes and storable strings of the values
 * are checked by `stored-values.ts` before anything reaches the database.
 */

export interface SerializedError {
  name: string;
  message: string;
  stack?: string | undefined;
}

export interface StoredStepForReplay {
  kind: "step" | "sleep";
  result: { value?: unknown };
}

/** How a wait token ended, as `ctx.waitForToken` returns it. */
export type TokenResult = { ok: true; data: unknown } | { ok: false; reason: "timeout" };

/** A wait token the execution created before, for replay: its address and, once it ended, its result. */
export interface StoredTokenForReplay {
  id: string;
  url: string;
  result?: TokenResult | undefined;
}

/** The decrypted values of one integration, as `ctx.integrations.<name>` gives them (an `http` one gains `fetch`). */
export type IntegrationValues =
  | { kind: "secret"; value: string }
  | { kind: "http"; baseUrl: string; headers: Record<string, string> }
  | { kind: "smtp"; host: string; port: number; user: string; password: string };

export type ParentMessage =
  | {
      type: "run";
      executionId: string;
      workflow: string;
      input: unknown;
      attempt: number;
      steps: Record<string, StoredStepForReplay>;
      tokens: Record<string, StoredTokenForReplay>;
      /** The project's integrations, read when the attempt started; only ever sent over this channel. */
      integrations: Record<string, IntegrationValues>;
    }
  | {
      type: "stepStored";
      executionId: string;
      sequence: number;
      stop?: "cancelled" | "abandoned" | undefined;
      /** The worker refused the step (a limit, or the database): `ctx.step` throws this. */
      error?: SerializedError | undefined;
    }
  | {
      type: "tokenAnswer";
      executionId: string;
      sequence: number;
      token?: { id: string; url: string } | undefined;
      /** Only for a wait whose token has already ended: the execution goes on at once. */
      result?: TokenResult | undefined;
      /** `waiting`: the execution now waits for the token and lets go of its worker. */
      stop?: "cancelled" | "abandoned" | "waiting" | undefined;
      error?: SerializedError | undefined;
    }
  | {
      type: "eventSent";
      executionId: string;
      sequence: number;
      /** What `ctx.sendEvent` returns, which the step it runs in stores. */
      sent?: { eventId: string; executions: { workflow: string; executionId: string }[] } | undefined;
      stop?: "cancelled" | "abandoned" | undefined;
      error?: SerializedError | undefined;
    }
  | {
      type: "childStarted";
      executionId: string;
      sequence: number;
      /** The child execution `ctx.invoke` or `ctx.start` started (or had started before this attempt). */
      childExecutionId?: string | undefined;
      /** Those `ctx.invokeMany` started, in the order of its inputs. */
      childExecutionIds?: string[] | undefined;
      stop?: "cancelled" | "abandoned" | undefined;
      error?: SerializedError | undefined;
    }
  | { type: "abandon"; executionId: string }
  /** The worker heard of a cancel: the child goes ahead of no more of the execution's steps. */
  | { type: "cancelRequested"; executionId: string };

/** The answer to `ctx.invoke`'s or `ctx.start`'s start of a child, before the pool addresses it. */
export type ChildStartedAnswer = Omit<
  Extract<ParentMessage, { type: "childStarted" }>,
  "type" | "executionId" | "sequence"
>;

/** The answer to `ctx.createToken` or `ctx.waitForToken`, before the pool addresses it. */
export type TokenAnswer = Omit<Extract<ParentMessage, { type: "tokenAnswer" }>, "type" | "executionId" | "sequence">;

/** The answer to `ctx.sendEvent`, before the pool addresses it. */
export type EventSentAnswer = Omit<Extract<ParentMessage, { type: "eventSent" }>, "type" | "executionId" | "sequence">;

/** A wait token's title, field label or value: text without control characters. */
const oneLine = z.string().refine((text) => !hasControlCharacter(text));

/** Long enough for any id the platform issues; a longer one is not ours. */
const executionIdSchema = z.string().min(1).max(100);

const serializedErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  stack: z.string().optional(),
});

const logEntrySchema = z.object({
  at: z.string().max(40),
  level: z.enum(["debug", "info", "warn", "error"]),
  message: z.string(),
  fields: z.record(z.string(), z.unknown()).optional(),
});

const outcomeSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), result: z.object({ value: z.unknown().optional() }) }),
  z.object({ ok: z.literal(false), error: serializedErrorSchema }),
]);

export const childMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready") }),
  z.object({ type: z.literal("loadFailed"), error: serializedErrorSchema }),
  z.object({
    type: z.literal("step"),
    executionId: executionIdSchema,
    sequence: z.int().min(1),
    name: z.string().min(1).max(maxStepNameLength),
    outcome: outcomeSchema,
    durationMs: z.number().min(0).max(maxSleepMs),
    /** When the step started, in ms from the child's receipt of the run (the worker ends it no later than its arrival). */
    startedMs: z.number().min(0).max(maxSleepMs).optional(),
    logs: z.array(logEntrySchema),
    /** The workflow went on before the answer: a refusal can no longer be thrown from `ctx.step`. */
    ahead: z.literal(true).optional(),
  }),
  z.object({
    type: z.literal("sleep"),
    executionId: executionIdSchema,
    name: z.string().min(1).max(maxStepNameLength),
    durationMs: z.int().min(0).max(maxSleepMs),
    logs: z.array(logEntrySchema),
  }),
  z.object({
    /** `ctx.createToken` (`wait: false`) or `ctx.waitForToken` (`wait: true`, with the logs so far). */
    type: z.literal("token"),
    executionId: executionIdSchema,
    sequence: z.int().min(1),
    name: z.string().min(1).max(maxStepNameLength),
    timeoutMs: z.int().min(0).max(maxTokenTimeoutMs),
    wait: z.boolean(),
    /** What the token shows its approver, and who may answer it (`TokenOptions`). */
    details: z
      .object({
        title: oneLine.max(maxTokenTitleLength).optional(),
        description: z
          .string()
          .max(maxTokenDescriptionLength)
          .refine((text) => !hasControlCharacter(text.replace(/[\t\n]/g, " ")))
          .optional(),
        fields: z
          .array(
            z.object({
              label: oneLine.max(maxTokenFieldLabelLength),
              value: oneLine.max(maxTokenFieldValueLength),
            }),
          )
          .max(maxTokenFields)
          .optional(),
        approvers: z.enum(["anyone", "members"]).optional(),
      })
      .optional(),
    logs: z.array(logEntrySchema),
  }),
  z.object({
    /** `ctx.waitForEvent`: waits, as for a token, for the first matching event sent from now on (with the logs so far). */
    type: z.literal("eventWait"),
    executionId: executionIdSchema,
    sequence: z.int().min(1),
    name: z.string().min(1).max(maxStepNameLength),
    timeoutMs: z.int().min(0).max(maxTokenTimeoutMs),
    // Checked against the contract's rules by the worker, which answers a bad one as the workflow's error.
    event: z.object({
      name: z.string().max(1000),
      match: z
        .object({
          path: z.string().max(1000),
          equals: z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]),
        })
        .optional(),
    }),
    logs: z.array(logEntrySchema),
  }),
  z.object({
    /** `ctx.sendEvent`, asked from inside the step (named `step`) that stores its answer. */
    type: z.literal("sendEvent"),
    executionId: executionIdSchema,
    sequence: z.int().min(1),
    step: z.string().min(1).max(maxStepNameLength),
    event: z.object({ name: z.string().max(1000), data: z.unknown(), id: z.string().max(1000).optional() }),
  }),
  z.object({
    /**
     * `ctx.invoke` (`wait`: the result is then waited for as a token of the same name) or `ctx.start`
     * (stored as a step of that name): starts a child execution of a workflow of the deployment.
     */
    type: z.literal("startChild"),
    executionId: executionIdSchema,
    sequence: z.int().min(1),
    name: z.string().min(1).max(maxStepNameLength),
    // Checked against the deployment's workflows and the callee's input schema by the worker.
    workflow: z.string().max(1000),
    input: z.unknown(),
    wait: z.boolean(),
    timeoutMs: z.int().min(0).max(maxTokenTimeoutMs),
    options: z.unknown().optional(),
  }),
  z.object({
    /** `ctx.invokeMany`: one child per input, and the parent's waits `<name>#<index>`, in one transaction. */
    type: z.literal("startChildren"),
    executionId: executionIdSchema,
    sequence: z.int().min(1),
    name: z
      .string()
      .min(1)
      .max(maxStepNameLength - 5),
    workflow: z.string().max(1000),
    inputs: z.array(z.unknown()).min(1).max(1000),
    timeoutMs: z.int().min(0).max(maxTokenTimeoutMs),
    options: z.unknown().optional(),
  }),
  z.object({
    type: z.literal("finished"),
    executionId: executionIdSchema,
    outcome: outcomeSchema,
    logs: z.array(logEntrySchema),
  }),
]);

export type ChildMessage = z.infer<typeof childMessageSchema>;
export type SandboxLogEntry = z.infer<typeof logEntrySchema>;

export type ParsedChildMessage =
  | { ok: true; message: ChildMessage }
  /** `executionId` when the message names one, so that only that execution's attempt fails. */
  | { ok: false; executionId: string | undefined; problem: string };

/** Parses one message from a child, never throwing. */
export function parseChildMessage(raw: unknown): ParsedChildMessage {
  const parsed = childMessageSchema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  const claimed = typeof raw === "object" && raw !== null ? (raw as { executionId?: unknown }).executionId : undefined;
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? "" : ` at ${issue.path.join(".")}`;
  return {
    ok: false,
    executionId: typeof claimed === "string" ? claimed : undefined,
    problem: `${issue?.message ?? "malformed"}${where}`,
  };
}
