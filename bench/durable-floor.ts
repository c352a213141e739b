import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { startEmbeddedCluster } from "@weft/server/internals";
import pg from "pg";

/**
 * The durable floor of the ingress benchmark: the least a server must do to acknowledge a webhook
 * durably. It reads the body, inserts an execution row and its two spans (trigger and execution)
 * like Weft's, with the same group commit (requests that arrive while a statement is written go
 * into the next one, at most 500), and answers 202 once that statement has committed. No Weft code
 * above the storage: its own tables, created here with the columns and indexes of Weft's, and the
 * drivers directly; the embedded one is PostgreSQL as the platform starts it, flushing each commit to
 * the disk.
 */
export interface DurableFloor {
  url: string;
  close(): Promise<void>;
}

const schema = `
create table projects (id text primary key);
create table executions (
  id text primary key, project_id text not null references projects(id) on delete cascade,
  deployment_id text not null, workflow text not null, status text not null, input jsonb, output jsonb,
  error jsonb, attempt integer not null, max_attempts integer not null, retry_min_delay_ms integer not null,
  retry_max_delay_ms integer not null, timeout_ms integer, concurrency_limit integer,
  run_at timestamptz not null, lease_owner text, lease_expires_at timestamptz, cancel_requested_at timestamptz,
  trigger_kind text not null, trigger_name text, rerun_of text, trace_id text not null,
  execution_span_id text not null, logs jsonb not null, created_at timestamptz not null,
  started_at timestamptz, finished_at timestamptz);
create index executions_ready_idx on executions (run_at) where status in ('queued', 'sleeping', 'waiting') and concurrency_limit is null;
create index executions_leased_idx on executions (lease_expires_at) where status = 'running';
create index on executions (project_id, workflow, status);
create index on executions (project_id, created_at);
create index executions_finished_idx on executions (finished_at) where finished_at is not null;
create table spans (
  span_id text primary key, trace_id text not null, parent_span_id text,
  project_id text not null references projects(id) on delete cascade, execution_id text, workflow text,
  name text not null, kind text not null, start_time timestamptz not null, end_time timestamptz,
  attributes jsonb not null, status_code text not null, status_message text);
create index on spans (trace_id);
create index on spans (execution_id);
create index on spans (project_id, start_time);
insert into projects values ('prj_floor');
`;

const insertBatch = `
with rows as (
  select * from jsonb_to_recordset($1::jsonb) as r(id text, trace text, trigger_span text, execution_span text, input jsonb)
), queued as (
  insert into executions (id, project_id, deployment_id, workflow, status, input, attempt, max_attempts,
    retry_min_delay_ms, retry_max_delay_ms, run_at, trigger_kind, trigger_name, trace_id, execution_span_id, logs,
    created_at)
  select id, 'prj_floor', 'dep_floor', 'ingest', 'queued', input, 1, 3, 1000, 60000, now(), 'webhook', 'orders',
    trace, execution_span, '[]'::jsonb, now() from rows
  returning id
), traced as (
  insert into spans (span_id, trace_id, parent_span_id, project_id, execution_id, workflow, name, kind, start_time,
    end_time, attributes, status_code)
  select trigger_span, trace, null, 'prj_floor', id, 'ingest', 'trigger webhook orders', 'trigger', now(), now(),
    '{}'::jsonb, 'ok' from rows
  union all
  select execution_span, trace, trigger_span, 'prj_floor', id, 'ingest', 'execution ingest', 'execution', now(),
    null, '{}'::jsonb, 'unset' from rows
  returning 1
)
select (select count(*) from queued) as queued, (select count(*) from traced) as traced`;

interface Pending {
  row: { id: string; trace: string; trigger_span: string; execution_span: string; input: unknown };
  done: (error?: unknown) => void;
}

/** `embedded`: a PGlite database in `dataDir`; otherwise a fresh database on the PostgreSQL server at that URL. */
export async function startDurableFloor(target: { dataDir: string } | { postgresUrl: string }): Promise<DurableFloor> {
  let query: (text: string, values?: unknown[]) => Promise<unknown>;
  let closeDatabase: () => Promise<void>;
  if ("dataDir" in target) {
    const { client: db } = await startEmbeddedCluster(target.dataDir, "full");
    await db.exec(schema);
    query = (text, values) => db.query(text, values);
    closeDatabase = () => db.close();
  } else {
    const name = `floor_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: target.postgresUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(target.postgresUrl);
    url.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 10 });
    await pool.query(schema);
    // Named, so each pooled connection plans it once, as Weft's prepared insert is.
    query = (text, values) => pool.query({ name: "floor_insert", text, values: values ?? [] });
    closeDatabase = async () => {
      await pool.end();
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    };
  }

  let pending: Pending[] = [];
  let writing = false;
  async function writeNext(): Promise<void> {
    if (writing || pending.length === 0) return;
    writing = true;
    const batch = pending.slice(0, 500);
    pending = pending.slice(batch.length);
    try {
      await query(insertBatch, [JSON.stringify(batch.map((entry) => entry.row))]);
      for (const entry of batch) entry.done();
    } catch (error) {
      for (const entry of batch) entry.done(error);
    } finally {
      writing = false;
      void writeNext();
    }
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const id = `exe_${randomUUID().replaceAll("-", "")}`;
      const row = {
        id,
        trace: randomBytes(16).toString("hex"),
        trigger_span: randomBytes(8).toString("hex"),
        execution_span: randomBytes(8).toString("hex"),
        input: { body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown },
      };
      pending.push({
        row,
        done: (error) => {
          const body = JSON.stringify(error === undefined ? { executionIds: [id] } : { error: "unavailable" });
          response.writeHead(error === undefined ? 202 : 503, { "content-type": "application/json" });
          response.end(body);
        },
      });
      void writeNext();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the floor server has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeDatabase();
    },
  };
}
