/**
 * The SSRF address policy: which IP addresses a webhook may be sent to. Used at registration
 * (subscriptions) and again at connect time (delivery), where the vetted address is the one dialled,
 * so a DNS answer that changes between the two checks (DNS rebinding) cannot reach the inside.
 *
 * The rule is an allow-list: only globally routable unicast addresses pass. Everything else —
 * loopback, private, link-local (cloud metadata), CGNAT, ULA, multicast, reserved, documentation,
 * and every IPv6 spelling of an IPv4 address — is refused unless the operator allows private receivers.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };
export interface SsrfPolicy {
  allowPrivate: boolean;
}
export type LookupFn = (hostname: string) => Promise<{ address: string; family: number }[]>;

export class SsrfBlockedError extends Error {
  constructor(readonly reason: string) {
    super(`forbidden address: ${reason}`);
    this.name = 'SsrfBlockedError';
  }
}

export class UnresolvableHostError extends Error {
  constructor(
    readonly hostname: string,
    detail?: string,
  ) {
    super(`host ${hostname} does not resolve${detail === undefined ? '' : ` (${detail})`}`);
    this.name = 'UnresolvableHostError';
  }
}

const V4_LABELS: Record<string, string> = {
  unspecified: 'unspecified address',
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT address',
  private: 'private address',
  as112: 'AS112 anycast address',
  amt: 'AMT relay anycast address',
};

// ipaddr.js lumps these into "reserved"; name them precisely so the refusal explains itself.
const V4_RESERVED: [string, string][] = [
  ['192.0.0.0/24', 'IETF protocol assignment address'],
  ['192.0.2.0/24', 'documentation address'],
  ['198.51.100.0/24', 'documentation address'],
  ['203.0.113.0/24', 'documentation address'],
  ['198.18.0.0/15', 'benchmarking address'],
  ['192.88.99.0/24', '6to4 relay anycast address'],
  ['240.0.0.0/4', 'reserved address'],
];

const V6_LABELS: Record<string, string> = {
  unspecified: 'unspecified address',
  linkLocal: 'link-local address',
  multicast: 'multicast address',
  loopback: 'loopback address',
  uniqueLocal: 'unique local address',
  deprecatedSiteLocal: 'site-local address',
  discard: 'discard-only address',
  benchmarking: 'benchmarking address',
  amt: 'AMT address',
  as112v6: 'AS112 anycast address',
  deprecatedOrchid: 'ORCHID address',
  orchid2: 'ORCHID address',
  droneRemoteIdProtocolEntityTags: 'DRIP entity tag address',
  segmentRouting: 'segment routing address',
  reserved: 'reserved or documentation address',
};

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const METADATA_V4 = '169.254.169.254';

function checkV4(address: ipaddr.IPv4): AddressVerdict {
  const text = address.toString();
  const range = address.range();
  if (range === 'unicast') return { allowed: true };
  if (range === 'reserved') {
    const label = V4_RESERVED.find(([cidr]) => address.match(ipaddr.IPv4.parseCIDR(cidr)))?.[1] ?? 'reserved address';
    return { allowed: false, reason: `${label} ${text}` };
  }
  if (text === METADATA_V4) return { allowed: false, reason: `link-local (cloud metadata) address ${text}` };
  return { allowed: false, reason: `${V4_LABELS[range] ?? `special-purpose (${range}) address`} ${text}` };
}

/** The IPv4 address held in 32 bits of IPv6 parts (hi, lo), optionally bit-inverted (Teredo client). */
function v4From(hi: number, lo: number, invert = false): ipaddr.IPv4 {
  const mask = invert ? 0xffff : 0;
  const a = (hi ^ mask) & 0xffff;
  const b = (lo ^ mask) & 0xffff;
  return new ipaddr.IPv4([a >> 8, a & 0xff, b >> 8, b & 0xff]);
}

/** Tunnels and translators that carry an IPv4 address are judged by the IPv4 address they reach. */
function checkEmbedded(kind: string, text: string, embedded: ipaddr.IPv4[]): AddressVerdict {
  for (const v4 of embedded) {
    const verdict = checkV4(v4);
    if (!verdict.allowed) return { allowed: false, reason: `${kind} address ${text} embedding ${verdict.reason}` };
  }
  return { allowed: true };
}

