/**
 * The compiled server as operators start it: a warning line when WEBHOOK_ALLOW_PRIVATE
 * turns the SSRF guard off, and an answer (never a silent close) to a CONNECT request.
 */
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, type ServerProcess, startServer } from '../support/process.js';

const WARNING = 'WEBHOOK_ALLOW_PRIVATE=true: the SSRF guard is off';
const sqlite = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'shelfmark-startup-')), 'db.sqlite')}`;

/** Sends raw bytes and resolves with everything the server writes until it closes the connection. */
function exchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let received = '';
    socket.setTimeout(5000, () => socket.destroy(new Error(`no close within 5 s; received: ${received}`)));
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

async function warnings(server: ServerProcess): Promise<number> {
  // The log is written asynchronously; give it a moment to reach the pipe.
  for (let i = 0; i < 20 && !server.output().includes(WARNING); i++) await new Promise((r) => setTimeout(r, 100));
  return server
    .output()
    .split('\n')
    .filter((line) => line.includes(WARNING)).length;
}

describe('start-up', () => {
  let open: ServerProcess;
  let guarded: ServerProcess;
  let openUrl: string;
  beforeAll(async () => {
    ensureBuilt();
    open = startServer(sqlite(), { WEBHOOK_ALLOW_PRIVATE: 'true' });
    guarded = startServer(sqlite(), { WEBHOOK_ALLOW_PRIVATE: 'false' });
    [openUrl] = await Promise.all([open.ready, guarded.ready]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([open.stop(), guarded.stop()]);
  });

  it('WEBHOOK_ALLOW_PRIVATE=true logs one warning line that the SSRF guard is off; false logs none', async () => {
    expect(await warnings(open)).toBe(1);
    const line =
      open
        .output()
        .split('\n')
        .find((text) => text.includes(WARNING)) ?? '';
    expect(JSON.parse(line)).toMatchObject({ level: 40 });
    expect(await warnings(guarded)).toBe(0);
  });

  it('answers CONNECT with a problem document over a real socket instead of closing silently', async () => {
    const answer = await exchange(openUrl, 'CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n');
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toContain('Content-Type: application/problem+json');
    expect(JSON.parse(body)).toMatchObject({
      status: 400,
      code: 'malformed-request',
      detail: expect.stringContaining('CONNECT'),
    });
    // The server is still up and answers the next request.
    expect((await fetch(`${openUrl}/healthz`)).status).toBe(200);
  });
});
