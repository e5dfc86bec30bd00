import { jsonNestedDeeperThan as deeperThan } from './json-depth';

const jsonNestedDeeperThan = (text: string, maxDepth: number) => deeperThan(Buffer.from(text), maxDepth);

const nested = (depth: number, open = '[', close = ']', inner = '1') =>
  open.repeat(depth) + inner + close.repeat(depth);

describe('jsonNestedDeeperThan', () => {
  it('counts the top-level array or object as level 1', () => {
    expect(jsonNestedDeeperThan('[]', 1)).toBe(false);
    expect(jsonNestedDeeperThan('{}', 1)).toBe(false);
    expect(jsonNestedDeeperThan('[[]]', 1)).toBe(true);
    expect(jsonNestedDeeperThan('"text"', 0)).toBe(false);
    expect(jsonNestedDeeperThan('42', 0)).toBe(false);
  });

  it('accepts 32 levels and refuses 33, of arrays, objects or both', () => {
    expect(jsonNestedDeeperThan(nested(32), 32)).toBe(false);
    expect(jsonNestedDeeperThan(nested(33), 32)).toBe(true);
    const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
    expect(jsonNestedDeeperThan(objects(32), 32)).toBe(false);
    expect(jsonNestedDeeperThan(objects(33), 32)).toBe(true);
    const mixed = '{"a":[{"b":[{"c":[1]}]}]}'; // 6 levels
    expect(jsonNestedDeeperThan(mixed, 6)).toBe(false);
    expect(jsonNestedDeeperThan(mixed, 5)).toBe(true);
  });

  it('measures the deepest branch, not the number of brackets', () => {
    const wide = `[${Array.from({ length: 1000 }, () => nested(31)).join(',')}]`;
    expect(jsonNestedDeeperThan(wide, 32)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '['.repeat(100), b: '\\"[[[[', c: ['"{{{{'] });
    expect(jsonNestedDeeperThan(text, 2)).toBe(false);
    expect(jsonNestedDeeperThan(`[${JSON.stringify('x\\')}, [[1]]]`, 2)).toBe(true);
  });

  it('reads UTF-8 text: multi-byte characters are never brackets or quotes', () => {
    expect(jsonNestedDeeperThan(JSON.stringify(['ü€😀"[', ['ß']]), 2)).toBe(false);
    expect(jsonNestedDeeperThan(JSON.stringify([['ü€😀"[', ['ß']]]), 2)).toBe(true);
  });

  it('stops early on a very deep body', () => {
    expect(jsonNestedDeeperThan(nested(50_000), 32)).toBe(true);
  });
});
