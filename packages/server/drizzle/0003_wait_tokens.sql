CREATE TABLE "wait_tokens" (
	"execution_id" text NOT NULL,
	"name" text NOT NULL,
	"project_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"nonce" text NOT NULL,
	"status" text NOT NULL,
	"data" jsonb,
	"span_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "wait_tokens_execution_id_name_pk" PRIMARY KEY("execution_id","name"),
	CONSTRAINT "wait_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
DROP INDEX "executions_ready_idx";--> statement-breakpoint
ALTER TABLE "wait_tokens" ADD CONSTRAINT "wait_tokens_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "executions_ready_idx" ON "executions" USING btree ("run_at") WHERE "executions"."status" in ('queued', 'sleeping', 'waiting');