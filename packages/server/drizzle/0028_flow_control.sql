CREATE TABLE "flow_control_windows" (
	"project_id" text NOT NULL,
	"workflow" text NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	CONSTRAINT "flow_control_windows_project_id_workflow_kind_key_pk" PRIMARY KEY("project_id","workflow","kind","key")
);
--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "concurrency_key" text;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "debounce_key" text;--> statement-breakpoint
ALTER TABLE "flow_control_windows" ADD CONSTRAINT "flow_control_windows_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "executions_keyed_ready_idx" ON "executions" USING btree ("project_id","workflow","concurrency_key","priority" DESC NULLS LAST,"run_at") WHERE "executions"."status" in ('queued', 'sleeping', 'waiting') and "executions"."concurrency_key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "executions_debounce_idx" ON "executions" USING btree ("project_id","workflow","debounce_key") WHERE "executions"."status" = 'queued' and "executions"."debounce_key" is not null;