/** An event as workflows receive it: the input of a subscribed workflow, and what `ctx.waitForEvent` returns. */
export interface EventAsInput {
  id: string;
  name: string;
  data: unknown;
  sentAt: string;
}
