/**
 * Where the two APIs live. The specification has a main API ({base_url}), a subscription API
 * ({lml_base_url}) and a staging variant of every address; the operator publishes the addresses, so
 * the SDK takes them as given and never guesses a host name.
 */
import { ConfigurationError } from './errors.js';

export interface Endpoints {
  /** The main API: tokens and offers, e.g. https://api.example.org */
  baseUrl: string;
  /** The subscription (LML) API; defaults to baseUrl (one origin serves both by default). */
  lmlBaseUrl?: string;
}

export interface EnvironmentOptions {
  baseUrl?: string;
  lmlBaseUrl?: string;
  /** Named address sets published by the operator, e.g. { staging: { baseUrl: 'https://api.staging.example.org' } }. */
  environments?: Record<string, Endpoints>;
  /** Selects one of `environments`; `production` (the default) may also come from baseUrl/lmlBaseUrl. */
  environment?: string;
  /** Shorthand for environment: 'staging'. */
  staging?: boolean;
}

export interface ResolvedEndpoints {
  environment: string;
  baseUrl: string;
  lmlBaseUrl: string;
}

function origin(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigurationError(`${name} must be an http(s) URL, got "${value}"`);
  if (url.search !== '' || url.hash !== '') throw new ConfigurationError(`${name} must not carry a query or fragment`);
  // A path prefix (a reverse proxy mount) is kept; the trailing slash is not, so paths join cleanly.
  return url.toString().replace(/\/+$/, '');
}

export function resolveEndpoints(options: EnvironmentOptions): ResolvedEndpoints {
  if (options.staging === true && options.environment !== undefined && options.environment !== 'staging') {
    throw new ConfigurationError(`staging: true contradicts environment: "${options.environment}"`);
  }
  const environment = options.staging === true ? 'staging' : (options.environment ?? 'production');
  const named = options.environments?.[environment];
  let endpoints: Endpoints;
  if (named !== undefined) endpoints = named;
  else if (environment === 'production' && options.baseUrl !== undefined)
    endpoints = {
      baseUrl: options.baseUrl,
      ...(options.lmlBaseUrl === undefined ? {} : { lmlBaseUrl: options.lmlBaseUrl }),
    };
  else if (environment === 'production')
    throw new ConfigurationError('baseUrl is required (the address of the main API)');
  else {
    const known = Object.keys(options.environments ?? {});
    throw new ConfigurationError(
      `no addresses for environment "${environment}": pass environments: { ${environment}: { baseUrl, lmlBaseUrl? } } with the addresses your operator publishes` +
        (known.length > 0 ? ` (known: ${known.join(', ')})` : ''),
    );
  }
  const baseUrl = origin(`${environment}.baseUrl`, endpoints.baseUrl);
  return {
    environment,
    baseUrl,
    lmlBaseUrl:
      endpoints.lmlBaseUrl === undefined ? baseUrl : origin(`${environment}.lmlBaseUrl`, endpoints.lmlBaseUrl),
  };
}
