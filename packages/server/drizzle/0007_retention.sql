ALTER TABLE "projects" ADD COLUMN "retention_days" integer;--> statement-breakpoint
CREATE INDEX "registrations_unissued_idx" ON "registrations" USING btree ("created_at") WHERE "registrations"."credential_id" is null;--> statement-breakpoint
CREATE INDEX "executions_finished_idx" ON "executions" USING btree ("finished_at") WHERE "executions"."finished_at" is not null;--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_index" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "idempotency_keys_execution_id_index" ON "idempotency_keys" USING btree ("execution_id");--> statement-breakpoint
CREATE INDEX "schedule_ticks_fired_at_index" ON "schedule_ticks" USING btree ("fired_at");