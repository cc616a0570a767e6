/**
 * The operator's guard: `Authorization: Bearer <ADMIN_TOKEN>`. The token is configured or generated
 * on first start; either way only its keyed hash is held and it is compared in constant time.
 */
import type { preHandlerAsyncHookHandler } from 'fastify';
import { parseBearer } from '../auth/basic.js';
import type { SecretHasher } from '../auth/secret-hash.js';
import { Problem } from '../errors.js';

export class AdminAuth {
  constructor(
    private readonly hasher: SecretHasher,
    private tokenHash: string,
  ) {}

  replaceTokenHash(hash: string): void {
    this.tokenHash = hash;
  }

  verify(token: string | undefined): boolean {
    return token !== undefined && this.hasher.matches(token, this.tokenHash);
  }

  readonly guard: preHandlerAsyncHookHandler = async (request) => {
    const header = request.headers.authorization;
    if (!this.verify(parseBearer(header))) {
      throw new Problem(
        'unauthenticated',
        header === undefined ? 'send Authorization: Bearer <ADMIN_TOKEN>' : 'the admin token is wrong',
        {},
        { 'www-authenticate': 'Bearer realm="shelfmark-admin"' },
      );
    }
  };
}
