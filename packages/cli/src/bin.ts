#!/usr/bin/env node
import { CommanderError } from "commander";
import { createProgram } from "./program.ts";

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  // Help and --version end with 0; any other complaint of the parser means the command line was wrong.
  process.exitCode = error.exitCode === 0 ? 0 : 2;
}
