/**
 * Client secrets and the admin token are stored only as HMAC-SHA256 digests keyed with a pepper
 * (SECRET_PEPPER, or a random key kept in the database), and compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export class SecretHasher {
  constructor(private readonly pepper: string) {}

  hash(secret: string): string {
    return createHmac('sha256', this.pepper).update(secret, 'utf8').digest('base64url');
  }

  matches(secret: string, storedHash: string): boolean {
    const actual = Buffer.from(this.hash(secret), 'utf8');
    const expected = Buffer.from(storedHash, 'utf8');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}
