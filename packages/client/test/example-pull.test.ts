/**
 * examples/pull.ts against a demo server: it prints every event in order, keeps its cursor in a file,
 * and a second run continues after the last event handled (nothing twice, nothing missed).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { clientFromEnv } from '../../../examples/env.js';
import { pullEvents } from '../../../examples/pull.js';
import { SYSTEM } from '../../../src/audit/initiator.js';
import { seedDemo } from '../../../src/seed/demo.js';
import { describeEachEngine } from '../../../test/support/engines.js';
import { type Served, serve } from './support.js';

describeEachEngine('examples/pull.ts', (engine) => {
  let s: Served;
  beforeEach(async () => {
    s = await serve(engine);
    s.h.clock.set(Date.now());
    await seedDemo(s.h.services, SYSTEM);
  });
  afterEach(async () => {
    // A stream stopped between two requests can leave a connection (the test's own client) opened for
    // the next one with no request on it, which the server's close waits for (headersTimeout): once
    // the close has begun, the test ends its connections.
    const closing = s.h.app.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    s.h.app.server.closeAllConnections();
    await closing;
    await s.h.close();
  });

  const createSchool = async (name: string): Promise<string> =>
    (await s.admin('POST', '/schools', { name, type: 'VO' })).json<{ identifier: string }>().identifier;

  it('prints each event once across restarts, continuing from the cursor file', async () => {
    const client = clientFromEnv({ SHELFMARK_URL: s.url });
    const cursorFile = join(mkdtempSync(join(tmpdir(), 'shelfmark-pull-')), 'cursor');
    const run = async (until: (lines: string[]) => boolean): Promise<string[]> => {
      const lines: string[] = [];
      const stop = new AbortController();
      const pulling = pullEvents(client, {
        cursorFile,
        types: ['school-created'],
        signal: stop.signal,
        log: (line) => lines.push(line),
      });
      await vi.waitFor(() => expect(until(lines)).toBe(true), { timeout: 10_000 });
      stop.abort();
      await pulling;
      return lines;
    };
    const demoSchools = (await client.events.list({ types: 'school.created', limit: 1000 })).data;
    expect(demoSchools.length).toBeGreaterThan(0);
    const first = await run((lines) => lines.length === demoSchools.length);
    expect(first).toEqual(
      demoSchools.map((event) => `${event.occurredAt} school.created school ${event.identifier} (event ${event.id})`),
    );
    expect(readFileSync(cursorFile, 'utf8')).not.toBe('');
    const added = await createSchool('Nieuw College');
    const second = await run((lines) => lines.length === 1);
    expect(second).toHaveLength(1);
    expect(second[0]).toContain(`school.created school ${added} (event evt_`);
  });
});
