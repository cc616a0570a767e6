/** `shelfmark audit verify`: checks the audit log's hash chain (src/audit/verify.ts). */
import { verifyChain } from '../../audit/verify.js';
import { type Command, UsageError } from '../command.js';
import { counted } from '../nouns.js';

export const auditVerify: Command = {
  name: 'audit verify',
  args: '[--json]',
  summary: "check the audit log's hash chain; exit 1 at the first broken link",
  details: `Walks the audit log from its anchor (the first record, or the last one a prune removed) and
recomputes every record's SHA-256 link. Prints "chain intact, N records", or the first broken link
(its position, its id and why) and exits 1. A record edited, inserted, removed or reordered in the
database breaks the link after it. With --json (or piped) prints the verdict as JSON.`,
  needs: 'services',
  async run({ io, args, values, deps }) {
    if (args.length > 0) throw new UsageError(`audit verify: unexpected ${args.join(' ')}`);
    const verdict = await verifyChain(deps.db.kysely);
    const asJson = values.json === true || io.outTty !== true;
    const say = (line: string): void => (asJson ? io.err(line) : io.out(line));
    if (asJson) io.out(JSON.stringify(verdict, null, 2));
    if (verdict.intact) {
      say(`chain intact, ${verdict.records} record${verdict.records === 1 ? '' : 's'}`);
      return 0;
    }
    const { seq, id } = verdict.brokenAt;
    const where = id === null ? `after record ${seq - 1}` : `at record ${seq} (${id})`;
    say(`chain broken ${where}: ${verdict.reason}; ${counted(verdict.records, 'record')} before it verified`);
    return 1;
  },
};
