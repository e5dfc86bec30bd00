import type { UserRole } from '../reference/enums';

/** What the JWT guard puts on the request, read fresh from the users table (within the cache bound). */
export interface AuthenticatedUser {
  id: number;
  email: string;
  role: UserRole;
  isAdministrator: boolean;
  tenant: string;
  hub: boolean;
  partnerId: number;
  partnerName: string;
  userName: string;
}

/** Claims of our HS256 tokens (contract section 3). */
export interface TokenClaims {
  sub: number;
  tenant: string;
  role: UserRole;
  adm: boolean;
  /** The user's token version when it was issued (contract section 8, Revocation). */
  ver: number;
  /** The token's own id, by which it is logged out (contract section 8, Logout). */
  jti: string;
}
