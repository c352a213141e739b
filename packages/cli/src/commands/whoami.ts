import type { Command } from "commander";
import { describeCredential, discoverAuth } from "../auth.ts";
import { examples } from "../help.ts";
import { runCommand } from "../run-command.ts";

const warnWithinMs = 3 * 24 * 60 * 60 * 1000;

/** A warning when the credential expires within 3 days (it lasts 30), else undefined. */
export function expiryWarning(expires: Date, now: Date): string | undefined {
  const left = expires.getTime() - now.getTime();
  if (left >= warnWithinMs) return undefined;
  if (left <= 0) return "your credential has expired: run `weft login`";
  const hours = Math.floor(left / 3_600_000);
  const when = hours >= 48 ? `in ${Math.floor(hours / 24)} days` : hours >= 1 ? `in ${hours} hours` : "within the hour";
  return `your credential expires ${when}: run \`weft login\` to get a new one`;
}

/** A federated credential reaches one project; any other credential shows no such line. */
function projectField(projectId: string | undefined): [string, string][] {
  return projectId === undefined ? [] : [["project", `${projectId} only (federated)`]];
}

export function registerWhoami(program: Command): void {
  program
    .command("whoami")
    .description("Show the account you are logged in as, its workspaces and when the credential expires")
    .addHelpText("after", examples("weft whoami", "weft whoami --json"))
    .action(
      runCommand(async (context) => {
        const { token, source, path } = context.requireToken();
        const endpoints = await discoverAuth(context.apiUrl);
        const info = await describeCredential(endpoints.authUrl, token);
        const warning = expiryWarning(new Date(info.expires), new Date());
        context.output.result(
          {
            email: info.email,
            scopes: info.scopes,
            expires: info.expires,
            workspaces: info.workspaces,
            projectId: info.projectId ?? null,
            credentialSource: source === "WEFT_TOKEN" ? "WEFT_TOKEN" : path,
            warning: warning ?? null,
          },
          () =>
            context.output.fields([
              ["account", info.email],
              [
                "workspaces",
                info.workspaces.map((workspace) => `${workspace.name} (${workspace.id}, ${workspace.role})`).join(", "),
              ],
              ...projectField(info.projectId),
              ["scopes", info.scopes.join(" ")],
              ["expires", info.expires],
              ["credential", source === "WEFT_TOKEN" ? "from WEFT_TOKEN" : path],
            ]),
        );
        if (warning !== undefined) context.output.warn(warning);
      }),
    );
}
