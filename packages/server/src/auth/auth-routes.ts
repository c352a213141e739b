import { type Handler, Hono } from "hono";
import { invitationRoutes } from "../access/invitation-routes.ts";
import type { AppEnv } from "../http/app-env.ts";
import { createClientIpResolver } from "../http/client-ip.ts";
import type { PlatformContext } from "../platform-context.ts";
import { limitPerClientIp } from "../rate-limit/rate-limit-middleware.ts";
import { createRateLimiter } from "../rate-limit/rate-limiter.ts";
import { createGuardedFetch, operatorNamedDestinations } from "../shared/guarded-fetch.ts";
import { approvalRoutes } from "./approval-routes.ts";
import { authGuide } from "./auth-guide.ts";
import { authErrorResponse, serverError } from "./auth-http.ts";
import { authorizationServerMetadata } from "./discovery.ts";
import { createJwksCache, issuerDocumentFetcher } from "./jwks-cache.ts";
import { authorizationCodeGrant } from "./oauth2/authorization-code-grant.ts";
import { authorizeRoutes } from "./oauth2/authorize-routes.ts";
import { createClientMetadataDocuments } from "./oauth2/client-metadata-documents.ts";
import { fetchPublicDocument } from "./oauth2/public-document.ts";
import { refreshTokenGrant } from "./oauth2/refresh-token-grant.ts";
import { registerClientRoute } from "./oauth2/register-client-route.ts";
import { revokeTokenRoute } from "./oauth2/revoke-token-route.ts";
import { signInApprovalRoutes } from "./oauth2/sign-in-approval-routes.ts";
import { tokenExchangeGrant, tokenExchangeGrantType } from "./oauth2/token-exchange-grant.ts";
import { tokenRoute } from "./oauth2/token-route.ts";
import { createOidcDiscovery } from "./oidc-discovery.ts";
import { claimInstructionsRoute, claimRoute } from "./routes/claim-route.ts";
import { credentialCheckRoute } from "./routes/credential-check-route.ts";
import { registerRoute } from "./routes/register-route.ts";
import { revokeRoute } from "./routes/revoke-route.ts";

/** RFC 8414 metadata; also served at `/.well-known/oauth-authorization-server{path}` when `{auth_url}` has a path. */
export function authorizationServerMetadataRoute(config: PlatformContext["config"]): Handler<AppEnv> {
  return (c) => c.json(authorizationServerMetadata(config));
}

/** Which of the operator's rates (`WEFT_RATE_LIMIT_*`) a rate-limited endpoint is held to. */
function rateOf(name: string): "register" | "claim" | "revoke" {
  if (name === "claim") return "claim";
  if (name === "revoke" || name === "oauth-revoke") return "revoke";
  return "register";
}

/** Every route of the authorization server, relative to the path of `{auth_url}`. */
export function authRoutes(context: PlatformContext): Hono<AppEnv> {
  const { config } = context;
  const clientIps = createClientIpResolver(config.trustedProxies);
  // The token endpoint mints credentials, client registration stores a client and the authorize
  // page's sign-in sends a mail: each is held to the registration rate, with its own counter. OAuth
  // token revocation is held to the revocation rate, on its own counter too.
  const limit = (
    name: "register" | "claim" | "revoke" | "token" | "oauth-register" | "oauth-sign-in" | "oauth-revoke",
  ) =>
    limitPerClientIp(
      createRateLimiter(context.database, {
        name: `auth-${name}`,
        points: config.authRateLimits[rateOf(name)],
        windowSeconds: 60,
      }),
      clientIps,
      {
        limited: (c, retryAfterSeconds) =>
          authErrorResponse(c, {
            code: "rate_limited",
            description: `Too many requests; retry in ${retryAfterSeconds} s.`,
          }),
        storeFailed: (c) => authErrorResponse(c, serverError(c)),
      },
    );
  const app = new Hono<AppEnv>();
  app.get("/.well-known/oauth-authorization-server", authorizationServerMetadataRoute(config));
  app.get("/auth.md", (c) => {
    c.header("Content-Type", "text/markdown; charset=utf-8");
    return c.body(authGuide(config));
  });
  // The key sets of WEFT_TRUSTED_ISSUERS are the operator's choice, on any address; federation
  // issuers and client metadata documents are a caller's, held to `outbound`'s address policy.
  const operatorOutbound = createGuardedFetch({
    policy: operatorNamedDestinations,
    resolveHost: context.resolveHost,
    timers: context.timers,
  });
  const jwks = createJwksCache(context.clock, issuerDocumentFetcher(operatorOutbound, context.logger));
  const federationDocuments = issuerDocumentFetcher(context.outbound, context.logger);
  const federation = {
    jwks: createJwksCache(context.clock, federationDocuments),
    discovery: createOidcDiscovery(context.clock, federationDocuments),
  };
  const documents = createClientMetadataDocuments({
    clock: context.clock,
    fetchDocument: (url) => fetchPublicDocument(url, context.outbound),
  });
  // Each limit runs before the endpoint reads its body.
  app.post("/agent/auth", limit("register"), registerRoute(context, jwks));
  app.post("/agent/auth/claim/complete", limit("claim"), claimRoute(context));
  app.get("/agent/auth/claim/:registrationId", claimInstructionsRoute());
  app.post("/agent/auth/revoke", limit("revoke"), revokeRoute(context, jwks));
  app.get("/agent/auth/credential", credentialCheckRoute(context));
  const grants = new Map([
    ["authorization_code", authorizationCodeGrant(context, documents)],
    ["refresh_token", refreshTokenGrant(context, documents)],
    [tokenExchangeGrantType, tokenExchangeGrant(context, federation)],
  ]);
  app.post("/oauth2/token", limit("token"), tokenRoute(grants));
  app.post("/oauth2/revoke", limit("oauth-revoke"), revokeTokenRoute(context, documents));
  app.post("/oauth2/register", limit("oauth-register"), registerClientRoute(context));
  app.route("/", authorizeRoutes(context, documents, limit("oauth-sign-in"), clientIps));
  app.route("/", signInApprovalRoutes(context));
  app.route("/", approvalRoutes(context));
  app.route("/", invitationRoutes(context));
  return app;
}
