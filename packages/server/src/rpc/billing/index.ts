import { getPlan } from "./get-plan.ts";
import { getUsage } from "./get-usage.ts";
import { listStatements } from "./list-statements.ts";

export const billingRouter = { getPlan, getUsage, listStatements };
