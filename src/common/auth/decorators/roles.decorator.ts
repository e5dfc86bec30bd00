import { SetMetadata } from '@nestjs/common';
import type { UserRole } from '../../reference/enums';

export const ROLES = 'auth:roles';
export const ADMIN_ONLY = 'auth:admin-only';

/** Roles allowed besides administrators, who act on every tenant (contract section 3). */
export const Roles = (...roles: UserRole[]) => SetMetadata(ROLES, roles);
/** Administrators only; everyone else gets 403 (contract section 2). */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);