function checkV6(address: ipaddr.IPv6): AddressVerdict {
  const text = address.toString();
  const p = address.parts;
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145': {
      // Every IPv6 spelling of an IPv4 address is refused outright: a receiver publishes its IPv4 address
      // as an A record, and these forms exist mainly to slip past checks that only look at IPv4.
      const inner = checkV4(v4From(p[6] ?? 0, p[7] ?? 0));
      const kind = range === 'ipv4Mapped' ? 'IPv4-mapped' : 'IPv4-translated';
      return { allowed: false, reason: `${kind} IPv6 address ${text}${inner.allowed ? '' : ` (${inner.reason})`}` };
    }
    case 'rfc6052':
      // 64:ff9b:1::/48 is for local NAT64 use only; the well-known 64:ff9b::/96 reaches the public IPv4 it embeds.
      if (p[2] !== 0) return { allowed: false, reason: `local-use NAT64 address ${text}` };
      return checkEmbedded('NAT64', text, [v4From(p[6] ?? 0, p[7] ?? 0)]);
    case '6to4':
      return checkEmbedded('6to4', text, [v4From(p[1] ?? 0, p[2] ?? 0)]);
    case 'teredo':
      // Teredo carries the server's IPv4 in bits 32-63 and the client's, bit-inverted, in bits 96-127.
      return checkEmbedded('Teredo', text, [v4From(p[2] ?? 0, p[3] ?? 0), v4From(p[6] ?? 0, p[7] ?? 0, true)]);
    case 'unicast':
      break;
    default:
      return { allowed: false, reason: `${V6_LABELS[range] ?? `special-purpose (${range}) address`} ${text}` };
  }
  // ::/96 (IPv4-compatible, e.g. ::127.0.0.1) and other unassigned space fall outside 2000::/3.
  if (p.slice(0, 6).every((part) => part === 0)) {
    const inner = checkV4(v4From(p[6] ?? 0, p[7] ?? 0));
    return {
      allowed: false,
      reason: `IPv4-compatible IPv6 address ${text}${inner.allowed ? '' : ` (${inner.reason})`}`,
    };
  }
  if (!address.match(GLOBAL_UNICAST_V6)) return { allowed: false, reason: `non-global IPv6 address ${text}` };
  return { allowed: true };
}

/**
 * Classifies one IP literal (IPv4 dotted-quad or IPv6, brackets and zone allowed). Anything that is not
 * a strict literal is refused: inet_aton spellings (0x7f.1, 2130706433) must be normalised first (WHATWG URL does).
 */
export function checkAddress(ip: string): AddressVerdict {
  const literal = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const family = isIP(literal);
  if (family === 0) return { allowed: false, reason: `not an IP address: ${JSON.stringify(ip.slice(0, 100))}` };
  if (family === 4) return checkV4(ipaddr.IPv4.parse(literal));
  // Zone ids (fe80::1%eth0) only exist on link-local scopes; ipaddr keeps them out of the classification.
  return checkV6(ipaddr.IPv6.parse(dottedTailToHex(literal)));
}

/**
 * ipaddr.js reads "::a.b.c.d" as IPv4-mapped (::ffff:a.b.c.d), but the socket layer dials it as
 * IPv4-compatible (::a.b:c.d); rewrite the dotted tail as two hex groups so the address judged is the one dialled.
 */
function dottedTailToHex(literal: string): string {
  const match = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(%.*)?$/.exec(literal);
  if (match === null) return literal;
  const [a, b, c, d] = [match[2], match[3], match[4], match[5]].map(Number) as [number, number, number, number];
  return `${match[1] ?? ''}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}${match[6] ?? ''}`;
}

const systemLookup: LookupFn = async (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

const UNRESOLVABLE_CODES = new Set([
  'ENOTFOUND',
  'ENODATA',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'ESERVFAIL',
  'ENOTIMP',
  'EREFUSED',
  'EBADNAME',
]);

/**
 * Resolves a host name (or takes an IP literal as is) and vets every address it resolves to. If ANY is
 * forbidden the host is refused: picking only the allowed ones would let an attacker's DNS mix a
 * public address with an internal one and win whenever the dialler falls back. Returns the address to dial.
 */
export async function resolveAndCheck(
  hostname: string,
  policy: SsrfPolicy,
  lookup: LookupFn = systemLookup,
): Promise<{ address: string; family: 4 | 6 }> {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const literalFamily = isIP(bare);
  let answers: { address: string; family: number }[];
  if (literalFamily !== 0) {
    answers = [{ address: bare, family: literalFamily }];
  } else {
    try {
      answers = await lookup(bare);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
      if (code !== undefined && UNRESOLVABLE_CODES.has(code)) throw new UnresolvableHostError(bare, code);
      throw error;
    }
  }
  if (answers.length === 0) throw new UnresolvableHostError(bare, 'no addresses');
  const vetted: { address: string; family: 4 | 6 }[] = [];
  for (const answer of answers) {
    const family = isIP(answer.address);
    if (family === 0) throw new SsrfBlockedError(`${bare} resolves to a malformed address`);
    if (!policy.allowPrivate) {
      const verdict = checkAddress(answer.address);
      if (!verdict.allowed)
        throw new SsrfBlockedError(literalFamily !== 0 ? verdict.reason : `${bare} resolves to ${verdict.reason}`);
    }
    vetted.push({ address: answer.address, family: family === 4 ? 4 : 6 });
  }
  const first = vetted[0];
  if (first === undefined) throw new UnresolvableHostError(bare, 'no addresses');
  return first;
}
