import { type IssuedCredential, type PendingRegistration, RegistrationError } from "@weft/client";
import { CliError } from "./errors.ts";
import type { Output } from "./output.ts";

/** Attempts the authorization server allows per claim. */
export const maxCodeAttempts = 5;

export interface LoginFlowDeps {
  output: Output;
  register(email: string): Promise<PendingRegistration>;
  complete(claimToken: string, code: string): Promise<IssuedCredential>;
  /** The next code the user typed or piped in; undefined when there is none left to read. */
  readCode(): Promise<string | undefined>;
  now(): Date;
}

function expired(): CliError {
  return new CliError("this login request has expired (a request lasts 30 minutes, a code 10 minutes after approval)", {
    fix: "run `weft login` to start again",
    code: "claim_expired",
  });
}

/**
 * The verified-email flow: register, let the person approve in the mail, then exchange
 * the 6-digit code for a credential. The server gives one answer for every refused code; the CLI
 * counts the tries itself and knows when the claim token expires, so it can say which applies.
 */
export async function loginWithEmail(deps: LoginFlowDeps, email: string): Promise<IssuedCredential> {
  const { output } = deps;
  const registration = await deps.register(email);
  const expiresAt = registration.claimTokenExpires;
  output.notice(`We sent a mail to ${email}. Open it, check the request and approve it;`);
  output.notice("the page then shows a 6-digit code.");
  if (!output.interactive) output.notice("Write the code to standard input.");
  for (let attempt = 1; ; attempt++) {
    const code = await deps.readCode();
    if (code === undefined) {
      throw new CliError("no code was given", {
        fix: "run `weft login` again and enter the 6-digit code shown after you approve (on standard input without a terminal)",
        code: "no_code",
      });
    }
    if (!/^\d{6}$/.test(code)) {
      throw new CliError(`"${code}" is not a 6-digit code`, {
        fix: "run `weft login` again and enter the 6 digits shown on the approval page",
        code: "usage",
        exitCode: 2,
      });
    }
    try {
      return await deps.complete(registration.claimToken, code);
    } catch (error) {
      if (!(error instanceof RegistrationError) || error.code !== "invalid_grant") throw error;
      if (deps.now().getTime() >= expiresAt.getTime()) throw expired();
      const left = maxCodeAttempts - attempt;
      if (left <= 0) {
        throw new CliError(`the code was refused ${maxCodeAttempts} times, so this login request is closed`, {
          fix: "run `weft login` to start again",
          code: "too_many_attempts",
        });
      }
      output.warn(
        `that code was not accepted: ${left} ${left === 1 ? "try" : "tries"} left. Check the code on the approval page` +
          " (if you approved more than 10 minutes ago it has expired: run `weft login` to start again).",
      );
    }
  }
}
