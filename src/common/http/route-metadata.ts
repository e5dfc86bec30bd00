import type { ExecutionContext, Type } from '@nestjs/common';

type Handler = (...args: never[]) => unknown;

/**
 * What a guard derives from a route's decorators, computed on the route's first request and kept:
 * decorator metadata never changes after start-up, and each Reflector look-up walks
 * reflect-metadata's maps (a dozen of them per request was 7 % of the CPU of GET /auth/me).
 * Keyed by controller class and handler, since a handler inherited by another controller may
 * carry other class-level metadata there.
 */
export class RouteMetadataCache<T> {
  private readonly byClass = new WeakMap<Type, WeakMap<Handler, T>>();

  constructor(private readonly compute: (targets: [Handler, Type]) => T) {}

  get(context: ExecutionContext): T {
    const handler = context.getHandler() as Handler;
    const controller = context.getClass();
    let handlers = this.byClass.get(controller);
    if (!handlers) this.byClass.set(controller, (handlers = new WeakMap()));
    if (handlers.has(handler)) return handlers.get(handler)!;
    const value = this.compute([handler, controller]);
    handlers.set(handler, value);
    return value;
  }
}
