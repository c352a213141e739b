import { type ExecutionStatusValue, executionStatusSchema } from "@weft/contract";
import { UsageError } from "./errors.ts";

/**
 * A value that must be one of `choices` (an enum of the contract); otherwise a usage error of
 * `problem` and the choices. An option not given stays undefined.
 */
export function parseChoice<T extends string>(value: string, choices: readonly T[], problem: string): T;
export function parseChoice<T extends string>(
  value: string | undefined,
  choices: readonly T[],
  problem: string,
): T | undefined;
export function parseChoice<T extends string>(
  value: string | undefined,
  choices: readonly T[],
  problem: string,
): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(problem, { fix: `use one of ${choices.join(", ")}` });
  }
  return value as T;
}

/** `--status` of the executions and traces lists. */
export function parseExecutionStatus(value: string | undefined): ExecutionStatusValue | undefined {
  return parseChoice(value, executionStatusSchema.options, `--status ${value} is not an execution status`);
}
