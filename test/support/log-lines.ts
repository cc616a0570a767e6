import { PassThrough } from 'node:stream';

/** A stream to hand the app as its log: every line written to it is appended to `lines`. */
export function logLines(lines: string[]): PassThrough {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) =>
    lines.push(
      ...chunk
        .toString()
        .split('\n')
        .filter((line) => line !== ''),
    ),
  );
  return stream;
}
