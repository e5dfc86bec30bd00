import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/** What the started SDK (tracing-sdk.ts) gives the rest of the service. */
export interface StartedTracing {
  /** Names the HTTP server span after the route template (a Fastify onRequest hook). */
  onRequest: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;
  /** Exports the spans still buffered and stops the SDK. */
  shutdown: () => Promise<void>;
}

/**
 * Set once, before Nest loads (register.ts), when an OTLP endpoint is configured. Everything that
 * traces checks it first: with tracing off, no span object is made and nothing of the SDK is loaded.
 */
let started: StartedTracing | undefined;

export function tracingStarted(tracing: StartedTracing): void {
  started = tracing;
}

export function tracingOn(): boolean {
  return started !== undefined;
}

/** The route-template hook, when tracing is on. */
export function tracingRouteHook(): StartedTracing['onRequest'] | undefined {
  return started?.onRequest;
}

/**
 * Shutdown: exports what is buffered, for at most `timeoutMs` (shutdown stays bounded: spans not
 * exported by then are lost, never waited for).
 */
export async function stopTracing(timeoutMs: number): Promise<void> {
  if (!started) return;
  const { shutdown } = started;
  started = undefined;
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([shutdown().catch(() => undefined), timeUp]);
  clearTimeout(timer);
}
