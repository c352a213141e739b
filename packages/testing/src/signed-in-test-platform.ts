import { fileScoped } from "./file-scoped.ts";
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
 * set-up of every test file that calls one platform as one person.
 */
export function signedInTestPlatform(email: string, options: SignedInTestPlatformOptions = {}): SignedInTestPlatform {
  const { startsAt, ...platformOptions } = options;
  const signedIn = fileScoped(
    ["weft", "identity"],
    async () => {
      const weft = await startTestPlatform(platformOptions);
      if (startsAt !== undefined) weft.clock.set(startsAt);
      return { weft, identity: await createTestIdentity(weft, email) };
    },
    ({ weft }) => weft.stop(),
  );
  const call: SignedInTestPlatform["call"] = async <T>(procedure: string, input: unknown) => {
    const result = await callRpc(signedIn.weft.url, procedure, input, { token: signedIn.identity.credential });
    return { ...result, json: result.json as T };
  };
  return Object.assign(signedIn, { call });
}
