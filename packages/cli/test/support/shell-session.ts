import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";

export interface ShellCommandResult {
  command: string;
  status: number;
  /** Its standard output and error, interleaved as a terminal shows them. */
  output: string;
}

/**
 * A terminal a person types commands into, one after the other: one bash process, so `cd`, `export`
 * and shell variables carry over from a command to the next. Its standard input is a pipe, not a
 * terminal: the programs it runs see no terminal, and a program that reads standard input (a code
 * asked for) reads what `type` writes while it runs.
 */
export interface ShellSession {
  /** Types the command and Enter; resolves once it has finished, with its exit status. */
  run(command: string, timeoutMs?: number): Promise<ShellCommandResult>;
  /** Types into the command that is running. */
  type(text: string): void;
  /** Everything the session has printed so far. */
  output(): string;
  /** Ends the session (`exit`), waiting for bash to end. */
  close(): Promise<void>;
}

export function startShell(cwd: string, env: Record<string, string>): ShellSession {
  const bash = spawn("bash", ["--noprofile", "--norc"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  const append = (chunk: Buffer) => {
    output += chunk.toString();
  };
  bash.stdout.on("data", append);
  bash.stderr.on("data", append);
  let exited = false;
  const ended = new Promise<void>((resolve) =>
    bash.once("close", () => {
      exited = true;
      resolve();
    }),
  );
  // Errors go where the output goes, in the order they happen, as in a terminal; an error in a
  // pipeline is the pipeline's, as `curl … | grep …` would show it to a person.
  bash.stdin.write("exec 2>&1\nset -o pipefail\n");
  const marker = `__shell_${randomUUID().replaceAll("-", "")}`;
  let count = 0;
  return {
    async run(command, timeoutMs = 300_000) {
      count += 1;
      const done = new RegExp(`\\n${marker}_${count} (\\d+)\\n`);
      const from = output.length;
      // bash reads the whole line, the braces and the status report, before it runs the command, so
      // what is typed while the command runs goes to the command, not to bash.
      bash.stdin.write(`{\n${command}\n} ; printf '\\n%s %s\\n' ${marker}_${count} "$?"\n`);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const finished = done.exec(output.slice(from));
        if (finished !== null) {
          return {
            command,
            status: Number(finished[1]),
            output: output.slice(from, from + finished.index),
          };
        }
        if (exited) throw new Error(`the shell ended during \`${command}\`:\n${output.slice(from)}`);
        if (Date.now() > deadline) {
          throw new Error(`\`${command}\` did not finish in ${timeoutMs} ms:\n${output.slice(from)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    type: (text) => bash.stdin.write(text),
    output: () => output,
    async close() {
      if (!exited) bash.stdin.end("exit\n");
      await ended;
    },
  };
}
