/**
 * The execution state machine: the only writer of `executions.status`. States and the transition
 * table are in `execution-states.ts`; the statements that take them are here (the ends of
 * attempts in `attempt-transitions.ts`, one statement for a batch of ends by one transition).
 */
export {
  type AttemptClose,
  type AttemptEnd,
  type BatchedTransition,
  cancel,
  cancelledError,
  type EndingTransition,
  endAttempts,
  expiredError,
  fail,
  type Lease,
  requestCancel,
  sleep,
  succeed,
  type TransitionOutcome,
} from "./attempt-transitions.ts";
export { type ClaimedExecution, type ClaimRequest, claim, claimExpired, limitedGroupsPerClaim } from "./claim.ts";
export type { EndStatementPart, EndStatementParts } from "./end-statement-parts.ts";
export * from "./execution-states.ts";
export {
  recordStep,
  recordSteps,
  type StepRecord,
  type StepRecorded,
  type StepToRecord,
  stepSpanOf,
} from "./record-step.ts";
export { endOrphanedLeases, renewLeases } from "./renew-leases.ts";
export type { SpanRow, SpanStatus } from "./span-writes.ts";
export {
  createToken,
  expireTokens,
  type NewToken,
  resumeWaiting,
  type TokenCreated,
  type TokenRow,
  type WaitOutcome,
  wait,
} from "./wait-transitions.ts";
