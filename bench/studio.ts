import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startPlatform } from "@weft/server";
import { rollUpExecutionCounts } from "@weft/server/internals";
import { createTestDatabase, createTestIdentity, deployManifest, freePort, localPlatformEnv } from "@weft/testing";
import { sql } from "drizzle-orm";
import { appendEndDeltas } from "./history-backlog.ts";

/**
 * Studio views on PostgreSQL: `studio.overview` and `studio.executionTimeline` over HTTP RPC with
 * `executions` executions in the workspace (a tenth of them failed, a fiftieth unfinished), spread
 * over the last three days, their counts rolled up. Sequential calls, so each latency is one call's
 * alone; the target is p95 under 50 ms.
 */
export interface StudioBenchOptions {
  postgresUrl: string;
  executions: number;
  calls: number;
  write: (line: string) => void;
}

const targetP95Ms = 50;

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

export async function runStudioBench(options: StudioBenchOptions): Promise<void> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-studio-"));
  const config = loadConfig({ ...localPlatformEnv(port, dataDir), WEFT_LOG_LEVEL: "warn", WEFT_ROLES: "auth,api" });
  const database = await createTestDatabase(options.postgresUrl);
  const platform = await startPlatform(config, { database });
  try {
    const owner = await createTestIdentity({ platform }, "studio@bench.weft.invalid");
    const workspaceId = owner.personalWorkspaceId;
    const projectIds: string[] = [];
    for (const name of ["shop", "blog", "billing"]) {
      const created = await fetch(`${config.baseUrl}/rpc/projects/create`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${owner.credential}` },
        body: JSON.stringify({ json: { name, workspaceId } }),
      });
      const projectId = ((await created.json()) as { json: { id: string } }).json.id;
      projectIds.push(projectId);
      await deployManifest({ platform, database }, projectId, { version: 1, workflows: [{ name: "ingest" }] });
    }
    const seededAt = performance.now();
    await database.db.execute(sql`
      insert into executions (id, project_id, deployment_id, workflow, status, input, output, error, attempt,
        max_attempts, retry_min_delay_ms, retry_max_delay_ms, run_at, trigger_kind, trigger_name, trace_id,
        execution_span_id, logs, created_at, started_at, finished_at)
      select 'exe_studio' || lpad(g::text, 16, '0'), p.id, a.deployment_id, 'ingest',
        'queued', '{}'::jsonb, '{"ok":true}'::jsonb,
        case when g % 10 = 0 then '{"name":"Error","message":"boom"}'::jsonb end, 1, 3, 1000, 60000,
        now() - (g * 259200.0 / ${options.executions}) * interval '1 second', 'webhook', 'orders', md5(g::text),
        substr(md5('execution' || g), 1, 16), '[]'::jsonb, now() - (g * 259200.0 / ${options.executions}) * interval '1 second',
        now() - (g * 259200.0 / ${options.executions}) * interval '1 second', now() - (g * 259200.0 / ${options.executions}) * interval '1 second' + interval '1 second'
      from generate_series(1, ${options.executions}) g
      join lateral (select id from projects where workspace_id = ${workspaceId} order by id
        offset (g % 3) limit 1) p on true
      join active_deployments a on a.project_id = p.id`);
    // Inserted queued and then ended, with the deltas the engine's end statement appends for each end;
    // a hundredth stays queued and another is running, which the views count from the executions.
    await database.db.execute(sql`update executions set
        status = case right(id, 2) when '01' then 'queued' when '02' then 'running' else (case when error is null then 'succeeded' else 'failed' end) end,
        lease_owner = case right(id, 2) when '02' then 'bench' end,
        lease_expires_at = case right(id, 2) when '02' then now() + interval '1 hour' end
      where workflow = 'ingest'`);
    await appendEndDeltas(database.db, sql`workflow = 'ingest'`);
    await rollUpExecutionCounts(database.db);
    await database.db.execute(sql`vacuum analyze executions`);
    await database.db.execute(sql`vacuum analyze execution_counts`);
    options.write(
      `Studio views on PostgreSQL: ${options.executions} executions in one workspace (3 projects, 10 % failed, 1 % queued, 1 % running, over 3 days), seeded in ${((performance.now() - seededAt) / 1000).toFixed(1)} s; ${options.calls} sequential calls each`,
    );
    const now = Date.now();
    const views: [string, string, object][] = [
      ["studio.overview", "studio/overview", { workspaceId }],
      [
        "executionTimeline 24 h by minute",
        "studio/executionTimeline",
        {
          workspaceId,
          from: new Date(now - 86_400_000).toISOString(),
          to: new Date(now).toISOString(),
          bucket: "minute",
        },
      ],
      [
        "executionTimeline 7 d by hour",
        "studio/executionTimeline",
        {
          workspaceId,
          from: new Date(now - 7 * 86_400_000).toISOString(),
          to: new Date(now).toISOString(),
          bucket: "hour",
        },
      ],
    ];
    for (const [label, path, input] of views) {
      const times: number[] = [];
      for (let call = 0; call < options.calls + 5; call += 1) {
        const started = performance.now();
        const answer = await fetch(`${config.baseUrl}/rpc/${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${owner.credential}` },
          body: JSON.stringify({ json: input }),
        });
        await answer.text();
        if (answer.status !== 200) throw new Error(`${label} answered ${answer.status}`);
        // The first calls warm the connection pool and the prepared plans.
        if (call >= 5) times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      const p95 = percentile(times, 0.95);
      options.write(
        `  ${label.padEnd(34)} p50 ${percentile(times, 0.5).toFixed(1).padStart(6)} ms   p95 ${p95.toFixed(1).padStart(6)} ms   p99 ${percentile(times, 0.99).toFixed(1).padStart(6)} ms   (${p95 < targetP95Ms ? "within" : "NOT within"} ${targetP95Ms} ms p95)`,
      );
    }
  } finally {
    await platform.stop();
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
