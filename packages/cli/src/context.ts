import type { Command } from "commander";
import { type ResolvedToken, resolveToken } from "./credentials.ts";
import { CliError } from "./errors.ts";
import { Output } from "./output.ts";

export const defaultApiUrl = "http://localhost:3000";

/** Options every command accepts (declared on the root program, usable anywhere on the line). */
export interface GlobalOptions {
  apiUrl?: string;
  json?: boolean;
}

/** What a command's handler gets besides its own arguments. */
export interface CommandContext {
  /** The platform's base URL: `--api-url`, then `WEFT_API_URL`, then http://localhost:3000. */
  apiUrl: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  output: Output;
  /** The credential to call the API with; fails with "run `weft login`" when there is none. */
  requireToken(): ResolvedToken;
}

export function resolveApiUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = flag ?? (env.WEFT_API_URL || undefined) ?? defaultApiUrl;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL("invalid:");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`the API address "${raw}" is not an http(s) URL`, {
      fix: "pass --api-url http://host:port (or set WEFT_API_URL)",
      code: "usage",
      exitCode: 2,
    });
  }
  return url.href.replace(/\/+$/, "");
}

export function createContext(command: Command): CommandContext {
  const options = command.optsWithGlobals<GlobalOptions>();
  const env = process.env;
  const output = new Output({ json: options.json === true });
  return {
    apiUrl: resolveApiUrl(options.apiUrl, env),
    env,
    cwd: process.cwd(),
    output,
    requireToken: () => {
      const resolved = resolveToken(env);
      if (resolved === undefined) {
        throw new CliError("you are not logged in", {
          fix: "run `weft login` (or set WEFT_TOKEN in CI)",
          code: "not_logged_in",
        });
      }
      return resolved;
    },
  };
}
