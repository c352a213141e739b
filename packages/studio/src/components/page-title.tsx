import { type ReactNode, useEffect } from "react";

/** The page's heading, also set as the document title so that tabs and history read well. */
export function PageTitle({ title, children }: { title: string; children?: ReactNode }): ReactNode {
  useEffect(() => {
    document.title = `${title} · Weft Studio`;
  }, [title]);
  return (
    <div className="page-heading">
      <h1>{title}</h1>
      {children}
    </div>
  );
}
