import type { SentEvent } from "../../events/send-event.ts";

/** A stored event as the API answers it. */
export function toEvent(event: SentEvent) {
  return { ...event, sentAt: event.sentAt.toISOString() };
}
