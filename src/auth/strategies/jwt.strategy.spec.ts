import { createSecretKey } from 'node:crypto';
import { UnauthorizedException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../../common/auth/authenticated-user';
import type { JwtKeyProvider } from '../jwt-key.provider';
import type { UserCheckService } from '../user-check.service';
import { JwtStrategy } from './jwt.strategy';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjd9.c2lnbmF0dXJl';
const user = { id: 7 } as AuthenticatedUser;

function strategy() {
  const check = jest.fn((_id: number, _version: number) => Promise.resolve(user));
  const key = { key: createSecretKey(Buffer.from('a-test-secret-of-some-length')) } as JwtKeyProvider;
  const jwt = new JwtStrategy(key, { check } as unknown as UserCheckService);
  const request = { headers: { authorization: `Bearer ${TOKEN}` } } as FastifyRequest;
  return { jwt, check, request };
}

describe('JwtStrategy.verifiedUser: the guard path for tokens verified before', () => {
  afterEach(() => jest.restoreAllMocks());

  it('knows no token before passport-jwt has verified it', () => {
    const { jwt, check } = strategy();
    expect(jwt.verifiedUser(TOKEN)).toBeUndefined();
    expect(jwt.verifiedUser(undefined)).toBeUndefined();
    expect(check).not.toHaveBeenCalled();
  });

  it('checks the user again on every use of a verified token (revocation, disabling)', async () => {
    const { jwt, check, request } = strategy();
    const exp = Math.floor(Date.now() / 1000) + 60;
    await expect(jwt.validate(request, { sub: 7, ver: 3, exp, jti: 'token-1' })).resolves.toBe(user);
    await expect(jwt.verifiedUser(TOKEN)).resolves.toBe(user);
    await expect(jwt.verifiedUser(TOKEN)).resolves.toBe(user);
    expect(check.mock.calls).toEqual([
      [7, 3, 'token-1'],
      [7, 3, 'token-1'],
      [7, 3, 'token-1'],
    ]);
    // Another token text (a changed signature) is not the verified one.
    expect(jwt.verifiedUser(TOKEN.slice(0, -1) + 'f')).toBeUndefined();
  });

  it('passes a refusal of the user check on', async () => {
    const { jwt, check, request } = strategy();
    await jwt.validate(request, { sub: 7, ver: 0, exp: Math.floor(Date.now() / 1000) + 60 });
    check.mockRejectedValueOnce(new UnauthorizedException('Invalid or expired token'));
    await expect(jwt.verifiedUser(TOKEN)).rejects.toBeInstanceOf(UnauthorizedException);
  });

  it('hands a token back to passport-jwt from the second its exp is reached, as passport-jwt refuses it', async () => {
    const { jwt, request } = strategy();
    const exp = Math.floor(Date.now() / 1000) + 60;
    await jwt.validate(request, { sub: 7, ver: 0, exp });
    jest.spyOn(Date, 'now').mockReturnValue(exp * 1000 - 1);
    await expect(jwt.verifiedUser(TOKEN)).resolves.toBe(user);
    jest.spyOn(Date, 'now').mockReturnValue(exp * 1000);
    expect(jwt.verifiedUser(TOKEN)).toBeUndefined();
    // Dropped, not only skipped: a clock set back does not bring it back.
    jest.spyOn(Date, 'now').mockReturnValue(exp * 1000 - 1);
    expect(jwt.verifiedUser(TOKEN)).toBeUndefined();
  });

  it('keeps no token whose claims the user check refuses', async () => {
    const { jwt, request } = strategy();
    await expect(jwt.validate(request, { sub: 7, ver: 0 })).rejects.toBeInstanceOf(UnauthorizedException);
    await expect(
      jwt.validate(request, { sub: 0, ver: 0, exp: Math.floor(Date.now() / 1000) + 60 }),
    ).rejects.toBeInstanceOf(UnauthorizedException);
    expect(jwt.verifiedUser(TOKEN)).toBeUndefined();
  });
});
