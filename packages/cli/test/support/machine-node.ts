import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The machine's own Node, which a user outside this repository has (not the Node 24 of some
 * node_modules/.bin); this one when there is none.
 */
export const plainNodeDirectory =
  process.env.WEFT_TEST_PLAIN_NODE_DIR ??
  ["/usr/bin", ...(process.env.PATH ?? "").split(":")].find(
    (directory) => !directory.includes("node_modules") && existsSync(join(directory, "node")),
  ) ??
  dirname(process.execPath);

/**
 * npm's settings for installs the tests make as a newcomer would, with a HOME of their own: only the
 * registry is reachable, so packages it has already served come from the user's cache, and the
 * machine's trust in its network's certificates carries over for what the cache does not hold yet.
 */
export function npmSettingsOfTheMachine(): Record<string, string> {
  return {
    npm_config_cache: execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim(),
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    ...Object.fromEntries(
      ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "HTTPS_PROXY", "https_proxy"].flatMap((name) => {
        const value = process.env[name];
        return value === undefined ? [] : [[name, value]];
      }),
    ),
  };
}
