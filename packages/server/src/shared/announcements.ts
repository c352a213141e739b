/** In-process announcements: every subscriber hears each published value, synchronously. */
export interface Announcements<T> {
  publish(value: T): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: (value: T) => void): () => void;
}

export function createAnnouncements<T>(): Announcements<T> {
  const listeners = new Set<(value: T) => void>();
  return {
    publish: (value) => {
      for (const listener of listeners) listener(value);
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Announcements of ids (revoked credentials, accounts whose memberships changed): an empty list is not announced. */
export function createIdAnnouncements(): Announcements<readonly string[]> {
  const announcements = createAnnouncements<readonly string[]>();
  return {
    publish: (ids) => {
      if (ids.length > 0) announcements.publish(ids);
    },
    subscribe: announcements.subscribe,
  };
}
