import type { ExecutionError } from "../db/schema/index.ts";
import { checkStorableJson, describeUnstorable, unstorableStringProblem } from "../shared/storable-json.ts";
import {
  formatBytes,
  formatLimit,
  maxInputBytes,
  maxLogLineBytes,
  maxOutputBytes,
  maxStepResultBytes,
  maxStoredBytesPerExecution,
} from "./limits.ts";
import type { SandboxLogEntry, SerializedError } from "./sandbox/protocol.ts";

/**
 * Checks of what a sandbox child asks the worker to store, made before anything reaches the
 * database: the child checks the same (for a good message at the call site), but user code can
 * forge the child's messages.
 */

export type StoredSize = { ok: true; bytes: number } | { ok: false; error: ExecutionError };

const unstorable = (message: string): StoredSize => ({ ok: false, error: { name: "UnstorableValueError", message } });

/** Size in bytes of the JSON text of a value to be stored, within `maxBytes`, with storable strings only. */
function checkValue(value: unknown, what: string, maxBytes: number, tooLargeName: string): StoredSize {
  // Walked first, iteratively: JSON.stringify recurses and a forged value may be nested deep enough to overflow it.
  const check = checkStorableJson(value);
  if (!check.ok) return unstorable(`${what} cannot be stored: ${describeUnstorable(check)}`);
  const bytes = value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
  if (bytes > maxBytes) {
    return {
      ok: false,
      error: { name: tooLargeName, message: `${what} is ${formatBytes(bytes)}; the limit is ${formatLimit(maxBytes)}` },
    };
  }
  return { ok: true, bytes };
}

export function checkStepResult(name: string, result: { value?: unknown }): StoredSize {
  return checkValue(result.value, `the result of step "${name}"`, maxStepResultBytes, "StepResultTooLargeError");
}

export function checkOutput(result: { value?: unknown }): StoredSize {
  return checkValue(result.value, "the output of the workflow", maxOutputBytes, "OutputTooLargeError");
}

export function checkInput(input: unknown): StoredSize {
  return checkValue(input, "the input", maxInputBytes, "InputTooLargeError");
}

export function checkStepName(name: string): StoredSize {
  const problem = unstorableStringProblem(name);
  if (problem === undefined) return { ok: true, bytes: Buffer.byteLength(name) };
  return unstorable(`a step name cannot be stored: ${describeUnstorable({ ok: false, problem, path: ["name"] })}`);
}

/** Each line within `maxLogLineBytes` (message and fields) and storable; `bytes` is the JSON text of them all. */
export function checkLogs(logs: readonly SandboxLogEntry[]): StoredSize {
  for (const [index, entry] of logs.entries()) {
    const check = checkStorableJson(entry);
    if (!check.ok)
      return unstorable(
        `a log line cannot be stored: ${describeUnstorable({ ...check, path: ["logs", index, ...check.path] })}`,
      );
    const lineBytes =
      Buffer.byteLength(entry.message) +
      (entry.fields === undefined ? 0 : Buffer.byteLength(JSON.stringify(entry.fields)));
    if (lineBytes > maxLogLineBytes) {
      const message = `a log line (message and fields) is ${formatBytes(lineBytes)}; the limit is ${formatLimit(maxLogLineBytes)}`;
      return { ok: false, error: { name: "LogLineTooLargeError", message } };
    }
  }
  return { ok: true, bytes: logs.length === 0 ? 0 : Buffer.byteLength(JSON.stringify(logs)) };
}

/** The error of the 64 MiB per execution rule when storing `adding` more bytes would break it. */
export function storageBudgetError(storedBytes: number, addingBytes: number, what: string): ExecutionError | undefined {
  const total = storedBytes + addingBytes;
  if (total <= maxStoredBytesPerExecution) return undefined;
  return {
    name: "ExecutionStorageLimitError",
    message: `storing ${what} (${formatBytes(addingBytes)}) would bring the execution's stored data to ${formatBytes(total)}; the limit is ${formatLimit(maxStoredBytesPerExecution)}`,
  };
}

// Above the child's own clamp (200 characters and 16 KiB plus a note of the full length): this bounds forged errors only.
const maxErrorNameLength = 256;
const maxErrorTextLength = 32 * 1024;

function storableText(text: string, max: number): string {
  const clamped = text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
  return clamped.toWellFormed().replaceAll("\u0000", "\uFFFD");
}

/** An error reported by user code, made storable (it is shown, not refused) and bounded in size. */
export function storableError(error: SerializedError): ExecutionError {
  return {
    name: storableText(error.name, maxErrorNameLength) || "Error",
    message: storableText(error.message, maxErrorTextLength),
    ...(error.stack === undefined ? {} : { stack: storableText(error.stack, maxErrorTextLength) }),
  };
}
