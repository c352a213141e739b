import type { Manifest } from "@weft/contract";
import { eq } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { integrations } from "../db/schema/index.ts";
import { fail, ok, type ServiceIssue, type ServiceResult } from "../shared/service-result.ts";

/**
 * Whether the project has every integration the manifest's workflows declare, of the declared
 * kind; otherwise the refusal names the missing (and mismatched) ones.
 */
export async function checkDeclaredIntegrations(
  db: Database | Transaction,
  projectId: string,
  manifest: Manifest,
): Promise<ServiceResult<void>> {
  const declaring = manifest.workflows.filter((workflow) => Object.keys(workflow.integrations ?? {}).length > 0);
  if (declaring.length === 0) return ok(undefined);
  const present = new Map(
    (
      await db
        .select({ name: integrations.name, kind: integrations.kind })
        .from(integrations)
        .where(eq(integrations.projectId, projectId))
    ).map((row) => [row.name, row.kind]),
  );
  const missing = new Set<string>();
  const issues: ServiceIssue[] = [];
  manifest.workflows.forEach((workflow, index) => {
    for (const [name, kind] of Object.entries(workflow.integrations ?? {})) {
      const found = present.get(name);
      const path = `workflows.${index}.integrations.${name}`;
      if (found === undefined) {
        missing.add(name);
        issues.push({ path, message: `the project has no integration "${name}"` });
      } else if (found !== kind) {
        issues.push({ path, message: `the integration "${name}" is of kind ${found}, not ${kind}` });
      }
    }
  });
  if (issues.length === 0) return ok(undefined);
  const message =
    missing.size > 0
      ? `the workflows declare integrations the project lacks: ${[...missing].sort().join(", ")}`
      : "the workflows declare integrations of another kind than the project's";
  return fail.invalid(message, issues);
}
