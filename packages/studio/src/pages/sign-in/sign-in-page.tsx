import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useEffect, useId, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { readSession, sessionQueryKey } from "../../api/session.ts";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { returnPath } from "./return-path.ts";

/**
 * Email, then a wait: the mailed link, opened in this browser, signs it in (this page notices and
 * goes on by itself); opened in another, it shows a 6-digit code to enter here.
 */
export function SignInPage(): ReactNode {
  const [sentTo, setSentTo] = useState<string | null>(null);
  return (
    <main id="main" className="sign-in">
      <PageTitle title="Sign in to Weft Studio" />
      {sentTo === null ? (
        <EmailStep onSent={setSentTo} />
      ) : (
        <CodeStep email={sentTo} onRestart={() => setSentTo(null)} />
      )}
    </main>
  );
}

function EmailStep({ onSent }: { onSent: (email: string) => void }): ReactNode {
  const [email, setEmail] = useState("");
  const id = useId();
  const send = useMutation(weftQuery.session.signIn.mutationOptions({ onSuccess: () => onSent(email.trim()) }));
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    send.mutate({ email: email.trim() });
  };
  return (
    <form className="card stack" onSubmit={submit}>
      <label htmlFor={id}>Email</label>
      <input
        id={id}
        type="email"
        autoComplete="email"
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <button type="submit" className="button" disabled={send.isPending}>
        Email me a sign-in link
      </button>
      <ErrorNotice error={send.error} />
    </form>
  );
}

function CodeStep({ email, onRestart }: { email: string; onRestart: () => void }): ReactNode {
  const [code, setCode] = useState("");
  const id = useId();
  const hintId = useId();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const complete = useMutation(
    weftQuery.session.completeSignIn.mutationOptions({
      onSuccess: async () => {
        // Dropped rather than marked stale: a stale "signed out" would send the next page back here.
        queryClient.removeQueries({ queryKey: sessionQueryKey });
        await navigate(returnPath(searchParams.get("next")), { replace: true });
      },
    }),
  );
  // The link approved in this browser signs it in from its own tab: the session appears here too.
  // The session query the signed-in pages read, polled while waiting: once it holds a session they go on with it.
  const signedInElsewhere = useQuery({
    queryKey: sessionQueryKey,
    queryFn: readSession,
    refetchInterval: (query) => (query.state.data === null || query.state.data === undefined ? 2_000 : false),
  });
  const arrived = signedInElsewhere.data !== undefined && signedInElsewhere.data !== null;
  useEffect(() => {
    if (arrived) void navigate(returnPath(searchParams.get("next")), { replace: true });
  }, [arrived, navigate, searchParams]);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    complete.mutate({ code: code.trim() });
  };
  return (
    <form className="card stack" onSubmit={submit}>
      <p id={hintId}>
        Check your mail at <strong>{email}</strong> and open the link. In this browser, choose Sign in there and this
        page goes on by itself. Opened on another device, the link shows a 6-digit code: enter it here.
      </p>
      <p className="muted" role="status">
        Waiting for the link…
      </p>
      <label htmlFor={id}>6-digit code</label>
      <input
        id={id}
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]{6}"
        maxLength={6}
        required
        aria-describedby={hintId}
        value={code}
        onChange={(event) => setCode(event.target.value)}
      />
      <button type="submit" className="button" disabled={complete.isPending}>
        Sign in
      </button>
      <button type="button" className="button secondary" onClick={onRestart}>
        Use another email
      </button>
      <ErrorNotice error={complete.error} />
    </form>
  );
}
