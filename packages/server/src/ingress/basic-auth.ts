import { headerParameterText } from "../http/response-headers.ts";
import { secretMatchesHash, secretsEqual } from "../shared/secrets.ts";

export interface BasicCredentials {
  username: string;
  password: string;
}

/** A form's stored basic-auth block: the password only as its SHA-256 hex digest. */
export interface StoredBasicAuth {
  username: string;
  passwordHash: string;
}

/** Reads `Authorization: Basic <base64(user:password)>`; anything else gives `undefined`. */
export function parseBasicAuthorization(header: string | undefined): BasicCredentials | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Both parts are always compared, in constant time, so timing tells nothing about which was wrong. */
export function basicAuthMatches(presented: BasicCredentials | undefined, stored: StoredBasicAuth): boolean {
  const usernameMatches = secretsEqual(presented?.username ?? "", stored.username);
  const passwordMatches = secretMatchesHash(presented?.password ?? "", stored.passwordHash);
  return presented !== undefined && usernameMatches && passwordMatches;
}

/** The challenge sent with a 401; the realm names the form so a browser keeps per-form logins apart. */
export function basicAuthChallenge(realm: string): string {
  return `Basic realm="${headerParameterText(realm)}", charset="UTF-8"`;
}
