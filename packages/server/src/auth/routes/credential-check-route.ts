import { asc, inArray } from "drizzle-orm";
import type { Handler } from "hono";
import { workspaces } from "../../db/schema/index.ts";
import type { AppEnv } from "../../http/app-env.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { loadPrincipal } from "../../rpc/principal-cache.ts";

/**
 * `GET {auth_url}/agent/auth/credential`: whom a bearer credential acts as (for `weft whoami`), or
 * 401. The workspaces are the principal's, so a project-scoped credential shows only its project's
 * workspace (and the project) rather than everything its policy's creator belongs to.
 */
export function credentialCheckRoute(context: PlatformContext): Handler<AppEnv> {
  const { database, clock } = context;
  return async (c) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    const loaded = match?.[1] === undefined ? undefined : await loadPrincipal(database.db, clock, match[1]);
    if (loaded === undefined) {
      c.header("WWW-Authenticate", 'Bearer error="invalid_token"');
      return c.json(
        { error: "invalid_token", error_description: "The credential is missing, unknown, revoked or expired." },
        401,
      );
    }
    const { principal } = loaded;
    const ids = [...principal.workspaces.keys()];
    const named =
      ids.length === 0
        ? []
        : await database.db
            .select({ id: workspaces.id, name: workspaces.name })
            .from(workspaces)
            .where(inArray(workspaces.id, ids))
            .orderBy(asc(workspaces.createdAt), asc(workspaces.id));
    return c.json({
      email: principal.email,
      scopes: [...principal.scopes],
      expires: loaded.credentialExpiresAt.toISOString(),
      workspaces: named.map((workspace) => ({ ...workspace, role: principal.workspaces.get(workspace.id) })),
      ...(principal.projectId === undefined ? {} : { projectId: principal.projectId }),
    });
  };
}
