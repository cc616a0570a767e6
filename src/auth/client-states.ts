/**
 * What token verification knows of each client (its secret generation, whether it is revoked), kept
 * for a short while so a verified token costs no query. One cache, shared by its reader (the token
 * service) and its invalidator (the client service, on a reset or revocation), both handed it when
 * they are built: a change on this node is seen at once, a change on another node within the TTL.
 */
export interface ClientState {
  clientRef: string;
  secretVersion: number;
  revoked: boolean;
  loadedAt: number;
}

export class ClientStates {
  private readonly states = new Map<string, ClientState>();

  get(clientId: string): ClientState | undefined {
    return this.states.get(clientId);
  }

  set(clientId: string, state: ClientState): void {
    this.states.set(clientId, state);
  }

  /** Drops what is known of a client: its next token is checked against the database. */
  forget(clientId: string): void {
    this.states.delete(clientId);
  }
}
