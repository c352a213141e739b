import type { Handler } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { authErrorResponse, authHandler, noStore, readJsonObject } from "../auth-http.ts";
import { supportedGrantTypes } from "./client-metadata.ts";
import { registerClient } from "./clients.ts";

/** `POST {auth_url}/oauth2/register`: RFC 7591 dynamic registration of a public client. */
export function registerClientRoute(context: PlatformContext): Handler<AppEnv> {
  const { database, clock, ids } = context;
  return authHandler(async (c) => {
    const registered = await registerClient(database.db, { clock, ids }, await readJsonObject(c));
    if (!registered.ok) return authErrorResponse(c, registered.refusal);
    const client = registered.value;
    noStore(c);
    return c.json(
      {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
        ...(client.clientName === null ? {} : { client_name: client.clientName }),
        redirect_uris: client.redirectUris,
        grant_types: [...supportedGrantTypes],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
      201,
    );
  });
}
