import type { ExecutionError } from "../../db/schema/index.ts";
import { sqlStateOf } from "../../db/sql-state.ts";
import { checkStorableJson, describeUnstorable } from "../../shared/storable-json.ts";
import { createToken, type Lease, type NewToken, type WaitOutcome, wait } from "../execution-state/index.ts";
import type { ChildMessage, TokenAnswer } from "../sandbox/protocol.ts";
import { replayedToken, tokenResultOf } from "../stored-tokens.ts";
import { checkLogs, checkStepName, storageBudgetError } from "../stored-values.ts";
import { newSpanId } from "../trace-ids.ts";
import { newTokenNonce, type TokenIssuer, tokenHashOf, tokenIdOf } from "../wait-token-ids.ts";
import { requestAllowed } from "./request-allowed.ts";
import { type AttemptContext, abandon, type RunningAttempt } from "./running-attempt.ts";

type TokenMessage = Extract<ChildMessage, { type: "token" }>;

/** A name or logs the limits refuse: `createToken`/`waitForToken` throws it in the workflow. */
function refusalOf(storedBytes: number, message: TokenMessage): ExecutionError | undefined {
  const name = checkStepName(message.name);
  if (!name.ok) return name.error;
  // The child checks these too; a forged message is refused here before PostgreSQL sees it.
  const details = checkStorableJson(message.details ?? null);
  if (!details.ok) return { name: "UnstorableValueError", message: `the token's ${describeUnstorable(details)}` };
  if (!message.wait) return undefined;
  const logs = checkLogs(message.logs);
  if (!logs.ok) return logs.error;
  return storageBudgetError(storedBytes, logs.bytes, "the attempt's logs");
}

function newToken(message: TokenMessage, issuer: TokenIssuer, now: Date): NewToken {
  const nonce = newTokenNonce();
  return {
    name: message.name,
    nonce,
    tokenHash: tokenHashOf(tokenIdOf(issuer.key, nonce)),
    spanId: newSpanId(),
    now,
    expiresAt: new Date(now.getTime() + message.timeoutMs),
    details: message.details ?? {},
  };
}

/**
 * Creates a token, or waits for one. A wait whose token is still pending ends the attempt (the
 * execution lets go of its worker until the token ends); one whose token has already ended answers
 * its result at once. A cancel requested meanwhile is honoured here, as at a step.
 */
export async function onToken(
  context: AttemptContext,
  run: RunningAttempt,
  message: TokenMessage,
): Promise<TokenAnswer> {
  const issuer = context.tokens;
  const stopped = requestAllowed(context, run, () => refusalOf(run.storedBytes, message));
  if (stopped !== undefined) return stopped;
  const lease: Lease = { executionId: run.execution.id, workerId: context.workerId };
  const now = context.clock.now();
  const token = newToken(message, issuer, now);
  if (!message.wait) {
    try {
      const created = await createToken(context.db, lease, token);
      if (created.outcome === "refused") {
        abandon(context, run);
        return { stop: "abandoned" };
      }
      const { id, url } = replayedToken(issuer, created.token);
      return { token: { id, url } };
    } catch (error) {
      return { error: storageError(context, run, error, "wait token") };
    }
  }
  // Held while the wait is decided, so that neither a deadline nor the worker's stop ends the attempt meanwhile.
  run.done = true;
  const deciding = wait(
    context.db,
    lease,
    {
      now,
      attemptSpanId: run.attemptSpanId,
      attemptStatus: { code: "ok", message: `waiting (${message.name})` },
      logs: message.logs,
      stepSpans: run.stepSpans,
    },
    token,
  );
  return decidedWait(context, run, deciding, issuer, "wait token");
}

/**
 * What the child hears of a wait being decided (`deciding`, while `run.done` holds the attempt): the
 * worker let go when it waits, abandoned when the lease was lost, or the token's result when it had
 * already ended. `what` names the wait in the log and the error.
 */
export async function decidedWait(
  context: AttemptContext,
  run: RunningAttempt,
  deciding: Promise<WaitOutcome>,
  issuer: TokenIssuer,
  what: string,
): Promise<TokenAnswer> {
  const settled: Promise<void> = deciding.then(noop, noop).finally(() => context.finishing.delete(settled));
  context.finishing.add(settled);
  try {
    const outcome = await deciding;
    if (outcome.outcome === "refused") {
      abandon(context, run);
      return { stop: "abandoned" };
    }
    if (outcome.outcome === "waiting") {
      context.fallsDue(run.execution.accountId, new Date(outcome.token.expires_at));
      context.release(run.execution.id, false);
      return { stop: "waiting" };
    }
    run.done = false;
    const { id, url } = replayedToken(issuer, outcome.token);
    return { token: { id, url }, result: tokenResultOf(outcome.token) };
  } catch (error) {
    run.done = false;
    return { error: storageError(context, run, error, what) };
  }
}

function noop(): void {}

function storageError(context: AttemptContext, run: RunningAttempt, error: unknown, what: string): ExecutionError {
  const sqlState = sqlStateOf(error);
  context.logger.error({ executionId: run.execution.id, sqlState }, `could not store a ${what}`);
  return {
    name: "StorageError",
    message: `the ${what} could not be stored${sqlState === undefined ? "" : ` (SQLSTATE ${sqlState})`}`,
  };
}
