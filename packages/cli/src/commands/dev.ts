import { type FSWatcher, watch } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import type { Command } from "commander";
import { connect } from "../api.ts";
import type { CommandContext } from "../context.ts";
import { describeFailure } from "../describe-failure.ts";
import { printEvent } from "../event-lines.ts";
import { followEvents, interruptSignal } from "../event-stream.ts";
import { examples } from "../help.ts";
import { plural } from "../plural.ts";
import { locateConfig } from "../project/config-file.ts";
import { loadConfig } from "../project/load-config.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";

/** Saves closer together than this make one deployment (editors write a file in several steps). */
export const devDebounceMs = 300;

interface DevOptions {
  project?: string;
}

/**
 * Watches the directories of the given files and calls `onChange` (debounced) when one of them is
 * written. Directories rather than files: editors that save by renaming a new file over the old
 * one would leave a watcher on the file itself looking at nothing.
 */
function watchFiles(files: string[], onChange: () => void): () => void {
  const watched = new Set(files);
  let timer: NodeJS.Timeout | undefined;
  const watchers: FSWatcher[] = [...new Set(files.map((file) => dirname(file)))].map((directory) =>
    watch(directory, (_event, name) => {
      if (name === null || !watched.has(join(directory, name))) return;
      clearTimeout(timer);
      timer = setTimeout(onChange, devDebounceMs);
    }),
  );
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}

/**
 * `weft dev`: deploys the project, then redeploys on every save of `weft.config.ts` or a file it
 * imports, printing one line per deployment (or the error with its file:line), while it streams
 * the project's execution events; until Ctrl-C. One process: a file watcher and one event stream.
 */
async function dev(context: CommandContext, options: DevOptions): Promise<void> {
  const { output } = context;
  const path = locateConfig(context.cwd);
  const projectId = resolveProject(context, options.project);
  const client = connect(context);
  const signal = interruptSignal();
  let sources = [path];
  let stopWatching = () => {};
  let deploying = Promise.resolve();

  const deploy = async () => {
    const started = Date.now();
    let result: string;
    try {
      const loaded = await loadConfig(path);
      sources = [...new Set([path, ...loaded.sources])];
      const deployment = await client.deployments.create({
        projectId,
        manifest: loaded.manifest,
        bundle: loaded.bundle,
      });
      result = `${output.style("green", "deployed")} #${deployment.number} to ${projectId}: ${plural(loaded.manifest.workflows.length, "workflow")} in ${Date.now() - started} ms`;
      // Shown by this answer only: a webhook alert named for the first time gets its secret here.
      for (const alert of deployment.alertSecrets ?? []) {
        result += `\n  alert webhook ${alert.url}: signing secret ${alert.secret} (shown this once)`;
      }
    } catch (error) {
      const failure = describeFailure(error, { apiUrl: context.apiUrl, env: context.env });
      result = `${output.style("red", "not deployed:")} ${failure.message.replaceAll("\n", " ").replace(/ {2,}/g, " ")}`;
    }
    // Watch the new set of files before saying so: a save right after the line is seen is not missed.
    stopWatching();
    stopWatching = watchFiles(sources, () => {
      deploying = deploying.then(deploy);
    });
    output.line(result);
  };

  output.line(`watching ${relative(context.cwd, path) || basename(path)} and the files it imports; Ctrl-C stops`);
  deploying = deploy();
  await deploying;
  try {
    await followEvents(context, {
      projectId,
      signal,
      onEvent: (event) => {
        printEvent(output, event);
        return undefined;
      },
    });
  } finally {
    stopWatching();
    await deploying;
  }
}

export function registerDev(program: Command): void {
  withProjectOption(
    program
      .command("dev")
      .description("Deploy on every save of weft.config.ts (and the files it imports) and stream the project's logs"),
  )
    .addHelpText("after", examples("weft dev", "weft dev --project prj_01j..."))
    .action(runCommand((context, options: DevOptions) => dev(context, options)));
}
