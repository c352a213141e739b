ALTER TABLE "executions" ADD COLUMN "parent_execution_id" text;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "parent_wait_name" text;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "tags" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "wait_tokens" ADD COLUMN "child_execution_id" text;--> statement-breakpoint
CREATE INDEX "executions_parent_idx" ON "executions" USING btree ("parent_execution_id") WHERE "executions"."parent_execution_id" is not null;--> statement-breakpoint
CREATE INDEX "executions_tags_idx" ON "executions" USING gin ("tags");