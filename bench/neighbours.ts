import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { maxChannelFrameBytes } from "@weft/server/internals";
import { bundleConfig, callRpc } from "@weft/testing";
import { type AttackRecord, describeOutcome, startAttack, type TenantA } from "./attack-driver.ts";
import { machineCpuMs } from "./http-load.ts";
import { type Attack, attackerManifest, attackerSource, attacks } from "./neighbour-attacks.ts";
import { driveTenantLoad, type TenantB, type TenantLoad } from "./neighbour-load.ts";
import type { NeighboursServerReady } from "./neighbours-server.ts";
import { percentile } from "./percentile.ts";
import { childProcessIds, processCpuMs, sandboxGroupCpu } from "./process-readings.ts";
import type { SlowListenerStats } from "./slow-listener.ts";

/**
 * The noisy-neighbour benchmark: one platform in its own process (bubblewrap by default), two
 * tenants. B sends a steady modest load (webhooks that start a one-step workflow, read until they
 * finish, and `projects.list`); A runs one attack after another (`neighbour-attacks.ts`). Prints
 * B's p50 and p99 with no attack and under each, their ratio to the baseline, and B's failed
 * requests, in one table. Target: B's webhook-to-finished p99 at most 3x its baseline, and no
 * failed request of B.
 */
export interface NeighboursBenchOptions {
  /** The PostgreSQL server to run on; the embedded database when undefined. */
  postgresUrl: string | undefined;
  /** Seconds B's load is measured in each phase. */
  phaseSeconds: number;
  /** B's webhooks per second, and as many `projects.list` calls. */
  perSecond: number;
  write: (line: string) => void;
}

const targetRatio = 3;
/** How long a child process has to exit after SIGTERM before it is killed. */
const stopGraceMs = 30_000;
/** Past the phase, what the held attacks hold is let go of anyway (see `AttackStart`). */
const holdBackstopMs = 120_000;
/** How long the benchmark waits for A's sandbox processes to go once A deployed anew. */
const lingerLimitMs = 15_000;

const tenantBSource = `
import { defineConfig, webhook, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "ingest", async run(input, ctx) {
    return ctx.step("record", () => ({ received: input !== undefined }));
  } })],
  webhooks: [webhook({ name: "orders", workflow: "ingest" })],
});
`;
const tenantBManifest = {
  version: 1,
  workflows: [{ name: "ingest" }],
  webhooks: [{ name: "orders", workflow: "ingest" }],
};

/** SIGTERM, then SIGKILL past the grace; resolves once the child has exited. */
async function stopChild(child: ChildProcess): Promise<void> {
  const running = () => child.exitCode === null && child.signalCode === null;
  if (!running()) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await Promise.race([exited, delay(stopGraceMs)]);
  if (running()) {
    child.kill("SIGKILL");
    await exited;
  }
}

/** Forks a bench module and resolves with its first IPC message. */
async function forkAndHear<Message>(
  module: string,
  args: string[],
  stdio: "inherit" | number,
  started: ChildProcess[],
): Promise<{ child: ChildProcess; message: Message }> {
  const child = fork(fileURLToPath(new URL(module, import.meta.url)), args, {
    stdio: ["ignore", stdio, stdio, "ipc"],
  });
  started.push(child);
  const [message] = (await Promise.race([
    once(child, "message"),
    once(child, "exit").then(([code]) => {
      throw new Error(`${module} exited (${code}) before it was ready`);
    }),
  ])) as [Message];
  return { child, message };
}

async function listenerStats(listener: ChildProcess): Promise<SlowListenerStats> {
  const answer = once(listener, "message");
  listener.send({ stats: true });
  const [stats] = (await answer) as [SlowListenerStats];
  return stats;
}

async function createProject(url: string, token: string, name: string): Promise<string> {
  const project = await callRpc(url, "projects.create", { name }, { token });
  if (project.status !== 200)
    throw new Error(`projects.create for ${name} answered ${project.status}: ${project.text}`);
  return (project.json as { id: string }).id;
}

/** Deploys a bundle to a project, which makes it the project's active deployment. */
async function deploy(url: string, token: string, projectId: string, manifest: object, bundle: string): Promise<void> {
  const deployment = await callRpc(url, "deployments.create", { projectId, manifest, bundle }, { token });
  if (deployment.status !== 200) {
    throw new Error(`deployments.create for ${projectId} answered ${deployment.status}: ${deployment.text}`);
  }
}

interface PhaseResult {
  load: TenantLoad;
  /** Share of the machine's cores busy while B's load ran, 0 to 1. */
  machineBusy: number;
  /** CPU of the platform's own process while B's load ran, in cores. */
  platformCores: number | undefined;
  /** CPU of every sandbox (A's and B's) in cores, and the share of the time their group was held back for its quota. */
  sandboxes: { cores: number; throttled: number } | undefined;
}

