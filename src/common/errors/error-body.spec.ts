import { errorBody, FieldError, moreThanListed } from './error-body';
import { ValidationFailedException } from './validation-failed.exception';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('errorBody', () => {
  it('stays within 16 KiB however long and however escaped what it repeats is', () => {
    const worst = (n: number) => '€\u0001"\\\ud800'.repeat(n);
    const errors: FieldError[] = Array.from({ length: 5_000 }, () => ({
      field: worst(5_000),
      message: worst(5_000),
    }));
    const body = errorBody(431, worst(50_000), `/${worst(5_000)}`, 'r'.repeat(128), errors);
    expect(body.errors).toHaveLength(20);
    expect(bytes(body)).toBeLessThanOrEqual(16 * 1024);
    const euros = (n: number) => '€'.repeat(n);
    const widest = errorBody(
      431,
      euros(50_000),
      euros(50_000),
      'r'.repeat(128),
      Array(20).fill({ field: euros(999), message: euros(999) }),
    );
    expect(bytes(widest)).toBeLessThanOrEqual(16 * 1024);
  });

  it('shows control characters and lone surrogates as U+FFFD, and marks a cut', () => {
    const body = errorBody(400, 'a\u0000b\ud800c😀', `/${'p'.repeat(600)}`, 'id', [
      { field: 'f\u001f', message: 'm' },
    ]);
    expect(body.message).toBe('a\uFFFDb\uFFFDc😀');
    expect(body.path).toBe(`/${'p'.repeat(510)}…`);
    expect(body.errors).toEqual([{ field: 'f\uFFFD', message: 'm' }]);
  });

  it('leaves an ordinary body as it is', () => {
    expect(errorBody(404, 'Cannot GET /x', '/x', 'id')).toEqual({
      timestamp: expect.any(String),
      status: 404,
      error: 'Not Found',
      message: 'Cannot GET /x',
      path: '/x',
      requestId: 'id',
    });
  });
});

describe('ValidationFailedException', () => {
  const problems = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ field: `f${i}`, message: `f${i} is wrong` }));

  it('names 20 fields, then how many more', () => {
    expect(new ValidationFailedException(problems(1)).message).toBe('Validation failed: f0');
    expect(new ValidationFailedException(problems(20)).message).toMatch(/: f0, .*, f19$/);
    expect(new ValidationFailedException(problems(1_001)).message).toMatch(/: f0, .*, f19 and 981 more$/);
    expect(moreThanListed(20)).toBe('');
  });
});
