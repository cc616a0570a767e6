/**
 * Group commit for completions: each finished attempt is queued and written together with every other
 * completion that finished meanwhile, in one transaction; while one batch commits, the next gathers.
 */
import type { BaseLogger } from 'pino';
import type { Completion, CompletionResult } from './types.js';

/** Bounds one group commit so a huge backlog of finished attempts does not hold one long transaction. */
const MAX_COMPLETIONS_PER_COMMIT = 64;

/** Rejects the completions of a batch whose commit failed; the batcher has logged the cause. */
export class CompletionsNotWritten extends Error {
  constructor(cause: unknown) {
    super('the batch of completions was not written', { cause });
    this.name = 'CompletionsNotWritten';
  }
}

interface Waiting {
  completion: Completion;
  resolve: (result: CompletionResult) => void;
  reject: (error: unknown) => void;
}

export class CompletionBatcher {
  private waiting: Waiting[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly write: (completions: readonly Completion[]) => Promise<CompletionResult[]>,
    private readonly logger: Pick<BaseLogger, 'warn'>,
  ) {}

  /** Settles once the completion is written (or its batch failed: then every one in it rejects). */
  record(completion: Completion): Promise<CompletionResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ completion, resolve, reject });
      // Start the commit after this turn of the event loop, so every response that arrived in the same
      // turn joins it: with a synchronous driver (SQLite) a commit started at once would always hold
      // just one completion, nearly a commit per delivery (docs/performance.md#decisions).
      this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
    });
  }

  private async flush(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_COMPLETIONS_PER_COMMIT);
      try {
        const results = await this.write(batch.map((entry) => entry.completion));
        batch.forEach((entry, index) => {
          const result = results[index];
          if (result === undefined) entry.reject(new Error('completion produced no result'));
          else entry.resolve(result);
        });
      } catch (error) {
        // One line per failed commit; each waiting delivery's lease expires and it is sent again.
        this.logger.warn(
          { err: error, completions: batch.length },
          'writing a batch of delivery completions failed; their leases expire and they are retried',
        );
        const rejection = new CompletionsNotWritten(error);
        for (const entry of batch) entry.reject(rejection);
      }
    }
    this.flushing = undefined;
  }
}
