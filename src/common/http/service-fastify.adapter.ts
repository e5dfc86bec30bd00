import { FastifyAdapter } from '@nestjs/platform-fastify';
import { withJsonDepthLimit } from './request-limits';

/**
 * Nest's Fastify adapter, except that Nest's own Fastify error handler is not installed, and that
 * the JSON body parser Nest registers refuses deep nesting first (withJsonDepthLimit).
 *
 * At init Nest replaces whatever error handler is set with one that turns Fastify's errors (body
 * too large, malformed JSON, wrong media type, bad URL) into bare HttpExceptions, dropping their
 * codes, so the error body carried Fastify's raw messages; and replacing a handler makes Fastify
 * print a warning (FSTWRN004) to stderr at every start. The service sets its handler once
 * (app.factory.ts, sendError: the same body as the global exception filter) and it stays.
 */
export class ServiceFastifyAdapter extends FastifyAdapter {
  override setErrorHandler(): ReturnType<FastifyAdapter['setErrorHandler']> {
    return this.getInstance() as unknown as ReturnType<FastifyAdapter['setErrorHandler']>;
  }

  override useBodyParser(
    ...[type, rawBody, options, parser]: Parameters<FastifyAdapter['useBodyParser']>
  ): void {
    const json = type === 'application/json' && parser !== undefined;
    super.useBodyParser(type, rawBody, options, json ? withJsonDepthLimit(parser) : parser);
  }
}
