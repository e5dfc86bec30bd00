import { BadRequestException, ServiceUnavailableException } from '@nestjs/common';
import type { FastifyBodyParser, RawServerBase } from 'fastify';
import type { FastifyInstance } from 'fastify';
import { sendError } from '../errors/all-exceptions.filter';
import { BodyBudget, bodyReservation } from './body-budget';
import { jsonNestedDeeperThan } from './json-depth';
import { lingerBeforeClose } from './lingering-close';

/** Contract section 8, deep JSON: the top-level value is level 1. */
export const MAX_JSON_DEPTH = 32;

/** Contract section 8: an idle keep-alive connection is closed after 5 s. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** Seconds a client refused for the body budget is asked to wait: uploads end in milliseconds. */
const BUDGET_RETRY_AFTER_SECONDS = '1';

/**
 * Node's and Fastify's own time-outs for slow clients (contract section 8): headers and body within
 * `requestTimeoutMs` of the request's first byte, else 408 (clientError in app.factory.ts).
 * Fastify's defaults switch the request time-out off and keep idle connections for 72 s; Node checks
 * its time-outs every 30 s unless told otherwise, which would let a request run 30 s over.
 */
export function slowClientOptions(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs),
    },
  };
}

/**
 * The JSON body parser behind a nesting limit checked on the raw body (contract section 8, deep
 * JSON): deep nesting parses fine but overflows the stack of the recursive validation that follows.
 */
export function withJsonDepthLimit<S extends RawServerBase>(
  parse: FastifyBodyParser<Buffer, S>,
): FastifyBodyParser<Buffer, S> {
  return function (this: unknown, request, body, done) {
    if (jsonNestedDeeperThan(body, MAX_JSON_DEPTH)) {
      return done(new BadRequestException(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`), undefined);
    }
    return parse.call(this as never, request, body, done);
  };
}

/**
 * Contract section 8 for request bodies: a budget on the bytes of bodies being read at once (past
 * it a new body is 503 at once), and a lingering close for connections answered before their body
 * arrived (so a 413 is not lost to a TCP reset).
 */
export function applyRequestLimits(
  fastify: FastifyInstance,
  limits: { bodyLimitBytes: number; bodyBufferBudgetBytes: number },
): void {
  const budget = new BodyBudget(limits.bodyBufferBudgetBytes);
  fastify.addHook('onRequest', (request, reply, done) => {
    const bytes = bodyReservation(request.headers, limits.bodyLimitBytes);
    if (bytes === 0) return done();
    if (!budget.tryReserve(bytes)) {
      void reply.header('Retry-After', BUDGET_RETRY_AFTER_SECONDS).header('Connection', 'close');
      // Not logged: under a flood of slow uploads that would be one error line per refusal.
      sendError(reply, request, new ServiceUnavailableException(), { error: () => undefined });
      return;
    }
    // The body stays in memory until the handler is done with it; 'close' also comes on an abort.
    reply.raw.once('close', () => budget.release(bytes));
    done();
  });

  fastify.addHook('onSend', (request, _reply, payload, done) => {
    if (!request.raw.complete) lingerBeforeClose(request.raw);
    done(null, payload);
  });
}
