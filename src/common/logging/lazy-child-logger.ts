import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, Level, Logger as Pino } from 'pino';

type LogArgs = [unknown, ...unknown[]];

/**
 * The logger Fastify gives each request (requestId bound), made only when the request logs a line
 * at an enabled level. pino's child() serialises the bindings and sets up redaction on every call:
 * 7 % of the CPU of GET /auth/me, for a logger most requests never write to (bench, profile).
 */
export class LazyChildLogger {
  private made: Pino | undefined;

  constructor(
    private readonly parent: Pino,
    private readonly bindings: Bindings,
  ) {}

  private real(): Pino {
    return (this.made ??= this.parent.child(this.bindings));
  }

  private write(level: Level, args: LogArgs): void {
    if (!(this.made ?? this.parent).isLevelEnabled(level)) return;
    (this.real()[level] as (...a: LogArgs) => void)(...args);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }
  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: LogArgs): void {
    this.write('fatal', args);
  }
  error(...args: LogArgs): void {
    this.write('error', args);
  }
  warn(...args: LogArgs): void {
    this.write('warn', args);
  }
  info(...args: LogArgs): void {
    this.write('info', args);
  }
  debug(...args: LogArgs): void {
    this.write('debug', args);
  }
  trace(...args: LogArgs): void {
    this.write('trace', args);
  }
  silent(): void {}
  child(bindings: Bindings, options?: Parameters<Pino['child']>[1]): ReturnType<Pino['child']> {
    return this.real().child(bindings, options);
  }
}

/**
 * True when the child options change nothing: Fastify passes `{ level: <the route's logLevel> }` on
 * every request, an empty string or the parent's own level unless the route sets one.
 */
function inheritsEverything(options: Record<string, unknown>, parentLevel: string): boolean {
  for (const key in options) {
    if (key !== 'level') return false;
    if (options.level && options.level !== parentLevel) return false;
  }
  return true;
}

/** Fastify's `childLoggerFactory`: lazy unless the route sets its own log options (level, serialisers). */
export const lazyChildLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) =>
  inheritsEverything(options as Record<string, unknown>, logger.level)
    ? (new LazyChildLogger(logger as unknown as Pino, bindings) as unknown as FastifyBaseLogger)
    : logger.child(bindings, options);
