/** The little of node-oidc-provider's API the bench's peer uses (the package ships no types). */
declare module 'oidc-provider' {
  import type { Server } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string, callback: () => void): Server;
  }
}
