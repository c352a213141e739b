import { type QueryKey, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";

/** What a page follows: one execution, a project's executions, or a whole workspace's. */
export type LiveScope = { executionId: string } | { projectId: string } | { workspaceId: string };

/** Bursts of events (a step and its logs) refresh a page once: at most this often. */
const refreshGapMs = 250;
/** How often a page whose stream was refused reads again instead. */
const fallbackRefreshMs = 5_000;

function streamUrl(scope: LiveScope): string {
  const [[name, value] = ["", ""]] = Object.entries(scope);
  return `${window.location.origin}/studio/events?${new URLSearchParams({ [name]: value })}`;
}

/**
 * Keeps a page's queries current from the server-sent event stream of its scope (`/studio/events`,
 * authorized by the session cookie): each execution event refreshes `keys`, instead of polling. The
 * browser reconnects by itself with the last event's id, so nothing is missed; a reconnect also
 * refreshes, for what changed while the stream was down.
 */
export function useLiveUpdates(scope: LiveScope | undefined, keys: QueryKey[]): void {
  const queryClient = useQueryClient();
  const keysRef = useRef(keys);
  keysRef.current = keys;
  const url = scope === undefined ? undefined : streamUrl(scope);
  useEffect(() => {
    if (url === undefined || typeof EventSource === "undefined") return;
    const source = new EventSource(url);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = (): void => {
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        for (const queryKey of keysRef.current) void queryClient.invalidateQueries({ queryKey });
      }, refreshGapMs);
    };
    let opened = false;
    source.addEventListener("open", () => {
      if (opened) refresh();
      opened = true;
    });
    source.addEventListener("execution-event", refresh);
    // The browser gives up on a stream answered with an error (a proxy that refuses it, a 5xx): the
    // page then reads again now and then, as it did before there was a stream.
    let fallback: ReturnType<typeof setInterval> | undefined;
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED && fallback === undefined) {
        fallback = setInterval(refresh, fallbackRefreshMs);
      }
    });
    return () => {
      if (timer !== undefined) clearTimeout(timer);
      if (fallback !== undefined) clearInterval(fallback);
      source.close();
    };
  }, [url, queryClient]);
}
