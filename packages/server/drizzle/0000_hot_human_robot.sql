CREATE TABLE "rate_limit_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"expire" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "registrations" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"email" text NOT NULL,
	"scopes" text[] NOT NULL,
	"agent_description" text,
	"account_id" text,
	"credential_id" text,
	"issuer" text,
	"subject" text,
	"claim_token_hash" text,
	"claim_token_expires_at" timestamp with time zone,
	"approval_token_hash" text,
	"code_hash" text,
	"code_expires_at" timestamp with time zone,
	"code_attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "used_assertion_ids" (
	"issuer" text NOT NULL,
	"jti" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "used_assertion_ids_issuer_jti_pk" PRIMARY KEY("issuer","jti")
);
--> statement-breakpoint
CREATE TABLE "active_deployments" (
	"project_id" text PRIMARY KEY NOT NULL,
	"deployment_id" text NOT NULL,
	"activated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"number" integer NOT NULL,
	"manifest" json NOT NULL,
	"bundle" text NOT NULL,
	"bundle_sha256" text NOT NULL,
	"bundle_bytes" integer NOT NULL,
	"created_by_account_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "execution_steps" (
	"execution_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"result" jsonb NOT NULL,
	"attempt" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone NOT NULL,
	"wake_at" timestamp with time zone,
	"logs" jsonb NOT NULL,
	"sequence" integer NOT NULL,
	CONSTRAINT "execution_steps_execution_id_name_pk" PRIMARY KEY("execution_id","name")
);
--> statement-breakpoint
CREATE TABLE "executions" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"deployment_id" text NOT NULL,
	"workflow" text NOT NULL,
	"status" text NOT NULL,
	"input" jsonb,
	"output" jsonb,
	"error" jsonb,
	"attempt" integer NOT NULL,
	"max_attempts" integer NOT NULL,
	"retry_min_delay_ms" integer NOT NULL,
	"retry_max_delay_ms" integer NOT NULL,
	"timeout_ms" integer,
	"concurrency_limit" integer,
	"run_at" timestamp with time zone NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"cancel_requested_at" timestamp with time zone,
	"trigger_kind" text NOT NULL,
	"trigger_name" text,
	"rerun_of" text,
	"trace_id" text NOT NULL,
	"execution_span_id" text NOT NULL,
	"logs" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"project_id" text NOT NULL,
	"key" text NOT NULL,
	"execution_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_project_id_key_pk" PRIMARY KEY("project_id","key")
);
--> statement-breakpoint
CREATE TABLE "spans" (
	"span_id" text PRIMARY KEY NOT NULL,
	"trace_id" text NOT NULL,
	"parent_span_id" text,
	"project_id" text NOT NULL,
	"execution_id" text,
	"workflow" text,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone,
	"attributes" jsonb NOT NULL,
	"status_code" text NOT NULL,
	"status_message" text
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"execution_id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"workflow" text NOT NULL,
	"executions" integer NOT NULL,
	"step_seconds" double precision NOT NULL,
	"attempts" integer NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "accounts_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text,
	"actor_account_id" text,
	"actor_credential_id" text,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"data" jsonb,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"secret_hash" text NOT NULL,
	"account_id" text NOT NULL,
	"registration_id" text,
	"scopes" text[] NOT NULL,
	"issuer" text,
	"subject" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"workspace_id" text NOT NULL,
	"account_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "memberships_workspace_id_account_id_pk" PRIMARY KEY("workspace_id","account_id")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"personal_account_id" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "workspaces_personal_account_id_unique" UNIQUE("personal_account_id")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"created_by_account_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "active_deployments" ADD CONSTRAINT "active_deployments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "active_deployments" ADD CONSTRAINT "active_deployments_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "execution_steps" ADD CONSTRAINT "execution_steps_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spans" ADD CONSTRAINT "spans_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_personal_account_id_accounts_id_fk" FOREIGN KEY ("personal_account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_created_by_account_id_accounts_id_fk" FOREIGN KEY ("created_by_account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "registrations_claim_token_hash_index" ON "registrations" USING btree ("claim_token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "registrations_approval_token_hash_index" ON "registrations" USING btree ("approval_token_hash");--> statement-breakpoint
CREATE INDEX "used_assertion_ids_expires_at_index" ON "used_assertion_ids" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "active_deployments_deployment_id_index" ON "active_deployments" USING btree ("deployment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "deployments_project_id_number_index" ON "deployments" USING btree ("project_id","number");--> statement-breakpoint
CREATE INDEX "executions_ready_idx" ON "executions" USING btree ("run_at") WHERE "executions"."status" in ('queued', 'sleeping');--> statement-breakpoint
CREATE INDEX "executions_leased_idx" ON "executions" USING btree ("lease_expires_at") WHERE "executions"."status" = 'running';--> statement-breakpoint
CREATE INDEX "executions_project_id_workflow_status_index" ON "executions" USING btree ("project_id","workflow","status");--> statement-breakpoint
CREATE INDEX "executions_project_id_created_at_index" ON "executions" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "spans_trace_id_index" ON "spans" USING btree ("trace_id");--> statement-breakpoint
CREATE INDEX "spans_execution_id_index" ON "spans" USING btree ("execution_id");--> statement-breakpoint
CREATE INDEX "spans_project_id_start_time_index" ON "spans" USING btree ("project_id","start_time");--> statement-breakpoint
CREATE INDEX "usage_records_project_id_recorded_at_index" ON "usage_records" USING btree ("project_id","recorded_at");--> statement-breakpoint
CREATE INDEX "audit_events_workspace_id_id_index" ON "audit_events" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "credentials_secret_hash_index" ON "credentials" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "credentials_issuer_subject_index" ON "credentials" USING btree ("issuer","subject") WHERE "credentials"."issuer" is not null;--> statement-breakpoint
CREATE INDEX "memberships_account_id_index" ON "memberships" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_workspace_id_name_index" ON "projects" USING btree ("workspace_id","name");--> statement-breakpoint
CREATE INDEX "projects_workspace_id_id_index" ON "projects" USING btree ("workspace_id","id");