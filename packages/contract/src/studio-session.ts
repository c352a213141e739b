import { type InferContractRouterOutputs, oc } from "@orpc/contract";
import * as z from "zod";
import type { McpExposure, ProcedureMeta } from "./procedure.ts";

/** The header that carries a session's CSRF token: on sign-out and on every call to `/studio/rpc`. */
export const studioCsrfHeader = "x-weft-csrf";

/** The signed-in person, as `GET /studio/api/session` answers. */
export const studioSessionSchema = z.object({
  email: z.string(),
  accountId: z.string(),
  /** To send in `x-weft-csrf`: a page of another origin cannot read it. */
  csrfToken: z.string(),
  expiresAt: z.iso.datetime(),
});
export type StudioSessionView = z.infer<typeof studioSessionSchema>;

/** A session route needs no credential scope: it runs on the session cookie, or before there is one. */
type SessionRouteMeta = Omit<ProcedureMeta, "scope">;

const sessionRoute = (meta: SessionRouteMeta) => oc.$meta<SessionRouteMeta>(meta);
const forTheBrowser: McpExposure = {
  tool: false,
  reason: "Studio's sign-in and cookie session serve a person's browser, not an agent",
};

/**
 * Studio's sign-in and session: plain JSON routes under `{base_url}/studio/api`, beside the RPC API
 * (`contract`) rather than in it, since they run on a cookie instead of a credential and signing in
 * comes before any session. A refusal answers `{ error, message }` with its HTTP status.
 */
export const studioSessionContract = {
  signIn: sessionRoute({ mutates: true, mcp: forTheBrowser })
    .route({
      method: "POST",
      path: "/sign-in",
      successStatus: 202,
      summary: "Mail a sign-in approval link; sets the pending sign-in cookie",
    })
    .input(z.object({ email: z.string() }))
    .output(z.object({ expiresAt: z.iso.datetime() })),
  completeSignIn: sessionRoute({ mutates: true, mcp: forTheBrowser })
    .route({
      method: "POST",
      path: "/sign-in/complete",
      summary: "Complete the sign-in with the approval page's 6-digit code; sets the session cookie",
    })
    .input(z.object({ code: z.string() }))
    .output(z.object({ email: z.string(), csrfToken: z.string() })),
  get: sessionRoute({ mutates: false, mcp: forTheBrowser })
    .route({ method: "GET", path: "/session", summary: "The signed-in person; 401 without a session" })
    .output(studioSessionSchema),
  signOut: sessionRoute({ mutates: true, mcp: forTheBrowser })
    .route({
      method: "POST",
      path: "/sign-out",
      successStatus: 204,
      summary: "End the session (with its CSRF token) and revoke its agent; clears the cookie",
    })
    .output(z.void()),
};
export type StudioSessionContract = typeof studioSessionContract;

/** What each session route answers on success, by route. */
export type StudioSessionAnswers = InferContractRouterOutputs<StudioSessionContract>;
