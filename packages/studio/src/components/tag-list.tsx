import type { ReactNode } from "react";
import { Link } from "react-router";

/**
 * A run's tags as chips; given a project, each links to that project's executions holding the tag.
 * Tags are the tenant's own strings, checked at the run, so they are shown as text and put in a
 * URL only through URLSearchParams.
 */
export function TagList({
  tags,
  projectId,
  label = "Tags",
}: {
  tags: readonly string[];
  projectId?: string | undefined;
  label?: string;
}): ReactNode {
  if (tags.length === 0) return null;
  return (
    <ul className="tags" aria-label={label}>
      {tags.map((tag) => (
        <li key={tag}>
          {projectId === undefined ? (
            <span className="tag">{tag}</span>
          ) : (
            <Link
              className="tag"
              to={`/projects/${projectId}/executions?${new URLSearchParams({ tag }).toString()}`}
              aria-label={`Executions tagged ${tag}`}
            >
              {tag}
            </Link>
          )}
        </li>
      ))}
    </ul>
  );
}
