CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"data" jsonb,
	"idempotency_id" text,
	"source_kind" text NOT NULL,
	"source_name" text,
	"sent_at" timestamp with time zone NOT NULL,
	"executions" jsonb NOT NULL,
	"resumed" integer NOT NULL,
	"cancelled" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "wait_tokens" ADD COLUMN "event_name" text;--> statement-breakpoint
ALTER TABLE "wait_tokens" ADD COLUMN "event_match_path" text[];--> statement-breakpoint
ALTER TABLE "wait_tokens" ADD COLUMN "event_match_value" jsonb;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_project_sent_idx" ON "events" USING btree ("project_id","sent_at","id");--> statement-breakpoint
CREATE INDEX "events_idempotency_idx" ON "events" USING btree ("project_id","idempotency_id","sent_at") WHERE "events"."idempotency_id" is not null;--> statement-breakpoint
CREATE INDEX "events_sent_idx" ON "events" USING btree ("sent_at");--> statement-breakpoint
CREATE INDEX "wait_tokens_event_waits_idx" ON "wait_tokens" USING btree ("project_id","event_name","event_match_path","event_match_value") WHERE "wait_tokens"."status" = 'pending' and "wait_tokens"."event_name" is not null;