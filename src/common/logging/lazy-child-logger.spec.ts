import { Writable } from 'node:stream';
import { createRootLogger } from './logger';
import { LazyChildLogger, lazyChildLoggerFactory } from './lazy-child-logger';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('LazyChildLogger', () => {
  it('makes the child on the first line at an enabled level, with its bindings and redaction', () => {
    const { lines, stream } = capture();
    const root = createRootLogger('info', stream);
    const child = jest.spyOn(root, 'child');
    const log = new LazyChildLogger(root, { requestId: 'r-1' });

    log.debug('not written');
    log.trace({ token: 'x' }, 'nor this');
    expect(child).not.toHaveBeenCalled();
    expect(log.level).toBe('info');

    log.info({ password: 'secret', user: 7 }, 'first');
    log.warn('second');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toMatchObject([
      { level: 30, requestId: 'r-1', password: '[redacted]', user: 7, msg: 'first' },
      { level: 40, requestId: 'r-1', msg: 'second' },
    ]);
  });

  it('takes a level of its own, and hands out children of the real child', () => {
    const { lines, stream } = capture();
    const log = new LazyChildLogger(createRootLogger('info', stream), { requestId: 'r-2' });
    log.level = 'debug';
    log.debug('now written');
    log.child({ part: 'inner' }).info('nested');
    expect(lines).toMatchObject([
      { level: 20, requestId: 'r-2', msg: 'now written' },
      { level: 30, requestId: 'r-2', part: 'inner', msg: 'nested' },
    ]);
  });
});

describe('lazyChildLoggerFactory', () => {
  const root = createRootLogger('info', capture().stream);
  const make = (options: object) =>
    lazyChildLoggerFactory.call(
      undefined as never,
      root as never,
      { requestId: 'r-3' },
      options as never,
      undefined as never,
    );

  it('is lazy for the options Fastify passes on every request when the route sets no log options', () => {
    expect(make({})).toBeInstanceOf(LazyChildLogger);
    expect(make({ level: '' })).toBeInstanceOf(LazyChildLogger);
    expect(make({ level: undefined })).toBeInstanceOf(LazyChildLogger);
    expect(make({ level: 'info' })).toBeInstanceOf(LazyChildLogger);
  });

  it("makes a real child when the route's level or serialisers differ", () => {
    const debug = make({ level: 'debug' });
    expect(debug).not.toBeInstanceOf(LazyChildLogger);
    expect(debug.level).toBe('debug');
    expect(make({ level: '', serializers: { req: () => 'r' } })).not.toBeInstanceOf(LazyChildLogger);
  });
});
