CREATE TABLE "global_form_names" (
	"name" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "worker_heartbeats" (
	"worker_id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "request_digest" text;--> statement-breakpoint
ALTER TABLE "global_form_names" ADD CONSTRAINT "global_form_names_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "global_form_names_project_id_index" ON "global_form_names" USING btree ("project_id");