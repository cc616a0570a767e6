/** The scopes a token can carry; a route names the one it needs. */
export const SCOPES = ['offers:read', 'lml:read', 'webhooks:manage'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

export function parseScopes(value: string): Scope[] {
  return value.split(/\s+/).filter(isScope);
}
