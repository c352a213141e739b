import { SessionApiError } from "./studio-error.ts";

/** The signed-in person, as `GET /studio/api/session` tells. */
export interface Session {
  email: string;
  accountId: string;
  csrfToken: string;
  expiresAt: string;
}

const csrfHeader = "x-weft-csrf";

async function call<T>(path: string, init: RequestInit): Promise<T> {
  const response = await fetch(`/studio/api/${path}`, {
    ...init,
    credentials: "same-origin",
    headers: {
      accept: "application/json",
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
  });
  const requestId = response.headers.get("x-request-id") ?? undefined;
  const text = await response.text();
  const body: unknown = text === "" ? undefined : JSON.parse(text);
  if (!response.ok) throw new SessionApiError(messageOf(body, response.status), response.status, requestId);
  return body as T;
}

function messageOf(body: unknown, status: number): string {
  if (typeof body === "object" && body !== null) {
    for (const key of ["message", "error_description", "description", "error"] as const) {
      const value = (body as Record<string, unknown>)[key];
      if (typeof value === "string") return value;
    }
  }
  return status === 429 ? "Too many attempts; wait a minute and try again." : `The server answered ${status}.`;
}

/** Starts a sign-in: the person gets a mail whose approval page shows a 6-digit code. */
export function startSignIn(email: string): Promise<{ expiresAt: string }> {
  return call("sign-in", { method: "POST", body: JSON.stringify({ email }) });
}

/** Completes a sign-in with the code; the server sets the session cookie. */
export function completeSignIn(code: string): Promise<{ email: string; csrfToken: string }> {
  return call("sign-in/complete", { method: "POST", body: JSON.stringify({ code }) });
}

/** The current session, or null when there is none (401). */
export async function readSession(): Promise<Session | null> {
  try {
    return await call<Session>("session", { method: "GET" });
  } catch (error) {
    if (error instanceof SessionApiError && error.status === 401) return null;
    throw error;
  }
}

export async function signOut(csrfToken: string): Promise<void> {
  await call<undefined>("sign-out", { method: "POST", headers: { [csrfHeader]: csrfToken } });
}

export { csrfHeader };
