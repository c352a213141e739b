import { expect } from "vitest";

/** Expects a call refused with 400 BAD_REQUEST, one of whose issues is at `path` with a message matching `message`. */
export function expectInputIssue(
  refused: { status: number; json: unknown },
  path: readonly (string | number)[],
  message: RegExp,
): void {
  expect(refused.status).toBe(400);
  const body = refused.json as { code: string; data: { issues: { path: unknown[]; message: string }[] } };
  expect(body.code).toBe("BAD_REQUEST");
  expect(body.data.issues).toContainEqual({ path, message: expect.stringMatching(message) });
}

/** The body of the 500 that answers an unexpected failure: it quotes the request's id. */
export function internalErrorBody(requestId: string) {
  return {
    defined: true,
    code: "INTERNAL_SERVER_ERROR",
    status: 500,
    message: `Unexpected server error; quote request id ${requestId}.`,
  };
}
