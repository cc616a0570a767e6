/**
 * A test-only hook: with SHELFMARK_TEST_HOLD_EVENTS_MS=N in the environment, every outbox transaction
 * that recorded events waits a random 0–N ms before it commits, after its events drew their positions.
 * The feed's ordering test (test/events/feed-cluster.test.ts) runs three server processes with it, so
 * transactions commit in another order than they drew positions in: the late commits the feed must
 * never skip; test/reliability/import-crash.test.ts slows an import with it so a kill lands mid-import.
 * Unset (always, outside tests) it costs one comparison.
 */
const holdMs = Number(process.env.SHELFMARK_TEST_HOLD_EVENTS_MS ?? 0);

export async function holdForTest(): Promise<void> {
  if (!(holdMs > 0)) return;
  await new Promise((resolve) => setTimeout(resolve, Math.random() * holdMs));
}
