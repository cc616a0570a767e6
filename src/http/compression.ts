/**
 * gzip and brotli for answers of at least COMPRESS_MIN_BYTES when the client's Accept-Encoding asks
 * (an offers answer shrinks to a small fraction of its size). Brotli at quality 4: close to gzip's speed,
 * smaller output; 11 would cost far more time per answer (docs/performance.md#decisions).
 * Requests without Accept-Encoding pay one header look-up.
 */

import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
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
