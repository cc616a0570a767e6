/**
 * The soak scenario's traffic, in a process of its own, against 127.0.0.1 only and for a bounded time:
 * `lanes` closed loops each pick a request by weight — token grants, offer reads (known and made-up
 * EANs), LML reads, subscription writes (create, then delete), and bad requests whose keys the
 * attacker chooses (random bearer tokens and kids, random Basic client ids, random paths, malformed
 * JSON, idempotency keys, oversized bodies) — while admin school creates at `eventsPerSecond` make
 * deliveries to the receiver. Prints `RESULT {json}`: counts by kind and by status.
 * Argument: JSON {url, adminToken, basic, receiverUrl, seconds, lanes, eventsPerSecond, eans, seed?}.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';

interface Args {
  url: string;
  adminToken: string;
  basic: string;
  receiverUrl: string;
  seconds: number;
  lanes: number;
  eventsPerSecond: number;
  eans: string[];
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const base = new URL(args.url);
if (base.hostname !== '127.0.0.1') throw new Error('soak-traffic: only 127.0.0.1 is driven');
const agent = new Agent({ keepAlive: true, maxSockets: args.lanes + 8 });
const deadline = Date.now() + args.seconds * 1000;

interface Call {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}
interface Answer {
  status: number;
  text: string;
}

const byKind: Record<string, number> = {};
const byStatus: Record<string, number> = {};

function send(kind: string, call: Call): Promise<Answer> {
  byKind[kind] = (byKind[kind] ?? 0) + 1;
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...call.headers };
    if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body));
    const req = request(
      { host: '127.0.0.1', port: base.port, method: call.method, path: call.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          byStatus[String(status)] = (byStatus[String(status)] ?? 0) + 1;
          resolve({ status, text: Buffer.concat(chunks).toString() });
        });
        res.on('error', () => resolve({ status: 0, text: '' }));
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => {
      byStatus.error = (byStatus.error ?? 0) + 1;
      resolve({ status: 0, text: '' });
    });
    req.end(call.body);
  });
}

// A small seeded generator: the same run sends the same sequence of kinds and keys.
let state = 0x9e3779b9;
const random = (): number => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 32;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An EAN-13 with a correct check digit, from a random serial: a key the read model has never seen. */
function randomEan(): string {
  const body = `978${String(Math.floor(random() * 1e9)).padStart(9, '0')}`;
  const sum = [...body].reduce((total, digit, index) => total + Number(digit) * (index % 2 === 0 ? 1 : 3), 0);
  return body + String((10 - (sum % 10)) % 10);
}

let token = '';
const bearer = (): Record<string, string> => ({ authorization: `Bearer ${token}` });
const admin = { authorization: `Bearer ${args.adminToken}` };
const json = { 'content-type': 'application/json' };

async function grant(): Promise<void> {
  const answer = await send('token', {
    method: 'GET',
    path: '/api/auth/token',
    headers: { authorization: args.basic },
  });
  if (answer.status === 200) token = (JSON.parse(answer.text) as { access_token: string }).access_token;
}

