/** Recording finished attempts: a batch of completions, successes and failures, written together. */
import { SYSTEM } from '../../audit/initiator.js';
import type { UnitOfWork } from '../../changes/unit-of-work.js';
import type { Db } from '../../db/database.js';
import { completeFailed } from './complete-failed.js';
import { completeSucceeded, inOneStatement } from './complete-succeeded.js';
import { bookkeeping, type Completion, type CompletionResult, NOT_RECORDED } from './types.js';

/**
 * Records several completions in one transaction: a commit costs more than the statements in it, so a
 * busy worker writes the attempts that finished meanwhile together. Successes take one write for the
 * whole batch (complete-succeeded.ts); failures take the per-row path with its retry and disable
 * rules, as one change of the system's (a disabled subscription is audited). Each completion checks its
 * own lease, so one lost lease does not affect the others.
 */
export async function completeMany(
  db: Db,
  work: UnitOfWork,
  inputs: readonly Completion[],
): Promise<CompletionResult[]> {
  if (inputs.length === 0) return [];
  const successes = inputs.filter((input) => input.status === 'succeeded');
  const outcome = (recorded: Set<string>, input: Completion): CompletionResult =>
    recorded.has(input.id) ? { recorded: true, failed: 0, subscriptionDisabled: false } : NOT_RECORDED;
  if (db.dialect.writableCtes && successes.length === inputs.length) {
    // The common case on PostgreSQL: a single prepared statement, without waiting for the WAL flush.
    const { prepared } = db;
    const recorded =
      prepared === undefined
        ? await completeSucceeded(bookkeeping(db), db.dialect, inputs, () => true)
        : await inOneStatement(prepared, inputs, () => true);
    return inputs.map((input) => outcome(recorded, input));
  }
  return work.run(SYSTEM, async ({ trx, record }) => {
    const results = new Map<Completion, CompletionResult>();
    for (const input of inputs) {
      if (input.status !== 'succeeded') results.set(input, await completeFailed(trx, db.dialect, input, record));
    }
    // A subscription's health follows its latest attempt in the batch: a later failure keeps it failing.
    const lastOutcome = new Map(inputs.map((input) => [input.subscriptionId, input.status]));
    const recorded = await completeSucceeded(
      trx,
      db.dialect,
      successes,
      (subscriptionId) => lastOutcome.get(subscriptionId) === 'succeeded',
    );
    for (const input of successes) results.set(input, outcome(recorded, input));
    return inputs.map((input) => results.get(input) ?? NOT_RECORDED);
  });
}
