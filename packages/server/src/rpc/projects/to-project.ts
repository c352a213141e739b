import type { Project } from "@weft/contract";
import type { ProjectRecord } from "../../projects/project-record.ts";

/** The wire shape of a project. */
export function toProject(record: ProjectRecord): Project {
  return {
    id: record.id,
    workspaceId: record.workspaceId,
    name: record.name,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
