/**
 * The test run's output carries no stray JSON log lines: the harness's delivery workers log where its
 * app logs, into the lines a test reads or nowhere, never onto stdout or stderr, even when a test raises
 * LOG_LEVEL (test/support/harness.ts). pino writes to the file descriptors directly, not through
 * process.stderr, so the writes are watched at `fs`. SQLite only: where a line goes does not depend on
 * the engine.
 */
import fs from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';
import { logLines } from '../support/log-lines.js';
import { until } from '../support/until.js';
import { addSubscription, deliverOnce, emit, type Receiver, startReceiver } from './support.js';

/** The failed first attempt's line: the schedule's 5 s, jitter fixed at the middle, after the harness's clock. */
const FAILED = 'delivery attempt 1 failed (HTTP 500); next attempt: 2026-09-01T08:00:05.000Z';

/** What this process writes to its stdout and stderr while `work` runs; swallowed, so none reaches the run's output. */
async function writtenDuring(work: () => Promise<void>): Promise<string[]> {
  const written: string[] = [];
  const { write, writeSync } = fs;
  const ours = (fd: unknown): boolean => fd === 1 || fd === 2;
  const text = (data: unknown): string => (Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
  fs.writeSync = ((...args: unknown[]) => {
    if (!ours(args[0])) return Reflect.apply(writeSync, fs, args);
    written.push(text(args[1]));
    return Buffer.byteLength(text(args[1]));
  }) as typeof fs.writeSync;
  fs.write = ((...args: unknown[]) => {
    if (!ours(args[0])) return Reflect.apply(write, fs, args);
    written.push(text(args[1]));
    const done = args.at(-1);
    if (typeof done === 'function') process.nextTick(() => done(null, Buffer.byteLength(text(args[1]))));
  }) as typeof fs.write;
  try {
    await work();
    // An asynchronous destination writes on a later tick.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    fs.writeSync = writeSync;
    fs.write = write;
  }
  return written;
}

let h: Harness | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  await h?.close();
});

/** A harness at LOG_LEVEL=info whose one subscription's receiver answers 500, with a delivery due. */
async function failingDelivery(logStream?: NodeJS.WritableStream): Promise<Harness> {
  h = await createHarness('sqlite', { logLevel: 'info', webhookAllowPrivate: true }, { logStream });
  receiver = await startReceiver(() => ({ status: 500 }));
  const client = await createClientWithToken(h);
  await addSubscription(h.database.db, client.id, receiver.url, h.clock.now());
  await emit(h.database.db, h.clock.now());
  return h;
}

it("without a log stream, a worker's failed attempt writes nothing to stdout or stderr; the worker's own default would have", async () => {
  const harness = await failingDelivery();
  expect(await writtenDuring(async () => expect(await deliverOnce(harness)).toBe(1))).toEqual([]);

  // The same worker with its own default logger (stderr at LOG_LEVEL): the line this guards against.
  harness.clock.advance(5000);
  const worker = harness.services.createDeliveryWorker({ logger: undefined, random: () => 0.5 });
  const written = await writtenDuring(async () => {
    expect(await worker.runOnce()).toBe(1);
    await worker.stop();
  });
  expect(written.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
    'delivery attempt 2 failed (HTTP 500); next attempt: 2026-09-01T08:05:05.000Z',
  ]);
});

it("with a log stream, the worker's lines go into it, beside the app's", async () => {
  const lines: string[] = [];
  const harness = await failingDelivery(logLines(lines));
  expect(await writtenDuring(async () => expect(await deliverOnce(harness)).toBe(1))).toEqual([]);
  await until(() => lines.some((line) => line.includes('"name":"delivery"')), 'the worker line');
  const worker = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.name === 'delivery');
  expect(worker).toEqual([expect.objectContaining({ level: 40, attempt: 1, statusCode: 500, msg: FAILED })]);
});
