import { type Duration, durationToMs } from "@weft/contract";
import type { WorkflowOptions } from "./definitions.ts";

type FlowControlOptions = Pick<
  WorkflowOptions<unknown, unknown>,
  "concurrency" | "throttle" | "rateLimit" | "debounce" | "priority"
>;

/** A period that does not parse, reported at the field that holds it rather than thrown. */
export interface PeriodIssue {
  /** Below the workflow's entry, such as `throttle.period`. */
  field: string;
  message: string;
}

/**
 * A workflow's flow control as the manifest carries it: `concurrency` split into its limit and
 * `concurrencyKey`, periods in milliseconds. A period that does not parse is left out of the
 * manifest and reported in `issues`, naming its field.
 */
export function flowControlManifest(definition: FlowControlOptions): {
  fields: Record<string, unknown>;
  issues: PeriodIssue[];
} {
  const issues: PeriodIssue[] = [];
  const periodMs = (field: string, period: Duration): number | undefined => {
    try {
      return durationToMs(period);
    } catch (error) {
      issues.push({ field, message: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  };
  const fields: Record<string, unknown> = {};
  const { concurrency } = definition;
  if (typeof concurrency === "object" && concurrency !== null) {
    fields.concurrency = concurrency.limit;
    if (concurrency.key !== undefined) fields.concurrencyKey = concurrency.key;
  } else if (concurrency !== undefined) {
    fields.concurrency = concurrency;
  }
  for (const name of ["throttle", "rateLimit"] as const) {
    const rate = definition[name];
    if (rate === undefined) continue;
    const ms = periodMs(`${name}.period`, rate.period);
    fields[name] = { limit: rate.limit, periodMs: ms ?? 1, ...(rate.key === undefined ? {} : { key: rate.key }) };
  }
  if (definition.debounce !== undefined) {
    const ms = periodMs("debounce.period", definition.debounce.period);
    fields.debounce = {
      periodMs: ms ?? 1,
      ...(definition.debounce.key === undefined ? {} : { key: definition.debounce.key }),
    };
  }
  if (definition.priority !== undefined) fields.priority = definition.priority;
  return { fields, issues };
}
