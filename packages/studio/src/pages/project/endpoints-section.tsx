import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { weftQuery } from "../../api/weft-query.ts";
import { CopyableUrl } from "../../components/copy-button.tsx";
import { QueryState } from "../../components/query-state.tsx";

/** The forms and webhooks of the active deployment, with the addresses to hand out. */
export function EndpointsSection({ projectId }: { projectId: string }): ReactNode {
  const resources = useQuery(
    weftQuery.resources.list.queryOptions({ input: { projectId, pagination: { first: 200 } } }),
  );
  const endpoints = (resources.data?.results ?? []).filter(
    (resource) => resource.kind === "form" || resource.kind === "webhook",
  );
  return (
    <section className="card" aria-labelledby="endpoints-heading">
      <h2 id="endpoints-heading">Forms and webhooks</h2>
      <QueryState
        query={resources}
        loading="forms and webhooks"
        isEmpty={() => endpoints.length === 0}
        empty={
          <>
            No forms or webhooks: add one to <code>weft.config.ts</code> and run <code>weft deploy</code>.
          </>
        }
      >
        {() => (
          <ul className="plain-list stack">
            {endpoints.map((resource) =>
              resource.kind === "form" ? (
                <li key={`form-${resource.name}`}>
                  <h3>
                    Form {resource.title ?? resource.name}{" "}
                    <span className="muted">
                      → {resource.workflow}
                      {resource.disabled ? " · disabled" : ""}
                      {resource.basicAuth ? " · password protected" : ""}
                    </span>
                  </h3>
                  {resource.urls.page === null ? (
                    <p className="muted">Internal: reachable only through the API.</p>
                  ) : (
                    <CopyableUrl label={`the page of form ${resource.name}`} url={resource.urls.page} />
                  )}
                </li>
              ) : resource.kind === "webhook" ? (
                <li key={`webhook-${resource.name}`}>
                  <h3>
                    Webhook {resource.name}{" "}
                    <span className="muted">
                      → {resource.workflow ?? `event ${resource.event}`}
                      {resource.secretHeader === null ? "" : ` · secret in ${resource.secretHeader}`}
                    </span>
                  </h3>
                  <CopyableUrl label={`the URL of webhook ${resource.name}`} url={resource.urls.webhook} />
                </li>
              ) : null,
            )}
          </ul>
        )}
      </QueryState>
    </section>
  );
}
