import { type Colorette, createColors, isColorSupported } from "colorette";
import { terminalPrompts } from "./prompts.ts";

type StyleName = "bold" | "dim" | "red" | "green" | "yellow" | "reset";
type Style = StyleName | readonly StyleName[];

export interface OutputStreams {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

/** A progress indicator: a spinner on a terminal, plain lines otherwise, nothing under `--json`. */
export interface Progress {
  step(message: string): void;
  done(message: string): void;
  fail(message: string): void;
}

/**
 * Colours for one stream. colorette honours NO_COLOR and FORCE_COLOR but judges by stdout alone, so
 * the stream's own `isTTY` narrows it: a pipe or a file gets colour codes only when FORCE_COLOR asks.
 */
function colorsFor(stream: NodeJS.WriteStream): Colorette {
  const forced = "FORCE_COLOR" in process.env;
  return createColors({ useColor: isColorSupported && (forced || stream.isTTY === true) });
}

function styled(colors: Colorette, format: Style, text: string): string {
  const names: readonly StyleName[] = typeof format === "string" ? [format] : format;
  return names.reduceRight((inner, name) => colors[name](inner), text);
}

/**
 * Where a command's output goes. Under `--json` stdout carries exactly one JSON object and nothing
 * else; on a terminal output is styled (unless NO_COLOR) and progress is animated; piped output is
 * plain lines.
 */
export class Output {
  readonly json: boolean;
  readonly streams: OutputStreams;
  readonly #stdoutColors: Colorette;
  readonly #stderrColors: Colorette;

  constructor(options: { json: boolean; streams?: OutputStreams }) {
    this.json = options.json;
    this.streams = options.streams ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
    this.#stdoutColors = colorsFor(this.streams.stdout);
    this.#stderrColors = colorsFor(this.streams.stderr);
  }

  /** Both ends are a terminal, and the prompts loaded: the user can answer prompts and watch spinners. */
  get interactive(): boolean {
    return (
      Boolean(this.streams.stdout.isTTY && this.streams.stdin.isTTY) && !this.json && terminalPrompts !== undefined
    );
  }

  /** Styles text for stdout; plain when stdout is not a terminal or NO_COLOR is set. */
  style(format: Style, text: string): string {
    return styled(this.#stdoutColors, format, text);
  }

  /** Styles text for stderr, with the same rules as `style`. */
  styleError(format: Style, text: string): string {
    return styled(this.#stderrColors, format, text);
  }

  /** A line of human output on stdout; suppressed under `--json`. */
  line(text = ""): void {
    if (!this.json) this.streams.stdout.write(`${text}\n`);
  }

  /** Information the user needs even under `--json` (then on stderr, keeping stdout for the result). */
  notice(text: string): void {
    (this.json ? this.streams.stderr : this.streams.stdout).write(`${text}\n`);
  }

  /** A warning on stderr (also under `--json`, where stdout is reserved for the result). */
  warn(text: string): void {
    this.streams.stderr.write(`${this.styleError("yellow", "warning:")} ${text}\n`);
  }

  /** The command's result: the JSON object under `--json`, otherwise whatever `human` prints. */
  result(value: unknown, human: () => void): void {
    if (this.json) this.streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else human();
  }

  /** Key/value lines, aligned. */
  fields(entries: [string, string | number | null | undefined][]): void {
    const width = Math.max(...entries.map(([key]) => key.length));
    for (const [key, value] of entries) {
      this.line(`${this.style("dim", `${key.padEnd(width)}`)}  ${value ?? "-"}`);
    }
  }

  /** A table with a header row; an empty list prints `empty` instead. */
  table(headers: string[], rows: string[][], empty: string): void {
    if (rows.length === 0) {
      this.line(empty);
      return;
    }
    const widths = headers.map((header, column) =>
      Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
    );
    const render = (cells: string[]) =>
      cells
        .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join("  ")
        .trimEnd();
    this.line(this.style("bold", render(headers)));
    for (const row of rows) this.line(render(row));
  }

  progress(): Progress {
    if (this.json) return { step: () => {}, done: () => {}, fail: () => {} };
    if (!this.interactive || terminalPrompts === undefined) {
      return {
        // Piped output keeps only the outcome of each step: a log, not an animation.
        step: () => {},
        done: (message) => this.line(message),
        fail: (message) => this.streams.stderr.write(`${message}\n`),
      };
    }
    const indicator = terminalPrompts.spinner({ output: this.streams.stdout });
    let running = false;
    return {
      step: (message) => {
        if (running) indicator.message(message);
        else indicator.start(message);
        running = true;
      },
      done: (message) => {
        if (running) indicator.stop(message);
        else this.line(message);
        running = false;
      },
      fail: (message) => {
        if (running) indicator.error(message);
        running = false;
      },
    };
  }
}
