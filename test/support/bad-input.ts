import fc from 'fast-check';
import type { JsonSchema } from './openapi-operations';

/** Strings a careless or hostile client sends; each family is labelled for the failure report. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc
    .constantFrom('\ud800', '\udfff', 'a\ud83d', '\ude00b')
    .chain((lone) =>
      fc.tuple(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 })).map(([a, b]) => a + lone + b),
    ),
  fc.string({ maxLength: 6 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom('\u202e', '\u200f', '\u2066', '\u200b', '\ufeff').map((mark) => `${mark}abc${mark}`),
  fc.constantFrom(256, 1001).chain((n) => fc.constantFrom('a', 'é', '9').map((c) => c.repeat(n))),
  fc
    .constantFrom('🚀', '👩‍👩‍👧', '🇧🇷', 'e\u0301')
    .chain((e) => fc.integer({ min: 1, max: 300 }).map((n) => e.repeat(n))),
  fc.constantFrom('', ' ', '\t', '\r\n', 'null', 'undefined', '0', '-1', 'NaN', 'true', '[]', '{}'),
  fc.constantFrom("' OR 1=1 --", '%', '_', '\\', '../../etc/passwd', '<script>', '${x}', '__proto__'),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** Numbers at and past the edges of what an id, a count or a price can hold. */
export const boundaryNumber: fc.Arbitrary<number> = fc.constantFrom(
  0,
  -1,
  1.5,
  -0.5,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e308,
  -1e308,
  5e-324,
);

/** The same, as a client writes them in a path or a query string. */
export const boundaryNumberText: fc.Arbitrary<string> = fc.oneof(
  boundaryNumber.map(String),
  fc.constantFrom('NaN', 'Infinity', '-0', '1e3', '0x10', '010', ' 1', '1 ', '+1', '1_000', '９'),
  fc.constantFrom('99999999999999999999999999', '1'.repeat(300)),
);

/** Any JSON value of the wrong kind for a field: odd strings and numbers, null, arrays, objects. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  oddString,
  boundaryNumber,
  fc.constantFrom(null, true, false, [], {}, [null], ['x'], { a: 1 }, [[[]]]),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Body-level values that are not an object where an object is expected. */
export const nonObjectBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('null', '[]', '[{}]', '"x"', '""', '0', '1.5', 'true', 'false'),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }).map((a) => JSON.stringify(a)),
  oddString.map((s) => JSON.stringify(s)),
);

/** Names of fields no schema has (`x`-prefixed, so never a read-only field the service ignores). */
export const unknownFieldName: fc.Arbitrary<string> = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }).map((s) => `x${s}`),
  fc.constantFrom('x'.repeat(255), 'x\ud800', 'x\u0000', 'x.y', 'x[0]', 'x-é-🚀'),
);

/** Many unknown fields at once: an error body naming each would outgrow 16 KiB. */
export const unknownFields: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.dictionary(unknownFieldName, oddValue, { minKeys: 1, maxKeys: 3 }),
  fc
    .tuple(fc.integer({ min: 60, max: 400 }), fc.integer({ min: 20, max: 200 }))
    .map(([count, nameLength]) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [`x${String(i).padStart(nameLength, '0')}`, i]),
      ),
    ),
);

/** Whether a string has a UTF-16 code unit that is half of a pair without its other half. */
export function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

const jsonType = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

/**
 * Why the schema refuses the value, when that is plain from the schema alone: the wrong JSON type,
 * a length or a bound exceeded, a value outside the enumeration, a fraction where an integer goes.
 * Formats and patterns are left to the service (no verdict here). Lengths are judged only for
 * strings without surrogate pairs, where characters and UTF-16 units agree.
 */
export function schemaViolation(schema: JsonSchema, value: unknown): string | undefined {
  const type = jsonType(value);
  if (value === null) return schema.nullable ? undefined : 'null where the schema has no null';
  if (schema.enum && !schema.enum.includes(value)) return 'not one of the enumeration';
  const expected = schema.type ?? (schema.properties ? 'object' : undefined);
  if (expected === 'integer' || expected === 'number') {
    if (type !== 'number') return `a ${type} where a number goes`;
    const n = value as number;
    if (expected === 'integer' && !Number.isInteger(n)) return 'a fraction where an integer goes';
    if (schema.minimum !== undefined && n < schema.minimum) return `below ${schema.minimum}`;
    if (schema.maximum !== undefined && n > schema.maximum) return `above ${schema.maximum}`;
    return undefined;
  }
  if (expected && expected !== type) return `a ${type} where a ${expected} goes`;
  if (type === 'string' && !/[\ud800-\udfff]/.test(value as string)) {
    const length = (value as string).length;
    if (schema.maxLength !== undefined && length > schema.maxLength) return `longer than ${schema.maxLength}`;
    if (schema.minLength !== undefined && length < schema.minLength)
      return `shorter than ${schema.minLength}`;
  }
  return undefined;
}
