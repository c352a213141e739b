import { idleTimeoutMs, type ProxiedChild, type ProxyContext } from "./proxy-context.ts";

/** A tunnel or forwarded request of one child, as its bytes move. */
export interface Exchange {
  /** The upstream answered: from now on the idle timer runs (until then the upstream deadline does). */
  started(): void;
  /** Draws `bytes` on the child's budget; false when the exchange is over (closed, or the budget used up). */
  counted(bytes: number): boolean;
  close(): void;
}

/**
 * Registers a tunnel or forwarded request of `child`: its bytes draw on the child's budget and
 * keep it from going idle. Using the budget up cuts every exchange of the child. The idle timer
 * runs from `started` (the upstream answered; until then the upstream deadline runs).
 */
export function openExchange(
  context: Pick<ProxyContext, "timers" | "logger">,
  child: ProxiedChild,
  cut: () => void,
): Exchange {
  const { timers, logger } = context;
  let closed = false;
  let cancelIdle: () => void = () => undefined;
  const armIdle = () => {
    if (closed) return;
    cancelIdle();
    cancelIdle = timers.after(idleTimeoutMs, () => {
      logger.debug({ child: child.key }, "an idle egress exchange was cut");
      cutHere();
    });
  };
  const close = () => {
    if (closed) return;
    closed = true;
    cancelIdle();
    child.exchanges.delete(cutHere);
  };
  const cutHere = () => {
    close();
    cut();
  };
  child.exchanges.add(cutHere);
  return {
    started: armIdle,
    counted: (bytes) => {
      if (closed) return false;
      if (!child.budget.draw(bytes)) {
        logger.warn({ child: child.key, ...child.budget.usage() }, "a sandbox used up its egress budget");
        for (const exchangeCut of [...child.exchanges]) exchangeCut();
        return false;
      }
      armIdle();
      return true;
    },
    close,
  };
}
