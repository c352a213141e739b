import { approvals } from "./approvals.ts";
import { executionTimeline } from "./execution-timeline.ts";
import { overview } from "./overview.ts";

export const studioRouter = { overview, executionTimeline, approvals };
