import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage } from '@nestjs/throttler';
import type { CountingStorage } from './fixed-window.storage';
import { clientKey } from './client-address';
import { rateLimitKey } from './rate-limit-key';

const MINUTE_MS = 60_000;

/** The password-guessing limits of contract section 8: failed logins for one e-mail. */
export const LOGIN_GUESSING_LIMITS = [
  { name: 'login-email-ip', limit: 10, ttl: 15 * MINUTE_MS, byClient: true },
  { name: 'login-email', limit: 100, ttl: 60 * MINUTE_MS, byClient: false },
] as const;

type GuessingLimit = (typeof LOGIN_GUESSING_LIMITS)[number];

/**
 * Failed logins per e-mail, from one client (10 in 15 minutes) and from all (100 in an hour), in
 * the rate limits' storage (memory, or Redis shared by the instances). Known and unknown e-mails
 * are counted alike, so a 429 says nothing about an account. The e-mail is hashed into the key,
 * lower-cased as the login compares it.
 */
@Injectable()
export class LoginAttemptsService {
  constructor(@InjectThrottlerStorage() private readonly storage: CountingStorage) {}

  /** Milliseconds until a login for this e-mail from this client may be tried again; 0 when it may now. */
  async blockedFor(email: string, ip: string): Promise<number> {
    let wait = 0;
    for (const rule of LOGIN_GUESSING_LIMITS) {
      const { hits, msToExpire } = await this.storage.peek(this.key(rule, email, ip), rule.name);
      if (hits >= rule.limit) wait = Math.max(wait, msToExpire);
    }
    return wait;
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    for (const rule of LOGIN_GUESSING_LIMITS) {
      // Counted past the limit too (the window is what ends the block): no block of the storage's own.
      await this.storage.increment(
        this.key(rule, email, ip),
        rule.ttl,
        Number.MAX_SAFE_INTEGER,
        0,
        rule.name,
      );
    }
  }

  private key(rule: GuessingLimit, email: string, ip: string): string {
    const account = createHash('sha256').update(email.toLowerCase()).digest('base64url').slice(0, 32);
    return rateLimitKey(rule.name, rule.byClient ? `${account}:ip:${clientKey(ip)}` : account);
  }
}
