import { type Deployment, deploymentsPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { CliError, UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import { printNewestPage } from "../page-output.ts";
import { type NewestPageOptions, toNewestPagination, withNewestPageOptions } from "../pagination-options.ts";
import { plural } from "../plural.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";

interface ProjectOptions {
  project?: string;
}

function describe(deployment: Deployment): string {
  const { workflows, forms, webhooks, schedules = [] } = deployment.manifest;
  return [
    plural(workflows.length, "workflow"),
    plural(forms.length, "form"),
    plural(webhooks.length, "webhook"),
    plural(schedules.length, "schedule"),
  ].join(", ");
}

export function registerDeployments(program: Command): void {
  const deployments = program
    .command("deployments")
    .description("List a project's deployments and roll back to an earlier one")
    .addHelpText("after", examples("weft deployments list", "weft deployments rollback 3"));

  withProjectOption(
    withNewestPageOptions(
      deployments.command("list").description("List the deployments, newest last"),
      deploymentsPageLimit,
    ),
  )
    .addHelpText("after", examples("weft deployments list", "weft deployments list --project prj_01j... --json"))
    .action(
      runCommand(async (context, options: ProjectOptions & NewestPageOptions) => {
        const projectId = resolveProject(context, options.project);
        const page = await connect(context).deployments.list({
          projectId,
          pagination: toNewestPagination(options, deploymentsPageLimit),
        });
        printNewestPage(context.output, page, {
          headers: ["#", "ID", "ACTIVE", "CREATED", "CONTENTS"],
          row: (deployment) => [
            String(deployment.number),
            deployment.id,
            deployment.active ? "active" : "",
            deployment.createdAt,
            describe(deployment),
          ],
          empty: "No deployments yet: run `weft deploy`.",
        });
      }),
    );

  withProjectOption(
    deployments
      .command("rollback")
      .description("Make an earlier deployment (by number) the active one again")
      .argument("<number>", "the deployment's number, as `weft deployments list` shows it"),
  )
    .addHelpText(
      "after",
      examples("weft deployments rollback 3", "weft deployments rollback 1 --project prj_01j... --json"),
    )
    .action(
      runCommand(async (context, number: string, options: ProjectOptions) => {
        const wanted = Number(number);
        if (!Number.isInteger(wanted) || wanted < 1) throw new UsageError(`"${number}" is not a deployment number`);
        const projectId = resolveProject(context, options.project);
        const client = connect(context);
        const found = await findByNumber(client, projectId, wanted);
        const activated = await client.deployments.activate({ projectId, deploymentId: found.id });
        context.output.result(activated, () =>
          context.output.line(
            `${context.output.style("green", "Rolled back:")} deployment #${activated.number} is active again.`,
          ),
        );
      }),
    );
}

async function findByNumber(
  client: ReturnType<typeof connect>,
  projectId: string,
  number: number,
): Promise<Deployment> {
  let after: string | undefined;
  for (;;) {
    const page = await client.deployments.list({
      projectId,
      pagination: { first: deploymentsPageLimit, ...(after === undefined ? {} : { after }) },
    });
    const found = page.results.find((deployment) => deployment.number === number);
    if (found !== undefined) return found;
    if (!page.pagination.hasNextPage || page.pagination.endCursor === null) break;
    after = page.pagination.endCursor;
  }
  throw new CliError(`project ${projectId} has no deployment #${number}`, {
    code: "not_found",
    fix: "see the numbers with `weft deployments list`",
  });
}
