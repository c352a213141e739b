-- Every change of a project's active deployment (deploy, rollback, or the project's deletion
-- cascading here) is announced on commit, so the caches of which deployment is active in every
-- process (ingress) drop that project at once.
CREATE FUNCTION "weft_announce_active_deployment_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('weft_active_deployments', COALESCE(NEW."project_id", OLD."project_id"));
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "active_deployments_announce_change"
  AFTER INSERT OR UPDATE OR DELETE ON "active_deployments"
  FOR EACH ROW EXECUTE FUNCTION "weft_announce_active_deployment_change"();
