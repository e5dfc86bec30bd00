import { bearerToken } from './bearer-token';

describe('bearerToken', () => {
  const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjF9.c2lnbmF0dXJl-_~+/=';

  it.each(['Bearer', 'bearer', 'BEARER'])('takes the token after "%s "', (scheme) => {
    expect(bearerToken(`${scheme} ${token}`)).toBe(token);
  });

  it.each([
    `Bearer ${token} x1`,
    `Bearer  ${token}`,
    `Bearer\t${token}`,
    ` Bearer ${token}`,
    `Bearer ${token} `,
    `Bearer ${token}=.x`,
    `Bearer ${token},`,
    `Bearer "${token}"`,
    'Bearer ',
    'Bearer',
    token,
    `Basic ${token}`,
  ])('refuses %j', (header) => {
    expect(bearerToken(header)).toBeUndefined();
  });

  it('refuses what is not one string', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken([`Bearer ${token}`])).toBeUndefined();
  });
});
