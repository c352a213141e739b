import type { ReactNode } from "react";
import { Link } from "react-router";
import { PageTitle } from "../components/page-title.tsx";

export function NotFoundPage(): ReactNode {
  return (
    <>
      <PageTitle title="Page not found" />
      <p>
        Studio has no such page. Go to the <Link to="/">overview</Link>.
      </p>
    </>
  );
}
