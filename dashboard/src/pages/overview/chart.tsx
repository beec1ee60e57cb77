/**
 * The last 30 days as lines, one per count, drawn by uPlot (a canvas chart of
 * about 20 KB gzipped, the smallest that draws time series well). A canvas says
 * nothing to a screen reader, so the chart is an image with a summary, and the
 * same numbers are a table just below it.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface Day {
  date: string;
  sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  opened: number;
  clicked: number;
}

/** Colours told apart by people with the commoner colour-vision deficiencies (Okabe–Ito), each at least 3:1 against white. */
export const SERIES = [
  { key: 'sent', label: 'Sent', color: '#0b5cad' },
  { key: 'delivered', label: 'Delivered', color: '#007a5a' },
  { key: 'bounced', label: 'Bounced', color: '#c2410c' },
  { key: 'complained', label: 'Complained', color: '#b4005f' },
  { key: 'opened', label: 'Opened', color: '#6b4fbb' },
  { key: 'clicked', label: 'Clicked', color: '#5c5c00' },
] as const;

const HEIGHT = 260;

export function ActivityChart({ days, summary }: { days: readonly Day[]; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const data: uPlot.AlignedData = [
      days.map((day) => Date.parse(`${day.date}T12:00:00Z`) / 1000),
      ...SERIES.map((series) => days.map((day) => day[series.key])),
    ];
    const plot = new uPlot(
      {
        width: element.clientWidth,
        height: HEIGHT,
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        axes: [
          { stroke: '#3d4451', grid: { stroke: '#e6e8eb' }, ticks: { stroke: '#e6e8eb' } },
          { stroke: '#3d4451', grid: { stroke: '#e6e8eb' }, ticks: { stroke: '#e6e8eb' }, size: 48 },
        ],
        series: [{}, ...SERIES.map((series) => ({ label: series.label, stroke: series.color, width: 2, points: { show: false } }))],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days]);
  return (
    <figure className="chart">
      <div ref={box} role="img" aria-label={summary} className="chart-canvas" />
      <figcaption>
        <ul className="legend">
          {SERIES.map((series) => (
            <li key={series.key}>
              <span className="swatch" style={{ background: series.color }} aria-hidden="true" />
              {series.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
