CREATE TABLE "schedule_ticks" (
	"project_id" text NOT NULL,
	"schedule_name" text NOT NULL,
	"scheduled_for" timestamp with time zone NOT NULL,
	"execution_id" text NOT NULL,
	"fired_at" timestamp with time zone NOT NULL,
	CONSTRAINT "schedule_ticks_project_id_schedule_name_scheduled_for_pk" PRIMARY KEY("project_id","schedule_name","scheduled_for")
);
--> statement-breakpoint
CREATE TABLE "schedules" (
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"deployment_id" text NOT NULL,
	"workflow" text NOT NULL,
	"cron" text NOT NULL,
	"timezone" text NOT NULL,
	"input" jsonb,
	"config_enabled" boolean NOT NULL,
	"enabled" boolean NOT NULL,
	"paused_through_api" boolean NOT NULL,
	"next_run_at" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_execution_id" text,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "schedules_project_id_name_pk" PRIMARY KEY("project_id","name")
);
--> statement-breakpoint
ALTER TABLE "schedule_ticks" ADD CONSTRAINT "schedule_ticks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "schedules_due_idx" ON "schedules" USING btree ("next_run_at") WHERE "schedules"."enabled";