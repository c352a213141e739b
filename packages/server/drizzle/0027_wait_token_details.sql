ALTER TABLE "wait_tokens" ADD COLUMN "title" text;--> statement-breakpoint
ALTER TABLE "wait_tokens" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "wait_tokens" ADD COLUMN "fields" jsonb;--> statement-breakpoint
ALTER TABLE "wait_tokens" ADD COLUMN "approvers" text DEFAULT 'anyone' NOT NULL;--> statement-breakpoint
ALTER TABLE "wait_tokens" ADD COLUMN "completed_by_account_id" text;--> statement-breakpoint
CREATE INDEX "wait_tokens_pending_idx" ON "wait_tokens" USING btree ("project_id","created_at") WHERE "wait_tokens"."status" = 'pending';