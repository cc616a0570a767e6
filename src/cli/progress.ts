/**
 * Progress of a long CLI operation: a redrawn bar with rate and ETA on a terminal, plain lines
 * (about every 10%) when stderr is a pipe or a file, so logs stay readable.
 */
export interface ProgressSink {
  /** Writes without a newline (terminal redraws). */
  write(text: string): void;
  line(text: string): void;
  tty: boolean;
}

const WIDTH = 30;

/** A time left, rounded up: "12s", "9m05s", "2h05m". */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const whole = Math.ceil(seconds);
  const two = (n: number): string => String(n).padStart(2, '0');
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${two(whole % 60)}s`;
  const minutes = Math.ceil(whole / 60);
  return `${Math.floor(minutes / 60)}h${two(minutes % 60)}m`;
}

export function progressReporter(
  sink: ProgressSink,
  label: string,
  now: () => number = Date.now,
): (done: number, total: number) => void {
  const started = now();
  let lastDecile = -1;
  return (done, total) => {
    const elapsed = Math.max(0.001, (now() - started) / 1000);
    const rate = done / elapsed;
    const eta = rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY;
    const share = total === 0 ? 1 : done / total;
    const percent = Math.floor(share * 100);
    if (sink.tty) {
      const filled = Math.round(share * WIDTH);
      sink.write(
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${done}/${total} ${percent}% ${Math.round(rate)} rows/s ETA ${duration(eta)}  `,
      );
      if (done >= total) sink.write('\n');
      return;
    }
    const decile = Math.floor(percent / 10);
    if (decile > lastDecile || done >= total) {
      lastDecile = decile;
      sink.line(`${label}: ${done}/${total} rows (${percent}%), ${Math.round(rate)} rows/s`);
    }
  };
}
