CREATE TABLE "alert_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"workflow" text NOT NULL,
	"target_kind" text NOT NULL,
	"target" text NOT NULL,
	"failures" integer NOT NULL,
	"last_execution_id" text NOT NULL,
	"notice" jsonb NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "alert_failures" (
	"execution_id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"workflow" text NOT NULL,
	"deployment_id" text NOT NULL,
	"failed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_webhook_secrets" (
	"project_id" text NOT NULL,
	"url" text NOT NULL,
	"sealed" text NOT NULL,
	"key_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "alert_webhook_secrets_project_id_url_pk" PRIMARY KEY("project_id","url")
);
--> statement-breakpoint
CREATE TABLE "alert_windows" (
	"project_id" text NOT NULL,
	"workflow" text NOT NULL,
	"last_notice_at" timestamp with time zone NOT NULL,
	CONSTRAINT "alert_windows_project_id_workflow_pk" PRIMARY KEY("project_id","workflow")
);
--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_failures" ADD CONSTRAINT "alert_failures_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_webhook_secrets" ADD CONSTRAINT "alert_webhook_secrets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_windows" ADD CONSTRAINT "alert_windows_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_deliveries_due_idx" ON "alert_deliveries" USING btree ("next_attempt_at") WHERE "alert_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "alert_deliveries_over_idx" ON "alert_deliveries" USING btree ("created_at") WHERE "alert_deliveries"."status" <> 'pending';