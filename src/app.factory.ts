import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import type { Logger as Pino } from 'pino';
import { AppModule } from './app.module';
import { sendError } from './common/errors/all-exceptions.filter';
import { HAL_CONTENT_TYPE } from './common/hal/hal';
import { JsonLogger } from './common/logging/logger';
import { requestContext, requestIdFor } from './common/request-id/request-id';
import type { AppConfig } from './config/configuration';

/** Spec, Limits: maximum request body 1 MB. */
export const BODY_LIMIT_BYTES = 1_048_576;

/**
 * Wire conventions of contract section 4 that hold for every response, including those no
 * controller produces (unknown route, body too large, malformed JSON): set once, here.
 */
function applyWireConventions(fastify: FastifyInstance, logger: Pino): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    requestContext.run({ requestId: String(request.id) }, done);
  });
  fastify.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (
      payload !== undefined &&
      payload !== null &&
      (type === undefined || /^application\/json/i.test(String(type)))
    ) {
      void reply.header('content-type', HAL_CONTENT_TYPE);
    }
    return payload;
  });
  // Errors raised by Fastify itself before a route runs (body parsing, limits).
  fastify.setErrorHandler((error, request, reply) => sendError(reply, request, error, logger));
}

/** Builds the application exactly as production runs it; e2e tests use it too. */
export async function createApp(
  config: AppConfig,
  databaseUrl: string,
  logger: Pino,
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: requestIdFor,
    requestIdLogLabel: 'requestId',
    trustProxy: config.app.trustProxy,
    return503OnClosing: true,
    disableRequestLogging: config.app.env === 'test',
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, databaseUrl),
    adapter,
    {
      logger: new JsonLogger(logger),
      abortOnError: false,
    },
  );
  applyWireConventions(app.getHttpAdapter().getInstance() as unknown as FastifyInstance, logger);
  Logger.flush();
  return app;
}
