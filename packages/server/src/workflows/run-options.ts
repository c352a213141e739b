import { maxRunDelayMs, maxRunTtlMs, minRunTtlMs, runDurationMs } from "@weft/contract";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";

/** A run's `delay` and `ttl` as given (the contract checked their form and the tags). */
export interface RunOptionsInput {
  delay?: number | string | undefined;
  ttl?: number | string | undefined;
}

/** `delay` and `ttl` in milliseconds, or a refusal naming the one out of range. */
export function checkRunOptions(options: RunOptionsInput): ServiceResult<{ delayMs?: number; ttlMs?: number }> {
  const checked: { delayMs?: number; ttlMs?: number } = {};
  if (options.delay !== undefined) {
    const delay = runDurationMs(options.delay, { min: 0, max: maxRunDelayMs });
    if (!delay.ok) return fail.invalid("the delay is out of range", [{ path: "delay", message: delay.message }]);
    checked.delayMs = delay.ms;
  }
  if (options.ttl !== undefined) {
    const ttl = runDurationMs(options.ttl, { min: minRunTtlMs, max: maxRunTtlMs });
    if (!ttl.ok) return fail.invalid("the ttl is out of range", [{ path: "ttl", message: ttl.message }]);
    checked.ttlMs = ttl.ms;
  }
  return ok(checked);
}
