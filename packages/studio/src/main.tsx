import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router";
import { studioQueryClient } from "./app/query-client.ts";
import { studioRouter } from "./app/routes.tsx";
import "./styles/app.css";

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element.");
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={studioQueryClient}>
      <RouterProvider router={studioRouter} />
    </QueryClientProvider>
  </StrictMode>,
);
