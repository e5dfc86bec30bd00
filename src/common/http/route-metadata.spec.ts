import { Controller, Get, SetMetadata } from '@nestjs/common';
import type { ExecutionContext, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadataCache } from './route-metadata';

const MARK = 'test:mark';

@SetMetadata(MARK, 'base')
@Controller('base')
class BaseController {
  @Get('a')
  a(): void {}

  @SetMetadata(MARK, 'route')
  @Get('b')
  b(): void {}
}

@SetMetadata(MARK, 'derived')
@Controller('derived')
class DerivedController extends BaseController {}

const contextOf = (controller: Type, handler: (...args: never[]) => unknown) =>
  ({ getClass: () => controller, getHandler: () => handler }) as unknown as ExecutionContext;

describe('RouteMetadataCache', () => {
  const reflector = new Reflector();

  it('computes once per route and keeps the handler-over-class precedence of the Reflector', () => {
    let computed = 0;
    const cache = new RouteMetadataCache((targets) => {
      computed++;
      return reflector.getAllAndOverride<string>(MARK, targets);
    });
    const a = contextOf(BaseController, BaseController.prototype.a);
    const b = contextOf(BaseController, BaseController.prototype.b);
    expect([cache.get(a), cache.get(a), cache.get(b), cache.get(b)]).toEqual([
      'base',
      'base',
      'route',
      'route',
    ]);
    expect(computed).toBe(2);
  });

  it('keeps an inherited handler apart per controller (class-level metadata differs)', () => {
    const cache = new RouteMetadataCache((targets) => reflector.getAllAndOverride<string>(MARK, targets));
    expect(cache.get(contextOf(BaseController, BaseController.prototype.a))).toBe('base');
    expect(cache.get(contextOf(DerivedController, DerivedController.prototype.a))).toBe('derived');
    expect(cache.get(contextOf(DerivedController, DerivedController.prototype.b))).toBe('route');
  });

  it('caches an undefined result too', () => {
    let computed = 0;
    const cache = new RouteMetadataCache(() => {
      computed++;
      return undefined;
    });
    const a = contextOf(BaseController, BaseController.prototype.a);
    expect([cache.get(a), cache.get(a)]).toEqual([undefined, undefined]);
    expect(computed).toBe(1);
  });
});
