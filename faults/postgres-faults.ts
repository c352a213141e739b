import { usePostgres } from "@weft/server/internals";
import { startStepCounter } from "@weft/testing";
import {
  collectFigures,
  type FaultFigures,
  hangMs,
  openExecutionCount,
  restartWindowFigures,
  terminalBoundMs,
  waitForTerminal,
} from "./fault-checks.ts";
import { seedFaultProject } from "./fault-project.ts";
import { type KillableProcess, platformProcess, workerProcess } from "./killable-processes.ts";
import { driveApiCalls, driveIngress, emptyLoadRecord } from "./marked-load.ts";
import { startOwnPostgres } from "./own-postgres.ts";
import type { SeededRandom } from "./seeded-random.ts";

export interface ScenarioOptions {
  seconds: number;
  random: SeededRandom;
  write: (line: string) => void;
}

/** What a scenario measured. */
export interface ScenarioReport {
  figures: FaultFigures;
  kills: number;
  /** Processes that ended without being killed. */
  crashes: number;
  /** Answers later than the 5-second budget, over the whole run. */
  lateAnswers: number;
  restart?: ReturnType<typeof restartWindowFigures>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * SIGKILLs `victim` and starts it again at once, without waiting for it to serve (a platform takes
 * seconds to start on a busy machine, and the fault schedule goes on meanwhile): the returned
 * promise ends when it serves again.
 */
export async function killAndRestart(
  victim: KillableProcess,
  write: (line: string) => void,
  started: number,
): Promise<void> {
  write(`  t=${elapsedSeconds(started)} s: SIGKILL ${victim.name}`);
  await victim.kill();
  await victim.start();
  write(`  t=${elapsedSeconds(started)} s: ${victim.name} serves again`);
}

export function elapsedSeconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}

/** The first process of `candidates` the random source picks among those alive. */
export function pickAlive(candidates: KillableProcess[], random: SeededRandom): KillableProcess | undefined {
  const alive = candidates.filter((each) => each.alive());
  return alive[random.between(0, alive.length - 1)];
}

/**
 * PostgreSQL (started here), 2 platform processes (api, ingress, auth) and 2 workers under webhook,
 * programmatic-form and `workflows.run` load; a platform, then a worker, is SIGKILLed at random
 * moments and restarted, and PostgreSQL is restarted once with `-m immediate`.
 */
export async function runPostgresFaults(binDir: string, options: ScenarioOptions): Promise<ScenarioReport> {
  const { random, write } = options;
  const postgres = await startOwnPostgres(binDir);
  const counter = await startStepCounter();
  const handle = await usePostgres(postgres.url);
  const processes: KillableProcess[] = [];
  try {
    const project = await seedFaultProject(handle.db, counter.base);
    const platformEnv = { DATABASE_URL: postgres.url, WEFT_ROLES: "api,ingress,auth" };
    const platforms = [
      await platformProcess("platform 1", platformEnv),
      await platformProcess("platform 2", platformEnv),
    ];
    const workers = [workerProcess("worker 1", postgres.url), workerProcess("worker 2", postgres.url)];
    processes.push(...platforms, ...workers);
    await Promise.all(processes.map((each) => each.start()));

    const record = emptyLoadRecord();
    const started = Date.now();
    const faultsUntil = started + options.seconds * 1000 - 10_000;
    let loadOn = true;
    const keepGoing = () => loadOn;
    const load = Promise.all([
      ...platforms.flatMap((platform) =>
        (["webhook", "form"] as const).map((surface) =>
          driveIngress({
            baseUrl: platform.url ?? "",
            projectId: project.projectId,
            surface,
            connections: 2,
            ratePerSecond: 6,
            keepGoing,
            serving: () => platform.alive(),
            record,
          }),
        ),
      ),
      driveApiCalls({
        baseUrls: () => platforms.map((platform) => platform.url ?? ""),
        projectId: project.projectId,
        token: project.token,
        callers: 2,
        pauseMs: 200,
        keepGoing,
        giveUpMs: 60_000,
        record,
      }),
    ]);

    // At least 3 kills of each kind, a platform then a worker, each at a random moment; the
    // PostgreSQL restart comes once, after the first round.
    const restarts: Promise<void>[] = [];
    let restartWindow: { from: number; to: number } | undefined;
    let rounds = 0;
    while (rounds < 3 || Date.now() < faultsUntil) {
      await sleep(random.between(2_000, 6_000));
      const platform = pickAlive(platforms, random);
      if (platform !== undefined) restarts.push(killAndRestart(platform, write, started));
      await sleep(random.between(1_000, 4_000));
      const worker = pickAlive(workers, random);
      if (worker !== undefined) restarts.push(killAndRestart(worker, write, started));
      rounds += 1;
      if (rounds === 1) {
        await Promise.all(restarts);
        await sleep(random.between(1_000, 4_000));
        const from = Date.now();
        write(`  t=${elapsedSeconds(started)} s: pg_ctl restart -m immediate`);
        await postgres.restartImmediately();
        // Connections broken by the restart are found out by the requests of the next moments.
        restartWindow = { from, to: Date.now() + hangMs };
        write(`  t=${elapsedSeconds(started)} s: PostgreSQL serves again`);
      }
    }
    await Promise.all(restarts);
    // The load goes on a while with every process up, then stops.
    await sleep(Math.max(5_000, started + options.seconds * 1000 - Date.now()));
    loadOn = false;
    await load;
    const kills = restarts.length;
    write(`  load over after ${elapsedSeconds(started)} s; ${kills} processes SIGKILLed`);
    if (restartWindow === undefined) throw new Error("PostgreSQL was not restarted");

    const terminal = await waitForTerminal(() => openExecutionCount(handle.db, project.projectId), terminalBoundMs);
    const { figures, samples } = await collectFigures(handle.db, project.projectId, record, counter, terminal);
    const restart = restartWindowFigures(record, restartWindow);
    const lateAnswers = record.answers.filter((answer) => answer.answeredAt - answer.sentAt > hangMs).length;
    write(
      `  during the PostgreSQL restart (${restartWindow.to - restartWindow.from} ms): ${restart.answered} answered, ${restart.accepted} accepted, ` +
        `${restart.refused503WithRetryAfter} refused 503 with Retry-After, ${restart.refusedBacklogged} refused 429 with Retry-After (backlogged), ${restart.refusedOtherwise} refused otherwise` +
        `${restart.otherStatuses.length > 0 ? ` (${restart.otherStatuses.join(", ")})` : ""}, ${restart.overBudget} answered after 5 s`,
    );
    for (const sample of samples) write(`  ! ${sample}`);
    return { figures, kills, crashes: processes.reduce((sum, each) => sum + each.crashes(), 0), restart, lateAnswers };
  } finally {
    for (const each of processes) await each.stop();
    counter.server.closeAllConnections();
    counter.server.close();
    await handle.close();
    await postgres.stop();
  }
}
