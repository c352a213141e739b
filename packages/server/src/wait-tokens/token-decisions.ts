/** A person's two answers (a token page's buttons, Studio's), and the `data` each completes the token with. */
export const tokenDecisions = { approve: { approved: true }, reject: { approved: false } } as const;
export type TokenDecision = keyof typeof tokenDecisions;
