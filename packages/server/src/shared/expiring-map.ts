/**
 * A bounded in-memory map whose entries expire: what the caches of credential lookups and of active
 * deployments keep. When full, the entry written longest ago makes room.
 */
export interface ExpiringMap<K, V> {
  /** The value while it has not expired at `nowMs`; an expired entry is dropped. */
  get(key: K, nowMs: number): V | undefined;
  set(key: K, value: V, expiresAtMs: number): void;
  delete(key: K): void;
  /** Drops every entry whose value matches. */
  deleteWhere(matches: (value: V) => boolean): void;
}

export function createExpiringMap<K, V>(maxEntries: number): ExpiringMap<K, V> {
  const entries = new Map<K, { value: V; expiresAtMs: number }>();
  return {
    get: (key, nowMs) => {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expiresAtMs > nowMs) return entry.value;
      entries.delete(key);
      return undefined;
    },
    set: (key, value, expiresAtMs) => {
      // Re-inserting moves the key to the end: maps iterate in insertion order, oldest write first.
      entries.delete(key);
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
      entries.set(key, { value, expiresAtMs });
    },
    delete: (key) => {
      entries.delete(key);
    },
    deleteWhere: (matches) => {
      for (const [key, entry] of entries) if (matches(entry.value)) entries.delete(key);
    },
  };
}
