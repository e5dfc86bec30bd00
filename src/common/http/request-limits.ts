import {
  BadRequestException,
  ServiceUnavailableException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { isUtf8 } from 'node:buffer';
import type { FastifyBodyParser, RawServerBase } from 'fastify';
import type { FastifyInstance } from 'fastify';
import { sendError } from '../errors/all-exceptions.filter';
import { ValidationFailedException } from '../errors/validation-failed.exception';
import { BodyBudget, bodyReservation } from './body-budget';
import { fieldWithLoneSurrogate, JsonShape, JsonShapeLimits, readJsonShape } from './json-depth';
import { lingerBeforeClose } from './lingering-close';

/** Contract section 8, deep JSON: the top-level value is level 1. */
export const MAX_JSON_DEPTH = 32;

/** Contract section 8, deep JSON and cost of one request. */
export const JSON_BODY_LIMITS: JsonShapeLimits = {
  maxDepth: MAX_JSON_DEPTH,
  maxMembers: 1_000,
  maxValues: 10_000,
};

const SHAPE_REFUSALS: Partial<Record<JsonShape, string>> = {
  'too-deep': `JSON nested more than ${MAX_JSON_DEPTH} levels deep`,
  'too-many-members': `A JSON object in the body has more than ${JSON_BODY_LIMITS.maxMembers} members`,
  'too-many-values': `The JSON body has more than ${JSON_BODY_LIMITS.maxValues} values`,
};

/** Contract section 4: request bodies are application/json or any application/*+json. */
export const JSON_MEDIA_TYPE = /^application\/(?:[\w!#$%&'*.^`|~-]+\+)?json(?:;|$)/;

/** A charset parameter of a Content-Type, quoted or not. */
const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** Contract section 4: a JSON body is UTF-8, the charset absent or utf-8 in any case. */
export function isUtf8OrUnstated(contentType: string | undefined): boolean {
  const charset = contentType === undefined ? undefined : CHARSET_PARAMETER.exec(contentType)?.[1];
  return charset === undefined || charset.toLowerCase() === 'utf-8';
}

/**
 * Contract section 8: an idle keep-alive connection is closed after 5 s. Answers announce
 * `Keep-Alive: timeout=5`; Node closes the socket 1 s past it, so that clients stop first.
 */
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
 * The JSON body parser behind the limits of contract sections 4 and 8, checked in one pass over the
 * raw body before it is parsed: a charset other than UTF-8 is 415; an empty body is none; bytes
 * that are not UTF-8 are 400 (decoding would store U+FFFD in their place: JSON text is UTF-8, RFC
 * 8259); nesting, members of one object and values in all past their limits are 400 (deep nesting
 * overflows the stack of the recursive validation that follows; many keys cost class-transformer
 * quadratic time). A string that is not well-formed Unicode is 400 naming its field (the e-mail
 * validator throws on one).
 */
export function withJsonBodyLimits<S extends RawServerBase>(
  parse: FastifyBodyParser<Buffer, S>,
): FastifyBodyParser<Buffer, S> {
  return function (this: unknown, request, body, done) {
    if (!isUtf8OrUnstated(request.headers['content-type'])) {
      return done(new UnsupportedMediaTypeException('Request body must be UTF-8'), undefined);
    }
    // No bytes is no body, as without a Content-Type: a route whose body is optional takes it.
    if (body.length === 0) return done(null, undefined);
    if (!isUtf8(body)) return done(new BadRequestException('Request body is not valid UTF-8'), undefined);
    const shape = readJsonShape(body, JSON_BODY_LIMITS);
    const refusal = SHAPE_REFUSALS[shape];
    if (refusal !== undefined) return done(new BadRequestException(refusal), undefined);
    if (shape === 'within-limits') return parse.call(this as never, request, body, done);
    return parse.call(this as never, request, body, (error, value) => {
      const field = error ? undefined : fieldWithLoneSurrogate(value);
      if (field === undefined) return done(error, value);
      const name = field === '' ? 'body' : field;
      done(
        new ValidationFailedException([{ field: name, message: `${name} is not well-formed Unicode` }]),
        undefined,
      );
    });
  };
}

/** A request whose body its connection is reading (bodyBeingRead). */
export interface BodyBeingRead {
  path: string;
  requestId: string;
}

/** Per connection, its request whose body is being read: Node's 408 for a stalled one carries neither. */
const bodiesBeingRead = new WeakMap<object, { url: string; id: string; message: { complete: boolean } }>();

/** The request whose body `socket` is still reading, for the 408 of a body that stalls (clientError). */
export function bodyBeingRead(socket: object): BodyBeingRead | undefined {
  const reading = bodiesBeingRead.get(socket);
  if (reading === undefined || reading.message.complete) return undefined;
  return { path: reading.url.split('?')[0], requestId: reading.id };
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
    const { socket } = request.raw;
    const reading = { url: request.url, id: request.id, message: request.raw };
    bodiesBeingRead.set(socket, reading);
    // The body stays in memory until the handler is done with it; 'close' also comes on an abort.
    reply.raw.once('close', () => {
      budget.release(bytes);
      if (bodiesBeingRead.get(socket) === reading) bodiesBeingRead.delete(socket);
    });
    done();
  });

  fastify.addHook('onSend', (request, _reply, payload, done) => {
    if (!request.raw.complete) lingerBeforeClose(request.raw);
    done(null, payload);
  });
}
