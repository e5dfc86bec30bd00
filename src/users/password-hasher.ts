import argon2 from 'argon2';

/**
 * argon2id (contract section 2) with OWASP's recommended cost, m=19 MiB, t=2, p=1: the library's
 * default (64 MiB, t=3, p=4) made each concurrent login hold 64 MiB. Existing hashes carry their
 * own parameters and keep verifying.
 */
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, ARGON2_OPTIONS);

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
