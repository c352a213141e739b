/** The fields of an execution that progress reporting reads. */
export interface ExecutionLike {
  id: string;
  workflow: string;
  status: string;
  attempt: number;
  steps: { name: string; kind?: string; durationMs?: number; attempt?: number }[];
  error?: { message: string } | null;
}

export const finalStatuses = new Set(["succeeded", "failed", "cancelled", "expired"]);

/**
 * What changed between two looks at an execution, as lines a person can follow: status changes,
 * new attempts, each newly completed step.
 */
export function progressLines(previous: ExecutionLike | undefined, current: ExecutionLike): string[] {
  const lines: string[] = [];
  if (previous !== undefined && current.attempt > previous.attempt) {
    lines.push(
      `attempt ${current.attempt} started${previous.error ? ` (attempt ${previous.attempt}: ${previous.error.message})` : ""}`,
    );
  }
  const seen = previous?.steps.length ?? 0;
  for (const step of current.steps.slice(seen)) {
    const took = step.durationMs === undefined ? "" : ` in ${step.durationMs}ms`;
    lines.push(`${step.kind === "sleep" ? "slept" : "step"} ${step.name} done${took}`);
  }
  if (previous?.status !== current.status) {
    lines.push(
      current.status === "failed" && current.error ? `${current.status}: ${current.error.message}` : current.status,
    );
  }
  return lines;
}
