import { completeClaim, type Discovery, registerWithEmail } from "@weft/client";
import type { Command } from "commander";
import { describeCredential, discoverAuth } from "../auth.ts";
import type { CommandContext } from "../context.ts";
import { credentialsPath, writeCredentials } from "../credentials.ts";
import { UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import { ask, stdinLines } from "../input.ts";
import { loginWithEmail } from "../login-flow.ts";
import { exchangeOidcToken, readOidcToken } from "../oidc-exchange.ts";
import { runCommand } from "../run-command.ts";

interface LoginOptions {
  email?: string;
  token?: boolean;
  oidcToken?: string;
  project?: string;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

async function readEmail(context: CommandContext, flag: string | undefined): Promise<string> {
  if (flag !== undefined) {
    if (!emailPattern.test(flag)) throw new UsageError(`--email ${flag} is not an email address`);
    return flag;
  }
  if (!context.output.interactive) {
    throw new UsageError("without a terminal, weft login needs the email address", {
      fix: "pass --email you@example.com (the code is then read from standard input), or use `weft login --token`",
    });
  }
  return ask(context.output, {
    message: "Your email address",
    placeholder: "you@example.com",
    validate: (value) => (emailPattern.test(value) ? undefined : "Enter an email address, like you@example.com"),
  });
}

function codeReader(context: CommandContext): () => Promise<string | undefined> {
  if (!context.output.interactive) return stdinLines(context.output.streams.stdin);
  return () =>
    ask(context.output, {
      message: "The 6-digit code shown after you approved",
      placeholder: "123456",
      validate: (value) => (/^\d{6}$/.test(value) ? undefined : "The code is 6 digits"),
    });
}

async function readToken(context: CommandContext): Promise<string> {
  const token = context.output.interactive
    ? await ask(context.output, { message: "Paste the credential" })
    : await stdinLines(context.output.streams.stdin)();
  if (token === undefined || token === "") {
    throw new UsageError("no credential on standard input", {
      fix: "pipe it in: `printenv MY_WEFT_CREDENTIAL | weft login --token`",
    });
  }
  return token;
}

async function store(context: CommandContext, endpoints: Discovery, credential: string): Promise<void> {
  // Ask the server who this is before storing: a mistyped credential is refused here, not later.
  const info = await describeCredential(endpoints.authUrl, credential);
  const path = credentialsPath(context.env);
  writeCredentials(path, { accessToken: credential });
  context.output.result(
    { email: info.email, scopes: info.scopes, expires: info.expires, credentialsFile: path },
    () => {
      context.output.line(
        `${context.output.style("green", "Logged in")} as ${context.output.style("bold", info.email)}`,
      );
      context.output.line(`The credential expires ${info.expires} and is stored in ${path}.`);
    },
  );
  if (context.env.WEFT_TOKEN)
    context.output.warn("WEFT_TOKEN is set in this shell; it overrides the stored credential");
}

export function registerLogin(program: Command): void {
  program
    .command("login")
    .description("Log in with your email: approve the request in the mail, then enter the 6-digit code")
    .option("--email <email>", "your email address (asked for when omitted on a terminal)")
    .option("--token", "read an existing credential from standard input instead")
    .option(
      "--oidc-token <jwt|@file|->",
      "exchange an identity provider's OIDC token (CI) for a credential of --project",
    )
    .option("--project <id>", "the project the --oidc-token credential is for")
    .addHelpText(
      "after",
      `${examples("weft login", "weft login --email you@example.com", "echo 123456 | weft login --email you@example.com", "printenv CI_WEFT_CREDENTIAL | weft login --token", "weft login --oidc-token @token.jwt --project prj_01j...")}
Without a terminal the code is read from standard input, one attempt per line.\n`,
    )
    .action(
      runCommand(async (context, options: LoginOptions) => {
        const ways = [options.token === true, options.email !== undefined, options.oidcToken !== undefined];
        if (ways.filter(Boolean).length > 1) throw new UsageError("use one of --token, --email and --oidc-token");
        if ((options.oidcToken === undefined) !== (options.project === undefined)) {
          throw new UsageError("--oidc-token and --project go together", {
            fix: "weft login --oidc-token <jwt|@file|-> --project <id>",
          });
        }
        const endpoints = await discoverAuth(context.apiUrl);
        if (options.oidcToken !== undefined && options.project !== undefined) {
          const token = await readOidcToken(context, options.oidcToken);
          const exchanged = await exchangeOidcToken(context, { token, projectId: options.project });
          await store(context, endpoints, exchanged.accessToken);
          return;
        }
        if (options.token) {
          await store(context, endpoints, await readToken(context));
          return;
        }
        const email = await readEmail(context, options.email);
        const claimed = await loginWithEmail(
          {
            output: context.output,
            register: (address) => registerWithEmail(endpoints, address, { agentName: "weft CLI" }),
            complete: (claimToken, otp) => completeClaim(endpoints, { claimToken, otp }),
            readCode: codeReader(context),
            now: () => new Date(),
          },
          email,
        );
        await store(context, endpoints, claimed.credential);
      }),
    );
}
