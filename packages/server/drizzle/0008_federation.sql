CREATE TABLE "federation_policies" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"project_id" text NOT NULL,
	"issuer" text NOT NULL,
	"audience" text NOT NULL,
	"subject" text,
	"claims" jsonb,
	"scopes" text[] NOT NULL,
	"max_ttl_seconds" integer NOT NULL,
	"created_by_account_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "registrations" ADD COLUMN "policy_id" text;--> statement-breakpoint
ALTER TABLE "registrations" ADD COLUMN "project_id" text;--> statement-breakpoint
ALTER TABLE "federation_policies" ADD CONSTRAINT "federation_policies_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federation_policies" ADD CONSTRAINT "federation_policies_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federation_policies" ADD CONSTRAINT "federation_policies_created_by_account_id_accounts_id_fk" FOREIGN KEY ("created_by_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "federation_policies_project_id_id_index" ON "federation_policies" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "federation_policies_workspace_id_id_index" ON "federation_policies" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "registrations_policy_id_index" ON "registrations" USING btree ("policy_id");