import { createInterface } from "node:readline";
import { CliError } from "./errors.ts";
import type { Output } from "./output.ts";
import { terminalPrompts } from "./prompts.ts";

/** The prompts; output is interactive only where they loaded, so a caller that checked has them. */
function prompts(): NonNullable<typeof terminalPrompts> {
  if (terminalPrompts === undefined) {
    throw new CliError("prompts need Node 20.12 or newer", {
      fix: "give the values as options, or run the CLI under a newer Node",
    });
  }
  return terminalPrompts;
}

function cancelled(): CliError {
  return new CliError("cancelled", { code: "cancelled", fix: "run the command again when you are ready" });
}

/** Asks a question on the terminal; only for interactive output. */
export async function ask(
  output: Output,
  options: { message: string; placeholder?: string; validate?: (value: string) => string | undefined },
): Promise<string> {
  const { text, isCancel } = prompts();
  const answer = await text({
    message: options.message,
    placeholder: options.placeholder,
    validate: options.validate === undefined ? undefined : (value) => options.validate?.((value ?? "").trim()),
    input: output.streams.stdin,
    output: output.streams.stdout,
  });
  if (isCancel(answer)) throw cancelled();
  return answer.trim();
}

/** Asks for a secret with hidden input; only for interactive output. */
export async function askSecret(output: Output, message: string): Promise<string> {
  const { password, isCancel } = prompts();
  const answer = await password({
    message,
    validate: (value) => ((value ?? "") === "" ? "A value is needed." : undefined),
    input: output.streams.stdin,
    output: output.streams.stdout,
  });
  if (isCancel(answer)) throw cancelled();
  return answer;
}

export async function choose<T>(
  output: Output,
  options: { message: string; options: { value: T; label: string; hint?: string }[] },
): Promise<T> {
  const { select, isCancel } = prompts();
  const answer = await select<T>({
    message: options.message,
    // biome-ignore lint/suspicious/noExplicitAny: clack's Option type is conditional on T and cannot be named generically.
    options: options.options as any,
    input: output.streams.stdin,
    output: output.streams.stdout,
  });
  if (isCancel(answer)) throw cancelled();
  return answer as T;
}

/**
 * Reads standard input line by line (for scripts that pipe answers in). It reads only while a line
 * is awaited: a standard input that stays open after the last answer (a shell's, running the
 * command among others) would otherwise keep the command from ending once it is done.
 */
export function stdinLines(stream: NodeJS.ReadStream): () => Promise<string | undefined> {
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  const lines = reader[Symbol.asyncIterator]();
  let closed = false;
  reader.once("close", () => {
    closed = true;
  });
  return async () => {
    if (!closed) reader.resume();
    try {
      const next = await lines.next();
      return next.done ? undefined : next.value.trim();
    } finally {
      if (!closed) reader.pause();
    }
  };
}

/** Asks a yes/no question on the terminal; only for interactive output. */
export async function confirmAction(output: Output, message: string): Promise<boolean> {
  const { confirm, isCancel } = prompts();
  const answer = await confirm({ message, input: output.streams.stdin, output: output.streams.stdout });
  if (isCancel(answer)) throw cancelled();
  return answer;
}
