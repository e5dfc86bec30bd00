import { SetMetadata } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';

export const LOGIN_RATE_LIMIT = 'rate-limit:login';
/** The login limit (per client IP) applies here instead of the per-token API limit. */
export const LoginRateLimit = () => SetMetadata(LOGIN_RATE_LIMIT, true);

export const LOGIN_THROTTLER = 'login';
export const API_THROTTLER = 'api';

/** Never rate limited (health, API docs): skips both named limits. */
export const NoRateLimit = () => SkipThrottle({ [API_THROTTLER]: true, [LOGIN_THROTTLER]: true });
