import { createClient, type WeftClient } from "@weft/client";
import type { CommandContext } from "./context.ts";

/** The typed API client, authenticated with the credential of `WEFT_TOKEN` or the credentials file. */
export function connect(context: CommandContext): WeftClient {
  return createClient({ baseUrl: context.apiUrl, token: context.requireToken().token });
}
