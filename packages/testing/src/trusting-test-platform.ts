import { fileScoped } from "./file-scoped.ts";
import { startTestIdentityProvider, type TestIdentityProvider, trustedIssuersEnv } from "./identity-provider.ts";
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from "./test-platform.ts";

export interface TrustingTestPlatform {
  readonly weft: TestPlatform;
  /** The identity provider the platform trusts (WEFT_TRUSTED_ISSUERS). */
  readonly idp: TestIdentityProvider;
}

/**
 * Starts an identity provider and a platform that trusts it before the file's tests, and stops both
 * after them: the set-up of the files whose agents register with ID-JAGs or are logged out by it.
 */
export function trustingTestPlatform(options: TestPlatformOptions = {}): TrustingTestPlatform {
  return fileScoped<TrustingTestPlatform>(
    ["weft", "idp"],
    async () => {
      const idp = await startTestIdentityProvider();
      const weft = await startTestPlatform({
        ...options,
        env: { WEFT_TRUSTED_ISSUERS: trustedIssuersEnv(idp), ...options.env },
      }).catch(async (error: unknown) => {
        await idp.close();
        throw error;
      });
      return { weft, idp };
    },
    async ({ weft, idp }) => {
      await weft.stop();
      await idp.close();
    },
  );
}
