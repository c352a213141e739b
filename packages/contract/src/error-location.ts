/**
 * Where in the user's own source an error was thrown, read from its stack: the first frame that
 * names a file of the project (`weft.config.ts:12:7`, `src/steps.ts:4:11`), skipping Node's
 * internals, installed packages, Weft's sandbox runtime and files outside the project. Deployed
 * bundles carry source maps and the sandbox strips its bundle directory, so the frames name the
 * files the person wrote. Undefined when no frame is theirs.
 */
export function errorSourceLocation(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  for (const line of stack.split("\n")) {
    const frame = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (frame === null) continue;
    const [, file = "", lineNumber, column] = frame;
    if (!isProjectFile(file)) continue;
    return `${file}:${lineNumber}:${column}`;
  }
  return undefined;
}

function isProjectFile(file: string): boolean {
  return !(
    file.startsWith("node:") ||
    file.startsWith("/") ||
    file.startsWith("../") ||
    file.includes("://") ||
    file.split("/").includes("node_modules") ||
    file === "<anonymous>" ||
    file === "native"
  );
}

/**
 * An execution's error as one line: its message, then where in the user's source it was thrown:
 * the `location` the API's execution record carries, else the one read from the stack.
 */
export function describeWorkflowError(error: {
  message: string;
  stack?: string | undefined;
  location?: string | null | undefined;
}): string {
  const location = error.location === undefined ? errorSourceLocation(error.stack) : (error.location ?? undefined);
  return location === undefined ? error.message : `${error.message} (at ${location})`;
}
