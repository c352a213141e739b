import { spawn } from "node:child_process";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { createProgram } from "../src/program.ts";
import { cliEntry, isolatedHome, runCli } from "./support/run-cli.ts";

function findCommand(program: Command, path: string[]): Command {
  return path.reduce((command, name) => command.commands.find((child) => child.name() === name) as Command, program);
}

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands
    .filter((child) => child.name() !== "help")
    .flatMap((child) => {
      const path = [...prefix, child.name()];
      return [path, ...commandPaths(child, path)];
    });
}

describe("the weft binary", () => {
  it("prints its version with --version and exits 0", async () => {
    const result = await runCli(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: "0.1.0\n" });
  });

  it("shows help with an example and the --json option on every command", () => {
    const program = createProgram();
    const commands = [program, ...commandPaths(program).map((path) => findCommand(program, path))];
    expect(commands.length).toBeGreaterThan(20);
    for (const command of commands) {
      let help = "";
      command.configureOutput({ writeOut: (text) => (help += text) });
      command.outputHelp();
      expect(help, command.name()).toMatch(/Examples:\n {2}\$ .*weft /);
      expect(help, command.name()).toContain("--json");
    }
  });

  it("prints help with exit code 0 for --help on a command", async () => {
    for (const args of [["--help"], ["deploy", "--help"], ["executions", "watch", "--help"]]) {
      const result = await runCli(args);
      expect(result.code, args.join(" ")).toBe(0);
      expect(result.stdout, args.join(" ")).toContain("Examples:");
    }
  });

  it("exits 2 on a usage error and says how to get help", async () => {
    for (const args of [["no-such-command"], ["init", "--no-such-option"], ["server", "--port", "eighty"]]) {
      const result = await runCli(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toMatch(/error:.*\n.*(--help|fix:)/);
    }
  });

  it("rejects an --api-url that is not an http(s) URL as a usage error", async () => {
    const result = await runCli(["--api-url", "ftp://x", "init", "--json"]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: "usage", message: 'the API address "ftp://x" is not an http(s) URL', fix: expect.any(String) },
    });
  });

  it("answers an unknown command under --json with the JSON error object, exit code 2", async () => {
    const result = await runCli(["no-such-command", "--json"]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: "usage",
        message: "unknown command 'no-such-command'",
        fix: "run `weft --help` to see the commands and options",
      },
    });
  });

  it("writes no colour codes when the output is not a terminal, or when NO_COLOR is set", async () => {
    const piped = await runCli(["no-such-command"]);
    const noColor = await runCli(["no-such-command"], { env: { NO_COLOR: "1" } });
    for (const result of [piped, noColor]) expect(result.stderr).not.toContain("\u001b[");
    const forced = await runCli(["--api-url", "ftp://x", "init"], { env: { FORCE_COLOR: "1" } });
    expect(forced.stderr).toContain("\u001b[");
  });

  it("ends quietly with status 0 when the reader of its output has gone (`weft --help | head -0`)", async () => {
    for (const args of [["--help"], ["executions", "--help"]]) {
      const child = spawn(process.execPath, [cliEntry, ...args], {
        env: { PATH: process.env.PATH ?? "", HOME: isolatedHome() },
        stdio: ["ignore", "pipe", "pipe"],
      });
      // The reader is gone before the CLI writes its first line, so every line it writes meets EPIPE.
      child.stdout.destroy();
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: "" });
    }
  });
});
