import { z } from "zod";
import { type Duration, durationToMs } from "./duration.ts";

/** At most this many tags on a run, each at most `maxRunTagLength` characters of `[A-Za-z0-9_.:/=-]`. */
export const maxRunTags = 10;
export const maxRunTagLength = 64;
/** The longest `delay` of a run: a year, as the longest sleep. */
export const maxRunDelayMs = 365 * 24 * 60 * 60 * 1000;
/** The longest `ttl` of a run, and the shortest: a queued run can be claimed within a second. */
export const maxRunTtlMs = 30 * 24 * 60 * 60 * 1000;
export const minRunTtlMs = 1000;
/** The most executions one `workflows.runMany` starts. */
export const maxRunManyInputs = 1000;

export const runTagSchema = z
  .string()
  .min(1)
  .max(maxRunTagLength)
  .regex(/^[A-Za-z0-9_.:/=-]+$/, "a tag holds only letters, digits and _ . : / = -");
export const runTagsSchema = z.array(runTagSchema).max(maxRunTags);

/** Milliseconds, or a string such as "90s", "5m", "1h", "2d". */
export const runDurationSchema = z.union([
  z.int().min(0),
  z.string().regex(/^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/, 'a duration is milliseconds or a string like "5m"'),
]);

/** A run's duration in milliseconds, or the message naming why it is out of range. */
export function runDurationMs(
  duration: number | string,
  range: { min: number; max: number },
): { ok: true; ms: number } | { ok: false; message: string } {
  let ms: number;
  try {
    ms = durationToMs(duration as Duration);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  if (ms < range.min || ms > range.max) {
    return { ok: false, message: `must be between ${range.min} ms and ${range.max} ms; it is ${ms} ms` };
  }
  return { ok: true, ms };
}

/** What `ctx.start` and `ctx.invoke` (and `workflows.run`) take beside the input. */
export const runOptionsSchema = z
  .object({
    delay: runDurationSchema.optional(),
    ttl: runDurationSchema.optional(),
    tags: runTagsSchema.optional(),
  })
  .strict();
export type RunOptions = z.infer<typeof runOptionsSchema>;
