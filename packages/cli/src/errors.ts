/**
 * Errors the CLI reports. Every failure tells the user what to do next (`fix`); the exit code says
 * whether the command was used wrongly (2) or failed (1).
 */
export class CliError extends Error {
  override readonly name: string = "CliError";
  /** What the user can do about it, e.g. "run `weft login`". */
  readonly fix: string | undefined;
  /** A short machine-readable code for `--json` output. */
  readonly code: string;
  readonly exitCode: 1 | 2;

  constructor(message: string, options: { fix?: string; code?: string; exitCode?: 1 | 2 } = {}) {
    super(message);
    this.fix = options.fix;
    this.code = options.code ?? "failed";
    this.exitCode = options.exitCode ?? 1;
  }
}

/** The command line itself is wrong: a missing flag, a malformed value. Exit code 2. */
export class UsageError extends CliError {
  override readonly name = "UsageError";

  constructor(message: string, options: { fix?: string } = {}) {
    super(message, {
      fix: options.fix ?? "run the command with --help for its usage and examples",
      code: "usage",
      exitCode: 2,
    });
  }
}
