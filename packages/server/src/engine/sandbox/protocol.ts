/**
 * Messages between a worker (parent) and a sandbox child process running one deployment's bundle.
 * The parent owns the database: the child asks it to store each step result and waits for the
 * answer before the workflow goes on. `child-runtime.ts` repeats these shapes because it may import
 * nothing outside its own file (the child can read only its bundle and its runtime).
 */

export interface SerializedError {
  name: string;
  message: string;
  stack?: string | undefined;
}

export interface SandboxLogEntry {
  at: string;
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields?: Record<string, unknown> | undefined;
}

export interface StoredStepForReplay {
  kind: "step" | "sleep";
  result: { value?: unknown };
}

export type ParentMessage =
  | {
      type: "run";
      executionId: string;
      workflow: string;
      input: unknown;
      attempt: number;
      steps: Record<string, StoredStepForReplay>;
    }
  | { type: "stepStored"; executionId: string; sequence: number; stop?: "cancelled" | "abandoned" | undefined }
  | { type: "abandon"; executionId: string };

export type ChildMessage =
  | { type: "ready" }
  | { type: "loadFailed"; error: SerializedError }
  | {
      type: "step";
      executionId: string;
      sequence: number;
      name: string;
      outcome: { ok: true; result: { value?: unknown } } | { ok: false; error: SerializedError };
      durationMs: number;
      logs: SandboxLogEntry[];
    }
  | { type: "sleep"; executionId: string; name: string; durationMs: number; logs: SandboxLogEntry[] }
  | {
      type: "finished";
      executionId: string;
      outcome: { ok: true; result: { value?: unknown } } | { ok: false; error: SerializedError };
      logs: SandboxLogEntry[];
    };
