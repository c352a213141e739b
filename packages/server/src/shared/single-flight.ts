/**
 * Reads by key where calls for a key whose read is still under way share that read instead of
 * starting another; once it settles, the next call reads again. What a read answered is not kept:
 * callers that cache keep their own cache in front.
 */
export function singleFlight<Key, Value>(read: (key: Key) => Promise<Value>): (key: Key) => Promise<Value> {
  const inFlight = new Map<Key, Promise<Value>>();
  return (key) => {
    const pending = inFlight.get(key);
    if (pending !== undefined) return pending;
    const started = read(key).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  };
}
