import { type RefObject, useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/** The page's theme as a chart draws in it. */
export interface ChartTheme {
  /** The value of one of the style sheet's custom properties, e.g. `--status-failed`. */
  colour(property: string): string;
  /** An axis in the muted text colour, with its grid and ticks in the border colour. */
  axis: uPlot.Axis;
}

export interface ChartDrawing {
  options: Omit<uPlot.Options, "width" | "height">;
  data: uPlot.AlignedData;
}

/**
 * Draws a uPlot chart into the returned ref's element, as wide as the element (280px at least) and
 * `height` high, and redraws it at the element's width when that changes. A new `draw` (keep it in
 * `useCallback`) draws it anew; the chart is destroyed with the component.
 */
export function useChart(height: number, draw: (theme: ChartTheme) => ChartDrawing): RefObject<HTMLDivElement | null> {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    const style = getComputedStyle(element);
    const colour = (property: string): string => style.getPropertyValue(property).trim();
    const axis = {
      stroke: colour("--text-muted"),
      grid: { stroke: colour("--border") },
      ticks: { stroke: colour("--border") },
    };
    const { options, data } = draw({ colour, axis });
    const size = () => ({ width: Math.max(element.clientWidth, 280), height });
    const chart = new uPlot({ ...size(), ...options }, data, element);
    const resize = new ResizeObserver(() => chart.setSize(size()));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [height, draw]);
  return container;
}
