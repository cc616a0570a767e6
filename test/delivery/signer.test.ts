import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { hookSignature, signedHeaders, standardSignature } from '../../src/delivery/signer.js';
import { secrets } from '../../src/ids.js';

const body = '{"type":"published","resource":"list","identifier":"0123456789abcdef0123456789abcdef"}';

describe('webhook signer', () => {
  const current = secrets.webhookSecret();
  const previous = secrets.webhookSecret();
  const now = Date.now();
  /** The headers of one list.published delivery of `body`, signed with the secrets given. */
  const headersOf = (deliveryId: string, withPrevious: string | undefined) =>
    signedHeaders({ deliveryId, eventName: 'list.published', body, now, secrets: { current, previous: withPrevious } });

  it('x-hook-signature is base64 HMAC-SHA256 of the raw body keyed with the secret string as issued', () => {
    const headers = headersOf('dlv_1', undefined);
    const expected = createHmac('sha256', Buffer.from(current, 'utf8')).update(body).digest('base64');
    expect(headers['x-hook-signature']).toBe(expected);
    expect(hookSignature(body, current)).toBe(expected);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Shelfmark-Webhooks/1.0',
      'x-hook-event': 'list.published',
      'webhook-id': 'dlv_1',
      'webhook-timestamp': String(Math.floor(now / 1000)),
    });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(1);
  });

  it('webhook-signature verifies with the standardwebhooks package', () => {
    const headers = headersOf('dlv_2', undefined);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(previous).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(body.replace('published', 'created'), headers)).toThrow();
    // The package's own signer agrees byte for byte.
    const timestamp = Math.floor(now / 1000);
    expect(new Webhook(current).sign('dlv_2', new Date(timestamp * 1000), body)).toBe(
      standardSignature('dlv_2', timestamp, body, current),
    );
  });

  it('during a rotation overlap both the current and the previous secret verify', () => {
    const headers = headersOf('dlv_3', previous);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secrets.webhookSecret()).verify(body, headers)).toThrow();
    // The seed's header always uses the current secret only.
    expect(headers['x-hook-signature']).toBe(hookSignature(body, current));
  });
});
