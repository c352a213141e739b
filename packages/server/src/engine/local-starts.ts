import type { ClaimedExecution } from "./execution-state/claim.ts";

/**
 * A slot of this process's worker, held for one new execution that ingress is about to write. The
 * row is written already leased to the worker, with its attempt span, as the claim would have left
 * it (the `startLocally` transition): on the embedded database, where ingress and the only worker
 * share one process, a claim found nothing but that row, and cost a statement per execution.
 */
export interface LocalStart {
  workerId: string;
  /** The instant the lease and the attempt's time limit start from, as a claim's would. */
  now: Date;
  leaseExpiresAt: Date;
  /** The account that pays for the project's workspace, below its share of the worker's slots. */
  accountId: string;
  /** The leased row is committed: the worker runs it. Never throws, since the row cannot be written again. */
  begin(execution: ClaimedExecution): void;
  /** Nothing was committed: the slot is free again. */
  cancel(): void;
}

/**
 * A new execution written leased to this process's worker by its caller's transaction: once that
 * commits, `slot.begin(execution)` hands it to the worker; if it does not, `slot.cancel()`.
 */
export interface LocallyStarted {
  slot: LocalStart;
  execution: ClaimedExecution;
}

export interface LocalStarts {
  /**
   * A slot for an execution of `projectId`'s workflow without a concurrency limit, when the worker
   * would claim it at once: a slot is free, the account that pays for its workspace is below its
   * share, and as far as the worker knows no older execution it could run is waiting. Otherwise
   * `undefined`, and the execution is queued for a claim.
   */
  reserve(projectId: string): LocalStart | undefined;
}
