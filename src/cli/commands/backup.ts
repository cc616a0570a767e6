/** `shelfmark backup <file>`: an online, verified backup of the configured database (src/backup/). */
import { BackupError, backupDatabase, NothingToBackUp, size } from '../../backup/backup.js';
import { systemClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { type Command, json, required } from '../command.js';
import { counted } from '../nouns.js';

export const backup: Command = {
  name: 'backup',
  args: '<file> [--force] [--json]',
  summary: 'back up the database while the service runs',
  details: `Writes a consistent copy of the database to <file> while servers keep running, verifies it and
prints its size and how long it took (JSON on stdout when piped or with --json). An existing <file> is
replaced only with --force. The copy is written under a temporary name in the same directory and renamed
when verified; it is readable by its owner only (it holds signing keys and webhook secrets).

SQLite: SQLite's online backup API, then PRAGMA integrity_check and the migrations on the copy.
PostgreSQL: pg_dump --format=custom of the schema DATABASE_URL uses (pg_dump must be installed),
checked with pg_restore --list. Restoring: docs/operating/backup.md.

Exit codes: 0 written and verified; 1 no backup made (file exists, directory not writable, no
database, copy or check failed; nothing is left behind); 2 bad usage or configuration.`,
  // The database is opened by the backup itself: neither migrated (a backup must not change what it
  // copies) nor created when missing.
  needs: 'nothing',
  async run({ io, args, values }) {
    const file = required(args[0], 'backup file');
    const config = loadConfig();
    try {
      const done = await backupDatabase(config.databaseUrl, file, { force: values.force === true, clock: systemClock });
      io.err(
        `backup written: ${done.file} (${size(done.bytes)}, ${done.format}) in ${done.seconds.toFixed(2)} s ` +
          `(copy ${done.copySeconds.toFixed(2)} s, check ${done.verifySeconds.toFixed(2)} s); ` +
          `holds every write committed before ${done.startedAt}; ${done.check}; ` +
          `${counted(done.migrations, 'migration')}, latest ${done.latestMigration ?? '(none)'}`,
      );
      if (values.json === true || io.outTty !== true) json(io, done);
      return 0;
    } catch (error) {
      if (error instanceof NothingToBackUp) {
        io.err(`backup: ${error.message}`);
        return 2;
      }
      if (error instanceof BackupError) {
        io.err(`backup failed, no backup made: ${error.message}`);
        return 1;
      }
      throw error;
    }
  },
};
