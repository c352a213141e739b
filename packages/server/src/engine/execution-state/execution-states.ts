import { executionStatuses, finalExecutionStatuses } from "@weft/contract";

/**
 * Every state an execution can be in (the contract's list, so the API, Studio and the engine name
 * the same ones), and the transitions between them. A new state is one more entry there and in the
 * table; the SQL of each transition reads its allowed states from the table (see
 * `transition-condition.ts`), so nothing else names them.
 */
export const executionStates = executionStatuses;
export type ExecutionState = (typeof executionStates)[number];

/** The state an execution is inserted in. */
export const initialState = "queued" satisfies ExecutionState;

/** States an execution never leaves. */
export const finalStates = finalExecutionStatuses;

/**
 * The state held under a worker's lease. A transition out of it is taken only by the worker that
 * holds the lease, except `expireLease`, which is how another worker takes over a dead one's.
 */
export const leasedState = "running" satisfies ExecutionState;

interface Transition {
  from: readonly ExecutionState[];
  to: ExecutionState;
}

/**
 * What each transition does. `claim`, `wake` and `expireLease` are taken together by one claim
 * statement (one round trip per claim pass): each row it leases takes the one its state allows.
 */
export const transitions = {
  /** A worker leases a queued execution whose `run_at` has come. */
  claim: { from: ["queued"], to: "running" },
  /**
   * A worker leases a sleeping execution whose wake-up time has come, or a waiting one whose token
   * was completed or timed out; it continues the same attempt.
   */
  wake: { from: ["sleeping", "waiting"], to: "running" },
  /** A worker takes over an execution whose lease another worker let lapse (it died). */
  expireLease: { from: ["running"], to: "running" },
  /**
   * A new execution is written already leased to the worker of the process that accepts it, as a
   * claim would have leased it at once (on the embedded database, where ingress and the only worker
   * share one process; see `local-start.ts`): from the state it would have been written in.
   */
  startLocally: { from: [initialState], to: "running" },
  /** A completed step is stored; the execution keeps running. */
  recordStep: { from: ["running"], to: "running" },
  /** A durable sleep: the lease is released until the wake-up time. */
  sleep: { from: ["running"], to: "sleeping" },
  /** Waiting for a wait token: the lease is released until the token is completed or times out. */
  wait: { from: ["running"], to: "waiting" },
  /** A failed attempt with attempts left: queued again after the retry delay, one attempt further. */
  retry: { from: ["running"], to: "queued" },
  /** Handed back to the queue without using up an attempt (shutdown, the worker killed the process). */
  requeue: { from: ["running"], to: "queued" },
  succeed: { from: ["running"], to: "succeeded" },
  fail: { from: ["running"], to: "failed" },
  /** A running execution is cancelled by its worker (at a step boundary); others by the API at once. */
  cancel: { from: ["queued", "sleeping", "waiting", "running"], to: "cancelled" },
  /**
   * A run claimed after its expiry (`ttl`) ends instead of starting: the claim leased it like any
   * other, and its worker ends it at once, before any of its code runs (as it does a requested cancel).
   */
  expire: { from: ["running"], to: "expired" },
} as const satisfies Record<string, Transition>;

export type TransitionName = keyof typeof transitions;

type StateInTheTable =
  | (typeof transitions)[TransitionName]["from"][number]
  | (typeof transitions)[TransitionName]["to"];
/**
 * Fails to compile when a state of the contract's list is in no transition of the table, so a state
 * added there cannot be left without a way in or out.
 */
true satisfies [Exclude<ExecutionState, StateInTheTable>] extends [never] ? true : never;
/** The transitions into a final state: their statement also meters and counts the execution. */
export type FinalTransition = {
  [Name in TransitionName]: (typeof transitions)[Name]["to"] extends (typeof finalStates)[number] ? Name : never;
}[TransitionName];
export const transitionNames = Object.keys(transitions) as TransitionName[];

/** The transitions a claim statement takes. */
export const claimTransitions = ["claim", "wake", "expireLease"] as const satisfies readonly TransitionName[];
export type ClaimTransition = (typeof claimTransitions)[number];
/** The transitions that lease an execution to a worker for an attempt: a claim's, or a local start. */
export type LeasingTransition = ClaimTransition | "startLocally";

export function isAllowed(transition: TransitionName, from: ExecutionState): boolean {
  return (transitions[transition].from as readonly ExecutionState[]).includes(from);
}

export function isFinal(state: ExecutionState): boolean {
  return (finalStates as readonly ExecutionState[]).includes(state);
}

/** The claim transition a row in `from` took; `expireLease` and `wake` continue an attempt. */
export function claimTransitionFrom(from: ExecutionState): ClaimTransition {
  const taken = claimTransitions.find((transition) => isAllowed(transition, from));
  if (taken === undefined) throw new Error(`no claim transition leaves ${from}`);
  return taken;
}
