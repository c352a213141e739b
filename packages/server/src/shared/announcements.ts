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
