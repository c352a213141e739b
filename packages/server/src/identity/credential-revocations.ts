/**
 * In-process announcements of revoked credentials, so caches of credential lookups in this process
 * drop them at once. Other processes learn of a revocation when their cache entries expire.
 */
export interface CredentialRevocations {
  publish(credentialIds: readonly string[]): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: (credentialIds: readonly string[]) => void): () => void;
}

export function createCredentialRevocations(): CredentialRevocations {
  const listeners = new Set<(credentialIds: readonly string[]) => void>();
  return {
    publish: (credentialIds) => {
      if (credentialIds.length === 0) return;
      for (const listener of listeners) listener(credentialIds);
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
