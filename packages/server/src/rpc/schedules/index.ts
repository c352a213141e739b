import { list } from "./list.ts";
import { pause } from "./pause.ts";
import { resume } from "./resume.ts";
import { runNow } from "./run-now.ts";

/** The `schedules` namespace: one file per procedure. */
export const schedulesRouter = { list, pause, resume, runNow };
