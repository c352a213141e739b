import type { HttpBindings } from "@hono/node-server";
import type { Logger } from "../shared/logger.ts";

/** Per-request values that middleware puts on the Hono context. */
export interface AppEnv {
  /** Node's request and response, when the app is served by node:http (absent in `app.request()`). */
  Bindings: Partial<HttpBindings>;
  Variables: {
    requestId: string;
    /** The process's logger; `requestLogger(c)` gives the one that stamps the request id. */
    processLogger: Logger;
    requestLogger: Logger;
  };
}
