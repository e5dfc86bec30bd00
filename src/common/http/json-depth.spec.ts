import { fieldWithLoneSurrogate, JsonShapeLimits, readJsonShape } from './json-depth';

const LIMITS: JsonShapeLimits = { maxDepth: 32, maxMembers: 1000, maxValues: 10_000 };
const shape = (text: string, limits: Partial<JsonShapeLimits> = {}) =>
  readJsonShape(Buffer.from(text), { ...LIMITS, ...limits });
const deeperThan = (text: string, maxDepth: number) => shape(text, { maxDepth }) === 'too-deep';

const nested = (depth: number, open = '[', close = ']', inner = '1') =>
  open.repeat(depth) + inner + close.repeat(depth);
const objectOf = (members: number) =>
  JSON.stringify(Object.fromEntries(Array.from({ length: members }, (_, i) => [`k${i}`, i])));

describe('readJsonShape: depth', () => {
  it('counts the top-level array or object as level 1', () => {
    expect(deeperThan('[]', 1)).toBe(false);
    expect(deeperThan('{}', 1)).toBe(false);
    expect(deeperThan('[[]]', 1)).toBe(true);
    expect(deeperThan('"text"', 0)).toBe(false);
    expect(deeperThan('42', 0)).toBe(false);
  });

  it('accepts 32 levels and refuses 33, of arrays, objects or both', () => {
    expect(deeperThan(nested(32), 32)).toBe(false);
    expect(deeperThan(nested(33), 32)).toBe(true);
    const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
    expect(deeperThan(objects(32), 32)).toBe(false);
    expect(deeperThan(objects(33), 32)).toBe(true);
    const mixed = '{"a":[{"b":[{"c":[1]}]}]}'; // 6 levels
    expect(deeperThan(mixed, 6)).toBe(false);
    expect(deeperThan(mixed, 5)).toBe(true);
  });

  it('measures the deepest branch, not the number of brackets', () => {
    const wide = `[${Array.from({ length: 300 }, () => nested(31)).join(',')}]`;
    expect(shape(wide)).toBe('within-limits');
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '['.repeat(100), b: '\\"[[[[', c: ['"{{{{'] });
    expect(deeperThan(text, 2)).toBe(false);
    expect(deeperThan(`[${JSON.stringify('x\\')}, [[1]]]`, 2)).toBe(true);
  });

  it('reads UTF-8 text: multi-byte characters are never brackets or quotes', () => {
    expect(deeperThan(JSON.stringify(['ü€😀"[', ['ß']]), 2)).toBe(false);
    expect(deeperThan(JSON.stringify([['ü€😀"[', ['ß']]]), 2)).toBe(true);
  });

  it('stops early on a very deep body', () => {
    expect(deeperThan(nested(50_000), 32)).toBe(true);
  });
});

describe('readJsonShape: members and values', () => {
  it('accepts 1,000 members in one object and refuses 1,001, at any level', () => {
    expect(shape(objectOf(1000))).toBe('within-limits');
    expect(shape(objectOf(1001))).toBe('too-many-members');
    expect(shape(`{"a":[{"b":${objectOf(1001)}}]}`)).toBe('too-many-members');
    expect(shape(`[${objectOf(1000)},${objectOf(1000)}]`)).toBe('within-limits');
  });

  it('counts members, not commas inside strings or nested objects', () => {
    expect(shape('{"a":",,,,","b":{"c":1,"d":2}}', { maxMembers: 2 })).toBe('within-limits');
    expect(shape('{"a":1,"b":2,"c":3}', { maxMembers: 2 })).toBe('too-many-members');
    expect(shape('{"a":[1,2,3,4,5]}', { maxMembers: 1 })).toBe('within-limits');
  });

  it('counts every value: the top-level one, each element and each member value, nested ones too', () => {
    // {"a":[1,2],"b":{"c":null}}: the object, [1,2], 1, 2, {"c":null}, null = 6 values.
    const text = '{"a":[1,2],"b":{"c":null}}';
    expect(shape(text, { maxValues: 6 })).toBe('within-limits');
    expect(shape(text, { maxValues: 5 })).toBe('too-many-values');
  });

  it('counts an empty array or object as one value, with nothing in it', () => {
    expect(shape('[[],{},[ ],{ }]', { maxValues: 5 })).toBe('within-limits');
    expect(shape('[[],{},[ ],{ }]', { maxValues: 4 })).toBe('too-many-values');
    expect(shape(' [\n\t1 ] ', { maxValues: 2 })).toBe('within-limits');
    expect(shape(' [\n\t1 ] ', { maxValues: 1 })).toBe('too-many-values');
  });

  it('refuses 10,001 values in all and accepts 10,000, however they are spread', () => {
    const array = (n: number) => `[${Array(n).fill('0').join(',')}]`;
    expect(shape(array(9_999))).toBe('within-limits');
    expect(shape(array(10_000))).toBe('too-many-values');
    const objects = (n: number) => `[${Array(n).fill('{"a":1}').join(',')}]`; // 2 values each
    expect(shape(objects(4_999))).toBe('within-limits');
    expect(shape(objects(5_000))).toBe('too-many-values');
  });

  it('stops at the first limit passed, long before the end of a large body', () => {
    const keys = `{${Array.from({ length: 120_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    expect(shape(keys)).toBe('too-many-members');
  });
});

describe('readJsonShape: surrogate escapes', () => {
  it('tells a string with a \\uD800..\\uDFFF escape, in any case, key or value', () => {
    expect(shape('{"a":"x\\ud800y"}')).toBe('surrogate-escape');
    expect(shape('{"a":"\\uDFFF"}')).toBe('surrogate-escape');
    expect(shape('{"\\uDbff":1}')).toBe('surrogate-escape');
    expect(shape('["\\ud83d\\ude00"]')).toBe('surrogate-escape'); // a pair: the parse pass decides
  });

  it('does not flag other escapes, an escaped backslash before "ud800", or text outside strings', () => {
    expect(shape('{"a":"\\u00e9\\ucafe\\u0d80"}')).toBe('within-limits');
    expect(shape('{"a":"\\\\ud800"}')).toBe('within-limits');
    expect(shape(JSON.stringify({ a: '😀' }))).toBe('within-limits');
  });

  it('reports a limit passed before a surrogate escape', () => {
    expect(shape(`["\\ud800",${nested(40)}]`)).toBe('too-deep');
  });
});

describe('fieldWithLoneSurrogate', () => {
  it('names the first string, key or value, with a lone surrogate, by its path', () => {
    expect(fieldWithLoneSurrogate(JSON.parse('{"a":"ok","b":{"c":["x","y\\ud800"]}}'))).toBe('b.c.1');
    expect(fieldWithLoneSurrogate(JSON.parse('{"a":"\\udc00"}'))).toBe('a');
    expect(fieldWithLoneSurrogate(JSON.parse('{"a\\ud800":1}'))).toBe('a\uFFFD');
    expect(fieldWithLoneSurrogate(JSON.parse('"\\ud800"'))).toBe('');
  });

  it('finds nothing in well-formed text, pairs and other values', () => {
    expect(
      fieldWithLoneSurrogate(JSON.parse('{"a":"\\ud83d\\ude00","b":[1,null,true],"c":{}}')),
    ).toBeUndefined();
    expect(fieldWithLoneSurrogate(null)).toBeUndefined();
  });
});