async function measure(tenant: TenantB, platformPid: number, options: NeighboursBenchOptions): Promise<PhaseResult> {
  const machineBefore = machineCpuMs();
  const platformBefore = processCpuMs(platformPid);
  const sandboxesBefore = sandboxGroupCpu(platformPid);
  const startedAt = performance.now();
  const load = await driveTenantLoad(tenant, options.phaseSeconds, options.perSecond);
  const elapsedMs = performance.now() - startedAt;
  const machineAfter = machineCpuMs();
  const platformAfter = processCpuMs(platformPid);
  const sandboxesAfter = sandboxGroupCpu(platformPid);
  const busy = machineAfter.busy - machineBefore.busy;
  const idle = machineAfter.idle - machineBefore.idle;
  return {
    load,
    machineBusy: busy / Math.max(1, busy + idle),
    platformCores:
      platformBefore === undefined || platformAfter === undefined
        ? undefined
        : (platformAfter - platformBefore) / elapsedMs,
    sandboxes:
      sandboxesBefore === undefined || sandboxesAfter === undefined
        ? undefined
        : {
            cores: (sandboxesAfter.usedMs - sandboxesBefore.usedMs) / elapsedMs,
            throttled: (sandboxesAfter.throttledMs - sandboxesBefore.throttledMs) / elapsedMs,
          },
  };
}

const columns = [30, 22, 20, 16, 9, 13, 13, 22];
function row(cells: string[]): string {
  return cells.map((cell, index) => cell.padEnd(columns[index] ?? 0)).join(" ");
}
const pair = (values: readonly number[]) =>
  `${percentile(values, 0.5).toFixed(0).padStart(6)} / ${percentile(values, 0.99).toFixed(0).padStart(6)}`;

/** A row of the table; `judged` rows are held to the target against `baseline`. */
function phaseRow(label: string, result: PhaseResult, baseline: PhaseResult | undefined, judged: boolean): string {
  const { load } = result;
  const webhookP99 = percentile(load.webhookMs, 0.99);
  const listP99 = percentile(load.listMs, 0.99);
  const webhookRatio = baseline === undefined ? undefined : webhookP99 / percentile(baseline.load.webhookMs, 0.99);
  const listRatio = baseline === undefined ? undefined : listP99 / percentile(baseline.load.listMs, 0.99);
  const verdict =
    webhookRatio === undefined || !judged
      ? ""
      : webhookRatio <= targetRatio && load.failed === 0
        ? "meets"
        : `MISSES (${[webhookRatio > targetRatio ? `p99 ${webhookRatio.toFixed(1)}x` : "", load.failed > 0 ? `${load.failed} failed` : ""].filter(Boolean).join(", ")})`;
  return row([
    label,
    pair(load.webhookMs),
    pair(load.listMs),
    webhookRatio === undefined || listRatio === undefined
      ? "-"
      : `${webhookRatio.toFixed(2)}x / ${listRatio.toFixed(2)}x`,
    String(load.failed),
    `${(result.machineBusy * 100).toFixed(0)} %`,
    result.platformCores === undefined ? "-" : `${(result.platformCores * 100).toFixed(0)} %`,
    result.sandboxes === undefined
      ? "-"
      : `${(result.sandboxes.cores * 100).toFixed(0)} % (held ${(result.sandboxes.throttled * 100).toFixed(0)} %)`,
    verdict,
  ]);
}

