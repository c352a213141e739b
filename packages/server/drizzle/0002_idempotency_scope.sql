-- Keys already stored move into their scope: the trigger they came from (webhook and form keys lose the `<kind>:<name>:` prefix they were stored with), or for the API the workflow they ran.
ALTER TABLE "idempotency_keys" ADD COLUMN "scope" text;--> statement-breakpoint
UPDATE "idempotency_keys" AS "k" SET
  "scope" = CASE WHEN "e"."trigger_kind" = 'api' THEN 'api:' || "e"."workflow" ELSE "e"."trigger_kind" || ':' || coalesce("e"."trigger_name", "e"."workflow") END,
  "key" = CASE
    WHEN "e"."trigger_kind" IN ('webhook', 'form') AND starts_with("k"."key", "e"."trigger_kind" || ':' || coalesce("e"."trigger_name", "e"."workflow") || ':')
    THEN substr("k"."key", length("e"."trigger_kind" || ':' || coalesce("e"."trigger_name", "e"."workflow") || ':') + 1)
    ELSE "k"."key"
  END
  FROM "executions" AS "e" WHERE "e"."id" = "k"."execution_id";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "scope" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_project_id_key_pk";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_project_id_scope_key_pk" PRIMARY KEY("project_id","scope","key");
