-- An execution is metered as started when it ends, whatever statement ends it; until then the
-- readers count it from "executions" (docs/decisions/0079-metering-off-the-hot-path.md). The WHEN
-- clause keeps every other update of an execution free of the trigger's cost.
CREATE FUNCTION "weft_meter_ended_execution"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "usage_deltas" ("project_id", "at", "trigger_kind", "executions", "bytes")
  VALUES (NEW."project_id", NEW."created_at", NEW."trigger_kind", 1, coalesce(octet_length(NEW."input"::text), 0));
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "executions_meter_ended"
  AFTER UPDATE OF "status" ON "executions"
  FOR EACH ROW
  WHEN (OLD."status" NOT IN ('succeeded', 'failed', 'cancelled') AND NEW."status" IN ('succeeded', 'failed', 'cancelled'))
  EXECUTE FUNCTION "weft_meter_ended_execution"();
--> statement-breakpoint
-- Executions not ended yet were metered when they were inserted: a negative start each keeps them
-- counted once, now that the readers count them and their end will append their start again. The
-- condition is the predicates of the partial indexes of unfinished executions, so the history is not read.
INSERT INTO "usage_deltas" ("project_id", "at", "trigger_kind", "executions", "bytes")
SELECT "project_id", "created_at", "trigger_kind", -1, -coalesce(octet_length("input"::text), 0)
FROM "executions"
WHERE "status" IN ('queued', 'sleeping', 'waiting') OR "status" = 'running';
