import { afterAll, beforeAll } from "vitest";
import { callRpc, type RpcCallResult } from "./rpc-calls.ts";
import { createTestIdentity, type TestIdentity } from "./test-identities.ts";
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from "./test-platform.ts";

export interface SignedInTestPlatform {
  readonly weft: TestPlatform;
  /** The identity the file's tests call the platform as. */
  readonly identity: TestIdentity;
  /** A raw RPC call as `identity`, its `json` read as `T`. */
  call<T = unknown>(procedure: string, input: unknown): Promise<RpcCallResult & { json: T }>;
}

export interface SignedInTestPlatformOptions extends TestPlatformOptions {
  /** Where the manual clock stands when the identity signs up, for a file that works at a date of its own. */
  startsAt?: Date;
}

/**
 * Starts a platform before the file's tests, signs `email` up on it, and stops it after them: the
 * set-up of every test file that calls one platform as one person. Its fields can be read from the
 * file's tests and from the hooks registered after it.
 */
export function signedInTestPlatform(email: string, options: SignedInTestPlatformOptions = {}): SignedInTestPlatform {
  const { startsAt, ...platformOptions } = options;
  let weft: TestPlatform | undefined;
  let identity: TestIdentity | undefined;
  beforeAll(async () => {
    weft = await startTestPlatform(platformOptions);
    if (startsAt !== undefined) weft.clock.set(startsAt);
    identity = await createTestIdentity(weft, email);
  });
  afterAll(async () => {
    await weft?.stop();
  });
  const started = () => {
    if (weft === undefined || identity === undefined) throw new Error("the platform starts in the file's beforeAll");
    return { weft, identity };
  };
  return {
    get weft() {
      return started().weft;
    },
    get identity() {
      return started().identity;
    },
    async call<T>(procedure: string, input: unknown) {
      const { weft, identity } = started();
      const result = await callRpc(weft.url, procedure, input, { token: identity.credential });
      return { ...result, json: result.json as T };
    },
  };
}
