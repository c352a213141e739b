import { RegistrationError, revokeCredential } from "@weft/client";
import type { Command } from "commander";
import { discoverAuth } from "../auth.ts";
import { credentialsPath, readCredentials, removeCredentials } from "../credentials.ts";
import { examples } from "../help.ts";
import { runCommand } from "../run-command.ts";

export function registerLogout(program: Command): void {
  program
    .command("logout")
    .description("Revoke the stored credential at the authorization server and delete the credentials file")
    .addHelpText("after", examples("weft logout"))
    .action(
      runCommand(async (context) => {
        const path = credentialsPath(context.env);
        const stored = readCredentials(path);
        if (stored === undefined) {
          context.output.result({ loggedOut: false, credentialsFile: path }, () =>
            context.output.line(`You are not logged in (there is no ${path}).`),
          );
          if (context.env.WEFT_TOKEN) context.output.warn("WEFT_TOKEN is set in this shell; unset it to stop using it");
          return;
        }
        const endpoints = await discoverAuth(context.apiUrl);
        try {
          await revokeCredential(endpoints, stored.accessToken);
        } catch (error) {
          // Already revoked or expired: the server no longer knows it, which is what logout wants.
          if (!(error instanceof RegistrationError && error.code === "invalid_grant")) throw error;
        }
        removeCredentials(path);
        context.output.result({ loggedOut: true, credentialsFile: path }, () =>
          context.output.line(`Logged out: the credential is revoked and ${path} is deleted.`),
        );
      }),
    );
}
