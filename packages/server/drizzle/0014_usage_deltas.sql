CREATE TABLE "usage_deltas" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"trigger_kind" text NOT NULL,
	"executions" integer DEFAULT 0 NOT NULL,
	"step_ms" bigint DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL
);
