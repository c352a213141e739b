import type { Command } from "commander";
import { type CommandContext, createContext } from "./context.ts";
import { describeFailure } from "./describe-failure.ts";
import type { CliError } from "./errors.ts";
import { Output } from "./output.ts";

/**
 * A command's job. It may resolve to the exit code 1 when it has reported a failure itself (e.g. a
 * watched execution that failed), keeping `--json` output to the one object it printed.
 */
type Handler<A extends unknown[]> = (context: CommandContext, ...args: A) => Promise<unknown>;

/**
 * Wraps a command's job so that each command is only its job: this decides the exit code (0 done,
 * 1 failed, 2 used wrongly) and prints every failure with what to do about it, as one JSON object
 * under `--json`.
 */
export function runCommand<A extends unknown[]>(handler: Handler<A>): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const positional = args.slice(0, -1) as A;
    let context: CommandContext | undefined;
    try {
      context = createContext(command);
      if ((await handler(context, ...positional)) === 1) process.exitCode = 1;
    } catch (error) {
      const output =
        context?.output ?? new Output({ json: command.optsWithGlobals<{ json?: boolean }>().json === true });
      const failure = describeFailure(error, { apiUrl: context?.apiUrl, env: process.env });
      reportFailure(output, failure);
      process.exitCode = failure.exitCode;
    }
  };
}

/** The one JSON shape of a failure under `--json` (docs/decisions/0014-cli-output-contract.md). */
export function failureJson(failure: CliError): string {
  return `${JSON.stringify({ error: { code: failure.code, message: failure.message, fix: failure.fix ?? null } }, null, 2)}\n`;
}

export function reportFailure(output: Output, failure: CliError): void {
  if (output.json) output.streams.stdout.write(failureJson(failure));
  const lines = [`${output.styleError(["red", "bold"], "error:")} ${failure.message}`];
  if (failure.fix !== undefined) lines.push(`${output.styleError("dim", "  fix:")} ${failure.fix}`);
  output.streams.stderr.write(`${lines.join("\n")}\n`);
}
