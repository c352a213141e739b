import { type ExecutionStatusValue, executionStatusSchema } from "@weft/contract";
import { UsageError } from "./errors.ts";

/** A value that must be one of `choices` (an enum of the contract); otherwise `problem`, and the choices. */
export function parseChoice<T extends string>(value: string, choices: readonly T[], problem: string): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(problem, { fix: `use one of ${choices.join(", ")}` });
  }
  return value as T;
}

/** `--status` of the executions and traces lists. */
export function parseExecutionStatus(value: string | undefined): ExecutionStatusValue | undefined {
  if (value === undefined) return undefined;
  return parseChoice(value, executionStatusSchema.options, `--status ${value} is not an execution status`);
}
