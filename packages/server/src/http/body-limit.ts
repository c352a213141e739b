/** Largest request body accepted anywhere unless a route or procedure documents its own limit. */
export const defaultBodyLimitBytes = 1024 * 1024;
