import { executionTimeline } from "./execution-timeline.ts";
import { overview } from "./overview.ts";

export const studioRouter = { overview, executionTimeline };
