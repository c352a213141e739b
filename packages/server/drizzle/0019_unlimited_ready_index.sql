CREATE INDEX "executions_unlimited_ready_idx" ON "executions" USING btree ("run_at") WHERE "executions"."status" in ('queued', 'sleeping', 'waiting') and "executions"."concurrency_limit" is null;--> statement-breakpoint
DROP INDEX "executions_ready_idx";--> statement-breakpoint
ALTER INDEX "executions_unlimited_ready_idx" RENAME TO "executions_ready_idx";
