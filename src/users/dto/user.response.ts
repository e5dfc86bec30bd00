import { halLinks, HalLinks } from '../../common/hal/hal';
import type { UserRole } from '../../common/reference/enums';
import type { User } from '../user.entity';

/** A user as the admin endpoints return it: never the password or its hash. */
export interface UserResponse {
  id: number;
  email: string;
  role: UserRole;
  isAdministrator: boolean;
  hub: boolean;
  tenant: string;
  partnerId: number;
  partnerName: string;
  userName: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  _links: HalLinks;
}

export function toUserResponse(user: User): UserResponse {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    isAdministrator: user.isAdministrator,
    hub: user.hub,
    tenant: user.tenant,
    partnerId: user.partnerId,
    partnerName: user.partnerName,
    userName: user.userName,
    enabled: user.enabled,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
    _links: halLinks({ self: `/admin/users/${user.id}` }),
  };
}
