/**
 * Runs passes of a task one after another (a periodic job, the claim loop): a call made while a pass runs gets the next
 * one, which covers it, so callers can await "a pass that started after I asked". A failed pass is
 * logged by `onError` and does not stop later ones.
 */
export function chainedPasses(
  pass: () => Promise<unknown>,
  options: { stopped: () => boolean; onError: (error: unknown) => void },
): { run(): Promise<void>; settled(): Promise<void> } {
  let last: Promise<void> = Promise.resolve();
  let next: Promise<void> | undefined;
  return {
    run: () => {
      if (options.stopped()) return Promise.resolve();
      if (next !== undefined) return next;
      const queued = last.then(() => {
        next = undefined;
        return pass().then(() => undefined, options.onError);
      });
      next = queued;
      last = queued;
      return queued;
    },
    settled: () => last,
  };
}
