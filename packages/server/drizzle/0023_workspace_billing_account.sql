-- The account that pays for each workspace, so that a worker's share holds per account and a plan
-- caps how many workspaces one account pays for (docs/decisions/0100-the-share-holds-per-account.md).
-- Existing workspaces: a personal one is its person's; a team one its earliest owner's (its creator,
-- unless the creator handed ownership on), else its earliest member's by rank.
ALTER TABLE "workspaces" ADD COLUMN "billing_account_id" text;--> statement-breakpoint
UPDATE "workspaces" AS "w" SET "billing_account_id" = coalesce("w"."personal_account_id", (
  SELECT "m"."account_id" FROM "memberships" AS "m" WHERE "m"."workspace_id" = "w"."id"
  ORDER BY CASE "m"."role" WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END,
    "m"."created_at", "m"."account_id"
  LIMIT 1
));--> statement-breakpoint
DO $$
DECLARE "orphan" text;
BEGIN
  SELECT "id" INTO "orphan" FROM "workspaces" WHERE "billing_account_id" IS NULL LIMIT 1;
  IF "orphan" IS NOT NULL THEN
    RAISE EXCEPTION 'workspace % has no member, so no account to bill: add its owner to memberships (role owner), then start again', "orphan";
  END IF;
END $$;--> statement-breakpoint
ALTER TABLE "workspaces" ALTER COLUMN "billing_account_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_billing_account_id_accounts_id_fk" FOREIGN KEY ("billing_account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "workspaces_billing_account_id_index" ON "workspaces" USING btree ("billing_account_id");
