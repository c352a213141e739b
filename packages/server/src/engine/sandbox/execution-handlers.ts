import type { ChildMessage, ChildStartedAnswer, EventSentAnswer, SerializedError, TokenAnswer } from "./protocol.ts";

type StepMessage = Extract<ChildMessage, { type: "step" }>;

/** What a worker does with the messages of one execution running in a sandbox. */
export interface ExecutionHandlers {
  /**
   * Store (or record) a step; the answer tells the child whether the execution goes on, or that
   * the step failed after all (`error`: a limit, or the database refused it).
   */
  step(message: StepMessage): Promise<{ stop?: "cancelled" | "abandoned" | undefined; error?: SerializedError }>;
  sleep(message: Extract<ChildMessage, { type: "sleep" }>): void;
  /** Create a wait token or wait for one; `stop: "waiting"` means the execution left this child. */
  token(message: Extract<ChildMessage, { type: "token" }>): Promise<TokenAnswer>;
  /** Wait for an event (answered as a token wait); `stop: "waiting"` means the execution left this child. */
  eventWait(message: Extract<ChildMessage, { type: "eventWait" }>): Promise<TokenAnswer>;
  /** Send an event for `ctx.sendEvent`. */
  sendEvent(message: Extract<ChildMessage, { type: "sendEvent" }>): Promise<EventSentAnswer>;
  /** Start a child execution for `ctx.invoke` or `ctx.start`. */
  startChild(message: Extract<ChildMessage, { type: "startChild" }>): Promise<ChildStartedAnswer>;
  /** Start the children of `ctx.invokeMany`. */
  startChildren(message: Extract<ChildMessage, { type: "startChildren" }>): Promise<ChildStartedAnswer>;
  finished(message: Extract<ChildMessage, { type: "finished" }>): void;
  /** The child sent a malformed message naming this execution, which the child no longer runs. */
  malformed(error: SerializedError): void;
  /**
   * The child died with this execution in flight; `killedByParent` when the worker terminated it
   * (not for the memory cap or a malformed message: those fail the attempt with `error`).
   */
  exited(info: { error: SerializedError; killedByParent: boolean }): void;
}
