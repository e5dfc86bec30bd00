import argon2 from 'argon2';

/** argon2id with the library's defaults (64 MiB, t=3, p=4): contract section 2. */
export const hashPassword = (password: string): Promise<string> =>
  argon2.hash(password, { type: argon2.argon2id });

export const verifyPassword = async (hash: string, password: string): Promise<boolean> => {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
};

let dummy: Promise<string> | undefined;
/**
 * A hash to verify against when the e-mail is unknown, so that an unknown e-mail costs the same
 * time as a wrong password (no account enumeration: contract section 3).
 */
export const dummyHash = (): Promise<string> =>
  (dummy ??= hashPassword('not-a-real-password-' + Math.random()));
