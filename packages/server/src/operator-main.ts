/**
 * Entry point of the operator's commands where the `weft` CLI is not installed, as in the container
 * image: `rotate-secret-key` and `set-plan <workspaceId> <plan>`, the same commands as
 * `weft server rotate-secret-key` and `weft server set-plan`, configured from the environment.
 */
const [command, ...args] = process.argv.slice(2);
const kind =
  command === "rotate-secret-key" && args.length === 0
    ? "rotate-secret-key"
    : command === "set-plan" && args.length === 2
      ? "set-plan"
      : undefined;
if (kind === undefined) {
  process.stderr.write(
    "usage: node packages/server/src/operator-main.ts rotate-secret-key | set-plan <workspaceId> <plan>\n",
  );
  process.exitCode = 2;
} else {
  // Loaded only for a command: a usage error answers without starting the platform's modules.
  const { bootstrap } = await import("./process/bootstrap.ts");
  await bootstrap(process.env, kind, args);
}
