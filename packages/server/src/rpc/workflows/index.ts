import { answerToken } from "./answer-token.ts";
import { cancelExecution } from "./cancel-execution.ts";
import { completeToken } from "./complete-token.ts";
import { get } from "./get.ts";
import { getExecution } from "./get-execution.ts";
import { list } from "./list.ts";
import { listEvents } from "./list-events.ts";
import { listExecutions } from "./list-executions.ts";
import { rerunExecution } from "./rerun-execution.ts";
import { run } from "./run.ts";
import { runMany } from "./run-many.ts";

/** The `workflows` namespace: one file per procedure. */
export const workflowsRouter = {
  list,
  get,
  run,
  runMany,
  listExecutions,
  getExecution,
  cancelExecution,
  rerunExecution,
  completeToken,
  answerToken,
  listEvents,
};
