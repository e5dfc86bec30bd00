import { serializeJson } from './json-serializer';

describe('serializeJson', () => {
  it('is JSON.stringify for a payload without bigints', () => {
    const payload = {
      a: [1, 'two', null, undefined, () => 3],
      b: undefined,
      c: new Date(Date.UTC(2026, 0, 2)),
      d: { e: true, f: Number.NaN },
    };
    expect(serializeJson(payload)).toBe(JSON.stringify(payload));
  });

  it('writes a bigint with its exact digits, following the same rules for the rest', () => {
    const digits = '9'.repeat(30);
    const payload = {
      number: BigInt(digits),
      size: 20,
      a: [1n, undefined, 'x"y'],
      b: undefined,
      c: new Date(Date.UTC(2026, 0, 2)),
      'k"ey': { f: Number.NaN, g: () => 1 },
    };
    expect(serializeJson(payload)).toBe(
      `{"number":${digits},"size":20,"a":[1,null,"x\\"y"],"c":"2026-01-02T00:00:00.000Z","k\\"ey":{"f":null}}`,
    );
  });

  it('still refuses a circular structure', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => serializeJson(circular)).toThrow(TypeError);
  });
});
