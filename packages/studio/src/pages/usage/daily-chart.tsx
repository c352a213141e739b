import { type ReactNode, useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

const secondsPerDay = 86_400;

/** One figure per UTC day as bars; `label` also describes the chart to screen readers. */
export function DailyChart({ days, values, label }: { days: string[]; values: number[]; label: string }): ReactNode {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    const style = getComputedStyle(element);
    const axisColour = style.getPropertyValue("--text-muted").trim();
    const gridColour = style.getPropertyValue("--border").trim();
    const barColour = style.getPropertyValue("--status-running").trim();
    const axis = { stroke: axisColour, grid: { stroke: gridColour }, ticks: { stroke: gridColour } };
    const bars = uPlot.paths.bars?.({ size: [0.7, 40] });
    const times = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    // uPlot spreads a lone point over years; a week at least, half a day of margin each side.
    const last = Math.max(...times);
    const first = Math.min(...times, last - 6 * secondsPerDay);
    const xRange: uPlot.Range.MinMax = [first - secondsPerDay / 2, last + secondsPerDay / 2];
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 280),
        height: 200,
        scales: { x: { time: true, range: () => xRange }, y: { range: (_self, _min, max) => [0, Math.max(max, 1)] } },
        axes: [axis, { ...axis, size: 48 }],
        series: [
          {},
          { label, stroke: barColour, fill: barColour, width: 1, ...(bars === undefined ? {} : { paths: bars }) },
        ],
      },
      [times, values],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 280), height: 200 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days, values, label]);
  const total = values.reduce((sum, value) => sum + value, 0);
  return (
    <div ref={container} className="chart" role="img" aria-label={`${label}: ${total} over ${days.length} days`} />
  );
}
