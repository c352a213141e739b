import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { sessionQueryKey } from "../api/session.ts";
import { describeError } from "../api/studio-error.ts";

/**
 * One cache for the whole app. A call answered 401 means the session is gone (expired, signed out
 * elsewhere, its agent revoked): the session is read again, and the guard sends the person to
 * sign-in with the page they wanted. Only failures that may pass (the network, a 5xx) are retried.
 */
export const studioQueryClient: QueryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (an unknown id's 404, a 403) is shown at once: asking again changes nothing.
      retry: (failures, error) => !describeError(error).final && failures < 2,
      refetchOnWindowFocus: false,
    },
  },
  queryCache: new QueryCache({ onError: (error) => sessionMayBeGone(error) }),
  mutationCache: new MutationCache({ onError: (error) => sessionMayBeGone(error) }),
});

function sessionMayBeGone(error: unknown): void {
  if (describeError(error).signedOut) void studioQueryClient.invalidateQueries({ queryKey: sessionQueryKey });
}
