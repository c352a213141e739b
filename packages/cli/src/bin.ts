#!/usr/bin/env node
import { CommanderError } from "commander";
import { UsageError } from "./errors.ts";
import { createProgram } from "./program.ts";
import { failureJson } from "./run-command.ts";

// A reader that stops early (`weft … | head`) closes the pipe; what is left to print has no reader,
// which is no failure of the command: end as it would have ended, without a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
}

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  // Help and --version end with 0; any other complaint of the parser means the command line was wrong.
  process.exitCode = error.exitCode === 0 ? 0 : 2;
  // The parser has told a person on stderr already; a script asked for --json gets the usual object.
  if (error.exitCode !== 0 && process.argv.includes("--json")) {
    const message = error.message.replace(/^error: /, "");
    process.stdout.write(
      failureJson(new UsageError(message, { fix: "run `weft --help` to see the commands and options" })),
    );
  }
}
