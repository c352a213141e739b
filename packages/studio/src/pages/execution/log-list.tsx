import type { Execution } from "@weft/contract";
import type { ReactNode } from "react";

export function LogList({ logs }: { logs: Execution["logs"] }): ReactNode {
  if (logs.length === 0) return null;
  return (
    <ul className="logs">
      {logs.map((entry, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a log only grows at its end, so an entry's index stays its identity.
        <li key={`${entry.at}-${index}`} className={`log log-${entry.level}`}>
          <time dateTime={entry.at}>{entry.at.slice(11, 23)}</time> <span className="log-level">{entry.level}</span>{" "}
          {entry.message}
          {entry.fields === undefined ? null : <code className="log-fields"> {JSON.stringify(entry.fields)}</code>}
        </li>
      ))}
    </ul>
  );
}
