ALTER TABLE "usage_daily" ADD COLUMN "events" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_deltas" ADD COLUMN "events" integer DEFAULT 0 NOT NULL;