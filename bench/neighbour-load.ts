import { setTimeout as delay } from "node:timers/promises";
import { callRpc } from "@weft/testing";

/**
 * Tenant B's steady load in the neighbours benchmark: open loop (each request starts on schedule,
 * whether or not the ones before it have answered, so a slow platform shows as latency rather than
 * as fewer requests), `perSecond` webhooks and as many `projects.list` calls.
 */
export interface TenantB {
  url: string;
  token: string;
  webhookUrl: string;
}

export interface TenantLoad {
  /** Milliseconds from the webhook's POST until `workflows.getExecution` answered the execution succeeded. */
  webhookMs: number[];
  /** Milliseconds of each `projects.list` call. */
  listMs: number[];
  /** B's requests that failed: a status other than expected, an error, an execution that did not succeed in time. */
  failed: number;
  /** Up to a few of the failures, worded. */
  failures: string[];
}

/** How often an execution is read until it is final. */
const pollMs = 20;
/** A webhook whose execution is not final within this long counts as failed. */
const finishWithinMs = 30_000;
const finalStatuses = new Set(["succeeded", "failed", "cancelled"]);
const webhookBody = JSON.stringify({ event: "order.created", orderId: 1234 });

async function webhookToFinished(tenant: TenantB): Promise<number> {
  const started = performance.now();
  const response = await fetch(tenant.webhookUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: webhookBody,
  });
  const text = await response.text();
  if (response.status !== 202) throw new Error(`the webhook answered ${response.status}: ${text.slice(0, 200)}`);
  const executionId = (JSON.parse(text) as { executionIds?: string[] }).executionIds?.[0];
  if (executionId === undefined) throw new Error("the webhook's 202 named no execution");
  for (;;) {
    const read = await callRpc(tenant.url, "workflows.getExecution", { executionId }, { token: tenant.token });
    if (read.status !== 200)
      throw new Error(`workflows.getExecution answered ${read.status}: ${read.text.slice(0, 200)}`);
    const { status, error } = read.json as { status: string; error: { message: string } | null };
    if (finalStatuses.has(status)) {
      if (status !== "succeeded") throw new Error(`the execution ended ${status}: ${error?.message ?? ""}`);
      return performance.now() - started;
    }
    if (performance.now() - started > finishWithinMs) {
      throw new Error(`the execution was still ${status} ${finishWithinMs / 1000} s after its webhook`);
    }
    await delay(pollMs);
  }
}

async function listProjects(tenant: TenantB): Promise<number> {
  const started = performance.now();
  const listed = await callRpc(tenant.url, "projects.list", {}, { token: tenant.token });
  if (listed.status !== 200) throw new Error(`projects.list answered ${listed.status}: ${listed.text.slice(0, 200)}`);
  return performance.now() - started;
}

/** Drives B's load for `seconds` and answers once every request it started has ended. */
export async function driveTenantLoad(tenant: TenantB, seconds: number, perSecond: number): Promise<TenantLoad> {
  const load: TenantLoad = { webhookMs: [], listMs: [], failed: 0, failures: [] };
  const measure = async (request: () => Promise<number>, into: number[]) => {
    try {
      into.push(await request());
    } catch (error) {
      load.failed += 1;
      // fetch says only "fetch failed"; its cause says why.
      const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
      const message = `${error instanceof Error ? error.message : String(error)}${cause}`;
      if (load.failures.length < 3 && !load.failures.includes(message)) load.failures.push(message);
    }
  };
  // Webhooks and list calls take turns, half an interval apart, so that they do not always arrive together.
  const slotMs = 1000 / perSecond / 2;
  const start = performance.now();
  const requests: Promise<void>[] = [];
  for (let slot = 0; slot < 2 * seconds * perSecond; slot += 1) {
    await delay(Math.max(0, start + slot * slotMs - performance.now()));
    requests.push(
      slot % 2 === 0
        ? measure(() => webhookToFinished(tenant), load.webhookMs)
        : measure(() => listProjects(tenant), load.listMs),
    );
  }
  await Promise.all(requests);
  return load;
}
