import { eq } from "drizzle-orm";
import { recordAuditEvent } from "../../audit/record-audit-event.ts";
import type { Database } from "../../db/database.ts";
import { oauthClients } from "../../db/schema/index.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { type AuthResult, refuse } from "../auth-error.ts";
import { type ClientMetadataDocuments, isClientMetadataDocumentUrl } from "./client-metadata-documents.ts";
import { redirectUriProblem } from "./redirect-uri.ts";

const maxRedirectUris = 10;
const maxRedirectUriLength = 2000;
const maxClientNameLength = 200;
export const supportedGrantTypes = ["authorization_code", "refresh_token"] as const;

export interface OAuthClient {
  clientId: string;
  clientName: string | null;
  redirectUris: string[];
  createdAt: Date;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
}

export function checkRedirectUris(value: unknown): AuthResult<string[]> {
  const uris = stringList(value);
  if (uris === undefined || uris.length === 0) {
    return refuse("invalid_redirect_uri", "redirect_uris is required: a non-empty array of URIs.");
  }
  if (uris.length > maxRedirectUris) return refuse("invalid_redirect_uri", `At most ${maxRedirectUris} redirect_uris.`);
  for (const uri of uris) {
    if (uri.length > maxRedirectUriLength) {
      return refuse("invalid_redirect_uri", `A redirect URI is at most ${maxRedirectUriLength} characters.`);
    }
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) return refuse("invalid_redirect_uri", problem);
  }
  return { ok: true, value: [...new Set(uris)] };
}

/** Checks the metadata fields Weft acts on; any other field is ignored (RFC 7591 §2). */
export function checkMetadata(body: Record<string, unknown>): AuthResult<{ clientName: string | null }> {
  const method = body.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    return refuse(
      "invalid_client_metadata",
      'token_endpoint_auth_method must be "none": Weft registers public clients.',
    );
  }
  const grantTypes = body.grant_types === undefined ? [] : stringList(body.grant_types);
  const unsupportedGrant = grantTypes?.find((grant) => !(supportedGrantTypes as readonly string[]).includes(grant));
  if (grantTypes === undefined || unsupportedGrant !== undefined) {
    return refuse("invalid_client_metadata", `grant_types may hold only: ${supportedGrantTypes.join(", ")}.`);
  }
  const responseTypes = body.response_types === undefined ? [] : stringList(body.response_types);
  if (responseTypes === undefined || responseTypes.some((type) => type !== "code")) {
    return refuse("invalid_client_metadata", 'response_types may hold only "code".');
  }
  const name = body.client_name;
  if (name !== undefined && (typeof name !== "string" || name.length > maxClientNameLength)) {
    return refuse(
      "invalid_client_metadata",
      `client_name must be a string of at most ${maxClientNameLength} characters.`,
    );
  }
  const cleaned = typeof name === "string" ? name.replace(/[\p{Cc}]/gu, " ").trim() : "";
  return { ok: true, value: { clientName: cleaned === "" ? null : cleaned } };
}

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
