import { z } from "zod";
import { jsonPathSchema } from "./json-path.ts";

/**
 * A workflow's flow control as its manifest carries it: the keys are JSON paths into the input,
 * the periods milliseconds. `weft.config.ts` writes periods as durations ("10s") and
 * `concurrency` as a number or `{ limit, key }`; the SDK turns them into this.
 */

export const flowControlLimits = {
  /** The most executions of one key a `concurrency` limit lets run at once. */
  concurrency: 1000,
  /** The most starts per period of `throttle` and `rateLimit`. */
  starts: 10_000,
  /** The longest period of `throttle`, `rateLimit` and `debounce`: 7 days. */
  periodMs: 7 * 24 * 60 * 60 * 1000,
  /** Priorities are whole numbers from -1000 to 1000; higher runs first. */
  priority: 1000,
} as const;

const periodMsSchema = z.int().min(1).max(flowControlLimits.periodMs);

/** `throttle` and `rateLimit`: at most `limit` starts per `periodMs`, counted per value of `key`. */
export const startRateSchema = z.strictObject({
  limit: z.int().min(1).max(flowControlLimits.starts),
  periodMs: periodMsSchema,
  key: jsonPathSchema.optional(),
});
export type StartRate = z.infer<typeof startRateSchema>;

/** `debounce`: a burst of triggers with the same `key` starts one execution, `periodMs` after the last. */
export const debounceSchema = z.strictObject({
  periodMs: periodMsSchema,
  key: jsonPathSchema.optional(),
});
export type Debounce = z.infer<typeof debounceSchema>;

/** `priority`: a number, or a JSON path to a number in the input. */
export const prioritySchema = z.union([
  z.int().min(-flowControlLimits.priority).max(flowControlLimits.priority),
  jsonPathSchema,
]);

/** The flow-control fields of a workflow's manifest (spread into `workflowManifestSchema`). */
export const flowControlFields = {
  /** With `concurrency`: the limit holds per distinct value at this path of the input. */
  concurrencyKey: jsonPathSchema.optional(),
  throttle: startRateSchema.optional(),
  rateLimit: startRateSchema.optional(),
  debounce: debounceSchema.optional(),
  priority: prioritySchema.optional(),
};
