import { describe, expect, it } from 'vitest';
import {
  checkAddress,
  type LookupFn,
  resolveAndCheck,
  SsrfBlockedError,
  UnresolvableHostError,
} from '../../src/delivery/ssrf.js';

const GUARDED = { allowPrivate: false };
const OPEN = { allowPrivate: true };

const fixed =
  (...addresses: string[]): LookupFn =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('checkAddress', () => {
  it.each([
    ['0.0.0.0', 'unspecified address 0.0.0.0'],
    ['0.1.2.3', 'unspecified address 0.1.2.3'],
    ['127.0.0.1', 'loopback address 127.0.0.1'],
    ['127.255.255.254', 'loopback address 127.255.255.254'],
    ['10.0.0.1', 'private address 10.0.0.1'],
    ['10.255.255.255', 'private address 10.255.255.255'],
    ['172.16.0.1', 'private address 172.16.0.1'],
    ['172.31.255.255', 'private address 172.31.255.255'],
    ['192.168.1.1', 'private address 192.168.1.1'],
    ['169.254.169.254', 'link-local (cloud metadata) address 169.254.169.254'],
    ['169.254.0.1', 'link-local address 169.254.0.1'],
    ['100.64.0.1', 'carrier-grade NAT address 100.64.0.1'],
    ['100.127.255.255', 'carrier-grade NAT address 100.127.255.255'],
    ['224.0.0.1', 'multicast address 224.0.0.1'],
    ['239.255.255.250', 'multicast address 239.255.255.250'],
    ['255.255.255.255', 'broadcast address 255.255.255.255'],
    ['240.0.0.1', 'reserved address 240.0.0.1'],
    ['198.18.0.1', 'benchmarking address 198.18.0.1'],
    ['198.19.255.255', 'benchmarking address 198.19.255.255'],
    ['192.0.2.10', 'documentation address 192.0.2.10'],
    ['198.51.100.7', 'documentation address 198.51.100.7'],
    ['203.0.113.9', 'documentation address 203.0.113.9'],
    ['192.0.0.8', 'IETF protocol assignment address 192.0.0.8'],
    ['192.88.99.1', '6to4 relay anycast address 192.88.99.1'],
  ])('IPv4 %s is refused as %s', (ip, reason) => {
    expect(checkAddress(ip)).toEqual({ allowed: false, reason });
  });

  it.each([
    ['::', 'unspecified address ::'],
    ['::1', 'loopback address ::1'],
    ['[::1]', 'loopback address ::1'],
    ['fe80::1', 'link-local address fe80::1'],
    ['fe80::1%eth0', 'link-local address fe80::1%eth0'],
    ['febf::1', 'link-local address febf::1'],
    ['fc00::1', 'unique local address fc00::1'],
    ['fd12:3456:789a::1', 'unique local address fd12:3456:789a::1'],
    ['fec0::1', 'site-local address fec0::1'],
    ['ff02::1', 'multicast address ff02::1'],
    ['2001:db8::1', 'reserved or documentation address 2001:db8::1'],
    ['3fff::1', 'reserved or documentation address 3fff::1'],
    ['2001:2::1', 'benchmarking address 2001:2::1'],
    ['100::1', 'discard-only address 100::1'],
    ['64:ff9b:1::a00:1', 'local-use NAT64 address 64:ff9b:1::a00:1'],
  ])('IPv6 %s is refused as %s', (ip, reason) => {
    expect(checkAddress(ip)).toEqual({ allowed: false, reason });
  });

  it.each([
    ['::ffff:127.0.0.1', 'IPv4-mapped IPv6 address ::ffff:7f00:1 (loopback address 127.0.0.1)'],
    ['::ffff:7f00:1', 'IPv4-mapped IPv6 address ::ffff:7f00:1 (loopback address 127.0.0.1)'],
    [
      '::ffff:169.254.169.254',
      'IPv4-mapped IPv6 address ::ffff:a9fe:a9fe (link-local (cloud metadata) address 169.254.169.254)',
    ],
    ['0:0:0:0:0:ffff:10.0.0.1', 'IPv4-mapped IPv6 address ::ffff:a00:1 (private address 10.0.0.1)'],
    // Even a public IPv4 in IPv6 clothing is refused: these spellings exist to slip past IPv4-only checks.
    ['::ffff:8.8.8.8', 'IPv4-mapped IPv6 address ::ffff:808:808'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated IPv6 address ::ffff:0:7f00:1 (loopback address 127.0.0.1)'],
    ['::127.0.0.1', 'IPv4-compatible IPv6 address ::7f00:1 (loopback address 127.0.0.1)'],
    ['::7f00:1', 'IPv4-compatible IPv6 address ::7f00:1 (loopback address 127.0.0.1)'],
    ['::8.8.8.8', 'IPv4-compatible IPv6 address ::808:808'],
    ['2002:7f00:1::1', '6to4 address 2002:7f00:1::1 embedding loopback address 127.0.0.1'],
    ['2002:a9fe:a9fe::', '6to4 address 2002:a9fe:a9fe:: embedding link-local (cloud metadata) address 169.254.169.254'],
    ['2001:0:7f00:1::', 'Teredo address 2001:0:7f00:1:: embedding loopback address 127.0.0.1'],
    // Teredo's client address is stored bit-inverted: f5ff:fffe is 10.0.0.1.
    ['2001:0:808:808::f5ff:fffe', 'Teredo address 2001:0:808:808::f5ff:fffe embedding private address 10.0.0.1'],
    ['64:ff9b::127.0.0.1', 'NAT64 address 64:ff9b::7f00:1 embedding loopback address 127.0.0.1'],
    ['64:ff9b::c0a8:101', 'NAT64 address 64:ff9b::c0a8:101 embedding private address 192.168.1.1'],
  ])('IPv6 spelling of IPv4 %s is refused as %s', (ip, reason) => {
    expect(checkAddress(ip)).toEqual({ allowed: false, reason });
  });

  it.each([
    ['8.8.8.8'],
    ['93.184.215.14'],
    ['1.1.1.1'],
    ['100.63.255.255'],
    ['100.128.0.0'],
    ['172.15.255.255'],
    ['172.32.0.0'],
    ['169.253.255.255'],
    ['223.255.255.255'],
  ])('public IPv4 %s is allowed', (ip) => {
    expect(checkAddress(ip)).toEqual({ allowed: true });
  });

  it.each([
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:82a::200e'],
    ['2002:808:808::1'],
    ['2001:0:808:808::f7f7:f7f7'],
    ['64:ff9b::808:808'],
  ])('public IPv6 %s is allowed', (ip) => {
    expect(checkAddress(ip)).toEqual({ allowed: true });
  });

  it.each([
    ['0x7f.1'],
    ['2130706433'],
    ['017700000001'],
    ['127.1'],
    ['localhost'],
    [''],
    ['1.2.3.4.5'],
    ['::ffff:127.0.0.1:80'],
  ])('non-literal %j is refused (inet_aton spellings must be normalised by the URL parser first)', (input) => {
    const verdict = checkAddress(input);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toMatch(/^not an IP address: /);
  });
});

describe('resolveAndCheck', () => {
  it('returns the vetted public address to dial', async () => {
    await expect(resolveAndCheck('hooks.example', GUARDED, fixed('93.184.215.14', '2606:4700::1'))).resolves.toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    await expect(resolveAndCheck('hooks.example', GUARDED, fixed('2606:4700::1'))).resolves.toEqual({
      address: '2606:4700::1',
      family: 6,
    });
  });

  it('takes an IP literal as is without calling DNS', async () => {
    const refuse: LookupFn = async () => {
      throw new Error('DNS must not be called for a literal');
    };
    await expect(resolveAndCheck('93.184.215.14', GUARDED, refuse)).resolves.toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    await expect(resolveAndCheck('[2606:4700::1]', GUARDED, refuse)).resolves.toEqual({
      address: '2606:4700::1',
      family: 6,
    });
    await expect(resolveAndCheck('[::1]', GUARDED, refuse)).rejects.toThrow(
      new SsrfBlockedError('loopback address ::1'),
    );
  });

  it('a name resolving to 127.0.0.1 is blocked with the reason', async () => {
    const error = await resolveAndCheck('evil.example', GUARDED, fixed('127.0.0.1')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SsrfBlockedError);
    expect((error as SsrfBlockedError).reason).toBe('evil.example resolves to loopback address 127.0.0.1');
  });

  it('the real localhost (no internet needed) is blocked, and allowed when private receivers are allowed', async () => {
    await expect(resolveAndCheck('localhost', GUARDED)).rejects.toBeInstanceOf(SsrfBlockedError);
    const vetted = await resolveAndCheck('localhost', OPEN);
    expect(['127.0.0.1', '::1']).toContain(vetted.address);
  });

  it('mixed public and private answers are blocked (no cherry-picking)', async () => {
    await expect(resolveAndCheck('mixed.example', GUARDED, fixed('93.184.215.14', '10.0.0.5'))).rejects.toThrow(
      new SsrfBlockedError('mixed.example resolves to private address 10.0.0.5'),
    );
    await expect(
      resolveAndCheck('mixed.example', GUARDED, fixed('2606:4700::1', '::ffff:169.254.169.254')),
    ).rejects.toBeInstanceOf(SsrfBlockedError);
  });

  it('with allowPrivate the first answer is returned', async () => {
    await expect(resolveAndCheck('internal.example', OPEN, fixed('10.0.0.5', '127.0.0.1'))).resolves.toEqual({
      address: '10.0.0.5',
      family: 4,
    });
  });

  it('no addresses, or a DNS failure, is unresolvable', async () => {
    await expect(resolveAndCheck('empty.example', GUARDED, fixed())).rejects.toBeInstanceOf(UnresolvableHostError);
    await expect(resolveAndCheck('empty.example', OPEN, fixed())).rejects.toBeInstanceOf(UnresolvableHostError);
    const notFound: LookupFn = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    };
    await expect(resolveAndCheck('nowhere.example', GUARDED, notFound)).rejects.toThrow(
      new UnresolvableHostError('nowhere.example', 'ENOTFOUND'),
    );
  });

  it('an unexpected lookup failure propagates as is', async () => {
    const broken: LookupFn = async () => {
      throw new TypeError('boom');
    };
    await expect(resolveAndCheck('x.example', GUARDED, broken)).rejects.toThrow(TypeError);
  });

  it('a malformed answer from the resolver is refused', async () => {
    await expect(resolveAndCheck('odd.example', GUARDED, fixed('not-an-ip'))).rejects.toBeInstanceOf(SsrfBlockedError);
  });
});