const bad: (() => Call)[] = [
  // A well-formed JWT with a made-up kid (the signing keys' unknown-kid path) or a garbage token.
  () => ({
    method: 'GET',
    path: `/api/v1/offers?eans=${randomEan()}`,
    headers: {
      authorization: `Bearer ${b64url({ alg: 'ES256', kid: hex(8), typ: 'at+jwt' })}.${b64url({ sub: hex(4) })}.${hex(32)}`,
    },
  }),
  () => ({
    method: 'GET',
    path: '/api/lml/v1/schools',
    headers: { authorization: `Bearer ${hex(20 + Math.floor(random() * 200))}` },
  }),
  // Made-up client ids at the token endpoint (the failed-authentication buckets).
  () => ({
    method: 'GET',
    path: '/api/auth/token',
    headers: {
      authorization: `Basic ${Buffer.from(`${hex(6 + Math.floor(random() * 60))}:${hex(16)}`).toString('base64')}`,
    },
  }),
  () => ({
    method: 'POST',
    path: '/api/auth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials&client_id=${hex(10)}&client_secret=${hex(10)}`,
  }),
  // Malformed bodies, wrong types and random idempotency keys on write routes.
  () => ({
    method: 'POST',
    path: '/api/lml/v1/subscriptions',
    headers: { ...bearer(), ...json, 'idempotency-key': hex(16) },
    body: pick(['{', '{"a":', '[1,2', '{"notificationUrl":1}', '{"__proto__":{"x":1}}']),
  }),
  () => ({
    method: 'POST',
    path: '/api/admin/v1/schools',
    headers: { ...admin, ...json, 'idempotency-key': hex(20) },
    body: JSON.stringify({ name: 1, type: hex(3) }),
  }),
  () => ({
    method: 'POST',
    path: '/api/admin/v1/offers',
    headers: { authorization: `Bearer ${hex(16)}`, ...json },
    body: '{"ean":"abc"}',
  }),
  // Made-up paths, parameters and identifiers, invalid EANs, wrong methods, odd content types.
  () => ({ method: 'GET', path: `/api/v1/${hex(4)}/${hex(8)}?${hex(3)}=${hex(5)}` }),
  () => ({ method: 'GET', path: `/${hex(12)}` }),
  () => ({ method: 'GET', path: `/api/lml/v1/lists/${hex(10)}`, headers: bearer() }),
  () => ({ method: 'GET', path: `/api/lml/v1/schools/${hex(10)}`, headers: bearer() }),
  () => ({
    method: 'GET',
    path: `/api/v1/offers?eans=${pick(['abc', '-1', '1e13', '9780194837126', hex(7)])}`,
    headers: bearer(),
  }),
  () => ({ method: 'DELETE', path: '/api/v1/offers', headers: bearer() }),
  () => ({
    method: 'PUT',
    path: `/api/lml/v1/subscriptions/${hex(8)}`,
    headers: { ...bearer(), 'content-type': `application/${hex(3)}` },
    body: hex(50),
  }),
  () => ({ method: 'GET', path: `/api/v1/offers?eans=${randomEan()}&eans=${randomEan()}`, headers: bearer() }),
  // A body over the limit now and then.
  () => ({
    method: 'POST',
    path: '/api/admin/v1/schools',
    headers: { ...admin, ...json },
    body: JSON.stringify({ name: 'x'.repeat(random() < 0.1 ? 2_000_000 : 5000), type: 'PO' }),
  }),
];

async function lane(): Promise<void> {
  while (Date.now() < deadline) {
    const roll = random();
    if (token === '' || roll < 0.1) await grant();
    else if (roll < 0.4) {
      // Offers: the demo EANs, now and then a made-up one beside them (a read-model key from outside).
      const eans = Array.from({ length: 1 + Math.floor(random() * 10) }, () =>
        random() < 0.2 ? randomEan() : pick(args.eans),
      );
      await send('offers', {
        method: 'GET',
        path: `/api/v1/offers?eans=${[...new Set(eans)].join(',')}`,
        headers: bearer(),
      });
    } else if (roll < 0.55) {
      const path = pick(['/api/lml/v1/schools?limit=20', '/api/lml/v1/lists?limit=20', '/api/lml/v1/structure']);
      await send('lml', { method: 'GET', path, headers: bearer() });
    } else if (roll < 0.62) {
      const created = await send('subscription', {
        method: 'POST',
        path: '/api/lml/v1/subscriptions',
        headers: { ...bearer(), ...json, 'idempotency-key': hex(12) },
        body: JSON.stringify({ notificationUrl: `${args.receiverUrl}/hook?x=${hex(4)}`, event: 'list.updated' }),
      });
      if (created.status === 201) {
        const id = (JSON.parse(created.text) as { id: string }).id;
        await send('subscription', { method: 'DELETE', path: `/api/lml/v1/subscriptions/${id}`, headers: bearer() });
      }
    } else await send('bad', pick(bad)());
  }
}

/** Open loop: one school per tick, each a school.created delivery to the receiver. */
async function events(): Promise<void> {
  if (args.eventsPerSecond <= 0) return;
  const interval = 1000 / args.eventsPerSecond;
  let next = Date.now();
  let serial = 0;
  const pending = new Set<Promise<unknown>>();
  while (Date.now() < deadline) {
    next += interval;
    const call = send('event', {
      method: 'POST',
      path: '/api/admin/v1/schools',
      headers: { ...admin, ...json },
      body: JSON.stringify({ name: `Soak school ${serial++}`, type: 'PO' }),
    });
    pending.add(call);
    void call.then(() => pending.delete(call));
    const wait = next - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await Promise.all(pending);
}

await grant();
await Promise.all([events(), ...Array.from({ length: args.lanes }, lane)]);
agent.destroy();
process.stdout.write(`RESULT ${JSON.stringify({ byKind, byStatus })}\n`);
