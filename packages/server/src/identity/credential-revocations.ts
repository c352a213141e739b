import { type Announcements, createIdAnnouncements } from "../shared/announcements.ts";

/**
 * In-process announcements of revoked credentials, so caches of credential lookups in this process
 * drop them at once. Other processes learn of a revocation when their cache entries expire.
 */
export type CredentialRevocations = Announcements<readonly string[]>;

export function createCredentialRevocations(): CredentialRevocations {
  return createIdAnnouncements();
}
