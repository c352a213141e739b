import type { ReadResourceResult, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";

/** A resource URI understood by `resources/read`, and the procedure that reads it. */
export interface ResourceRead {
  path: readonly [string, string];
  input: Record<string, string>;
}

export const resourceTemplates: ResourceTemplate[] = [
  {
    uriTemplate: "weft://executions/{id}",
    name: "execution",
    title: "Workflow execution",
    description: "An execution with its status, input, output, steps, attempts and logs (workflows.getExecution).",
    mimeType: "application/json",
  },
  {
    uriTemplate: "weft://traces/{projectId}/{traceId}",
    name: "trace",
    title: "Trace",
    description: "A trace of a project as a tree of spans (traces.get).",
    mimeType: "application/json",
  },
];

const executionUri = /^weft:\/\/executions\/([^/?#]+)$/;
const traceUri = /^weft:\/\/traces\/([^/?#]+)\/([^/?#]+)$/;

/**
 * The procedure call a resource URI stands for, or undefined for a URI of no template. The ids are
 * handed on as they are: the procedure validates them like any input.
 */
export function resourceReadOf(uri: string): ResourceRead | undefined {
  const execution = executionUri.exec(uri);
  if (execution !== null) {
    return { path: ["workflows", "getExecution"], input: { executionId: execution[1] ?? "" } };
  }
  const trace = traceUri.exec(uri);
  if (trace !== null) {
    return {
      path: ["traces", "get"],
      input: { projectId: trace[1] ?? "", traceId: trace[2] ?? "" },
    };
  }
  return undefined;
}

export function resourceContents(uri: string, output: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(output) }] };
}
