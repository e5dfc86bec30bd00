/** What an array parameter's elements may be. */
export type ArrayElement = string | number | Date | null;

/** An element that must be quoted: empty, NULL (any case), or holding what the literal's syntax uses. */
const NEEDS_QUOTES = /^$|^null$|[{}",\\\s]/i;

/**
 * A PostgreSQL array literal (`{a,"b c",NULL}`) of `values`, for a parameter cast to an array type
 * (`$1::text[]`). node-postgres turns a JS array into the same literal itself (`arrayString`), but
 * it quotes and escapes every element with two regular-expression replaces and grows the text one
 * piece at a time: for the array parameters of the claims and the completions that was a fifth of
 * the main thread's allocations at full speed (docs/performance.md). Here an element is quoted
 * only when the syntax needs it, and the text is joined once. Dates are sent in UTC.
 */
export function arrayLiteral(values: readonly ArrayElement[]): string {
  const elements = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) elements[i] = element(values[i]);
  return `{${elements.join(',')}}`;
}

function element(value: ArrayElement): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  const text = typeof value === 'string' ? value : value.toISOString();
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/[\\"]/g, '\\$&')}"` : text;
}
