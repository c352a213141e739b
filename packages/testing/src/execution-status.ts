import { callRpc } from "./rpc-calls.ts";

/**
 * Reads the execution through `workflows.getExecution` as the holder of `token` until its status
 * is one of `statuses`, and answers it as read then; throws, with the execution as last read, when
 * it has not got there within 20 s.
 */
export async function untilExecutionStatus<T extends { status: string }>(
  weftUrl: string,
  token: string,
  executionId: string,
  statuses: readonly string[],
): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await callRpc(weftUrl, "workflows.getExecution", { executionId }, { token })).json as T;
    if (statuses.includes(found.status)) return found;
    if (Date.now() > deadline) throw new Error(`execution did not reach ${statuses}: ${JSON.stringify(found)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
