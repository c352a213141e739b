import { eq } from "drizzle-orm";
import { recordAuditEvent } from "../../audit/record-audit-event.ts";
import type { Database } from "../../db/database.ts";
import { oauthClients } from "../../db/schema/index.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import type { AuthResult } from "../auth-error.ts";
import { checkMetadata, checkRedirectUris, type OAuthClient } from "./client-metadata.ts";
import { type ClientMetadataDocuments, isClientMetadataDocumentUrl } from "./client-metadata-documents.ts";

/** RFC 7591 dynamic registration of a public client: no secret, authenticated by PKCE alone. */
export async function registerClient(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  body: Record<string, unknown>,
): Promise<AuthResult<OAuthClient>> {
  const redirectUris = checkRedirectUris(body.redirect_uris);
  if (!redirectUris.ok) return redirectUris;
  const metadata = checkMetadata(body);
  if (!metadata.ok) return metadata;
  const client: OAuthClient = {
    clientId: deps.ids("oauthClient"),
    clientName: metadata.value.clientName,
    redirectUris: redirectUris.value,
    createdAt: deps.clock.now(),
  };
  await db.transaction(async (tx) => {
    await tx.insert(oauthClients).values({
      id: client.clientId,
      clientName: client.clientName,
      redirectUris: client.redirectUris,
      createdAt: client.createdAt,
    });
    await recordAuditEvent(tx, deps, {
      action: "oauth_client.registered",
      targetType: "oauth_client",
      targetId: client.clientId,
      data: { clientName: client.clientName, redirectUris: client.redirectUris },
    });
  });
  return { ok: true, value: client };
}

/**
 * The client a `client_id` names: a registered one, or the one its metadata document describes
 * when the id is an https URL.
 */
export async function findClient(
  db: Database,
  documents: ClientMetadataDocuments,
  clientId: string,
): Promise<OAuthClient | undefined> {
  if (isClientMetadataDocumentUrl(clientId)) return documents.find(clientId);
  if (clientId.length > 100) return undefined;
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, clientId));
  return row === undefined
    ? undefined
    : { clientId: row.id, clientName: row.clientName, redirectUris: row.redirectUris, createdAt: row.createdAt };
}

/**
 * How the consent page and the approval mail name a client: its own name, or its id; a client of
 * a metadata document also by the host that published it, which is what vouches for the name.
 */
export function clientLabel(client: OAuthClient): string {
  if (isClientMetadataDocumentUrl(client.clientId)) {
    const host = new URL(client.clientId).host;
    return client.clientName === null ? host : `${client.clientName} (${host})`;
  }
  return client.clientName ?? `an unnamed application (${client.clientId})`;
}
