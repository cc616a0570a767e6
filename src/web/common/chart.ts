/**
 * A chart drawn in screen pixels (one SVG unit is one pixel, so its text keeps the size it was given)
 * and drawn again whenever its box changes width. Scaled instead, a chart drawn for a 1280 px window
 * and shown at 390 px is a third of its height with 4 px text.
 */
import { h, s } from './dom.js';

/** Draws the SVG's parts for a box `width` pixels wide; answers the height it needs. */
export type Drawing = (width: number) => { height: number; parts: readonly SVGElement[] };

/** Below this the chart is scaled down rather than drawn narrower: 24 bars need room. */
const MIN_WIDTH = 280;

/**
 * A figure holding the SVG, drawn first at `initialWidth` (the box is measured only once it is on the
 * page) and again at the figure's own content width each time that changes. The redraw waits for the
 * next frame: drawn inside the observer's callback, the new height would change the observed box again
 * within the same frame, which the browser reports as an error.
 */
export function resizingChart(initialWidth: number, draw: Drawing, label: string, caption: HTMLElement): HTMLElement {
  const svg = s('svg', { role: 'img', 'aria-label': label });
  let drawn = 0;
  const drawAt = (width: number): void => {
    drawn = Math.max(MIN_WIDTH, Math.floor(width));
    const { height, parts } = draw(drawn);
    svg.setAttribute('viewBox', `0 0 ${drawn} ${height}`);
    svg.replaceChildren(...parts);
  };
  drawAt(initialWidth);
  const figure = h('figure', { className: 'chart' }, [svg, caption]);
  let pending = 0;
  let shown = false;
  const observer = new ResizeObserver((entries) => {
    const width = entries.at(-1)?.contentRect.width ?? 0;
    // Taken off the page once shown (another section drawn): nothing left to fit. Not yet shown: the
    // section is still being drawn off the page, and the figure is measured once it is swapped in.
    if (!figure.isConnected) {
      if (shown) observer.disconnect();
      return;
    }
    shown = true;
    if (width <= 0 || Math.max(MIN_WIDTH, Math.floor(width)) === drawn) return;
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => drawAt(width));
  });
  observer.observe(figure);
  return figure;
}
