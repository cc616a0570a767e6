/**
 * The operator's token: configured (ADMIN_TOKEN) or generated on the first start and kept only as
 * its keyed hash in the settings table, which every node shares. `npx shelfmark admin-token --reset`
 * replaces a generated one; the other nodes' guards re-read the stored hash (guard.ts), so a reset
 * applies everywhere within seconds. Replacing the token ends the console sessions it opened.
 */
import { type Initiator, SYSTEM } from '../audit/initiator.js';
import { ROTATED } from '../audit/recorder.js';
import type { SecretHasher } from '../auth/secret-hash.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Executor } from '../db/database.js';
import { getOrCreateSetting, getSetting, putSetting } from '../db/settings.js';
import { secrets } from '../ids.js';
import { AdminAuth } from './admin-guard.js';
import { WebSessionStore } from './session-store.js';

const ADMIN_TOKEN_SETTING = 'admin_token_hash';
/** The hash of the ADMIN_TOKEN the last start was configured with: a start with another one replaces it. */
const CONFIGURED_TOKEN_SETTING = 'admin_token_configured_hash';

export interface AdminToken {
  /** The guard that admits the token (admin routes, console sign-in). */
  adminAuth: AdminAuth;
  /** Set only when this start generated the token (first start without ADMIN_TOKEN): print it once. */
  generatedAdminToken: string | undefined;
  /** Replaces the stored token (CLI `admin-token --reset`) and returns the new one; audited as `by`. */
  resetAdminToken(by: Initiator): Promise<string>;
}

export interface AdminTokenDeps {
  config: Pick<Config, 'adminToken'>;
  db: Executor;
  hasher: SecretHasher;
  clock: Clock;
  /** The token's replacement and the sessions it ends, recorded as one change. */
  work: UnitOfWork;
}

/** Reads the configured or stored token, generating and storing one on the first start without ADMIN_TOKEN. */
export async function bootstrapAdminToken({ config, db, hasher, clock, work }: AdminTokenDeps): Promise<AdminToken> {
  let generatedAdminToken: string | undefined;
  let tokenHash: string;
  if (config.adminToken !== undefined) {
    tokenHash = hasher.hash(config.adminToken);
    await adoptConfiguredToken(db, work, tokenHash);
  } else {
    const stored = await getSetting(db, ADMIN_TOKEN_SETTING);
    if (stored !== undefined) {
      tokenHash = stored;
    } else {
      const candidate = secrets.adminToken();
      tokenHash = await getOrCreateSetting(db, ADMIN_TOKEN_SETTING, () => hasher.hash(candidate));
      // Another node may have won the race; only the winner's token is valid and printed.
      if (tokenHash === hasher.hash(candidate)) generatedAdminToken = candidate;
    }
  }

  // A generated token lives in the database; re-read it on a miss so a reset by the CLI or another node applies here too.
  const adminAuth =
    config.adminToken === undefined
      ? new AdminAuth(
          hasher,
          tokenHash,
          () => getSetting(db, ADMIN_TOKEN_SETTING),
          () => clock.now(),
        )
      : new AdminAuth(hasher, tokenHash);

  const resetAdminToken = async (by: Initiator): Promise<string> => {
    const token = secrets.adminToken();
    const hash = hasher.hash(token);
    await work.run(by, async ({ trx, record }) => {
      await putSetting(trx, ADMIN_TOKEN_SETTING, hash);
      const ended = await new WebSessionStore(trx).deleteAdminTokenSessions();
      record('admin-token.reset', 'admin-token', {
        token: { before: ROTATED, after: ROTATED },
        consoleSessionsEnded: { before: null, after: ended },
      });
    });
    adminAuth.replaceTokenHash(hash);
    return token;
  };

  return { adminAuth, generatedAdminToken, resetAdminToken };
}

/**
 * A start configured with another ADMIN_TOKEN than the last one (or with one where a generated token
 * served before) replaces the token: the console sessions the old one opened end with it, on every
 * node, as a reset's do. Recorded by the system; a first start, with nothing to end, records nothing.
 */
async function adoptConfiguredToken(db: Executor, work: UnitOfWork, tokenHash: string): Promise<void> {
  if ((await getSetting(db, CONFIGURED_TOKEN_SETTING)) === tokenHash) return;
  await work.run(SYSTEM, async ({ trx, record }) => {
    const before = await getSetting(trx, CONFIGURED_TOKEN_SETTING);
    if (before === tokenHash) return; // another node of the same start adopted it first
    await putSetting(trx, CONFIGURED_TOKEN_SETTING, tokenHash);
    const ended = await new WebSessionStore(trx).deleteAdminTokenSessions();
    if (before === undefined && ended === 0) return;
    record('admin-token.reset', 'admin-token', {
      token: { before: ROTATED, after: ROTATED },
      consoleSessionsEnded: { before: null, after: ended },
    });
  });
}
