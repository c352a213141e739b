export type { ExecutionEventRecord } from "./derive-events.ts";
export { type EventsPage, followedExecutionsLimit, type ListEventsRequest, listEvents } from "./list-events.ts";
