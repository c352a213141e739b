import { maxUsageRangeDays, type Usage } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import type { Output } from "../output.ts";
import { runCommand } from "../run-command.ts";
import { resolveWorkspace, withWorkspaceOption } from "../workspace-option.ts";

interface UsageOptions {
  workspace?: string;
  from?: string;
  to?: string;
  by?: string;
}

const dayMs = 24 * 60 * 60 * 1000;
/** Width of the longest bar of `weft usage` on a terminal. */
const barWidth = 30;

/** A date (`2026-11-01`) or an instant, as an ISO 8601 instant; a date means the start of that UTC day. */
function instantOf(flag: string, value: string): string {
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value;
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new UsageError(`${flag} ${value} is not a date (2026-11-01) or an ISO 8601 instant`);
  return new Date(time).toISOString();
}

function bytesText(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** The table of a usage answer; on a terminal, days get a bar of their executions. */
function printUsage(output: Output, usage: Usage): void {
  const bars = output.interactive && usage.groupBy === "day";
  const most = Math.max(1, ...usage.rows.map((row) => row.executions));
  const bar = (executions: number) => "█".repeat(Math.ceil((executions / most) * barWidth));
  output.table(
    [usage.groupBy === "day" ? "DAY" : "PROJECT", "EXECUTIONS", "STEP-SECONDS", "STORED", ...(bars ? [""] : [])],
    usage.rows.map((row) => [
      (usage.groupBy === "day" ? row.day : row.projectId) ?? "-",
      String(row.executions),
      row.stepSeconds.toFixed(2),
      bytesText(row.bytes),
      ...(bars ? [bar(row.executions)] : []),
    ]),
    "No usage in this range.",
  );
  const { totals } = usage;
  output.line(
    `total: ${totals.executions} executions, ${totals.stepSeconds.toFixed(2)} step-seconds, ${bytesText(totals.bytes)} stored, ${totals.activeProjects} active project(s)`,
  );
}

export function registerUsage(program: Command): void {
  withWorkspaceOption(
    program
      .command("usage")
      .description("A workspace's metered usage, per day or per project (owners and admins)")
      .option("--from <date>", "first day (2026-11-01) or instant; default 30 days ago")
      .option("--to <date>", "last day or instant; default now")
      .option("--by <group>", "day or project", "day"),
  )
    .addHelpText("after", examples("weft usage", "weft usage --from 2026-11-01 --to 2026-11-30 --by project --json"))
    .action(
      runCommand(async (context, options: UsageOptions) => {
        const groupBy = options.by ?? "day";
        if (groupBy !== "day" && groupBy !== "project") throw new UsageError(`--by ${groupBy} is not day or project`);
        const to = options.to === undefined ? new Date().toISOString() : instantOf("--to", options.to);
        const from =
          options.from === undefined
            ? new Date(Date.parse(to) - 30 * dayMs).toISOString()
            : instantOf("--from", options.from);
        if (Date.parse(from) > Date.parse(to)) throw new UsageError("--from is after --to");
        if (Date.parse(to) - Date.parse(from) > maxUsageRangeDays * dayMs) {
          throw new UsageError(`the range is over ${maxUsageRangeDays} days`);
        }
        const workspaceId = await resolveWorkspace(context, options.workspace);
        const usage = await connect(context).billing.getUsage({ workspaceId, from, to, groupBy });
        context.output.result(usage, () => printUsage(context.output, usage));
      }),
    );

  withWorkspaceOption(
    program.command("plan").description("A workspace's plan, its quotas and this month's use (owners and admins)"),
  )
    .addHelpText("after", examples("weft plan", "weft plan --workspace wsp_01j... --json"))
    .action(
      runCommand(async (context, options: { workspace?: string }) => {
        const workspaceId = await resolveWorkspace(context, options.workspace);
        const plan = await connect(context).billing.getPlan({ workspaceId });
        const limit = (value: number | undefined) => (value === undefined ? "unlimited" : String(value));
        context.output.result(plan, () => {
          context.output.fields([
            ["plan", plan.plan.name],
            ["executions", `${plan.used.executions} of ${limit(plan.plan.executionsPerMonth)} this month`],
            [
              "step-seconds",
              `${plan.used.stepSeconds.toFixed(2)} of ${limit(plan.plan.stepSecondsPerMonth)} this month`,
            ],
            ["stored", `${bytesText(plan.used.bytes)} of ${limit(plan.plan.storageBytes)} bytes this month`],
            ["projects", `${plan.used.projects} of ${limit(plan.plan.projects)}`],
            ["resets", plan.resetsAt],
          ]);
        });
      }),
    );
}
