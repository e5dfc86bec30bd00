import { arrayLiteral } from './array-literal';

// What PostgreSQL makes of these literals is checked against a server in
// test/completion-plans.e2e-spec.ts; here, which elements are quoted.
describe('arrayLiteral', () => {
  it('leaves numbers and plain words unquoted, NULL for null', () => {
    expect(arrayLiteral([1, -2, 3.5, null, 'SUCCESS', 'tenant-1'])).toBe('{1,-2,3.5,NULL,SUCCESS,tenant-1}');
  });

  it('quotes what the syntax would read otherwise, escaping backslashes and double quotes', () => {
    expect(arrayLiteral(['', 'NULL', 'Null', 'a b', 'a,b', '{a}', 'say "hi"', 'back\\slash'])).toBe(
      '{"","NULL","Null","a b","a,b","{a}","say \\"hi\\"","back\\\\slash"}',
    );
  });

  it('sends a time in UTC with its milliseconds', () => {
    expect(arrayLiteral([new Date('2026-01-02T03:04:05.678Z')])).toBe('{2026-01-02T03:04:05.678Z}');
  });

  it('is {} for no elements', () => {
    expect(arrayLiteral([])).toBe('{}');
  });
});
