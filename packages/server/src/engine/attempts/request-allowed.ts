import type { ExecutionError } from "../../db/schema/index.ts";
import { cancelAttempt } from "./attempt-ending.ts";
import type { AttemptContext, RunningAttempt } from "./running-attempt.ts";

/**
 * What every request of the child's that goes on with the execution asks first: the run still this
 * worker's, the request within the limits (`refusal`, which names what they refuse), and no cancel
 * requested (honoured here, as at a step). The answer that ends the request, or undefined.
 */
export function requestAllowed(
  context: AttemptContext,
  run: RunningAttempt,
  refusal: () => ExecutionError | undefined,
): { stop: "abandoned" | "cancelled" } | { error: ExecutionError } | undefined {
  if (run.done) return { stop: "abandoned" };
  const refused = refusal();
  if (refused !== undefined) return { error: refused };
  if (run.cancelRequested) return cancelAttempt(context, run);
  return undefined;
}
