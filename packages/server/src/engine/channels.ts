/** NOTIFY channel announcing that an execution became claimable (enqueued, retried, woken). */
export const executionsChannel = "weft_executions";

/** NOTIFY channel carrying the id of an execution whose cancellation was requested. */
export const cancellationsChannel = "weft_cancellations";
