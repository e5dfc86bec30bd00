import { SetMetadata } from '@nestjs/common';

export const LOGIN_RATE_LIMIT = 'rate-limit:login';
/** The login limit (per client IP) applies here instead of the per-token API limit. */
export const LoginRateLimit = () => SetMetadata(LOGIN_RATE_LIMIT, true);

export const NO_RATE_LIMIT = 'rate-limit:none';
/** Never rate limited (health, API docs). */
export const NoRateLimit = () => SetMetadata(NO_RATE_LIMIT, true);

export const LOGIN_THROTTLER = 'login';
export const API_THROTTLER = 'api';
