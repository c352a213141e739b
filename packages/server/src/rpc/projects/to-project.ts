import type { Project } from "@weft/contract";
import type { ProjectRecord, ProjectSummary } from "../../projects/project-record.ts";

const toIso = (instant: Date | string): string => (typeof instant === "string" ? instant : instant.toISOString());

/** The wire shape of a project. */
export function toProject(record: ProjectRecord | ProjectSummary): Project {
  return {
    id: record.id,
    workspaceId: record.workspaceId,
    name: record.name,
    retentionDays: record.retentionDays,
    createdAt: toIso(record.createdAt),
    updatedAt: toIso(record.updatedAt),
  };
}
