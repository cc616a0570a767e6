import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('config: proxies, CORS, compression', () => {
  it('parses TRUSTED_PROXIES, CORS_ORIGINS, CORS_TOKEN_ENDPOINT and COMPRESS_MIN_BYTES', () => {
    const config = loadConfig({
      TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1,loopback, ::1',
      CORS_ORIGINS: 'https://shop.example, http://localhost:5173/',
      CORS_TOKEN_ENDPOINT: 'true',
      COMPRESS_MIN_BYTES: '2048',
    });
    expect(config.trustedProxies).toEqual(['10.0.0.0/8', '127.0.0.1', 'loopback', '::1']);
    expect(config.corsOrigins).toEqual(['https://shop.example', 'http://localhost:5173']);
    expect(config.corsTokenEndpoint).toBe(true);
    expect(config.compressMinBytes).toBe(2048);
    expect(Object.isFrozen(config.trustedProxies)).toBe(true);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });

  it.each([
    [
      'TRUSTED_PROXIES',
      'proxy.internal',
      'TRUSTED_PROXIES: expected IP addresses, CIDR ranges or loopback/linklocal/uniquelocal, separated by commas; got "proxy.internal"',
    ],
    [
      'TRUSTED_PROXIES',
      '10.0.0.0/33',
      'TRUSTED_PROXIES: expected IP addresses, CIDR ranges or loopback/linklocal/uniquelocal, separated by commas; got "10.0.0.0/33"',
    ],
    [
      'CORS_ORIGINS',
      'https://shop.example/path',
      'CORS_ORIGINS: expected origins like https://shop.example (or *), separated by commas; got "https://shop.example/path"',
    ],
    [
      'CORS_ORIGINS',
      'shop.example',
      'CORS_ORIGINS: expected origins like https://shop.example (or *), separated by commas; got "shop.example"',
    ],
    ['CORS_TOKEN_ENDPOINT', 'maybe', 'CORS_TOKEN_ENDPOINT: expected true or false, got "maybe"'],
    ['COMPRESS_MIN_BYTES', '-1', 'COMPRESS_MIN_BYTES: expected a whole number, got "-1"'],
  ])('a bad %s (%s) stops with a message naming it', (variable, value, message) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(message);
  });
});
