import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import argon2 from 'argon2';

/**
 * argon2id (contract section 2) with OWASP's recommended cost, m=19 MiB, t=2, p=1: the library's
 * default (64 MiB, t=3, p=4) made each concurrent login hold 64 MiB. Existing hashes carry their
 * own parameters and keep verifying.
 */
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * At most this many hashes at once (one per core): more only queue inside libuv's thread pool,
 * where they would hold back the DNS look-ups and file reads of everything else, and each one
 * holds 19 MiB while it runs.
 */
export const MAX_CONCURRENT_HASHES = Math.max(1, availableParallelism());

/** A first-come, first-served gate of `limit` places. */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get active(): number {
    return this.running;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

const gate = new ConcurrencyGate(MAX_CONCURRENT_HASHES);

export const hashPassword = (password: string): Promise<string> =>
  gate.run(() => argon2.hash(password, ARGON2_OPTIONS));

export const verifyPassword = async (hash: string, password: string): Promise<boolean> => {
  try {
    return await gate.run(() => argon2.verify(hash, password));
  } catch {
    return false;
  }
};

/**
 * A hash of a random password, to verify against when the e-mail is unknown so that an unknown
 * e-mail costs the same time as a wrong password (no account enumeration: contract section 3).
 * AuthService makes it at start-up: made on first use, the first unknown e-mail paid a hash too.
 */
export const hashOfRandomPassword = (): Promise<string> => hashPassword(randomBytes(24).toString('base64'));
