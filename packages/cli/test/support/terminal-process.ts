import { spawn } from "node:child_process";
import { stripVTControlCharacters } from "node:util";

/** A command left running in a terminal of its own, as a server is while a person works elsewhere. */
export interface TerminalProcess {
  /** What the terminal shows, without its control sequences (colours, spinners). */
  output(): string;
  /** Resolves once the output holds `text` (or rejects when the command ends first). */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /**
   * Ctrl-C in the terminal; resolves with the exit code once the command has ended. A command still
   * running after `timeoutMs` has its terminal closed under it (a hang-up), and this rejects.
   */
  interrupt(timeoutMs?: number): Promise<number | null>;
}

/**
 * Runs a shell command in a pseudo-terminal (util-linux `script`), so that it prints what it
 * prints to a person, and so that Ctrl-C reaches it as it would from a keyboard.
 */
export function startInTerminal(command: string, cwd: string, env: Record<string, string>): TerminalProcess {
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  const append = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on("data", append);
  child.stderr.on("data", append);
  let exitCode: number | null | undefined;
  const ended = new Promise<number | null>((resolve) =>
    child.once("close", (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  const shown = () => stripVTControlCharacters(output);
  return {
    output: shown,
    async waitFor(text, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      while (!shown().includes(text)) {
        if (exitCode !== undefined) throw new Error(`\`${command}\` ended (${exitCode}) first:\n${shown()}`);
        if (Date.now() > deadline)
          throw new Error(`\`${command}\` did not print "${text}" in ${timeoutMs} ms:\n${shown()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async interrupt(timeoutMs = 30_000) {
      if (exitCode === undefined) child.stdin.write("\u0003");
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`\`${command}\` still ran ${timeoutMs} ms after Ctrl-C:\n${shown()}`));
        }, timeoutMs);
      });
      try {
        return await Promise.race([ended, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
