-- How many times each execution was taken over from a worker that died while running it, so that
-- one whose code kills its worker stops after WEFT_CRASH_ATTEMPTS (docs/decisions/0096-crash-loop-is-broken.md). A constant default: PostgreSQL adds the column without rewriting the table.
ALTER TABLE "executions" ADD COLUMN "lease_expiries" integer DEFAULT 0 NOT NULL;
