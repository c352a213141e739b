import { asc, eq } from "drizzle-orm";
import type { Handler } from "hono";
import { accounts, memberships, workspaces } from "../../db/schema/index.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { findActiveCredential } from "../../identity/credentials.ts";
import type { PlatformContext } from "../../platform-context.ts";

/** `GET {auth_url}/agent/auth/credential`: whom a bearer credential acts as (for `weft whoami`), or 401. */
export function credentialCheckRoute(context: PlatformContext): Handler<AppEnv> {
  const { database, clock } = context;
  return async (c) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    const active = match?.[1] === undefined ? undefined : await findActiveCredential(database.db, clock, match[1]);
    if (active === undefined) {
      c.header("WWW-Authenticate", 'Bearer error="invalid_token"');
      return c.json(
        { error: "invalid_token", error_description: "The credential is missing, unknown, revoked or expired." },
        401,
      );
    }
    const [account] = await database.db
      .select({ email: accounts.email })
      .from(accounts)
      .where(eq(accounts.id, active.accountId));
    // The workspaces the credential acts in, so that `weft whoami` can show them.
    const memberOf = await database.db
      .select({ id: workspaces.id, name: workspaces.name, role: memberships.role })
      .from(memberships)
      .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
      .where(eq(memberships.accountId, active.accountId))
      .orderBy(asc(workspaces.createdAt), asc(workspaces.id));
    return c.json({
      email: account?.email,
      scopes: active.scopes,
      expires: active.expiresAt.toISOString(),
      workspaces: memberOf,
    });
  };
}
