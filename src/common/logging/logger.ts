import type { LoggerService, LogLevel } from '@nestjs/common';
import { pino, DestinationStream, Logger as Pino, LoggerOptions } from 'pino';
import { serializeRequest } from './request-serializer';

/**
 * Keys whose values never reach a log line (contract section 1: never a password, token or
 * headerValue; section 9: nor a signing secret, the `key` of the secret endpoints).
 */
const REDACT = [
  'password',
  'token',
  'headerValue',
  'authorization',
  'key',
  '*.password',
  '*.token',
  '*.headerValue',
  '*.authorization',
  '*.key',
  'req.headers.authorization',
  'req.headers.cookie',
  // A failed query's bound values (a QueryFailedError logged with a 500): hashes, sealed values.
  'err.parameters',
  '*.err.parameters',
];

/** `destination`: where the JSON lines go (stdout by default; tests capture them). */
export function createRootLogger(level: string, destination?: DestinationStream): Pino {
  const options: LoggerOptions = {
    level,
    base: { service: 'partner-integration-service' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: '[redacted]' },
    // Fastify takes a logger's own `req` serialiser over its default one.
    serializers: { req: serializeRequest },
    // Fastify's request loggers carry requestId; a line logged for a request elsewhere passes it
    // (the error filter does). No AsyncLocalStorage: on Node 20 it turns on promise hooks, a cost
    // on every promise of every request (9 % of the CPU of GET /auth/me).
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Nest's LoggerService over pino: one JSON object a line. */
export class JsonLogger implements LoggerService {
  constructor(private readonly root: Pino) {}

  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace',
    message: unknown,
    rest: unknown[],
  ): void {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    if (message instanceof Error) this.root[level]({ context, err: message }, message.message);
    else if (typeof message === 'object' && message !== null)
      this.root[level]({ context, ...message }, String(rest[0] ?? ''));
    else this.root[level]({ context }, String(message));
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    // Nest passes (message, stack, context); the stack stays in the log line, never in a response.
    if (typeof message === 'string' && typeof rest[0] === 'string' && rest.length === 2) {
      this.root.error({ context: rest[1], stack: rest[0] }, message);
      return;
    }
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  setLogLevels(_levels: LogLevel[]): void {}
}
