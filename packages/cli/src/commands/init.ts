import { resolve } from "node:path";
import type { Command } from "commander";
import { examples } from "../help.ts";
import { scaffoldProject } from "../project/scaffold.ts";
import { runCommand } from "../run-command.ts";

export function registerInit(program: Command): void {
  program
    .command("init")
    .description("Create a Weft project: weft.config.ts, a form and a webhook with their workflows, tsconfig.json")
    .argument("[directory]", "where to create it", ".")
    .addHelpText("after", examples("weft init", "weft init my-project && cd my-project && weft deploy --create"))
    .action(
      runCommand(async (context, directory: string) => {
        const result = await scaffoldProject(resolve(context.cwd, directory));
        context.output.result(result, () => {
          for (const file of result.created)
            context.output.line(`${context.output.style("green", "created")}  ${file}`);
          for (const file of result.updated)
            context.output.line(`${context.output.style("yellow", "updated")}  ${file}`);
          context.output.line();
          context.output.line("Next: deploy it to a new project with");
          context.output.line(`  ${directory === "." ? "" : `cd ${directory} && `}weft deploy --create`);
        });
      }),
    );
}
