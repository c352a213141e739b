import { type ExecutionStatusValue, type ExecutionTimeline, executionStatuses } from "@weft/contract";
import { type ReactNode, useCallback } from "react";
import { type ChartDrawing, type ChartTheme, useChart } from "../../components/use-chart.ts";

/** Executions per minute, one line per status, over the minutes given (buckets without executions count 0). */
export function ExecutionChart({
  timeline,
  from,
  minutes,
}: {
  timeline: ExecutionTimeline;
  from: Date;
  minutes: number;
}): ReactNode {
  const draw = useCallback(
    ({ colour, axis }: ChartTheme): ChartDrawing => {
      const start = Math.floor(from.getTime() / 60_000) * 60;
      const xs = Array.from({ length: minutes }, (_, index) => start + index * 60);
      const byMinute = new Map(timeline.buckets.map((bucket) => [Date.parse(bucket.start) / 1000, bucket.counts]));
      const shown = executionStatuses.filter((status) =>
        timeline.buckets.some((bucket) => (bucket.counts[status] ?? 0) > 0),
      );
      const series = shown.length === 0 ? (["succeeded"] as ExecutionStatusValue[]) : shown;
      const statusColour = (status: string): string => colour(`--status-${status}`) || "#888";
      return {
        options: {
          scales: { x: { time: true }, y: { range: (_self, _min, max) => [0, Math.max(max, 1)] } },
          axes: [axis, { ...axis, size: 40 }],
          series: [
            {},
            ...series.map((status) => ({
              label: status,
              stroke: statusColour(status),
              width: 2,
              points: { show: false },
            })),
          ],
        },
        data: [xs, ...series.map((status) => xs.map((x) => byMinute.get(x)?.[status] ?? 0))],
      };
    },
    [timeline, from, minutes],
  );
  const container = useChart(220, draw);
  return <div ref={container} className="chart" role="img" aria-label={describe(timeline)} />;
}

function describe(timeline: ExecutionTimeline): string {
  const totals = new Map<string, number>();
  for (const bucket of timeline.buckets) {
    for (const [status, count] of Object.entries(bucket.counts))
      totals.set(status, (totals.get(status) ?? 0) + (count ?? 0));
  }
  if (totals.size === 0) return "Executions per minute: none in the last hour.";
  return `Executions per minute over the last hour: ${[...totals].map(([status, count]) => `${count} ${status}`).join(", ")}.`;
}
