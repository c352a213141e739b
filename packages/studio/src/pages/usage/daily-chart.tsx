import { type ReactNode, useCallback } from "react";
import uPlot from "uplot";
import { type ChartDrawing, type ChartTheme, useChart } from "../../components/use-chart.ts";

const secondsPerDay = 86_400;

/** One figure per UTC day as bars; `label` also describes the chart to screen readers. */
export function DailyChart({ days, values, label }: { days: string[]; values: number[]; label: string }): ReactNode {
  const draw = useCallback(
    ({ colour, axis }: ChartTheme): ChartDrawing => {
      const barColour = colour("--status-running");
      const bars = uPlot.paths.bars?.({ size: [0.7, 40] });
      const times = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
      // uPlot spreads a lone point over years; a week at least, half a day of margin each side.
      const last = Math.max(...times);
      const first = Math.min(...times, last - 6 * secondsPerDay);
      const xRange: uPlot.Range.MinMax = [first - secondsPerDay / 2, last + secondsPerDay / 2];
      return {
        options: {
          scales: { x: { time: true, range: () => xRange }, y: { range: (_self, _min, max) => [0, Math.max(max, 1)] } },
          axes: [axis, { ...axis, size: 48 }],
          series: [
            {},
            { label, stroke: barColour, fill: barColour, width: 1, ...(bars === undefined ? {} : { paths: bars }) },
          ],
        },
        data: [times, values],
      };
    },
    [days, values, label],
  );
  const container = useChart(200, draw);
  const total = values.reduce((sum, value) => sum + value, 0);
  return (
    <div ref={container} className="chart" role="img" aria-label={`${label}: ${total} over ${days.length} days`} />
  );
}
