/**
 * The overview's chart follows the window: opened at 1280 px and the window then narrowed to 390 px
 * (nothing drawn again by the page's navigation), the chart is drawn again for the narrow box, so it
 * keeps a readable height and its axis text its size; widened again, it fills the wide box again.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { DESKTOP, useBrowserWorlds, type World } from './support.js';

const PHONE = { width: 390, height: 844 };

interface Drawn {
  /** The SVG's drawing width (viewBox) and its width and height on screen, in px. */
  drawnWidth: number;
  width: number;
  height: number;
  /** The axis text's size on screen (font size × the SVG's scale), in px. */
  axis: number;
}

// A script (a string): the tests compile without the DOM's types.
const drawn = (page: Page): Promise<Drawn> =>
  page.evaluate(`(() => {
    const svg = document.querySelector('figure.chart svg');
    const text = svg.querySelector('text');
    const box = svg.getBoundingClientRect();
    const scale = box.width / svg.viewBox.baseVal.width;
    return {
      drawnWidth: svg.viewBox.baseVal.width,
      width: Math.round(box.width),
      height: Math.round(box.height),
      axis: Math.round(Number.parseFloat(getComputedStyle(text).fontSize) * scale * 100) / 100,
    };
  })()`) as Promise<Drawn>;

/** Waits until the chart is drawn for the box it is in (one SVG unit one screen pixel). */
async function fitted(page: Page): Promise<Drawn> {
  await expect
    .poll(async () => {
      const now = await drawn(page);
      return Math.abs(now.drawnWidth - now.width) <= 1;
    })
    .toBe(true);
  return drawn(page);
}

describeEachEngine('the overview chart in a resized window', (engine) => {
  const world = useBrowserWorlds(engine);

  const withAttempts = async (): Promise<{ w: World; op: Page }> => {
    const w = await world();
    await w.subscribeReceivers(await w.shop());
    await w.publishedList();
    await w.ok.waitFor(1, 10_000);
    return { w, op: await w.operator() };
  };

  it.skipIf(skipBrowser)(
    'opened at 1280 px and narrowed to 390 px, the chart is drawn again: 180 px high, 12 px axis text',
    async () => {
      const { w, op } = await withAttempts();
      const wide = await fitted(op);
      expect(wide).toMatchObject({ height: 220, axis: 12 });
      expect(wide.width).toBeGreaterThan(1000);

      await op.setViewportSize(PHONE);
      const narrow = await fitted(op);
      expect(narrow).toMatchObject({ height: 180, axis: 12 });
      expect(narrow.width).toBeLessThan(PHONE.width);
      expect(narrow.width).toBeGreaterThan(300);
      // Nothing sticks out sideways.
      expect(await op.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      if (engine === 'sqlite')
        await op.screenshot({ path: 'test-artifacts/screenshots/console-overview-narrowed-390.png', fullPage: true });

      await op.setViewportSize(DESKTOP);
      expect(await fitted(op)).toEqual(wide);
      // Only the chart was drawn again: the page stayed where it was, with no error in its console.
      expect(await op.locator('main h1').textContent()).toBe('Overview');
      expect(w.problems).toEqual([]);
    },
  );
});
