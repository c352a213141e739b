import { setTimeout as delay } from "node:timers/promises";
import { callRpc } from "@weft/testing";
import type { AttackDrive, AttackStart } from "./neighbour-attacks.ts";

/** Tenant A of the neighbours benchmark, as its API calls see it. */
export interface TenantA {
  url: string;
  token: string;
  projectId: string;
}

/** What an attack did: the executions it started, and A's own calls that failed while it went on. */
export interface AttackRecord {
  executionIds: string[];
  failedCalls: string[];
}

/** An attack under way: `stop` ends it (every execution of A final) and answers what it did. */
export interface RunningAttack {
  stop(): Promise<AttackRecord>;
}

/** How long an attack has to get under way, and A's executions to end once cancelled. */
const settleWithinMs = 60_000;
const lookEveryMs = 250;

async function call(tenant: TenantA, procedure: string, input: unknown): Promise<unknown> {
  const answer = await callRpc(tenant.url, procedure, input, { token: tenant.token });
  if (answer.status !== 200) throw new Error(`${procedure} for tenant A answered ${answer.status}: ${answer.text}`);
  return answer.json;
}

async function start(tenant: TenantA, execution: AttackStart, until: number): Promise<string> {
  const ran = (await call(tenant, "workflows.run", {
    projectId: tenant.projectId,
    workflow: execution.workflow,
    input: { ...execution.input, until },
  })) as { executionId: string };
  return ran.executionId;
}

async function statusOf(tenant: TenantA, executionId: string): Promise<string> {
  return ((await call(tenant, "workflows.getExecution", { executionId })) as { status: string }).status;
}

/** A's executions still queued or running. */
async function unfinished(tenant: TenantA): Promise<string[]> {
  const page = (await call(tenant, "workflows.listExecutions", {
    projectId: tenant.projectId,
    status: ["queued", "running"],
  })) as { results: { id: string }[] };
  return page.results.map((execution) => execution.id);
}

/** Resolves once none of `executionIds` is queued any more: each runs, or ended already. */
async function underWay(tenant: TenantA, executionIds: readonly string[]): Promise<void> {
  const deadline = performance.now() + settleWithinMs;
  for (const executionId of executionIds) {
    while ((await statusOf(tenant, executionId)) === "queued") {
      if (performance.now() > deadline) throw new Error(`tenant A's execution ${executionId} never started`);
      await delay(lookEveryMs);
    }
  }
}

/** Cancels every unfinished execution of A and resolves once all are final. */
async function endAll(tenant: TenantA): Promise<void> {
  const deadline = performance.now() + settleWithinMs;
  const cancelled = new Set<string>();
  for (;;) {
    const open = await unfinished(tenant);
    if (open.length === 0) return;
    if (performance.now() > deadline) {
      throw new Error(
        `tenant A's executions ${open.join(", ")} did not end within ${settleWithinMs / 1000} s of their cancel`,
      );
    }
    for (const executionId of open) {
      if (cancelled.has(executionId)) continue;
      cancelled.add(executionId);
      // One that ended meanwhile refuses the cancel: the next look no longer lists it.
      await callRpc(tenant.url, "workflows.cancelExecution", { executionId }, { token: tenant.token });
    }
    await delay(lookEveryMs);
  }
}

/**
 * Starts an attack and resolves once it is under way (its first executions all run, or ended
 * already); it goes on in the background until stopped. `until` is handed to each execution
 * (see `AttackStart`).
 */
export async function startAttack(tenant: TenantA, drive: AttackDrive, until: number): Promise<RunningAttack> {
  const started: string[] = [];
  for (let index = 0; index < drive.inFlight; index += 1) started.push(await start(tenant, drive.nth(index), until));
  await underWay(tenant, started);
  let stopped = false;
  const failedCalls: string[] = [];
  const keepingUp = (async () => {
    while (!stopped) {
      await delay(1000 / drive.perSecond);
      if (stopped) return;
      try {
        if ((await unfinished(tenant)).length < drive.inFlight) {
          started.push(await start(tenant, drive.nth(started.length), until));
        }
      } catch (error) {
        failedCalls.push(error instanceof Error ? error.message : String(error));
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await keepingUp;
      await endAll(tenant);
      return { executionIds: started, failedCalls };
    },
  };
}

/**
 * What became of A's executions: their final statuses with the error, counted, and the output of
 * the first step where there is one (the held attacks report what they opened).
 */
export async function describeOutcome(tenant: TenantA, executionIds: readonly string[]): Promise<string> {
  const counts = new Map<string, number>();
  let report: string | undefined;
  for (const executionId of executionIds) {
    const execution = (await call(tenant, "workflows.getExecution", { executionId })) as {
      status: string;
      error: { name: string; message: string } | null;
      steps: { output: unknown }[];
    };
    const { error } = execution;
    // The bytes a message quotes differ from one execution to the next: counted together.
    const message = error?.message.slice(0, 160).replace(/\((?:[0-9a-f]{2} )+…\)/g, "(…)");
    const key = error === null ? execution.status : `${execution.status} ${error.name} "${message}"`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const output = execution.steps[0]?.output;
    if (report === undefined && typeof output === "object" && output !== null) report = JSON.stringify(output);
  }
  const tallies = [...counts].map(([key, count]) => `${count} ${key}`);
  return `${executionIds.length} started: ${tallies.join("; ")}${report === undefined ? "" : `; the first step reported ${report}`}`;
}
