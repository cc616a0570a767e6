/** Parses `Authorization: Basic base64(id:secret)` (RFC 7617; ids form-urlencoded per RFC 6749 §2.3.1). */

/** A client's id and secret, however the request carried them (Basic header or form body). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

/** Returns undefined for anything that is not a well-formed Basic credential. */
export function parseBasic(header: string | undefined): ClientCredentials | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic[ ]+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (clientSecret === '' || clientId.length > 200 || clientSecret.length > 500) return undefined;
  return { clientId, clientSecret };
}

export function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  return match?.[1];
}
