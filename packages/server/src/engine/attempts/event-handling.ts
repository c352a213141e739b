import { createHash } from "node:crypto";
import { eventNameSchema, isJsonPath, jsonPathMessage, parseJsonPath } from "@weft/contract";
import type { ExecutionError } from "../../db/schema/index.ts";
import { sqlStateOf } from "../../db/sql-state.ts";
import { type EventWaitToken, waitForEvent } from "../execution-state/event-wait-transitions.ts";
import type { Lease } from "../execution-state/index.ts";
import type { ChildMessage, EventSentAnswer, TokenAnswer } from "../sandbox/protocol.ts";
import { checkLogs, checkStepName, storageBudgetError } from "../stored-values.ts";
import { newSpanId } from "../trace-ids.ts";
import { newTokenNonce, tokenHashOf, tokenIdOf } from "../wait-token-ids.ts";
import { requestAllowed } from "./request-allowed.ts";
import type { AttemptContext, RunningAttempt } from "./running-attempt.ts";
import { decidedWait } from "./token-handling.ts";

type EventWaitMessage = Extract<ChildMessage, { type: "eventWait" }>;
type SendEventMessage = Extract<ChildMessage, { type: "sendEvent" }>;

const refused = (message: string): ExecutionError => ({ name: "EventWaitError", message });

/** Bytes of `match.equals` as JSON. */
const maxMatchValueBytes = 512;

/** A name, event name, match path or logs the limits refuse: `waitForEvent` throws it in the workflow. */
function waitRefusal(storedBytes: number, message: EventWaitMessage): ExecutionError | undefined {
  const name = checkStepName(message.name);
  if (!name.ok) return name.error;
  const eventName = eventNameSchema.safeParse(message.event.name);
  if (!eventName.success) return refused(`the event name ${eventName.error.issues[0]?.message ?? "is invalid"}`);
  if (message.event.match !== undefined && !isJsonPath(message.event.match.path)) {
    return refused(`match.path ${jsonPathMessage}`);
  }
  // The value is a key of the waits' index, whose entries PostgreSQL bounds at about 2.7 kB.
  const equalsBytes = Buffer.byteLength(JSON.stringify(message.event.match?.equals ?? null));
  if (equalsBytes > maxMatchValueBytes) {
    return refused(`match.equals is ${equalsBytes} bytes as JSON; the limit is ${maxMatchValueBytes}`);
  }
  const logs = checkLogs(message.logs);
  if (!logs.ok) return logs.error;
  return storageBudgetError(storedBytes, logs.bytes, "the attempt's logs");
}

/**
 * `ctx.waitForEvent`: stores the wait and ends the attempt (the execution lets go of its worker
 * until a send completes the wait or it times out), or answers at once a wait that has already
 * ended (a replay). A cancel requested meanwhile is honoured here, as at a step.
 */
export async function onEventWait(
  context: AttemptContext,
  run: RunningAttempt,
  message: EventWaitMessage,
): Promise<TokenAnswer> {
  const stopped = requestAllowed(context, run, () => waitRefusal(run.storedBytes, message));
  if (stopped !== undefined) return stopped;
  const lease: Lease = { executionId: run.execution.id, workerId: context.workerId };
  const now = context.clock.now();
  const nonce = newTokenNonce();
  const token: EventWaitToken = {
    name: message.name,
    nonce,
    tokenHash: tokenHashOf(tokenIdOf(context.tokens.key, nonce)),
    spanId: newSpanId(),
    now,
    expiresAt: new Date(now.getTime() + message.timeoutMs),
  };
  const match = message.event.match;
  run.done = true;
  const deciding = waitForEvent(
    context.db,
    lease,
    {
      now,
      attemptSpanId: run.attemptSpanId,
      attemptStatus: { code: "ok", message: `waiting for ${message.event.name} (${message.name})` },
      logs: message.logs,
      stepSpans: run.stepSpans,
    },
    token,
    {
      name: message.event.name,
      matchPath: match === undefined ? [] : (parseJsonPath(match.path) ?? []),
      matchValue: match === undefined ? null : match.equals,
    },
  );
  return decidedWait(context, run, deciding, context.tokens, "event wait");
}

/**
 * The idempotency id of a workflow's send without one: one per execution and step name, so that a
 * send the step could not store before a crash is answered, not repeated, when the step runs again.
 */
function defaultEventId(executionId: string, step: string): string {
  return `${executionId}:${createHash("sha256").update(step).digest("base64url")}`;
}

/**
 * `ctx.sendEvent`: sends the event as `events.send` does (`context.sendEvent`), the executions it
 * starts passing the plan's quota and one deeper than the sender: a workflow that sends the event it
 * is started by would otherwise multiply without bound, and on a plan without a quota it stops at
 * `maxExecutionDepth`. Not the backlog's refusal, since the sender is already running.
 */
export async function onSendEvent(
  context: AttemptContext,
  run: RunningAttempt,
  message: SendEventMessage,
): Promise<EventSentAnswer> {
  if (run.done) return { stop: "abandoned" };
  const send = context.sendEvent;
  if (send === undefined) return { error: { name: "EventSendError", message: "this worker cannot send events" } };
  try {
    const sent = await send(
      {
        projectId: run.execution.projectId,
        name: message.event.name,
        data: message.event.data,
        id: message.event.id ?? defaultEventId(run.execution.id, message.step),
        defaultId: message.event.id === undefined,
        senderExecutionId: run.execution.id,
        senderDepth: run.execution.depth,
      },
      context.spanExport,
    );
    if (!sent.ok) return { error: { name: "EventSendError", message: sent.message } };
    return { sent: { eventId: sent.eventId, executions: sent.executions } };
  } catch (error) {
    const sqlState = sqlStateOf(error);
    context.logger.error({ executionId: run.execution.id, sqlState }, "could not send an event");
    return { error: { name: "StorageError", message: "the event could not be sent" } };
  }
}
