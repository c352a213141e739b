import {
  type SignedInTestPlatformOptions,
  signedInTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";

export interface SignedInPlatform {
  readonly weft: TestPlatform;
  /** The identity the CLI acts as. */
  readonly identity: TestIdentity;
  /** The environment that points the CLI at the platform, signed in as `identity`. */
  readonly env: Record<string, string>;
  /** `env` with a WEFT_TOKEN the platform never issued, which it refuses. */
  readonly envWithRefusedToken: Record<string, string>;
}

/**
 * The test kit's signed-in platform (started before the file's tests, stopped after them), with the
 * environment a CLI test file runs `weft` in as that person.
 */
export function signedInPlatform(email: string, options: SignedInTestPlatformOptions = {}): SignedInPlatform {
  const platform = signedInTestPlatform(email, options);
  const env = () => ({ WEFT_TOKEN: platform.identity.credential, WEFT_API_URL: platform.weft.url });
  return {
    get weft() {
      return platform.weft;
    },
    get identity() {
      return platform.identity;
    },
    get env() {
      return env();
    },
    get envWithRefusedToken() {
      return { ...env(), WEFT_TOKEN: "wft_not_a_credential_the_platform_issued" };
    },
  };
}
