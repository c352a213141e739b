import { SandboxUnavailableError } from "./engine/sandbox/sandbox-isolation.ts";
import { startPlatform } from "./platform.ts";
import { parseConfigOrExit, stopOnSignals } from "./process/process-lifecycle.ts";

/**
 * Entry point of `npm start` and `weft server`: parse the configuration once, start every role,
 * and stop gracefully on SIGTERM/SIGINT (stop accepting, drain in-flight requests, close the database).
 */
const config = parseConfigOrExit(process.env, "weft");
const platform = await startPlatform(config).catch((error: unknown) => {
  if (!(error instanceof SandboxUnavailableError)) throw error;
  process.stderr.write(`weft: cannot start: ${error.message}\n`);
  process.exit(1);
});
// Before announcing readiness: whoever waits for the line below may signal at once, and a signal
// that arrives before a handler exists ends the process without a graceful stop.
stopOnSignals(platform.context.logger, () => platform.stop(), "platform");
const where = config.database.kind === "embedded" ? `embedded database in ${config.dataDir}` : "PostgreSQL server";
const sandbox = platform.context.sandbox;
const isolation =
  sandbox === undefined
    ? ""
    : `; sandbox: ${sandbox.mode === "bwrap" ? `bubblewrap, egress ${sandbox.egress}` : "plain processes, NOT isolated"}`;
process.stdout.write(
  `Weft is running at ${config.baseUrl} (listening on ${platform.listenUrl}; roles: ${[...config.roles].join(", ")}; data: ${where}${isolation})\n`,
);
const outbox = platform.context.mailer.outbox;
if (outbox !== undefined) {
  // Like a notebook server's token link: the key is the mailbox's only lock besides loopback.
  process.stdout.write(`Dev mailbox: ${config.baseUrl}/dev/mailbox?key=${outbox.key}\n`);
}
