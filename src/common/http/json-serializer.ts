/**
 * The reply serializer (app.factory.ts): JSON.stringify, except that a bigint is written as its
 * exact digits. Only the envelope of a page past Number.MAX_SAFE_INTEGER holds one (`number`: any
 * page is valid, contract section 4); every other reply takes JSON.stringify's path unchanged.
 */
export function serializeJson(payload: unknown): string {
  try {
    return JSON.stringify(payload);
  } catch (error) {
    if (!(error instanceof TypeError && /BigInt/.test(error.message))) throw error;
    return stringifyWithBigInts(payload) ?? 'null';
  }
}

/** JSON.stringify's rules (toJSON, undefined and functions left out or null), plus bigints. */
function stringifyWithBigInts(value: unknown): string | undefined {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value) as string | undefined;
  const { toJSON } = value as { toJSON?: unknown };
  if (typeof toJSON === 'function') return stringifyWithBigInts(toJSON.call(value));
  if (Array.isArray(value)) return `[${value.map((item) => stringifyWithBigInts(item) ?? 'null').join(',')}]`;
  const members: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const text = stringifyWithBigInts(item);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
