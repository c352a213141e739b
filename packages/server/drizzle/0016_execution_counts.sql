CREATE TABLE "execution_count_deltas" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "execution_counts" (
	"project_id" text NOT NULL,
	"grain" text NOT NULL,
	"start" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "execution_counts_project_id_grain_start_status_pk" PRIMARY KEY("project_id","grain","start","status")
);
--> statement-breakpoint
CREATE INDEX "execution_count_deltas_project_id_minute_index" ON "execution_count_deltas" USING btree ("project_id","minute");--> statement-breakpoint
-- An execution that ends counts once in its bucket (docs/decisions/0075-studio-queries.md). The
-- WHEN clause keeps every other update of an execution free of the trigger's cost.
CREATE FUNCTION "weft_count_ended_execution"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "execution_count_deltas" ("project_id", "minute", "status", "n")
  VALUES (NEW."project_id", date_trunc('minute', NEW."created_at", 'UTC'), NEW."status", 1);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "executions_count_ended"
  AFTER UPDATE OF "status" ON "executions"
  FOR EACH ROW
  WHEN (OLD."status" NOT IN ('succeeded', 'failed', 'cancelled') AND NEW."status" IN ('succeeded', 'failed', 'cancelled'))
  EXECUTE FUNCTION "weft_count_ended_execution"();
--> statement-breakpoint
-- Deleting ended executions (retention, a project's deletion) takes their counts back, one delta
-- per bucket and status for the whole statement.
CREATE FUNCTION "weft_uncount_deleted_executions"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "execution_count_deltas" ("project_id", "minute", "status", "n")
  SELECT "project_id", date_trunc('minute', "created_at", 'UTC'), "status", -count(*)::int
  FROM "deleted_executions"
  WHERE "status" IN ('succeeded', 'failed', 'cancelled')
  GROUP BY 1, 2, 3;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "executions_uncount_deleted"
  AFTER DELETE ON "executions"
  REFERENCING OLD TABLE AS "deleted_executions"
  FOR EACH STATEMENT EXECUTE FUNCTION "weft_uncount_deleted_executions"();
--> statement-breakpoint
INSERT INTO "execution_counts" ("project_id", "grain", "start", "status", "n")
SELECT e."project_id", g."grain", date_trunc(g."grain", e."created_at", 'UTC'), e."status", count(*)::int
FROM "executions" e CROSS JOIN (VALUES ('minute'), ('hour'), ('day')) AS g("grain")
WHERE e."status" IN ('succeeded', 'failed', 'cancelled')
GROUP BY 1, 2, 3, 4;
