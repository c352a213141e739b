import { type Discovery, discover } from "@weft/client";
import { CliError } from "./errors.ts";

export interface CredentialInfo {
  email: string;
  scopes: string[];
  expires: string;
  workspaces: { id: string; name: string; role: string }[];
  /** The one project a federated (project-scoped) credential may reach; undefined for any other. */
  projectId: string | undefined;
}

/** The authorization server of the API at `apiUrl` and its registration endpoints. */
export function discoverAuth(apiUrl: string): Promise<Discovery> {
  return discover(apiUrl);
}

/**
 * Who a credential acts for, its scopes and expiry, from `GET {auth_url}/agent/auth/credential`.
 * An inactive credential is refused with "run `weft login`".
 */
export async function describeCredential(authUrl: string, credential: string): Promise<CredentialInfo> {
  const response = await fetch(`${authUrl.replace(/\/+$/, "")}/agent/auth/credential`, {
    headers: { authorization: `Bearer ${credential}`, accept: "application/json" },
  });
  if (response.status === 401) {
    await response.body?.cancel();
    throw new CliError("the credential is not valid (unknown, revoked or expired)", {
      code: "invalid_token",
      fix: "run `weft login` (or set WEFT_TOKEN to a valid credential)",
    });
  }
  const body = (await response.json().catch(() => undefined)) as Partial<CredentialInfo> | undefined;
  if (!response.ok || typeof body?.email !== "string" || typeof body.expires !== "string") {
    throw new CliError(`${authUrl} answered ${response.status} when asked about the credential`, {
      code: "unexpected_response",
      fix: "check that --api-url (or WEFT_API_URL) points at a Weft platform",
    });
  }
  return {
    email: body.email,
    scopes: Array.isArray(body.scopes) ? body.scopes : [],
    expires: body.expires,
    workspaces: Array.isArray(body.workspaces) ? body.workspaces : [],
    projectId: typeof body.projectId === "string" ? body.projectId : undefined,
  };
}
