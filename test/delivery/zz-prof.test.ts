import { it } from 'vitest';
import { createClientWithToken, createHarness } from '../support/harness.js';
import { addSubscription, emit, startReceiver } from './support.js';
for (const engine of ['sqlite', 'postgres'] as const) for (const fake of [true, false]) it(`throughput ${engine} fake=${fake}`, async () => {
  const h = await createHarness(engine, { webhookAllowPrivate: true }, { file: true });
  const r = await startReceiver();
  const c = await createClientWithToken(h);
  for (let i = 0; i < 10; i++) await addSubscription(h.database.db, c.id, `${r.url}/${i}`, h.clock.now());
  await emit(h.database.db, h.clock.now(), 200);
  const sender = fake ? { send: async () => ({ kind: 'response' as const, statusCode: 200, headers: {}, bodySnippet: '' }), close: async () => {} } : undefined;
  const w = h.app.services.createDeliveryWorker({ concurrency: 64, perSubscription: 64, ...(sender ? { sender } : {}) });
  const t = performance.now();
  let n = 0;
  while (n < 2000) { const got = await w.runOnce(); if (got === 0) break; n += got; }
  const s = (performance.now() - t) / 1000;
  console.log(engine, 'fake', fake, n, (n / s).toFixed(0), '/s');
  await w.stop(); await r.close(); await h.close();
}, 60000);
