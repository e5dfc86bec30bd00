import { clientKey } from './client-address';

describe('clientKey', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff::1', '2001:db8:1:2::/64'],
    ['::1', '::/64'],
  ])('%s counts as %s', (ip, key) => {
    expect(clientKey(ip)).toBe(key);
  });

  it('puts two addresses of one /64 together and of two /64s apart', () => {
    expect(clientKey('2001:db8::1')).toBe(clientKey('2001:db8::ffff:1'));
    expect(clientKey('2001:db8:0:1::1')).not.toBe(clientKey('2001:db8::1'));
  });
});
