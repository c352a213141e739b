CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by_account_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "registrations" ADD COLUMN "client_id" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "actor_email" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "actor_agent_id" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "actor_agent" jsonb;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_invited_by_account_id_accounts_id_fk" FOREIGN KEY ("invited_by_account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash_index" ON "invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "invitations_workspace_id_id_index" ON "invitations" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "registrations_account_id_index" ON "registrations" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "audit_events_workspace_id_created_at_id_index" ON "audit_events" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "credentials_account_id_index" ON "credentials" USING btree ("account_id");