import { fastifyTrustProxy } from './trust-proxy';

describe('fastifyTrustProxy', () => {
  it('passes booleans and address lists through', () => {
    expect(fastifyTrustProxy(false)).toBe(false);
    expect(fastifyTrustProxy(true)).toBe(true);
    expect(fastifyTrustProxy(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
  });

  it('trusts the nearest `hops` peers, whatever their address, for a hop count', () => {
    const trust = fastifyTrustProxy(2);
    if (typeof trust !== 'function') throw new Error('a hop count must become a function');
    expect([0, 1, 2, 3].map((hop) => trust('203.0.113.7', hop))).toEqual([true, true, false, false]);
    const none = fastifyTrustProxy(0);
    expect(typeof none === 'function' && none('127.0.0.1', 0)).toBe(false);
  });
});
