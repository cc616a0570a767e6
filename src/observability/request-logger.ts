/**
 * The logger of each request, made only when the request logs a line. Fastify gives every request a
 * child of the app's logger (bound to its request id); pino builds a child by serialising and
 * redacting its bindings, which cost more per request than anything the offers call does itself,
 * and at LOG_LEVEL=warn most requests never log a line (docs/performance.md#decisions).
 * This stand-in answers the level check itself and makes the very same child on the first line the
 * level lets through, so what is written does not change.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

/** What the app's logger offers beyond Fastify's minimum (pino's logger has both). */
type ParentLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

const hasLevelCheck = (logger: FastifyBaseLogger): logger is ParentLogger =>
  typeof (logger as Partial<ParentLogger>).isLevelEnabled === 'function';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

class LazyRequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: ParentLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  /** A line goes to the real child when it exists (its level may differ) or when the app's level lets it through. */
  private line(level: Level, args: unknown[]): void {
    if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.real[level] as (...values: unknown[]) => void)(...args);
  }

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.real.level = level;
  }

  // Prototype methods, not arrow fields: a stand-in is made per request and must cost an object, no closures.
  fatal(...args: unknown[]): void {
    this.line('fatal', args);
  }
  error(...args: unknown[]): void {
    this.line('error', args);
  }
  warn(...args: unknown[]): void {
    this.line('warn', args);
  }
  info(...args: unknown[]): void {
    this.line('info', args);
  }
  debug(...args: unknown[]): void {
    this.line('debug', args);
  }
  trace(...args: unknown[]): void {
    this.line('trace', args);
  }
  silent(): void {}

  /** pino's check, answered without making the child (the access log asks it before building a line). */
  isLevelEnabled(level: string): boolean {
    const made = this.made as Partial<ParentLogger> | undefined;
    return made?.isLevelEnabled !== undefined ? made.isLevelEnabled(level) : this.parent.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/**
 * Fastify's childLoggerFactory. A request whose route sets its own log level gets a real child at
 * once: the stand-in only knows the app's level.
 */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || !hasLevelCheck(logger)) return logger.child(bindings, options);
  return new LazyRequestLogger(logger, bindings, options);
}
