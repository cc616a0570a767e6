/**
 * Limits enforced before a request reaches a route: the URL length (414), and the answers Node's
 * HTTP parser gives on its own (headers over MAX_HEADER_BYTES → 431, unparseable requests → 400),
 * which are written as problem documents like every other error instead of Fastify's ad-hoc JSON.
 */
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { PROBLEMS, type ProblemCode, problemType } from '../problems/catalogue.js';

/**
 * The longest path parameter the router takes, decoded (longer: 414). The longest identifier a path
 * names: an operator's OIDC `sub`, which OpenID Connect allows up to 255 ASCII characters. Every other
 * path parameter states its own, shorter bound in its schema (a longer one is a 400 or a 404).
 */
export const MAX_PATH_SEGMENT = 255;

/** The largest token request form: a client id, a secret and a scope need far less. */
export const TOKEN_FORM_LIMIT_BYTES = 16 * 1024;

interface RawAnswer {
  full: string;
  /** The same head without the body, for a HEAD request (whose answer never has one). */
  head: string;
}

function rawProblem(code: ProblemCode, detail: string): RawAnswer {
  const { status, title } = PROBLEMS[code];
  const body = JSON.stringify({ type: problemType(code), title, status, detail, code });
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  return { full: `${head}${body}`, head };
}

/** Fastify's clientErrorHandler: the parser rejected the request before any route could run. */
export function clientErrorHandler(maxHeaderBytes: number) {
  const headersTooLarge = rawProblem(
    'headers-too-large',
    `the request line and headers exceed ${maxHeaderBytes} bytes`,
  );
  const timeout = rawProblem('request-timeout', 'the request was not received in time');
  const malformed = rawProblem('malformed-request', 'the request is not valid HTTP/1.1');
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    // A reset socket has no one left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const answer =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? headersTooLarge
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? timeout
          : malformed;
    const isHead = Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
    // As Node's own handler: never write after a response already begun on this socket (e.g. the unread
    // rest of a refused request's body failing to parse as the next request).
    const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (socket.writable && inProgress?.headersSent !== true) socket.write(isHead ? answer.head : answer.full);
    socket.destroy();
  };
}

/**
 * Node hands a CONNECT request to the server's 'connect' event and, when nothing listens, closes the
 * socket without a word. Shelfmark is not a proxy: answer with a problem document, then close.
 */
export function answerConnect(server: Server): void {
  const refused = rawProblem(
    'malformed-request',
    'CONNECT is not supported: Shelfmark is not a proxy; send GET, POST, PUT, PATCH or DELETE requests to its API',
  );
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(refused.full, () => socket.destroy());
  });
}
