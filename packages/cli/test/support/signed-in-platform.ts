import {
  createTestIdentity,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
  type TestPlatformOptions,
} from "@weft/testing";
import { afterAll, beforeAll } from "vitest";

export interface SignedInPlatform {
  readonly weft: TestPlatform;
  /** The identity the CLI acts as. */
  readonly identity: TestIdentity;
  /** The environment that points the CLI at the platform, signed in as `identity`. */
  readonly env: Record<string, string>;
  /** `env` with a WEFT_TOKEN the platform never issued, which it refuses. */
  readonly envWithRefusedToken: Record<string, string>;
}

export interface SignedInPlatformOptions extends TestPlatformOptions {
  /** Where the manual clock stands when the identity signs up, for a file that works at a date of its own. */
  startsAt?: Date;
}

/**
 * Starts a platform before the file's tests, signs `email` up on it, and stops it after them: the
 * set-up of every CLI test file that runs commands as one person. Its fields can be read from the
 * file's tests and from the hooks registered after it.
 */
export function signedInPlatform(email: string, options: SignedInPlatformOptions = {}): SignedInPlatform {
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
    get env() {
      const { weft, identity } = started();
      return { WEFT_TOKEN: identity.credential, WEFT_API_URL: weft.url };
    },
    get envWithRefusedToken() {
      return { ...this.env, WEFT_TOKEN: "wft_not_a_credential_the_platform_issued" };
    },
  };
}
