import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { JSON_MEDIA_TYPE, withJsonBodyLimits } from './request-limits';

/**
 * Nest's Fastify adapter, except that Nest's own Fastify error handler is not installed, and that
 * bodies are JSON only (contract section 4): the JSON body parser Nest registers takes every
 * application/*+json type and checks its limits first (withJsonBodyLimits); Nest's form parser and
 * Fastify's text/plain one are not kept, so any other media type is 415.
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
    if (type === 'application/x-www-form-urlencoded') return;
    if (type === 'application/json' && parser !== undefined) {
      (this.getInstance() as unknown as FastifyInstance).removeAllContentTypeParsers();
      return super.useBodyParser(JSON_MEDIA_TYPE, rawBody, options, withJsonBodyLimits(parser));
    }
    super.useBodyParser(type, rawBody, options, parser);
  }
}