export async function runNeighboursBench(options: NeighboursBenchOptions): Promise<void> {
  const started: ChildProcess[] = [];
  const logPath = join(tmpdir(), `weft-neighbours-${process.pid}.log`);
  const log = openSync(logPath, "w");
  try {
    const listener = await forkAndHear<{ port: number }>("./slow-listener.ts", [], "inherit", started);
    const server = await forkAndHear<NeighboursServerReady>(
      "./neighbours-server.ts",
      [String(listener.message.port), ...(options.postgresUrl === undefined ? [] : [options.postgresUrl])],
      log,
      started,
    );
    const { url, tokens } = server.message;
    const platformPid = server.child.pid ?? 0;
    const tenantA: TenantA = { url, token: tokens.a, projectId: await createProject(url, tokens.a, "tenant-a") };
    const attackerBundle = await bundleConfig(attackerSource);
    // Each phase ends with a deployment of A anew: the platform stops the sandboxes of a deployment
    // no longer active once they run nothing, so none of A's warm ones carries over to the next phase.
    const redeployA = () => deploy(url, tokens.a, tenantA.projectId, attackerManifest, attackerBundle);
    await redeployA();
    const projectB = await createProject(url, tokens.b, "tenant-b");
    await deploy(url, tokens.b, projectB, tenantBManifest, await bundleConfig(tenantBSource));
    const tenantB: TenantB = { url, token: tokens.b, webhookUrl: `${url}/triggers/webhooks/${projectB}/orders` };
    options.write(
      `Noisy neighbours (${server.message.database} database, sandbox ${server.message.sandbox}, platform in its own process, its log at ${logPath}; ` +
        `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores at the start)\n` +
        `  Tenant B sends ${options.perSecond} webhooks/s (a one-step workflow, read until it finished) and ${options.perSecond} projects.list/s ` +
        `for ${options.phaseSeconds} s per phase while tenant A attacks (${options.phaseSeconds * options.perSecond} samples of each per phase, so p99 is near their slowest).\n  Target: B's webhook→finished p99 at most ${targetRatio}x its baseline, no failed request of B.`,
    );
    // Warms B's sandbox, the platform's JIT and its caches: not counted.
    await driveTenantLoad(tenantB, 2, options.perSecond);
    options.write(
      `  ${row(["attack by A", "webhook→finished ms", "projects.list ms", "p99 ÷ baseline", "B failed", "machine busy", "platform CPU", "sandboxes CPU", "target"])}`,
    );
    options.write(
      `  ${row(["", "   p50 /    p99", "   p50 /    p99", "webhook / list", "", "", "one core 100 %", "(held: for the quota)", ""])}`,
    );
    const baseline = await measure(tenantB, platformPid, options);
    options.write(`  ${phaseRow("none (baseline)", baseline, undefined, false)}`);
    const notes: string[] = [];
    const failures: string[] = baseline.load.failures.map((failure) => `baseline: ${failure}`);
    for (const attack of attacks({ listenerPort: listener.message.port, frameCap: maxChannelFrameBytes })) {
      await listenerStats(listener.child);
      const { result, record, sandboxes } = await attackPhase(
        attack,
        tenantA,
        tenantB,
        platformPid,
        redeployA,
        options,
      );
      options.write(`  ${phaseRow(attack.label, result, baseline, true)}`);
      const held = await listenerStats(listener.child);
      notes.push(
        `${attack.label}: A's executions: ${await describeOutcome(tenantA, record.executionIds)}; ${sandboxes}` +
          (record.failedCalls.length === 0
            ? ""
            : `; A's own calls failed ${record.failedCalls.length} times (${record.failedCalls[0]})`) +
          (held.peakOpen === 0
            ? ""
            : `; the slow listener accepted ${held.accepted} connections, held at most ${held.peakOpen} at once and ${held.open} at the phase's end`),
      );
      failures.push(...result.load.failures.map((failure) => `${attack.label}: ${failure}`));
    }
    // The baseline once more: how far the figures move without any attack, on a machine others share.
    const closing = await measure(tenantB, platformPid, options);
    options.write(`  ${phaseRow("none (baseline again)", closing, baseline, false)}`);
    failures.push(...closing.load.failures.map((failure) => `baseline again: ${failure}`));
    options.write("  What became of A's executions in each phase:");
    for (const note of notes) options.write(`    ${note}`);
    if (failures.length > 0) {
      options.write("  B's failed requests, the first of each phase:");
      for (const failure of failures) options.write(`    ${failure}`);
    }
  } finally {
    for (const child of started.reverse()) await stopChild(child);
    closeSync(log);
  }
}

async function attackPhase(
  attack: Attack,
  tenantA: TenantA,
  tenantB: TenantB,
  platformPid: number,
  redeployA: () => Promise<void>,
  options: NeighboursBenchOptions,
): Promise<{ result: PhaseResult; record: AttackRecord; sandboxes: string }> {
  const before = new Set(childProcessIds(platformPid));
  const running = await startAttack(tenantA, attack.drive, Date.now() + holdBackstopMs);
  // B's load counts its failures rather than throwing them, so the attack is always stopped here.
  const result = await measure(tenantB, platformPid, options);
  const record = await running.stop();
  const lingering = childProcessIds(platformPid).filter((pid) => !before.has(pid)).length;
  await redeployA();
  return {
    result,
    record,
    sandboxes: `${lingering} of A's sandbox processes still ran once its executions had ended; ${await sandboxesGone(platformPid, before)}`,
  };
}

/** Waits for the sandbox processes the platform started during the phase to go, and says how long it took. */
async function sandboxesGone(platformPid: number, before: Set<number>): Promise<string> {
  const redeployed = performance.now();
  for (;;) {
    const left = childProcessIds(platformPid).filter((pid) => !before.has(pid));
    const waitedMs = performance.now() - redeployed;
    if (left.length === 0) return `none ran ${(waitedMs / 1000).toFixed(1)} s after A deployed anew`;
    if (waitedMs > lingerLimitMs) return `${left.length} still ran ${lingerLimitMs / 1000} s after A deployed anew`;
    await delay(100);
  }
}
