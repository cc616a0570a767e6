/**
 * gzip and brotli for answers of at least COMPRESS_MIN_BYTES when the client's Accept-Encoding asks
 * (a 52 KB offers answer becomes ~2.4 KB). Brotli at quality 4: close to gzip's speed, smaller output;
 * 11 would cost tens of milliseconds per answer. Requests without Accept-Encoding pay one header look-up.
 */
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import { constants } from 'node:zlib';
import type { Config } from '../config.js';

export async function registerCompression(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(compress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: config.compressMinBytes,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    // Request bodies are small JSON or forms; compressed uploads are not accepted.
    globalDecompression: false,
  });
}
