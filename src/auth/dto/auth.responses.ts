import { halLinks, HalLinks } from '../../common/hal/hal';
import { renderRole } from '../../common/reference/enums';
import type { AuthenticatedUser } from '../authenticated-user';

/** Login response (spec). */
export interface LoginResponse {
  token: string;
  expiresIn: number;
}

/** Current user (spec, GET /auth/me). */
export interface MeResponse {
  user: string;
  isValidToken: boolean;
  isAdministrator: boolean;
  otherInformation: { hub: boolean; partnerName: string; userName: string; partnerId: number };
  role: string;
  _links: HalLinks;
}

export function toMeResponse(user: AuthenticatedUser): MeResponse {
  return {
    user: user.email,
    isValidToken: true,
    isAdministrator: user.isAdministrator,
    otherInformation: {
      hub: user.hub,
      partnerName: user.partnerName,
      userName: user.userName,
      partnerId: user.partnerId,
    },
    role: renderRole(user.role),
    _links: halLinks({ self: '/auth/me' }),
  };
}
