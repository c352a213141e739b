/**
 * The pace of failure notices: at most one per workflow per window (the first failure notifies at
 * once; later ones wait for the window to pass and go together, counted), and how a delivery that
 * did not go through is tried again: after `firstRetryMs`, doubling, `maxTries` tries in all.
 */
export interface AlertPacing {
  windowMs: number;
  firstRetryMs: number;
  maxTries: number;
}

export const defaultAlertPacing: AlertPacing = {
  windowMs: 5 * 60 * 1000,
  firstRetryMs: 30 * 1000,
  maxTries: 8,
};

/** When the try after the `tries`-th failed one is due. */
export function retryAt(pacing: AlertPacing, now: Date, tries: number): Date {
  return new Date(now.getTime() + pacing.firstRetryMs * 2 ** (tries - 1));
}
