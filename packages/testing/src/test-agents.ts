import { claimCodeOf, decide, emailRegistration, idJagRegistration, postJson } from "./auth-client.ts";
import { idJagClaimsFor, type TestIdentityProvider } from "./identity-provider.ts";
import type { SmtpSink } from "./smtp-sink.ts";
import type { TestPlatform } from "./test-platform.ts";

export interface TestAgent {
  /** The registration id, which the `agents` namespace calls the agent id. */
  agentId: string;
  /** The bearer secret. */
  credential: string;
}

function outboxApprovalLink(weft: TestPlatform, email: string): string {
  const mail = weft.platform.context.mailer.outbox?.list().find((message) => message.to === email);
  const link = mail?.text.match(/https?:\/\/\S+\/agent\/auth\/approve\?token=apv_[A-Za-z0-9_-]{43}/)?.[0];
  if (link === undefined) throw new Error(`no approval mail to ${email} in the outbox`);
  return link;
}

/**
 * An agent registered for `email` by the verified-email flow, end to end over HTTP: the agent
 * registers (with `userAgent`), the person approves from the mail (in the dev outbox, or in `smtp`
 * when the platform sends mail there), the agent claims.
 */
export async function registerEmailAgent(
  weft: TestPlatform,
  email: string,
  options: { userAgent?: string; smtp?: SmtpSink } = {},
): Promise<TestAgent> {
  const registered = await postJson(`${weft.url}/agent/auth`, emailRegistration(email), {
    "user-agent": options.userAgent ?? "test-agent/1.0",
  });
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`);
  const link = options.smtp?.approvalLinkFor(email) ?? outboxApprovalLink(weft, email);
  const approved = await decide(link, "approve");
  const claimed = await postJson(`${weft.url}/agent/auth/claim/complete`, {
    claim_token: registered.body.claim_token,
    otp: claimCodeOf(approved.html),
  });
  if (claimed.status !== 200) throw new Error(`claim answered ${claimed.status}`);
  return { agentId: claimed.body.registration_id as string, credential: claimed.body.credential as string };
}

/** An agent registered for `email` with an ID-JAG of `idp` (trusted by the platform), over HTTP. */
export async function registerIdJagAgent(
  weft: TestPlatform,
  idp: TestIdentityProvider,
  email: string,
): Promise<TestAgent> {
  const assertion = await idp.sign(
    idJagClaimsFor(idp, weft.url, weft.clock.now(), { sub: `subject-of-${email}`, email }),
  );
  const registered = await postJson(`${weft.url}/agent/auth`, idJagRegistration(assertion));
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`);
  return { agentId: registered.body.registration_id as string, credential: registered.body.credential as string };
}
