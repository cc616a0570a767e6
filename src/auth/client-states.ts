/**
 * What this node knows of each client, kept for a short while so the token paths cost no query:
 * - its state (secret generation, revoked?), which token verification checks;
 * - its row, which the token endpoint authenticates the client against (the secret's hash, the scopes).
 * One cache, shared by its readers (the token service and the client service's authenticate) and its
 * invalidator (the client service, on a creation, a secret reset or a revocation), all handed it when
 * they are built: a change on this node is seen at once, a change on another node within
 * CLIENT_STATE_TTL_MS, the same bound for both. docs/security.md ("Client credentials") says what
 * that bound allows.
 */
import type { ClientRow } from '../db/schema.js';

/** The longest another node's reset or revocation goes unseen here. */
export const CLIENT_STATE_TTL_MS = 2000;
/** Rows kept at most; the oldest goes first (ids that do not exist are kept too, see rowOf). */
export const CLIENT_ROWS_KEPT = 10_000;

export interface ClientState {
  clientRef: string;
  secretVersion: number;
  revoked: boolean;
  loadedAt: number;
}

/** A client's row as read at `loadedAt`; `row` undefined: no client has this id. */
export interface KnownRow {
  row: ClientRow | undefined;
  loadedAt: number;
}

const fresh = (loadedAt: number, now: number): boolean => now >= loadedAt && now - loadedAt < CLIENT_STATE_TTL_MS;

export class ClientStates {
  private readonly states = new Map<string, ClientState>();
  private readonly rows = new Map<string, KnownRow>();
  private forgotten = 0;

  /**
   * Counts forget() calls. A reader takes it before its query and hands it back when keeping what it
   * read: a read that a local change overtook is not kept (it may hold the row from before the change).
   */
  get changes(): number {
    return this.forgotten;
  }

  get(clientId: string): ClientState | undefined {
    return this.states.get(clientId);
  }

  /** Keeps a state read when `changes` was `seen`, unless a client was forgotten since. */
  set(clientId: string, state: ClientState, seen = this.forgotten): void {
    if (seen === this.forgotten) this.states.set(clientId, state);
  }

  /**
   * The row read less than CLIENT_STATE_TTL_MS ago, or undefined when it must be read. An id that
   * matched no client is remembered as such too, so a known and an unknown id take the same time to
   * refuse (the first ask of either reads the database).
   */
  rowOf(clientId: string, now: number): KnownRow | undefined {
    const known = this.rows.get(clientId);
    return known !== undefined && fresh(known.loadedAt, now) ? known : undefined;
  }

  /** Keeps a row read at `now`, when `changes` was `seen`, unless a client was forgotten since. */
  keepRow(clientId: string, row: ClientRow | undefined, now: number, seen: number): void {
    if (seen !== this.forgotten) return;
    // Deleted first, so the Map's order stays the order of reading and the oldest read goes first.
    if (!this.rows.delete(clientId) && this.rows.size >= CLIENT_ROWS_KEPT) {
      const oldest = this.rows.keys().next();
      if (oldest.done !== true) this.rows.delete(oldest.value);
    }
    // A flat copy: the id is cut from the decoded Basic credential, which holds the secret too.
    this.rows.set(Buffer.from(clientId, 'utf8').toString('utf8'), { row, loadedAt: now });
  }

  /** Drops what is known of a client: its next token request and its next token are checked against the database. */
  forget(clientId: string): void {
    this.forgotten++;
    this.states.delete(clientId);
    this.rows.delete(clientId);
  }
}
