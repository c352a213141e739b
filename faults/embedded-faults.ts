import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callRpc, createTestDatabase, startStepCounter, type TestDatabase } from "@weft/testing";
import { collectFigures, hangMs, terminalBoundMs, waitForTerminal } from "./fault-checks.ts";
import { type FaultProject, seedFaultProject } from "./fault-project.ts";
import { platformProcess } from "./killable-processes.ts";
import { driveApiCalls, driveIngress, emptyLoadRecord } from "./marked-load.ts";
import { elapsedSeconds, killAndRestart, type ScenarioOptions, type ScenarioReport, sleep } from "./postgres-faults.ts";

/** The platform's embedded database, opened here while no platform process runs. */
function openEmbedded(dataDir: string): Promise<TestDatabase> {
  return createTestDatabase(false, { embeddedDataDir: dataDir });
}

/** Whether an execution of the project is not yet final (1) or none is (0), asked through `workflows.listExecutions`. */
async function openExecutionsThroughApi(url: string, project: FaultProject): Promise<number> {
  const answer = await callRpc(
    url,
    "workflows.listExecutions",
    {
      projectId: project.projectId,
      status: ["queued", "running", "sleeping", "waiting"],
      pagination: { first: 1 },
    },
    { token: project.token },
  );
  return (answer.json as { results?: unknown[] } | undefined)?.results?.length ?? 1;
}

/**
 * The embedded default: one process with every role on PGlite, SIGKILLed under load at random
 * moments and started again on the same data dir. The database is read after the last clean stop.
 */
export async function runEmbeddedFaults(options: ScenarioOptions): Promise<ScenarioReport> {
  const { random, write, seconds } = options;
  const dataDir = mkdtempSync(join(tmpdir(), "weft-faults-embedded-"));
  const counter = await startStepCounter();
  try {
    const seeding = await openEmbedded(dataDir);
    const project = await seedFaultProject(seeding.db, counter.base);
    await seeding.close();
    const platform = await platformProcess("the embedded platform", { WEFT_DATA_DIR: dataDir });
    await platform.start();
    const url = platform.url ?? "";
    const record = emptyLoadRecord();
    const started = Date.now();
    let loadOn = true;
    const keepGoing = () => loadOn;
    const ingress = (surface: "webhook" | "form") =>
      driveIngress({
        baseUrl: url,
        projectId: project.projectId,
        surface,
        connections: 2,
        ratePerSecond: 10,
        keepGoing,
        serving: () => platform.alive(),
        record,
      });
    const load = Promise.all([
      ingress("webhook"),
      ingress("form"),
      driveApiCalls({
        baseUrls: () => [url],
        projectId: project.projectId,
        token: project.token,
        callers: 1,
        pauseMs: 200,
        keepGoing,
        giveUpMs: 60_000,
        record,
      }),
    ]);
    let kills = 0;
    while (kills < 3 || Date.now() < started + seconds * 1000 - 10_000) {
      await sleep(random.between(2_000, 6_000));
      await killAndRestart(platform, write, started);
      kills += 1;
    }
    await sleep(Math.max(5_000, started + seconds * 1000 - Date.now()));
    loadOn = false;
    await load;
    write(`  load over after ${elapsedSeconds(started)} s; ${kills} SIGKILLs`);
    const terminal = await waitForTerminal(() => openExecutionsThroughApi(url, project), terminalBoundMs);
    await platform.stop();
    const handle = await openEmbedded(dataDir);
    try {
      const { figures, samples } = await collectFigures(handle.db, project.projectId, record, counter, terminal);
      for (const sample of samples) write(`  ! ${sample}`);
      const lateAnswers = record.answers.filter((answer) => answer.answeredAt - answer.sentAt > hangMs).length;
      return { figures, kills, crashes: platform.crashes(), lateAnswers };
    } finally {
      await handle.close();
    }
  } finally {
    counter.server.closeAllConnections();
    counter.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
