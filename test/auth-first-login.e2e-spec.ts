import argon2 from 'argon2';
import { startTestApp, uniq } from './support/test-app';

/**
 * Contract section 3: an unknown e-mail costs about the time of a wrong password, the first one
 * included. In a file of its own: the application under test must be the first of this module
 * registry to see an unknown e-mail (a hash made on first use would otherwise be made already).
 */
it('pays one argon2 verification and no hashing on the first unknown e-mail: its hash was made at start-up', async () => {
  const t = await startTestApp();
  const hash = jest.spyOn(argon2, 'hash');
  const verify = jest.spyOn(argon2, 'verify');
  try {
    await t
      .http()
      .post('/auth/login')
      .send({ email: `${uniq('ghost')}@example.com`, password: 'whatever-password' })
      .expect(401);
    expect(hash).not.toHaveBeenCalled();
    expect(verify).toHaveBeenCalledTimes(1);
    expect(String(verify.mock.calls[0][0])).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    await expect(verify.mock.results[0].value).resolves.toBe(false);
  } finally {
    hash.mockRestore();
    verify.mockRestore();
    await t.close();
  }
});
