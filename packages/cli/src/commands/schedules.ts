import { type Schedule, schedulesPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import type { CommandContext } from "../context.ts";
import { examples } from "../help.ts";
import { printPage } from "../page-output.ts";
import { type PageOptions, toPagination, withPageOptions } from "../pagination-options.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";

function stateOf(schedule: Schedule): string {
  if (schedule.pausedThroughApi) return "paused (API)";
  return schedule.enabled ? "enabled" : "disabled (config)";
}

/** The latest tick that started nothing, and why (a quota of the workspace's plan). */
function skippedOf(schedule: Schedule): string {
  return schedule.lastSkippedAt === null ? "-" : `${schedule.lastSkippedAt}: ${schedule.lastSkipReason ?? "-"}`;
}

function showSchedule(context: CommandContext, schedule: Schedule): void {
  context.output.fields([
    ["name", schedule.name],
    ["state", stateOf(schedule)],
    ["cron", `${schedule.cron} (${schedule.timezone})`],
    ["next run", schedule.nextRunAt ?? "-"],
    ["last skipped", skippedOf(schedule)],
  ]);
}

export function registerSchedules(program: Command): void {
  const schedules = program
    .command("schedules")
    .description("List, pause, resume and run a project's cron schedules")
    .addHelpText(
      "after",
      examples(
        "weft schedules list",
        "weft schedules pause nightly",
        "weft schedules resume nightly",
        "weft schedules run nightly",
      ),
    );

  withProjectOption(
    withPageOptions(schedules.command("list").description("List the schedules, by name"), schedulesPageLimit),
  )
    .addHelpText("after", examples("weft schedules list", "weft schedules list --project prj_01j... --json"))
    .action(
      runCommand(async (context, options: { project?: string } & PageOptions) => {
        const projectId = resolveProject(context, options.project);
        const page = await connect(context).schedules.list({
          projectId,
          pagination: toPagination(options, schedulesPageLimit),
        });
        printPage(context.output, page, {
          headers: [
            "NAME",
            "WORKFLOW",
            "CRON",
            "TIMEZONE",
            "STATE",
            "NEXT RUN",
            "LAST RUN",
            "LAST EXECUTION",
            "LAST SKIPPED",
          ],
          row: (schedule) => [
            schedule.name,
            schedule.workflow,
            schedule.cron,
            schedule.timezone,
            stateOf(schedule),
            schedule.nextRunAt ?? "-",
            schedule.lastRunAt ?? "-",
            schedule.lastExecutionId ?? "-",
            skippedOf(schedule),
          ],
          empty: "No schedules: add `schedules` to weft.config.ts and run `weft deploy`.",
        });
      }),
    );

  for (const verb of ["pause", "resume"] as const) {
    withProjectOption(
      schedules
        .command(verb)
        .description(
          verb === "pause"
            ? "Pause a schedule; it stays paused across deploys until resumed"
            : "Resume a schedule; the next deploy applies the config's `enabled` again",
        )
        .argument("<name>", "the schedule's name, as `weft schedules list` shows it"),
    )
      .addHelpText("after", examples(`weft schedules ${verb} nightly`, `weft schedules ${verb} nightly --json`))
      .action(
        runCommand(async (context, name: string, options: { project?: string }) => {
          const projectId = resolveProject(context, options.project);
          const schedule = await connect(context).schedules[verb]({ projectId, name });
          context.output.result(schedule, () => showSchedule(context, schedule));
        }),
      );
  }

  withProjectOption(
    schedules
      .command("run")
      .description("Start a schedule's workflow now, as a tick would (paused or not); the next tick is unchanged")
      .argument("<name>", "the schedule's name, as `weft schedules list` shows it"),
  )
    .addHelpText("after", examples("weft schedules run nightly", "weft schedules run nightly --json"))
    .action(
      runCommand(async (context, name: string, options: { project?: string }) => {
        const projectId = resolveProject(context, options.project);
        const started = await connect(context).schedules.runNow({ projectId, name });
        context.output.result(started, () =>
          context.output.fields([
            ["execution", started.executionId],
            ["schedule", started.schedule.name],
            ["next run", started.schedule.nextRunAt ?? "-"],
          ]),
        );
      }),
    );
}
