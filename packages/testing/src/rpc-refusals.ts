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
