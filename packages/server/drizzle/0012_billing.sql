CREATE TABLE "usage_daily" (
	"workspace_id" text NOT NULL,
	"project_id" text NOT NULL,
	"day" date NOT NULL,
	"trigger_kind" text NOT NULL,
	"executions" integer DEFAULT 0 NOT NULL,
	"step_ms" bigint DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_project_id_day_trigger_kind_pk" PRIMARY KEY("project_id","day","trigger_kind")
);
--> statement-breakpoint
CREATE TABLE "usage_statements" (
	"workspace_id" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"plan" jsonb NOT NULL,
	"totals" jsonb NOT NULL,
	"projects" jsonb NOT NULL,
	"closed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "usage_statements_workspace_id_period_start_pk" PRIMARY KEY("workspace_id","period_start")
);
--> statement-breakpoint
DROP INDEX "executions_project_id_created_at_index";--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "plan" text;--> statement-breakpoint
CREATE INDEX "usage_daily_workspace_id_day_index" ON "usage_daily" USING btree ("workspace_id","day");--> statement-breakpoint
CREATE INDEX "executions_project_id_created_at_status_index" ON "executions" USING btree ("project_id","created_at","status");--> statement-breakpoint
CREATE INDEX "executions_failures_idx" ON "executions" USING btree ("project_id","finished_at") WHERE "executions"."status" = 'failed';