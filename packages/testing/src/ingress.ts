import type { ManifestInput } from "@weft/contract";
import { executions } from "@weft/server/internals";
import { count, eq, inArray } from "drizzle-orm";
import { registerManifestSecrets } from "./log-capture.ts";
import { deployTestProject } from "./test-deployments.ts";
import type { TestPlatform } from "./test-platform.ts";

/** A started platform and its database: a TestPlatform, or what a bench server starts by hand (its own database, or the one `startPlatform` opened). */
export type PlatformWithDatabase = Pick<TestPlatform, "platform"> & { database: Pick<TestPlatform["database"], "db"> };

/**
 * Deploys a manifest and makes it the project's active deployment. The bundle is built from
 * `configSource` (a `weft.config.ts`) when given, so that workers can run it; otherwise it is empty.
 */
export async function deployManifest(
  weft: PlatformWithDatabase,
  projectId: string,
  manifest: ManifestInput,
  options: { configSource?: string } = {},
): Promise<string> {
  const { context } = weft.platform;
  registerManifestSecrets(manifest);
  return deployTestProject(context.database.db, context, { projectId, manifest, configSource: options.configSource });
}

/** How many executions a project has: refusals must leave it unchanged. */
export async function executionCount(weft: PlatformWithDatabase, projectId: string): Promise<number> {
  const [row] = await weft.database.db
    .select({ value: count() })
    .from(executions)
    .where(eq(executions.projectId, projectId));
  return row?.value ?? 0;
}

export async function executionRow(weft: PlatformWithDatabase, executionId: string) {
  const [row] = await weft.database.db.select().from(executions).where(eq(executions.id, executionId));
  return row;
}

/** The CSRF token of a rendered hosted form. */
export function formCsrfTokenOf(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (match?.[1] === undefined) throw new Error("the page has no CSRF token");
  return match[1];
}

export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
}

/** How many of these execution ids have a committed row. */
export async function executionsExisting(weft: PlatformWithDatabase, executionIds: string[]): Promise<number> {
  let found = 0;
  for (let start = 0; start < executionIds.length; start += 1000) {
    const [row] = await weft.database.db
      .select({ value: count() })
      .from(executions)
      .where(inArray(executions.id, executionIds.slice(start, start + 1000)));
    found += row?.value ?? 0;
  }
  return found;
}
