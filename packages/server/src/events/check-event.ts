import { eventIdempotencyIdSchema, eventNameSchema } from "@weft/contract";
import { formatLimit, maxTokenDataBytes } from "../engine/limits.ts";
import { fail, ok, type ServiceIssue, type ServiceResult } from "../shared/service-result.ts";
import { checkStorableJson, describeUnstorable } from "../shared/storable-json.ts";

/**
 * An event's data is at most what completes a wait token (256 KiB of JSON), since it completes the
 * waits for it; it is also copied into the input of each execution it starts (200 at most), so one
 * send stores at most 200 times this.
 */
export const maxEventDataBytes = maxTokenDataBytes;

export interface EventToCheck {
  name: string;
  data: unknown;
  id?: string | undefined;
}

/** The event as it will be stored (`undefined` data as null), or a refusal naming each field. */
export function checkEvent(event: EventToCheck): ServiceResult<{ name: string; data: unknown; id?: string }> {
  const issues: ServiceIssue[] = [];
  const name = eventNameSchema.safeParse(event.name);
  if (!name.success) issues.push({ path: "name", message: name.error.issues[0]?.message ?? "is not an event name" });
  if (event.id !== undefined) {
    const id = eventIdempotencyIdSchema.safeParse(event.id);
    if (!id.success) issues.push({ path: "id", message: id.error.issues[0]?.message ?? "is not an event id" });
  }
  const data = event.data === undefined ? null : event.data;
  const storable = checkStorableJson(data);
  if (!storable.ok) {
    issues.push({ path: "data", message: `cannot be stored: ${describeUnstorable(storable)}` });
  } else {
    const bytes = Buffer.byteLength(JSON.stringify(data));
    if (bytes > maxEventDataBytes) {
      issues.push({
        path: "data",
        message: `is ${bytes} bytes of JSON; the limit is ${formatLimit(maxEventDataBytes)}`,
      });
    }
  }
  if (issues.length > 0) return fail.invalid("the event cannot be accepted", issues);
  return ok({ name: event.name, data, ...(event.id === undefined ? {} : { id: event.id }) });
}
