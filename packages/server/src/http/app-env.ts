import type { Logger } from "../shared/logger.ts";

/** Per-request values that middleware puts on the Hono context. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
  };
}
