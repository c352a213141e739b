import type { ReactNode } from "react";
import { createBrowserRouter } from "react-router";
import { NotFoundPage } from "../pages/not-found-page.tsx";
import { StudioLayout } from "./studio-layout.tsx";

function StartingUp(): ReactNode {
  return (
    <p className="muted page" role="status">
      Loading Weft Studio…
    </p>
  );
}

/** Every page but the shell is its own chunk, loaded when first visited. */
export const studioRouter = createBrowserRouter(
  [
    {
      path: "/sign-in",
      lazy: () => import("../pages/sign-in/sign-in-page.tsx").then((m) => ({ Component: m.SignInPage })),
      HydrateFallback: StartingUp,
    },
    {
      path: "/",
      Component: StudioLayout,
      // Shown while the first page's chunk loads: without one, the router warns on every first load.
      HydrateFallback: StartingUp,
      children: [
        {
          index: true,
          lazy: () => import("../pages/overview/overview-page.tsx").then((m) => ({ Component: m.OverviewPage })),
        },
        {
          path: "projects",
          lazy: () => import("../pages/projects/projects-page.tsx").then((m) => ({ Component: m.ProjectsPage })),
        },
        {
          path: "projects/:projectId",
          lazy: () => import("../pages/project/project-page.tsx").then((m) => ({ Component: m.ProjectPage })),
        },
        {
          path: "projects/:projectId/executions",
          lazy: () => import("../pages/executions/executions-page.tsx").then((m) => ({ Component: m.ExecutionsPage })),
        },
        {
          path: "executions/:executionId",
          lazy: () => import("../pages/execution/execution-page.tsx").then((m) => ({ Component: m.ExecutionPage })),
        },
        {
          path: "projects/:projectId/traces/:traceId",
          lazy: () => import("../pages/trace/trace-page.tsx").then((m) => ({ Component: m.TracePage })),
        },
        {
          path: "schedules",
          lazy: () => import("../pages/schedules/schedules-page.tsx").then((m) => ({ Component: m.SchedulesPage })),
        },
        {
          path: "projects/:projectId/schedules",
          lazy: () => import("../pages/schedules/schedules-page.tsx").then((m) => ({ Component: m.SchedulesPage })),
        },
        {
          // Not `/events`: `/studio/events` is the server's live stream, which a reload would reach.
          path: "sent-events",
          lazy: () => import("../pages/events/events-page.tsx").then((m) => ({ Component: m.EventsPage })),
        },
        {
          path: "projects/:projectId/events",
          lazy: () => import("../pages/events/events-page.tsx").then((m) => ({ Component: m.EventsPage })),
        },
        {
          path: "approvals",
          lazy: () => import("../pages/approvals/approvals-page.tsx").then((m) => ({ Component: m.ApprovalsPage })),
        },
        {
          path: "agents",
          lazy: () => import("../pages/agents/agents-page.tsx").then((m) => ({ Component: m.AgentsPage })),
        },
        {
          path: "members",
          lazy: () => import("../pages/members/members-page.tsx").then((m) => ({ Component: m.MembersPage })),
        },
        {
          path: "audit-log",
          lazy: () => import("../pages/audit-log/audit-log-page.tsx").then((m) => ({ Component: m.AuditLogPage })),
        },
        {
          path: "usage",
          lazy: () => import("../pages/usage/usage-page.tsx").then((m) => ({ Component: m.UsagePage })),
        },
        { path: "*", Component: NotFoundPage },
      ],
    },
  ],
  { basename: "/studio" },
);
