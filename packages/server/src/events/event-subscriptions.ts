import { matchesJsonPath, type WorkflowManifest } from "@weft/contract";
import type { EventAsInput } from "./event-input.ts";

/**
 * The workflows of a deployment an event starts: those with an `on` entry of its name whose `if`
 * (when given) holds for the event. Read from the manifest in memory: no statement.
 */
export function subscribedWorkflows(workflows: readonly WorkflowManifest[], event: EventAsInput): WorkflowManifest[] {
  return workflows.filter((workflow) =>
    (workflow.on ?? []).some(
      (subscription) =>
        subscription.event === event.name && (subscription.if === undefined || matchesJsonPath(event, subscription.if)),
    ),
  );
}
