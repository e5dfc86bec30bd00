import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { Logger, ServiceUnavailableException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TestingModuleBuilder } from '@nestjs/testing';
import type { Logger as Pino } from 'pino';
import { AppModule } from './app.module';
import { sendError } from './common/errors/all-exceptions.filter';
import { errorBody } from './common/errors/error-body';
import { HAL_CONTENT_TYPE } from './common/hal/hal';
import { serializeJson } from './common/http/json-serializer';
import { applyRequestLimits, bodyBeingRead, slowClientOptions } from './common/http/request-limits';
import { applySecurityHeaders, NOSNIFF, setSecurityHeaders } from './common/http/security-headers';
import { ServiceFastifyAdapter } from './common/http/service-fastify.adapter';
import { fastifyTrustProxy } from './common/http/trust-proxy';
import { JsonLogger } from './common/logging/logger';
import { lazyChildLoggerFactory } from './common/logging/lazy-child-logger';
import { requestIdFor } from './common/request-id/request-id';
import { DOCS_PATH, setupOpenApi } from './docs/openapi';
import { DOCS_CSP } from './docs/swagger-ui';
import { PORTAL_CSP, PORTAL_PATH } from './portal/portal.module';
import type { AppConfig } from './config/configuration';
import { tracingRouteHook } from './tracing/tracing-state';

/** Spec, Limits: maximum request body 1 MB. */
export const BODY_LIMIT_BYTES = 1_048_576;

/** Contract sections 8 and 10: the pages a browser shows, framed by no other site. */
const CONTENT_SECURITY_POLICIES = { [PORTAL_PATH]: PORTAL_CSP, [`/${DOCS_PATH}`]: DOCS_CSP };

/**
 * Wire conventions of contract section 4 that hold for every response, including those no
 * controller produces (unknown route, body too large, malformed JSON): set once, here.
 */
function applyWireConventions(fastify: FastifyInstance, logger: Pino): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    if (!draining.has(fastify)) return done();
    // Shutting down: a request that still arrives on an open keep-alive connection gets the
    // contract's error body, and the connection is closed after it.
    void reply.header('Connection', 'close');
    sendError(reply, request, new ServiceUnavailableException(), { error: () => undefined });
  });
  // A callback hook, not an async one: no promise and no extra microtask on every response.
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (
      payload !== undefined &&
      payload !== null &&
      (type === undefined || /^application\/json/i.test(String(type)))
    ) {
      void reply.header('content-type', HAL_CONTENT_TYPE);
    }
    done(null, payload);
  });
  // JSON.stringify, but a page number past 2^53 - 1 (a bigint) keeps its exact digits.
  fastify.setReplySerializer(serializeJson);
  // Errors raised by Fastify itself before a route runs (body parsing, limits, bad URLs); the
  // adapter keeps Nest from replacing this handler at init.
  fastify.setErrorHandler((error, request, reply) => sendError(reply, request, error, logger));
}

/**
 * The path of the request whose first bytes are `packet` (Node's `rawPacket` of a client error, the
 * data the parser was reading), query string left out; '' when the packet does not begin with a
 * request line, e.g. when the headers came in more than one read and the request line in an earlier one.
 */
export function pathOfRequestLine(packet: unknown): string {
  if (!Buffer.isBuffer(packet)) return '';
  const start = packet.subarray(0, REQUEST_LINE_READ).toString('latin1');
  return REQUEST_LINE_START.exec(start)?.[1] ?? '';
}

/** A method token, one space, then an origin-form request target (the path up to `?`, space or CR). */
const REQUEST_LINE_START = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\/[^?\s]*)/;

/** Bytes of a refused packet looked at for its path: more than an error body shows of one. */
const REQUEST_LINE_READ = 4_096;

/**
 * Requests Node's HTTP parser refuses (not HTTP, headers over 16 KB, too slow to arrive): the
 * contract's error body, content type and X-Request-Id, written to the socket, which then closes.
 * A body that stalls is of a request Fastify has: its path and request id. Otherwise the id is new
 * and the path the request line's, when the refused bytes hold it (Node gives none with a time-out).
 */
function clientError(error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are too large']
        : [400, 'Malformed HTTP request'];
  const { path, requestId } = bodyBeingRead(socket) ?? {
    path: pathOfRequestLine(error.rawPacket),
    requestId: randomUUID(),
  };
  const body = JSON.stringify(errorBody(status, message, path, requestId));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${HAL_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n` +
        `${NOSNIFF.name}: ${NOSNIFF.value}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Applications whose HTTP side is shutting down (see stopAcceptingRequests). */
const draining = new WeakSet<object>();

/**
 * First step of the shutdown (contract section 1): the listening socket closes, so new
 * connections are refused, idle keep-alive connections are closed, and any request still arriving
 * on an open connection is answered 503. Requests already running finish. Nest's app.close(),
 * which runs the modules' shutdown hooks (the dispatcher's drain) before it closes the HTTP
 * server, comes after this.
 */
export function stopAcceptingRequests(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  draining.add(fastify);
  fastify.server.close();
  fastify.server.closeIdleConnections();
}

export interface CreateAppOptions {
  /**
   * Tests only: builds the module through @nestjs/testing (a dev dependency, loaded only then) so a
   * test can override true third parties, e.g. the dispatcher's WEBHOOK_TLS_OPTIONS (a test CA).
   */
  configure?: (builder: TestingModuleBuilder) => void;
}

/** Builds the application exactly as production runs it; e2e tests use it too. */
export async function createApp(
  config: AppConfig,
  databaseUrl: string,
  logger: Pino,
  options: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new ServiceFastifyAdapter({
    loggerInstance: logger,
    childLoggerFactory: lazyChildLoggerFactory,
    bodyLimit: BODY_LIMIT_BYTES,
    ...slowClientOptions(config.http.requestTimeoutMs),
    genReqId: requestIdFor,
    trustProxy: fastifyTrustProxy(config.app.trustProxy),
    // The 503 of a closing server is ours (stopAcceptingRequests): the contract's body and headers.
    return503OnClosing: false,
    clientErrorHandler: clientError,
    // Through a LogController: the top-level options print a deprecation warning to stderr.
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: config.app.env === 'test',
    }),
    // Errors the router raises before any hook runs (a path parameter over maxParamLength, a bad
    // %-escape): the same error body, content type and X-Request-Id as every other response.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('X-Request-Id', request.id);
      setSecurityHeaders(request.url, reply, CONTENT_SECURITY_POLICIES);
      sendError(reply, request, error, logger);
    },
  });
  const appOptions = { logger: new JsonLogger(logger), abortOnError: false };
  let app: NestFastifyApplication;
  if (options.configure) {
    const { Test } = await import('@nestjs/testing');
    const builder = Test.createTestingModule({ imports: [AppModule.forRoot(config, databaseUrl)] }).setLogger(
      appOptions.logger,
    );
    options.configure(builder);
    const moduleRef = await builder.compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(adapter, appOptions);
  } else {
    app = await NestFactory.create<NestFastifyApplication>(
      AppModule.forRoot(config, databaseUrl),
      adapter,
      appOptions,
    );
  }
  setupOpenApi(app, config.app.version);
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  applyWireConventions(fastify, logger);
  const traceRoutes = tracingRouteHook();
  if (traceRoutes) fastify.addHook('onRequest', traceRoutes);
  applySecurityHeaders(fastify, CONTENT_SECURITY_POLICIES);
  applyRequestLimits(fastify, {
    bodyLimitBytes: BODY_LIMIT_BYTES,
    bodyBufferBudgetBytes: config.http.bodyBufferBudgetBytes,
  });
  Logger.flush();
  return app;
}
