import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { subprocessCompileCache } from "@weft/testing";

export const cliEntry = fileURLToPath(new URL("../../src/bin.ts", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Written to the CLI's standard input, which is then closed. */
  input?: string;
}

/** A HOME of its own, so that no test reads or writes the real user's credentials. */
export function isolatedHome(): string {
  return mkdtempSync(join(tmpdir(), "weft-cli-home-"));
}

export interface RunningCli {
  /** Writes to the CLI's standard input. */
  write(text: string): void;
  end(): void;
  kill(signal: NodeJS.Signals): void;
  stdout(): string;
  stderr(): string;
  /** Resolves once `predicate` holds for stdout + stderr (or rejects when the CLI exits first). */
  waitFor(predicate: (output: string) => boolean): Promise<void>;
  result: Promise<CliResult>;
}

/** Starts the `weft` binary and leaves its standard input open, for a conversation with it. */
export function startCli(args: string[], options: Omit<RunOptions, "input"> & { terminal?: boolean } = {}): RunningCli {
  // util-linux's `script` gives the CLI a pseudo-terminal on every stream, as a person's shell does;
  // a new one has no size, which prompts would wrap at every character.
  const inTerminal = `stty cols 120 rows 40; exec ${[process.execPath, cliEntry, ...args].map(shellQuoted).join(" ")}`;
  const [file = process.execPath, ...fileArgs] = options.terminal
    ? ["script", "-qfec", inTerminal, "/dev/null"]
    : [process.execPath, cliEntry, ...args];
  const child = spawn(file, fileArgs, {
    cwd: options.cwd ?? process.cwd(),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: options.env?.HOME ?? isolatedHome(),
      NODE_COMPILE_CACHE: subprocessCompileCache(),
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let exited = false;
  const result = new Promise<CliResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      exited = true;
      resolve({ code, stdout, stderr });
    });
  });
  return {
    write: (text) => child.stdin.write(text),
    end: () => child.stdin.end(),
    kill: (signal) => child.kill(signal),
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor: async (predicate) => {
      while (!predicate(stdout + stderr)) {
        if (exited) throw new Error(`the CLI exited first:\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    result,
  };
}

function shellQuoted(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs the `weft` binary as a subprocess, with pipes (not a terminal) on every stream: this is how
 * scripts and CI see it.
 */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const cli = startCli(args, options);
  cli.write(options.input ?? "");
  cli.end();
  return cli.result;
}

/** Parses `--json` output, failing the test with the output when it is not exactly one JSON value. */
export function parseJson<T = Record<string, unknown>>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not one JSON value (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}
